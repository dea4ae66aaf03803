package synth_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/datasets/synth"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

func ExampleSynthesize() {
	// A fake OpenAI-compatible server stands in for the LLM: it writes a
	// question for each generation prompt and passes every verification.
	fake := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if strings.HasPrefix(c.LastUser, "Decide whether") {
			return `{"supported": true}`
		}
		return `{"question": "When do the garden gates open?", "answer": "at seven in the morning"}`
	}})
	defer fake.Close()
	client, err := llm.New(llm.Config{BaseURL: fake.URL, APIKey: "test", Model: "test-model"})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The folder of documents: os.DirFS("docs") in a real program.
	docs := fstest.MapFS{
		"guide.md":   {Data: []byte("The garden gates open at seven in the morning.")},
		"notes.xlsx": {Data: []byte("not read")},
	}
	res, err := synth.Synthesize(context.Background(), client, docs, ".", synth.Options{N: 1, Mix: "factoid=1", Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Rows[0].Metadata["prompt_sha256"] = "…" // shortened for the example
	if err := datasets.WriteJSONL(os.Stdout, res.Rows); err != nil {
		fmt.Println(err)
	}
	fmt.Println("planned:", res.Planned, "dropped:", res.Dropped)
	fmt.Println("skipped:", res.Skipped)
	// Output:
	// {"id":"synth-0001","question":"When do the garden gates open?","answer":"at seven in the morning","contexts":["The garden gates open at seven in the morning."],"metadata":{"model":"test-model","prompt_id":"factoid-v1","prompt_sha256":"…","question_type":"factoid","seed":42,"source_doc_ids":["guide.md"],"synthetic":true,"unanswerable":false}}
	// planned: 1 dropped: map[]
	// skipped: [notes.xlsx: unsupported file type .xlsx]
}

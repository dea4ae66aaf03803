package synth_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/synth"
	"github.com/lasagna-go/lasagna/llm"
)

func ExampleMakePlan() {
	docs := []lasagna.Document{
		{ID: "guide.md", Text: "The garden gates open at seven in the morning and close at nine in the evening."},
		{ID: "faq.txt", Text: "A plot costs 45 euros per season; the gates close at six in winter."},
	}
	mix, _ := synth.ParseMix("factoid=0.5,multihop=0.5")
	plan, err := synth.MakePlan(docs, synth.Options{N: 2, Mix: mix, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d documents, %d passages, %d LLM calls\n", plan.Documents, plan.Passages, plan.Calls())
	for _, q := range plan.Questions {
		var ids []string
		for _, p := range q.Sources {
			ids = append(ids, p.ID)
		}
		fmt.Println(q.Type, q.Prompt.ID, ids)
	}
	// Output:
	// 2 documents, 2 passages, 4 LLM calls
	// factoid factoid-v1 [guide.md#0]
	// multihop multihop-v1 [guide.md#0 faq.txt#0]
}

func ExampleSynthesize() {
	// A fake OpenAI-compatible server stands in for the LLM: it writes a
	// question for the generation prompt and passes the verification.
	fake := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if strings.HasPrefix(c.LastUser, "Decide whether") {
			return `{"supported": true}`
		}
		return `{"question": "When do the garden gates open?", "answer": "at seven in the morning"}`
	}})
	defer fake.Close()
	client, _ := llm.New(llm.Config{BaseURL: fake.URL, APIKey: "test", Model: "test-model"})

	docs := []lasagna.Document{{ID: "guide.md", Text: "The garden gates open at seven in the morning."}}
	res, err := synth.Synthesize(context.Background(), client, docs, synth.Options{N: 1, Mix: synth.Mix{Factoid: 1}, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Rows[0].Metadata["prompt_sha256"] = "…" // shortened for the example
	if err := datasets.WriteJSONL(os.Stdout, res.Rows); err != nil {
		fmt.Println(err)
	}
	fmt.Println("dropped:", res.Dropped)
	// Output:
	// {"id":"synth-0001","question":"When do the garden gates open?","answer":"at seven in the morning","contexts":["The garden gates open at seven in the morning."],"metadata":{"model":"test-model","prompt_id":"factoid-v1","prompt_sha256":"…","question_type":"factoid","seed":42,"source_doc_ids":["guide.md"],"synthetic":true,"unanswerable":false}}
	// dropped: map[]
}

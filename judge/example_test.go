package judge_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

func Example() {
	// A fake OpenAI-compatible server stands in for the judge model; it
	// answers "gpt-4o" as the dated snapshot "gpt-4o-2024-08-06".
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"},
		Answers: map[string]string{
			"Reference answer:": `{"verdict": "correct", "reason": "same person"}`,
			"Answer to check:":  `{"verdict": "supported"}`,
		},
	})
	defer srv.Close()
	client, _ := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k"})
	j, _ := judge.New(client, judge.Config{Model: "gpt-4o"})

	q := lasagna.Query{Text: "Who introduced the solidus?", Answers: []string{"Constantine"}}
	out := lasagna.Output{Answer: "Constantine the Great", Answered: true,
		Passages: []string{"The solidus was introduced by Constantine the Great."}}
	res, err := j.Score(context.Background(), q, out)
	fmt.Println(res.Scores, res.Model, err)
	fmt.Println("unresolved alias:", judge.UnresolvedAlias(j.Model(), res.Model))

	// An abstention on an unanswerable question is correct, without a call.
	res, _ = j.Score(context.Background(), lasagna.Query{Text: "?", Unanswerable: true}, lasagna.Output{Answered: true, Abstained: true})
	fmt.Println(res.Scores, res.Calls)
	// Output:
	// map[groundedness:1 judge_correctness:1] gpt-4o-2024-08-06 <nil>
	// unresolved alias: true
	// map[judge_correctness:1] 0
}

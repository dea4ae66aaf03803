package generate_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/generate"
	"github.com/lasagna-go/lasagna/llm"
)

func Example() {
	// A fake OpenAI-compatible server stands in for the model.
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Answers: map[string]string{
		"Question: What lowers": `{"answer": "soda", "abstained": false}`,
		"Question: What did":    `{"answer": "", "abstained": true}`,
	}})
	defer srv.Close()
	client, _ := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "gpt-4o-mini-2024-07-18"})

	g, _ := generate.NewGrounded(client, generate.Config{})
	passages := []lasagna.Document{{ID: "d1", Text: "Soda lowers the melting point of silica sand."}}
	a, err := g.Generate(context.Background(), lasagna.Query{Text: "What lowers the melting point of silica?"}, passages)
	fmt.Printf("%+v %v\n", a, err)
	a, err = g.Generate(context.Background(), lasagna.Query{Text: "What did the mint charge?"}, passages)
	fmt.Printf("%+v %v\n", a, err)
	fmt.Println(g.Prompt().ID)
	// Output:
	// {Text:soda Abstained:false} <nil>
	// {Text: Abstained:true} <nil>
	// grounded-v1
}

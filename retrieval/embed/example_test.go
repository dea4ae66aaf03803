package embed_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/retrieval/embed"
)

// Embedding five texts in batches of two against a fake OpenAI-compatible
// server.
func ExampleOpenAI() {
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{EmbeddingDim: 8})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, EmbeddingModel: "text-embedding-3-small"})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := embed.NewOpenAI(client, embed.Config{BatchSize: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(context.Background(), []string{"one", "two", "three", "four", "five"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(vecs), "vectors of dimension", e.Dim(), "in", srv.Count("embeddings"), "requests")
	fmt.Println("embedder tokens:", client.Usage().Stage(llm.StageEmbedder).Usage.PromptTokens)
	// Output:
	// 5 vectors of dimension 8 in 3 requests
	// embedder tokens: 5
}

package dense_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/dense"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

func Example() {
	// A toy embedder: how often each text says "glass" and "coin".
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = []float32{float32(strings.Count(t, "glass")), float32(strings.Count(t, "coin"))}
		}
		return out, nil
	})
	docs := []lasagna.Document{
		{ID: "glass", Text: "glass is made of sand; glass is blown"},
		{ID: "coins", Text: "a coin is struck; the solidus coin"},
	}
	backend, _ := vector.New(vector.Cosine)
	r, err := dense.Build(context.Background(), docs, emb, backend, dense.Options{})
	if err != nil {
		panic(err)
	}
	hits, _ := r.Retrieve(context.Background(), lasagna.Query{Text: "which coin?"}, 1)
	fmt.Println(hits[0].ID, r.IngestGap())
	// Output: coins 0
}

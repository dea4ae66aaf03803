package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
	"github.com/lasagna-go/lasagna/retrieval/chunk"
	"github.com/lasagna-go/lasagna/retrieval/fusion"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

func main() {
	ctx := context.Background()
	docs := []lasagna.Document{
		{ID: "glass.md", Title: "Soda-lime glass", Text: "Soda-lime glass is made by melting silica sand with sodium carbonate and lime. The soda lowers the melting point of the silica."},
		{ID: "coins.md", Title: "Solidus", Text: "The solidus was a gold coin introduced by Constantine the Great. " + strings.Repeat("Later emperors debased it. ", 70)},
	}

	// 1. Cut documents into 200-word chunks: ids "<doc>#<n>".
	chunks := chunk.Chunker{}.Documents(docs)
	for _, c := range chunks {
		fmt.Println(c.ID, len(strings.Fields(c.Text)), "words")
	}

	// 2. BM25 over the chunks (k1 0.9, b 0.4, stopwords, Snowball stemming).
	lex, err := bm25.Build(chunks, bm25.DefaultOptions())
	if err != nil {
		panic(err)
	}
	hits := lex.Search("who introduced the gold solidus?", 3)
	show("bm25", hits)

	// Chunk hits back to document ids, each document once.
	docHits, _ := chunk.DocHits(hits)
	show("documents", docHits)

	// 3. An exact vector index (vectors from your embedder; toy ones here).
	vec, _ := vector.New(vector.Cosine)
	_ = vec.Add(ctx, []string{"glass.md#0", "coins.md#0", "coins.md#1"},
		[][]float32{{0.9, 0.1}, {0.1, 0.9}, {0.2, 0.8}})
	vhits, _ := vec.Search(ctx, []float32{0, 1}, 3)
	show("vector", vhits)

	// 4. Reciprocal-rank fusion of both (k = 60).
	dense := lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return vec.Search(ctx, []float32{0, 1}, k) // embed q.Text in real use
	})
	hybrid := fusion.RRF(60, lex, dense)
	fused, _ := hybrid.Retrieve(ctx, lasagna.Query{Text: "who introduced the gold solidus?"}, 3)
	show("rrf", fused)
}

func show(name string, hits []lasagna.Hit) {
	fmt.Printf("%-9s", name+":")
	for _, h := range hits {
		fmt.Printf(" %s %.4f", h.ID, h.Score)
	}
	fmt.Println()
}

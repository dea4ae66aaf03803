package retrieval

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna"
)

func ExampleKeyword() {
	b := &lasagna.Benchmark{Corpus: []lasagna.Document{
		{ID: "solidus", Text: "The solidus was a gold coin introduced by Constantine."},
		{ID: "florin", Text: "The florin was the gold coin of Florence."},
		{ID: "murano", Text: "Venetian glassmakers moved to Murano."},
	}}
	hits, _ := NewKeyword(b).Retrieve(context.Background(), lasagna.Query{Text: "Which gold coin did Constantine introduce?"}, 10)
	for _, h := range hits {
		fmt.Println(h.ID, h.Score)
	}
	// Output:
	// solidus 3
	// florin 2
}

package bm25_test

import (
	"fmt"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

func Example() {
	docs := []lasagna.Document{
		{ID: "glass", Title: "Soda-lime glass", Text: "Soda lowers the melting point of silica."},
		{ID: "coin", Title: "Solidus", Text: "A gold coin introduced by Constantine."},
		{ID: "melt", Text: "Melting points of metals."},
	}
	ix, err := bm25.Build(docs, bm25.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range ix.Search("what melts silica?", 10) {
		fmt.Printf("%s %.4f\n", h.ID, h.Score)
	}
	fmt.Println(bm25.Tokens("What melts silica?", bm25.DefaultOptions()))
	// Output:
	// glass 1.3253
	// melt 0.5125
	// [what melt silica]
}

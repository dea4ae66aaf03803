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

// An index analysed and scored as Anserini's Lucene BM25 index is.
func Example_lucene() {
	opts := bm25.Options{Analyzer: bm25.AnalyzerLucene, Stemming: true, Norms: bm25.NormsLucene}
	fmt.Println(bm25.Tokens("Anserini's BM25 doesn't split e.g. U.S.A. or 3.14", opts))
	docs := []lasagna.Document{
		{ID: "d1", Text: "Don't panic: the U.S.A. and e.g. Canada."},
		{ID: "d2", Text: "Don and T. panic."},
	}
	ix, err := bm25.Build(docs, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range ix.Search("don't", 10) {
		fmt.Printf("%s %.4f\n", h.ID, h.Score)
	}
	fmt.Printf("%+v\n", ix.Stats())
	// Output:
	// [anserini bm25 doesn't split e.g u.s.a 3.14]
	// d1 0.3483
	// {Documents:2 UniqueTerms:7 TotalTerms:8}
}

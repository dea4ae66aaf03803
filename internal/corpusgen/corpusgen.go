// Package corpusgen generates the deterministic Zipfian corpus that the BM25
// benchmarks (retrieval/bm25 and the bench module) run on.
package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Zipf makes a deterministic corpus of n passages of 40–119 words drawn from
// a Zipfian vocabulary (exponent 1.1) of 100,000 words whose most frequent
// ranks are English function words, and nq queries of 2–6 words, each taken
// from a random passage, as a question about it would be. Passage i has id
// fmt.Sprintf("p%06d", i) and no title. The same arguments give the same
// corpus and queries on any machine, and the first passages do not depend on
// n or nq. nq > 0 needs n > 0.
func Zipf(n, nq int) ([]lasagna.Document, []string) {
	docs, queries, _ := ZipfJudged(n, nq)
	return docs, queries
}

// ZipfJudged is Zipf (the same corpus and queries) that also returns, for
// each query, the id of the passage its words were taken from: a qrels
// judgement for a generated BEIR folder.
func ZipfJudged(n, nq int) ([]lasagna.Document, []string, []string) {
	r := rand.New(rand.NewPCG(2026, 5))
	vocab := strings.Fields("the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will can more other into")
	syll := strings.Fields("ka ri to me sa lo vi nu pe da ron tel mis gar en ing ed er tion al ly ous con pre")
	seen := map[string]bool{}
	for _, w := range vocab {
		seen[w] = true
	}
	for len(vocab) < 100_000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	z := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	docs := make([]lasagna.Document, n)
	words := make([]string, 0, 120)
	for i := range docs {
		words = words[:0]
		for range 40 + r.IntN(80) {
			words = append(words, vocab[z.Uint64()])
		}
		docs[i] = lasagna.Document{ID: fmt.Sprintf("p%06d", i), Text: strings.Join(words, " ")}
	}
	queries := make([]string, nq)
	sources := make([]string, nq)
	for i := range queries {
		src := r.IntN(n)
		sources[i] = docs[src].ID
		ws := strings.Fields(docs[src].Text)
		q := make([]string, 2+r.IntN(5))
		for j := range q {
			q[j] = ws[r.IntN(len(ws))]
		}
		queries[i] = strings.Join(q, " ")
	}
	return docs, queries, sources
}

package retrieval

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/lasagna-go/lasagna"
)

// Keyword is a toy retriever: it ranks the documents of a corpus by how
// many distinct words of the question they contain (words of three letters
// or more that are not stop words), ties broken by document id. It is
// safe for concurrent use once built.
type Keyword struct {
	ids   []string
	words []map[string]bool // words[i] are the words of document ids[i]
}

// NewKeyword indexes the documents of b's corpus.
func NewKeyword(b *lasagna.Benchmark) *Keyword {
	k := &Keyword{ids: make([]string, len(b.Corpus)), words: make([]map[string]bool, len(b.Corpus))}
	for i, d := range b.Corpus {
		k.ids[i] = d.ID
		k.words[i] = map[string]bool{}
		for _, w := range tokens(d.Title + " " + d.Text) {
			k.words[i][w] = true
		}
	}
	return k
}

// Retrieve returns at most n documents sharing at least one word with the
// question, best first.
func (r *Keyword) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {
	terms := map[string]bool{}
	for _, w := range tokens(q.Text) {
		terms[w] = true
	}
	var hits []lasagna.Hit
	for i, ws := range r.words {
		score := 0
		for t := range terms {
			if ws[t] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, lasagna.Hit{ID: r.ids[i], Score: float64(score)})
		}
	}
	slices.SortFunc(hits, func(a, b lasagna.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	return hits[:min(n, len(hits))], nil
}

// tokens splits s into lower-case words of three letters or more, without
// stop words.
func tokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) >= 3 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

var stop = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "was": true, "were": true,
	"what": true, "which": true, "who": true, "how": true, "why": true, "when": true,
	"where": true, "does": true, "did": true, "with": true, "from": true, "that": true,
	"this": true, "into": true, "its": true, "has": true, "have": true, "had": true,
	"can": true, "not": true, "but": true, "they": true, "their": true, "there": true,
}

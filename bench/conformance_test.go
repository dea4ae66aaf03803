package bench

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// TestStatisticsMatchBleve checks lasagna's BM25 index against bleve, an
// independent analyser and index, on single-word queries. For each of
// bleve's top 10 hits it reads, from bleve's score explanation, the term
// frequency, the document's field length, the document frequency and the
// document count, which bleve computed with its own tokenizer, stopword
// filter and Snowball stemmer; then it requires lasagna's score for that
// document to equal the BM25 formula evaluated on bleve's numbers (with
// lasagna's avgdl and the raw tf: bleve's own "average length" is its
// dictionary size over the document count, not BM25's mean document length,
// and it scores √tf, so its final scores differ by design).
func TestStatisticsMatchBleve(t *testing.T) {
	docs, queries := Generate(2000, 300)
	opts := bm25.DefaultOptions()
	opts.K1, opts.B = 1.2, 0.75
	ours, err := bm25.Build(docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := BuildBleve(filepath.Join(t.TempDir(), "idx"), docs)
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Close()

	checked := 0
	seen := map[string]bool{}
	for _, q := range queries {
		word := strings.Fields(q)[0]
		if seen[word] || len(bm25.Tokens(word, opts)) != 1 {
			continue // done already, or a stopword
		}
		seen[word] = true
		m := query.NewMatchQuery(word)
		m.SetField("text")
		res, err := theirs.Search(bleve.NewSearchRequestOptions(m, 10, 0, true))
		if err != nil {
			t.Fatal(err)
		}
		score := map[string]float64{}
		for _, h := range ours.Search(word, len(docs)) {
			score[h.ID] = h.Score
		}
		for _, h := range res.Hits {
			tf, dl, df, n, err := bleveStats(h.Expl)
			if err != nil {
				t.Fatalf("%q: %s: %v", word, h.ID, err)
			}
			if got := ours.DocFreq(bm25.Tokens(word, opts)[0]); got != df || ours.Len() != n {
				t.Errorf("%q: df %d of %d documents, bleve %d of %d", word, got, ours.Len(), df, n)
			}
			idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
			want := idf * tf * (opts.K1 + 1) / (tf + opts.K1*(1-opts.B+opts.B*dl/ours.AvgDocLen()))
			if got, ok := score[h.ID]; !ok || math.Abs(got-want) > 1e-5*want {
				t.Errorf("%q: %s scores %v; BM25 of bleve's tf %v, length %v, df %d, N %d = %v", word, h.ID, got, tf, dl, df, n, want)
			}
			checked++
		}
	}
	if checked < 300 {
		t.Fatalf("only %d hits compared; the test corpus is too small", checked)
	}
	t.Logf("%d hits of %d single-word queries: scores equal BM25 of bleve's tf, document length, df and N", checked, len(seen))
}

// bleveStats reads tf, field length, docFreq and maxDocs from a bleve v2.6.3
// BM25 term explanation. tf is the raw term count (bleve itself scores with
// its square root).
func bleveStats(e *search.Explanation) (tf, dl float64, df, n int, err error) {
	var walk func(e *search.Explanation)
	found := map[string]bool{}
	walk = func(e *search.Explanation) {
		msg := e.Message
		switch {
		case strings.HasPrefix(msg, "tf(termFreq("):
			// The raw count; bleve's value is its square root.
			if i := strings.LastIndex(msg, ")="); i >= 0 {
				if _, err := fmt.Sscanf(msg[i+2:], "%g", &tf); err == nil {
					found["tf"] = true
				}
			}
		case strings.HasPrefix(msg, "fieldNorm("):
			i := strings.Index(msg, "fieldLength=")
			if i >= 0 {
				var v float64
				if _, err := fmt.Sscanf(msg[i:], "fieldLength=%f", &v); err == nil {
					dl = math.Round(v) // stored as 1/√len in float32
					found["length"] = true
				}
			}
		case strings.HasPrefix(msg, "idf("):
			if _, err := fmt.Sscanf(msg, "idf(docFreq=%d, maxDocs=%d)", &df, &n); err == nil {
				found["idf"] = true
			}
		}
		for _, c := range e.Children {
			walk(c)
		}
	}
	walk(e)
	if len(found) != 3 {
		return 0, 0, 0, 0, fmt.Errorf("explanation without tf, fieldNorm and idf: %s", e)
	}
	return tf, dl, df, n, nil
}

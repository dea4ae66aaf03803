package datasets

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

type streamed struct {
	q        lasagna.Query
	relevant []string
}

// streamAll collects what Stream hands over.
func streamAll(fsys fstest.MapFS, p string, format lasagna.Format, opts Options) ([]streamed, Summary, error) {
	var out []streamed
	sum, err := Stream(fsys, p, format, opts, func(q lasagna.Query, relevant []string) error {
		out = append(out, streamed{q, relevant})
		return nil
	})
	return out, sum, err
}

// Stream hands over exactly the queries, judgements and identity the
// loader gives, whether it streams (a file with a corpus) or loads whole.
func TestStreamIsTheLoader(t *testing.T) {
	rows := corpusRows +
		// contexts matched to documents by text; two documents share a
		// text, and the first one wins
		`{"id": "q4", "question": "What is glass made of?", "answer": "Silica sand", "contexts": ["Soda-lime glass is made from silica sand."]}
{"id": "q5", "question": "Twice?", "answer": "yes", "expected_docs": ["glass", "glass"]}
`
	docs := corpusDocs + `{"_id": "glass2", "title": "", "text": "Soda-lime glass is made from silica sand."}` + "\n"
	fsys := fstest.MapFS{
		"b.jsonl":           {Data: []byte(rows)},
		"corpus.jsonl":      {Data: []byte(docs)},
		"pool.jsonl":        {Data: []byte(`{"id": "a", "question": "Q?", "answer": "A", "contexts": ["x", "y"]}` + "\n")},
		"beir/corpus.jsonl": {Data: []byte(docs)},
		"beir/queries.jsonl": {Data: []byte(`{"_id": "q1", "text": "Who?"}
{"_id": "q2", "text": "What?"}
`)},
		"beir/qrels/test.tsv": {Data: []byte("query-id\tcorpus-id\tscore\nq1\tsolidus\t1\nq2\tglass\t2\nq2\tdebasement\t0\n")},
	}
	for _, tc := range []struct {
		p      string
		format lasagna.Format
		opts   Options
	}{
		{"b.jsonl", lasagna.FormatJSONL, Options{Name: "b", Corpus: "corpus.jsonl"}},
		{"b.jsonl", "", Options{Corpus: "corpus.jsonl"}},
		{"pool.jsonl", lasagna.FormatJSONL, Options{Name: "p"}},
		{"beir", lasagna.FormatBEIR, Options{Name: "beir"}},
	} {
		t.Run(fmt.Sprint(tc.p, tc.format), func(t *testing.T) {
			b, err := Load(fsys, tc.p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, sum, err := streamAll(fsys, tc.p, tc.format, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			spooled, spooledSum, err := streamSpooled(fsys, tc.p, tc.format, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if spooledSum != sum || !reflect.DeepEqual(spooled, got) {
				t.Errorf("StreamSpooled gives %+v %+v, Stream %+v %+v", spooledSum, spooled, sum, got)
			}
			want := Summary{Name: b.Name, Revision: b.Revision, Format: b.Format, Split: b.Split, Queries: len(b.Queries), Documents: len(b.Corpus)}
			if sum != want {
				t.Errorf("summary %+v, want %+v", sum, want)
			}
			if len(got) != len(b.Queries) {
				t.Fatalf("%d queries, want %d", len(got), len(b.Queries))
			}
			for i, q := range b.Queries {
				if !reflect.DeepEqual(got[i].q, q) {
					t.Errorf("query %d:\n got %+v\nwant %+v", i, got[i].q, q)
				}
				if rel := b.Qrels.Relevant(q.ID); !reflect.DeepEqual(got[i].relevant, rel) {
					t.Errorf("query %s: relevant %q, want %q", q.ID, got[i].relevant, rel)
				}
			}
		})
	}
	// the cases the streamed path must get right
	got, _, _ := streamAll(fsys, "b.jsonl", lasagna.FormatJSONL, Options{Corpus: "corpus.jsonl"})
	if len(got) != 5 || !reflect.DeepEqual(got[3].relevant, []string{"glass"}) || !reflect.DeepEqual(got[4].relevant, []string{"glass"}) ||
		len(got[1].q.Contexts) != 2 || got[2].relevant != nil {
		t.Errorf("streamed %+v", got)
	}
}

// Invalid data gives the loader's Problems, and fn is not called after
// the first problem.
func TestStreamProblemsAreTheLoaders(t *testing.T) {
	var rows strings.Builder
	for i := range 5 {
		fmt.Fprintf(&rows, `{"id": "q%d", "question": "Q?", "answer": "A", "expected_docs": ["solidus"]}`+"\n", i)
	}
	rows.WriteString(`{"id": "bad", "question": "Q?", "answer": "A", "expected_docs": ["nowhere"]}` + "\n")
	rows.WriteString(`{"id": "after", "question": "Q?", "answer": "A", "expected_docs": ["solidus"]}` + "\n")
	for name, fsys := range map[string]fstest.MapFS{
		"missing doc":   {"b.jsonl": {Data: []byte(rows.String())}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
		"duplicate doc": {"b.jsonl": {Data: []byte(corpusRows)}, "corpus.jsonl": {Data: []byte(corpusDocs + `{"_id": "glass", "text": "again"}` + "\n")}},
		"bad row":       {"b.jsonl": {Data: []byte(corpusRows + "{\"id\": 3\n")}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
		"empty corpus":  {"b.jsonl": {Data: []byte(corpusRows)}, "corpus.jsonl": {Data: []byte("\n")}},
	} {
		t.Run(name, func(t *testing.T) {
			opts := Options{Corpus: "corpus.jsonl"}
			_, want := LoadJSONL(fsys, "b.jsonl", opts)
			var wantP Problems
			if !errors.As(want, &wantP) {
				t.Fatalf("loader: %v, want Problems", want)
			}
			got, _, err := streamAll(fsys, "b.jsonl", lasagna.FormatJSONL, opts)
			if !reflect.DeepEqual(err, want) {
				t.Errorf("Stream: %v\nwant %v", err, want)
			}
			spooled, _, serr := streamSpooled(fsys, "b.jsonl", lasagna.FormatJSONL, opts)
			if !reflect.DeepEqual(serr, want) {
				t.Errorf("StreamSpooled: %v\nwant %v", serr, want)
			}
			for _, s := range append(got, spooled...) {
				if s.q.ID == "after" {
					t.Errorf("fn was called after a problem: %+v", got)
				}
			}
		})
	}
}

// An error from fn stops Stream and is returned.
func TestStreamStopsOnFnError(t *testing.T) {
	fsys := fstest.MapFS{"b.jsonl": {Data: []byte(corpusRows)}, "corpus.jsonl": {Data: []byte(corpusDocs)}}
	stop := errors.New("stop")
	n := 0
	_, err := Stream(fsys, "b.jsonl", lasagna.FormatJSONL, Options{Corpus: "corpus.jsonl"}, func(lasagna.Query, []string) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d calls, want stop after 1", err, n)
	}
}

package datasets_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

type seen struct {
	ids []string
	rel map[string][]string
}

func (s *seen) fn(q lasagna.Query, rel []string) error {
	s.ids = append(s.ids, q.ID)
	if s.rel == nil {
		s.rel = map[string][]string{}
	}
	s.rel[q.ID] = rel
	return nil
}

// Stream hands over what Load holds, and Check reports what Load and its
// capabilities say, for every format and route: a pooled JSONL file, one
// naming its passages (read whole), a JSONL and a CSV file with a corpus,
// a BEIR folder, a Vecta CSV, each with and without a sample.
func TestStreamCheckMatchLoad(t *testing.T) {
	var rows strings.Builder
	for i := range 40 {
		fmt.Fprintf(&rows, `{"id": "r%02d", "question": "q %d", "answer": "a", "contexts": ["passage %d"], "metadata": {"k": %d}}`+"\n", i, i, i%7, i%3)
	}
	fsys := mapFS(map[string]string{
		"pooled.jsonl":     rows.String(),
		"named.jsonl":      `{"id": "a", "question": "x", "contexts": ["t1"]}` + "\n" + `{"id": "b", "question": "y", "contexts": ["t1"], "expected_docs": ["D"]}` + "\n",
		"rows.jsonl":       `{"id": "a", "question": "x", "answer": "1", "expected_docs": ["d2"]}` + "\n" + `{"id": "b", "question": "y", "contexts": ["two"]}` + "\n",
		"rows.csv":         "id,question,answer\na,x,1\n",
		"corpus.jsonl":     `{"_id": "d1", "text": "one"}` + "\n" + `{"_id": "d2", "text": "two"}` + "\n",
		"vecta.csv":        "id,question,answer,chunk_ids\nv1,x,1,c1|c2\n",
		"b/corpus.jsonl":   `{"_id": "d1", "text": "one"}` + "\n",
		"b/queries.jsonl":  `{"_id": "q1", "text": "x"}` + "\n" + `{"_id": "q2", "text": "y"}` + "\n",
		"b/qrels/test.tsv": "q1\td1\t1\nq2\td1\t0\n",
	})
	cases := []struct {
		path string
		opts datasets.Options
	}{
		{"pooled.jsonl", datasets.Options{}},
		{"pooled.jsonl", datasets.Options{NSamples: 5, Seed: 3}},
		{"pooled.jsonl", datasets.Options{Filters: map[string]any{"k": 1}, NSamples: 4}},
		{"named.jsonl", datasets.Options{}},
		{"named.jsonl", datasets.Options{NSamples: 1}},
		{"rows.jsonl", datasets.Options{Corpus: "corpus.jsonl"}},
		{"rows.csv", datasets.Options{Corpus: "corpus.jsonl"}},
		{"rows.csv", datasets.Options{}},
		{"vecta.csv", datasets.Options{}},
		{"b", datasets.Options{}},
		{"b", datasets.Options{NSamples: 1, Name: "mine"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %+v", tc.path, tc.opts), func(t *testing.T) {
			b, err := datasets.Load(fsys, tc.path, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var s seen
			r, err := datasets.Stream(fsys, tc.path, tc.opts, s.fn)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, q := range b.Queries {
				want = append(want, q.ID)
				if got := s.rel[q.ID]; !slices.Equal(got, b.Qrels.Relevant(q.ID)) {
					t.Errorf("%s: relevant %v, Load's %v", q.ID, got, b.Qrels.Relevant(q.ID))
				}
			}
			if !slices.Equal(s.ids, want) {
				t.Errorf("Stream handed %v, Load kept %v", s.ids, want)
			}
			c, err := datasets.Check(fsys, tc.path, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []datasets.Report{r, c} {
				if got.Name != b.Name || got.Revision != b.Revision || got.Format != b.Format || got.Split != b.Split || got.Queries != len(b.Queries) || got.Documents != len(b.Corpus) || len(got.Problems) != 0 {
					t.Errorf("report %+v; Load: %s %s %s %q %d queries %d documents", got, b.Name, b.Revision, b.Format, b.Split, len(b.Queries), len(b.Corpus))
				}
				if len(got.Tracks) != len(lasagna.Tracks()) {
					t.Errorf("tracks %+v", got.Tracks)
				}
			}
			if !reflect.DeepEqual(r.Tracks, c.Tracks) {
				t.Errorf("Stream's tracks %+v, Check's %+v", r.Tracks, c.Tracks)
			}
		})
	}
}

// On invalid data fn is never called, Stream returns Problems and Check
// the same problems in its report; Load's error is the same Problems.
func TestInvalidDataNeverHandedOver(t *testing.T) {
	fsys := mapFS(map[string]string{
		"bad.jsonl":    `{"id": "a", "question": "x"}` + "\n" + `{"id": "b", "question": "y", "answer": 3}` + "\n" + `{"id": "a", "question": "z"}` + "\n",
		"rows.jsonl":   `{"id": "a", "question": "x", "expected_docs": ["d9"]}` + "\n",
		"corpus.jsonl": `{"_id": "d1", "text": "one"}` + "\n",
	})
	for _, tc := range []struct {
		path string
		opts datasets.Options
		want []string
	}{
		{"bad.jsonl", datasets.Options{}, []string{`bad.jsonl:2: field "answer"`, "bad.jsonl:3: duplicate id"}},
		{"rows.jsonl", datasets.Options{Corpus: "corpus.jsonl"}, []string{`rows.jsonl:1: `}},
	} {
		called := false
		r, err := datasets.Stream(fsys, tc.path, tc.opts, func(lasagna.Query, []string) error { called = true; return nil })
		var ps datasets.Problems
		if !errors.As(err, &ps) || called {
			t.Fatalf("%s: Stream = %v (called %v), want Problems and no call", tc.path, err, called)
		}
		c, cerr := datasets.Check(fsys, tc.path, tc.opts)
		_, lerr := datasets.Load(fsys, tc.path, tc.opts)
		if cerr != nil || !reflect.DeepEqual(c.Problems, []datasets.Problem(ps)) || !reflect.DeepEqual(r, c) || c.Name != "" || c.Tracks != nil || lerr.Error() != err.Error() || c.Err().Error() != err.Error() {
			t.Errorf("%s: Check = %+v, %v; Load: %v; Stream: %v", tc.path, c, cerr, lerr, err)
		}
		if len(ps) != len(tc.want) {
			t.Fatalf("%s: problems\n%v\nwant %d", tc.path, err, len(tc.want))
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(ps[i].Error(), w) {
				t.Errorf("%s: problem %d = %q, want prefix %q", tc.path, i, ps[i], w)
			}
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	fsys := mapFS(map[string]string{"a.jsonl": `{"id": "a", "question": "x", "metadata": {"k": 1}}` + "\n", "a.txt": "x"})
	for _, tc := range []struct {
		path string
		opts datasets.Options
		want string
	}{
		{"a.jsonl", datasets.Options{Filters: map[string]any{"k": 2}}, "filters {k: 2} keep no query (metadata keys present: k)"},
		{"a.jsonl", datasets.Options{Split: "dev"}, `split "dev" given for a jsonl file`},
		{"a.txt", datasets.Options{}, `unknown dataset format ".txt"`},
		{"a.jsonl", datasets.Options{Format: "parquet"}, `unknown format "parquet"`},
		{"none.jsonl", datasets.Options{}, "none.jsonl"},
	} {
		_, lerr := datasets.Load(fsys, tc.path, tc.opts)
		_, cerr := datasets.Check(fsys, tc.path, tc.opts)
		for _, err := range []error{lerr, cerr} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %+v: %v, want %q", tc.path, tc.opts, err, tc.want)
			}
		}
	}
}

func TestProblemFix(t *testing.T) {
	fsys := mapFS(map[string]string{"b.jsonl": "{\"id\": \"a\", \"question\": \"x\xff\"}\n"})
	r, err := datasets.Check(fsys, "b.jsonl", datasets.Options{})
	if err != nil || len(r.Problems) != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	p := r.Problems[0]
	if p.File != "b.jsonl" || p.Line != 1 || p.Message != "invalid UTF-8 at column 27 (byte 0xFF)" || !strings.HasPrefix(p.Fix, "text must be UTF-8: convert the file") {
		t.Errorf("problem = %+v", p)
	}
	_, lerr := datasets.Load(fsys, "b.jsonl", datasets.Options{})
	if p.Error() != lerr.Error() {
		t.Errorf("Error() = %q, Load's %q", p.Error(), lerr)
	}
}

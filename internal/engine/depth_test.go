package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// TestScorerFindsRepeatedIDs holds the scorer's repeated-id check, which
// marks corpus ids at their corpus index and keeps other ids in a map: the
// first id a list holds twice is its Duplicate, whether in the corpus or
// not; marks left by earlier queries on the same scratch, or by a mark
// that wrapped around, never make a repeat.
func TestScorerFindsRepeatedIDs(t *testing.T) {
	b := &lasagna.Benchmark{
		Name:   "marks",
		Corpus: []lasagna.Document{{ID: "d1"}, {ID: "d2"}, {ID: "d3"}},
		Qrels:  lasagna.Qrels{"q": {"d2": 1}},
	}
	arm := &Arm{Name: "a", TopK: 10, Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) { return nil, nil }}
	s := &scorer{b: b, arm: arm, ids: corpusIDs(b), cutoffs: []int{10}}
	rs, err := metrics.NewRetrievalScorer(s.cutoffs)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scratch{seen: map[string]struct{}{}, rs: rs}
	q := &lasagna.Query{ID: "q"}
	for _, c := range []struct {
		name      string
		mark      uint32 // the scratch's last mark, before the query
		ids       []string
		duplicate string
		unknown   string
	}{
		{"distinct", 0, []string{"d1", "d2", "d3"}, "", ""},
		{"the same ids on the same scratch", 0, []string{"d3", "d2", "d1"}, "", ""},
		{"corpus id twice", 0, []string{"d2", "d1", "d2", "d3", "d3"}, "d2", ""},
		{"unknown id twice", 0, []string{"x", "d1", "y", "x", "d1"}, "x", "x"},
		{"unknown id not twice", 0, []string{"x", "d2", "y"}, "", "x"},
		{"mark wraps around", math.MaxUint32, []string{"d1", "d2", "d3"}, "", ""},
		{"after the wrap", 0, []string{"d1", "d3", "d1"}, "d1", ""},
	} {
		if c.mark != 0 {
			sc.mark = c.mark
			for i := range sc.marks {
				sc.marks[i] = 1 // what the first query after the wrap is given
			}
		}
		r := &QueryResult{Query: q}
		for i, id := range c.ids {
			r.Output.Hits = append(r.Output.Hits, lasagna.Hit{ID: id, Score: float64(10 - i)})
		}
		s.score(r, sc)
		if r.Duplicate != c.duplicate || r.Unknown != c.unknown {
			t.Errorf("%s: Duplicate %q, Unknown %q; want %q, %q", c.name, r.Duplicate, r.Unknown, c.duplicate, c.unknown)
		}
		if scored := r.Scores["ndcg@10"] > 0; scored != (c.duplicate == "") {
			t.Errorf("%s: ndcg@10 = %v, want a score only for a list without a repeated id", c.name, r.Scores["ndcg@10"])
		}
	}
}

// TestBundleUnhashed checks that a report's bundle made with Unhashed has
// no run_id yet, and that written it is the file of the finalized bundle,
// with the same run_id.
func TestBundleUnhashed(t *testing.T) {
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, []Arm{goldArm("gold")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files [2][]byte
	var ids [2]string
	for i, unhashed := range []bool{false, true} {
		b, err := rep.Bundle(BundleOptions{LasagnaVersion: "dev", Unhashed: unhashed})
		if err != nil {
			t.Fatal(err)
		}
		if (b.RunID == "") != unhashed {
			t.Fatalf("Unhashed %v: run_id %q", unhashed, b.RunID)
		}
		name := filepath.Join(dir, fmt.Sprint(i))
		if err := results.WriteFile(name, b); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
		ids[i] = b.RunID
	}
	if !bytes.Equal(files[0], files[1]) || ids[0] != ids[1] {
		t.Errorf("the unhashed bundle wrote run_id %s and %d bytes; the finalized one %s and %d bytes", ids[1], len(files[1]), ids[0], len(files[0]))
	}
}

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
// keeps corpus ids as their corpus index (indexSet) and other ids in a
// map: the first id a list holds twice is its Duplicate, whether in the
// corpus or not; what earlier queries on the same scratch kept never makes
// a repeat.
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
		ids       []string
		duplicate string
		unknown   string
	}{
		{"distinct", []string{"d1", "d2", "d3"}, "", ""},
		{"the same ids on the same scratch", []string{"d3", "d2", "d1"}, "", ""},
		{"corpus id twice", []string{"d2", "d1", "d2", "d3", "d3"}, "d2", ""},
		{"unknown id twice", []string{"x", "d1", "y", "x", "d1"}, "x", "x"},
		{"unknown id not twice", []string{"x", "d2", "y"}, "", "x"},
		{"a longer list than before", []string{"d1", "d2", "d3", "x1", "x2", "x3", "x4", "x5", "x6", "d3"}, "d3", "x1"},
	} {
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

// TestIndexSet checks the set of a ranked list's corpus indexes: a repeat
// is found at any size, a reset empties it, and when the generation wraps
// around the slots of its first use are cleared rather than read as full.
func TestIndexSet(t *testing.T) {
	var s indexSet
	for _, n := range []int{0, 1, 3, 100, 5000} {
		s.reset(n)
		for i := range n {
			if s.add(int32(i * 7919)) {
				t.Fatalf("n %d: index %d reported twice on its first add", n, i*7919)
			}
		}
		for i := range n {
			if !s.add(int32(i * 7919)) {
				t.Fatalf("n %d: index %d not found on its second add", n, i*7919)
			}
		}
	}
	var w indexSet
	w.reset(3)
	w.add(5) // generation 1 of these slots...
	w.gen = math.MaxUint32
	w.reset(3) // ...wraps around to 1 again
	if w.add(5) {
		t.Error("after the generation wrapped, an index of its first use was still in the set")
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

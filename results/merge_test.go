package results

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
)

// shard returns a copy of b keeping, in every result, the rows whose index
// satisfies keep.
func shard(t testing.TB, b *Bundle, keep func(i int) bool) *Bundle {
	t.Helper()
	c, err := Unmarshal(encode(t, b))
	if err != nil {
		t.Fatal(err)
	}
	for ri := range c.Results {
		r := &c.Results[ri]
		var rows []Sample
		for i, row := range r.PerSampleScores {
			if keep(i) {
				rows = append(rows, row)
			}
		}
		r.PerSampleScores = rows
		if len(rows) == 0 {
			r.Metrics = map[string]float64{}
		}
		if err := Aggregate(r, testStats); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestMergeRebuildsTheWholeRun(t *testing.T) {
	whole := encode(t, retrievalBundle(t))
	full, _ := Unmarshal(whole)
	odd := shard(t, full, func(i int) bool { return i%2 == 1 })
	even := shard(t, full, func(i int) bool { return i%2 == 0 })
	merged, _, err := Merge([]*Bundle{odd, even}, testStats)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, merged); !bytes.Equal(got, whole) {
		t.Errorf("merging the two shards does not give the unsharded bundle:\n%s", got)
	}
	if r := Validate(encode(t, merged)); len(r.Problems) != 0 {
		t.Errorf("merged bundle has problems:%s", problemLines(r))
	}
}

func TestMergeRefusesOverlaps(t *testing.T) {
	full := retrievalBundle(t)
	a := shard(t, full, func(i int) bool { return i < 12 })
	b := shard(t, full, func(i int) bool { return i >= 10 })
	_, _, err := Merge([]*Bundle{a, b}, testStats)
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("Merge of overlapping shards: %v", err)
	}
	// q11 and q12 of both arms are in both shards.
	if len(me.Problems) != 4 || !strings.Contains(err.Error(), "overlap: local/faq@0123456789ab/bm25/q11 is in shard 1 and shard 2") {
		t.Errorf("error does not name every overlap:\n%v", err)
	}
}

func TestMergeReportsGaps(t *testing.T) {
	full := retrievalBundle(t)
	a := shard(t, full, func(i int) bool { return i < 10 })
	merged, _, err := Merge([]*Bundle{a}, testStats)
	if err != nil {
		t.Fatal(err)
	}
	want := "MISSING_RESULTS at local/faq@0123456789ab/bm25: the shards hold 10 of the 20 sampled queries"
	if len(merged.Integrity.Blocking) != 2 || !strings.HasPrefix(merged.Integrity.Blocking[0], want) {
		t.Errorf("blocking = %q, want it to start with %q", merged.Integrity.Blocking, want)
	}
	if r := Validate(encode(t, merged)); !r.Has(lasagna.MissingResults) || r.OK(false) {
		t.Errorf("validate of a gappy merge: %v", codes(r))
	}
	// An arm with no row in any shard.
	none := shard(t, full, func(i int) bool { return false })
	none.Results = none.Results[:1]
	merged, _, err = Merge([]*Bundle{none}, testStats)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(merged.Integrity.Blocking, func(s string) bool {
		return strings.HasPrefix(s, "MISSING_RESULTS at local/faq@0123456789ab/dense: no shard of 1 holds a row")
	}) {
		t.Errorf("blocking = %q", merged.Integrity.Blocking)
	}
}

func TestMergeRefusesOtherPlans(t *testing.T) {
	a := retrievalBundle(t)
	b := retrievalBundle(t)
	b.Configs[1].HeldFixed.SamplingSeed = 7
	b.Experiment.Environment.LasagnaVersion = "v0.2.0"
	_, _, err := Merge([]*Bundle{a, b}, testStats)
	if err == nil || !strings.Contains(err.Error(), "shard 2's configs differ") || !strings.Contains(err.Error(), "shard 2's experiment") {
		t.Errorf("Merge of two plans: %v", err)
	}
	if _, _, err := Merge(nil, testStats); err == nil {
		t.Error("Merge of nothing succeeded")
	}
}

func TestAggregateRefusesUnrecomputable(t *testing.T) {
	r := Result{BenchmarkName: "b", ConfigName: "a", Metrics: map[string]float64{"map": 0.3},
		PerSampleScores: []Sample{{QueryID: "q", Scores: map[string]float64{"ndcg@10": 1}}}}
	if err := Aggregate(&r, testStats); err == nil || !strings.Contains(err.Error(), "metric map has no per-query score") {
		t.Errorf("Aggregate: %v", err)
	}
}

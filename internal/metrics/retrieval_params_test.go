package metrics

import (
	"math"
	"reflect"
	"testing"
)

// TestGainTableTruncatedOrder: trec_eval sorts gains by their difference
// converted to an int, so gains less than 1 apart keep their order (pairs
// first, then the levels not given); a level-0 entry left on top leaves no
// ideal ranking at all.
func TestGainTableTruncatedOrder(t *testing.T) {
	grades := []int{1, 1, 0}
	tie := newGainTable([]GainPair{{Level: 1, Gain: 0.5}}, grades)
	if want := []relGain{{1, 0.5, 2}, {0, 0, 1}}; !reflect.DeepEqual(tie.rel, want) || tie.ideal != nil {
		t.Errorf("gain 0.5: table %v, ideal %v; want %v and none", tie.rel, tie.ideal, want)
	}
	apart := newGainTable([]GainPair{{Level: 1, Gain: 1.5}}, grades)
	if want := []relGain{{0, 0, 1}, {1, 1.5, 2}}; !reflect.DeepEqual(apart.rel, want) || !reflect.DeepEqual(apart.ideal, []float64{1.5, 1.5}) {
		t.Errorf("gain 1.5: table %v, ideal %v", apart.rel, apart.ideal)
	}
	// A level given twice: the first pair gets the level's count, the
	// lookup finds the lower gain after sorting.
	twice := newGainTable([]GainPair{{Level: 1, Gain: 5}, {Level: 1, Gain: 2}}, grades)
	if twice.of(1) != 2 || !reflect.DeepEqual(twice.ideal, []float64{5, 5}) {
		t.Errorf("level 1 twice: gain %v, ideal %v; want 2 and [5 5]", twice.of(1), twice.ideal)
	}
	if compareGains(relGain{gain: 1e10}, relGain{gain: 0}) != math.MinInt32 {
		t.Error("a difference beyond an int should compare as INT_MIN")
	}
}

// TestMissingQueryParams: under AverageComplete a query missing from the
// run keeps the values trec_eval computes for its one unjudged document
// where it does not clear them, in EvaluateRun and SummarizeRun alike.
func TestMissingQueryParams(t *testing.T) {
	qrels := map[string]map[string]int{"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d2": 3}}
	run := map[string][]string{"q1": {"d9", "d1", "d2"}}
	p := 0.5
	opts := DefaultTrecOptions()
	opts.Params = TrecParams{Utility: []float64{1, -2, 0.5, 0.25}, NumDocs: 10, RBPResidP: &p, GGains: []GainPair{{Level: -1, Gain: 1}}}
	id := func(s string) string { return s }
	ev, err := EvaluateRun(qrels, run, id, opts, AverageComplete)
	if err != nil {
		t.Fatal(err)
	}
	q2 := ev.Queries[1].TrecMeasures
	// -2 × 1 retrieved non-relevant + 0.5 × 2 relevant not retrieved +
	// 0.25 × (10 + 0 - 1 - 2).
	if q2.Utility != 0.75 || q2.RBPResid != 1 || q2.NumRet != 0 || !(q2.G > 0) {
		t.Errorf("missing q2: utility %v, rbp_resid %v, num_ret %d, G %v; want 0.75, 1, 0, > 0", q2.Utility, q2.RBPResid, q2.NumRet, q2.G)
	}
	var e Evaluator
	q1 := EvaluateQuery(&e, run["q1"], id, qrels["q1"], &opts)
	sum, err := SummarizeRun(qrels, map[string]TrecMeasures{"q1": q1}, opts, AverageComplete)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum, ev) {
		t.Errorf("SummarizeRun %+v\nEvaluateRun %+v", sum.Summary, ev.Summary)
	}
	opts.Params = TrecParams{}
	def, _ := EvaluateRun(qrels, run, id, opts, AverageComplete)
	if m := def.Queries[1].TrecMeasures; m.Utility != 0 || m.RBPResid != 0 {
		t.Errorf("default parameters: missing q2's utility %v, rbp_resid %v; trec_eval clears both", m.Utility, m.RBPResid)
	}
}

package results

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/numfmt"
)

// armWith builds an arm whose ndcg@10 on query i is scores[i]; NaN marks a
// failed query and a missing entry an absent one.
func armWith(t testing.TB, hf HeldFixed, name string, scores []float64) ArmResult {
	var rows []Sample
	for i, s := range scores {
		q := fmt.Sprintf("q%d", i)
		if math.IsNaN(s) {
			rows = append(rows, Sample{QueryID: q, Error: "boom"})
			continue
		}
		rows = append(rows, Sample{QueryID: q, Scores: map[string]float64{"ndcg@10": s}})
	}
	c := retrievalConfig(hf, name, name)
	return ArmResult{Label: name, Config: c, Result: Result{BenchmarkName: hf.Benchmark, ConfigName: name, PerSampleScores: rows}}
}

func testHeldFixed() HeldFixed {
	return NewHeldFixed(testBenchmark("", lasagna.ProvenanceNative), lasagna.ModeRetrieval, 40, 42, strings.Repeat("ab", 32))
}

func series(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestCompareIdenticalArms(t *testing.T) {
	hf := testHeldFixed()
	s := series(40, func(i int) float64 { return float64((i*37)%100) / 100 })
	got := Compare([]Pair{{armWith(t, hf, "bm25", s), armWith(t, hf, "dense", s)}}, CompareOptions{Seed: 1})
	if len(got.Refusals) != 0 || len(got.Comparisons) != 1 {
		t.Fatalf("got %+v", got)
	}
	c := got.Comparisons[0]
	if c.Significant || c.Stats.MeanDiff != 0 || c.HolmP != 1 || c.Stats.N != 40 {
		t.Errorf("identical arms: %+v", c)
	}
	want := "no significant difference: bm25 vs dense on ndcg@10 (+0.000, Holm p = 1 over 1 comparison, 40 queries)"
	if v := c.Verdict(); v != want {
		t.Errorf("verdict %q\nwant    %q", v, want)
	}
}

func TestCompareShiftedArm(t *testing.T) {
	hf := testHeldFixed()
	base := series(40, func(i int) float64 { return float64((i*37)%90) / 100 })
	// +0.1 on every query, with a little noise so sd(d) > 0: d is 0.08 … 0.12,
	// eight times each, so d_z = 0.1 / sqrt(0.008/39) = 6.98, and no random
	// sign pattern of 10000 reaches the observed sum: p = 1/10001.
	better := series(40, func(i int) float64 { return base[i] + 0.1 + float64(i%5-2)/100 })
	for _, c := range []struct {
		arm, baseline ArmResult
		want          string
	}{
		{armWith(t, hf, "bm25", better), armWith(t, hf, "dense", base), "bm25 beats dense by +0.100 ndcg@10 (d_z 6.98, Holm p = 1e-4 over 1 comparison) on 40 queries; smallest detectable difference 0.0065 at n=40"},
		{armWith(t, hf, "dense", base), armWith(t, hf, "bm25", better), "bm25 beats dense by +0.100 ndcg@10 (d_z 6.98, Holm p = 1e-4 over 1 comparison) on 40 queries; smallest detectable difference 0.0065 at n=40"},
	} {
		got := Compare([]Pair{{c.arm, c.baseline}}, CompareOptions{Seed: 1})
		if len(got.Comparisons) != 1 {
			t.Fatalf("got %+v", got)
		}
		cmp := got.Comparisons[0]
		if !cmp.Significant {
			t.Errorf("a +0.1 shift on 40 queries is not significant: %+v", cmp)
		}
		if (cmp.Stats.MeanDiff > 0) != (c.arm.Label == "bm25") {
			t.Errorf("wrong sign: %s − %s = %v", c.arm.Label, c.baseline.Label, cmp.Stats.MeanDiff)
		}
		if v := cmp.Verdict(); v != c.want {
			t.Errorf("verdict %q\nwant    %q", v, c.want)
		}
	}
}

func TestCompareHolmOrdering(t *testing.T) {
	// Against a baseline of zeros, arm "tuned" is better on 6 of 8
	// queries on metric six, on 5 on metric five and on none on metric
	// none. The exact sign-flip p-values are 2/2^6, 2/2^5 and 1; Holm over
	// the family of three (one arm pair, three metrics) multiplies the
	// smallest by 3 and the next by 2, keeping the order: 0.09375, 0.125, 1.
	hf := testHeldFixed()
	zero := make([]float64, 8)
	six := []float64{.5, .5, .5, .5, .5, .5, 0, 0}
	five := []float64{.5, .5, .5, .5, .5, 0, 0, 0}
	metricsArm := func(name string, by map[string][]float64) ArmResult {
		a := armWith(t, hf, name, zero)
		for i := range a.Result.PerSampleScores {
			a.Result.PerSampleScores[i].Scores = map[string]float64{}
			for m, xs := range by {
				a.Result.PerSampleScores[i].Scores[m] = xs[i]
			}
		}
		return a
	}
	base := metricsArm("base", map[string][]float64{"none": zero, "five": zero, "six": zero})
	tuned := metricsArm("tuned", map[string][]float64{"none": zero, "five": five, "six": six})
	// A second arm is a family of its own: its comparisons change nothing
	// in tuned's Holm p-values.
	other := metricsArm("other", map[string][]float64{"none": six, "five": six, "six": six})
	pairs, err := PairWithin([]ArmResult{base, tuned, other}, "base")
	if err != nil {
		t.Fatal(err)
	}
	got := Compare(pairs, CompareOptions{Metrics: []string{"none", "five", "six"}})
	want := map[string][2]float64{"none": {1, 1}, "five": {2.0 / 32, 0.125}, "six": {2.0 / 64, 0.09375}}
	if len(got.Comparisons) != 6 {
		t.Fatalf("got %+v", got)
	}
	for _, c := range got.Comparisons {
		if c.FamilySize != 3 || c.Baseline != "base" || c.HolmCell() != numfmt.P(c.HolmP)+" (of 3)" {
			t.Errorf("%s %s against %s: family of %d (%s), want 3", c.Arm, c.Metric, c.Baseline, c.FamilySize, c.HolmCell())
		}
		if !strings.Contains(c.Verdict(), " over 3 comparisons") {
			t.Errorf("verdict without its family size: %s", c.Verdict())
		}
		if c.Arm != "tuned" {
			continue
		}
		w := want[c.Metric]
		if math.Abs(c.Stats.P-w[0]) > 1e-12 || math.Abs(c.HolmP-w[1]) > 1e-12 {
			t.Errorf("%s: p %v, Holm p %v; want %v, %v", c.Metric, c.Stats.P, c.HolmP, w[0], w[1])
		}
		if c.Significant {
			t.Errorf("%s significant at Holm p %v", c.Metric, c.HolmP)
		}
		if !c.Stats.SmallSample || !strings.Contains(c.Verdict(), "SMALL_SAMPLE") {
			t.Errorf("8 pairs not flagged small: %s", c.Verdict())
		}
	}
}

func TestCompareDropsUnpairedQueries(t *testing.T) {
	hf := testHeldFixed()
	a := armWith(t, hf, "a", []float64{1, 1, math.NaN(), 1, 1, 1, 1, 1, 1, 1, 1, 1})
	b := armWith(t, hf, "b", []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	got := Compare([]Pair{{a, b}}, CompareOptions{})
	c := got.Comparisons[0]
	// q2 failed in a; q10 and q11 are missing from b.
	if c.Stats.N != 9 || c.Dropped != 3 {
		t.Errorf("n %d dropped %d, want 9 and 3", c.Stats.N, c.Dropped)
	}
	if !strings.Contains(c.Verdict(), "3 queries dropped") {
		t.Errorf("verdict does not say how many were dropped: %s", c.Verdict())
	}
}

func TestCompareRefusals(t *testing.T) {
	hf := testHeldFixed()
	s := series(12, func(i int) float64 { return float64(i) / 12 })
	other := hf
	other.SamplingSeed = 7
	stage := hf
	stage.Chunker = ptr("fixed-100-words")
	stages := hf
	stages.FixedStages = map[string]string{"reranker": "cross-encoder"}
	undeclared := armWith(t, hf, "x", s)
	undeclared.Config.VariedDimensions = []string{"retriever", "reranker"}
	for _, c := range []struct {
		name     string
		b        ArmResult
		code     lasagna.Code
		contains string
	}{
		{"data field", armWith(t, other, "y", s), "", "held_fixed differs in sampling_seed (x: 42, y: 7)"},
		{"stage setting", armWith(t, stage, "y", s), lasagna.StageIsolation, `chunker (x: absent, y: "fixed-100-words")`},
		{"fixed stage", armWith(t, stages, "y", s), lasagna.StageIsolation, `fixed_stages.reranker (x: absent, y: "cross-encoder")`},
		{"undeclared dimension", undeclared, lasagna.StageIsolation, "declare different varied dimensions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := armWith(t, hf, "x", s)
			b := c.b
			b.Label = "y"
			if c.name == "undeclared dimension" {
				a, b = b, armWith(t, hf, "y", s)
			}
			got := Compare([]Pair{{a, b}}, CompareOptions{})
			if len(got.Comparisons) != 0 || len(got.Refusals) != 1 {
				t.Fatalf("got %+v", got)
			}
			r := got.Refusals[0]
			if r.Code != c.code || !strings.Contains(r.String(), c.contains) {
				t.Errorf("refusal %q (code %q), want code %q containing %q", r, r.Code, c.code, c.contains)
			}
		})
	}
}

func TestPairAcross(t *testing.T) {
	old := Arms(retrievalBundle(t), "old:")
	cur := Arms(retrievalBundle(t), "new:")
	pairs, unpaired := PairAcross(cur, old)
	if len(pairs) != 2 || len(unpaired) != 0 {
		t.Fatalf("pairs %d unpaired %v", len(pairs), unpaired)
	}
	for _, p := range pairs {
		if p.Arm.Config.Name != p.Baseline.Config.Name {
			t.Errorf("paired %s with %s", p.Arm.Label, p.Baseline.Label)
		}
	}
	got := Compare(pairs, CompareOptions{Metrics: []string{"ndcg@10"}})
	for _, c := range got.Comparisons {
		if c.Significant || c.Stats.MeanDiff != 0 {
			t.Errorf("a rerun of the same bundle differs: %s", c.Verdict())
		}
	}
	// One arm per side with different names pairs too.
	pairs, unpaired = PairAcross(cur[:1], old[1:])
	if len(pairs) != 1 || len(unpaired) != 0 {
		t.Errorf("single arms: pairs %d unpaired %v", len(pairs), unpaired)
	}
	if _, err := PairWithin(cur, "hybrid"); err == nil || !strings.Contains(err.Error(), "arms: new:bm25, new:dense") {
		t.Errorf("unknown baseline: %v", err)
	}
}

func TestCompareConstantShiftHasNoDz(t *testing.T) {
	// base + 0.1 differs from base by 0.1 up to rounding; d_z is then
	// undefined, not a huge number made of rounding noise.
	hf := testHeldFixed()
	base := series(30, func(i int) float64 { return float64((i*37)%90) / 97 })
	shifted := series(30, func(i int) float64 { return base[i] + 0.1 })
	c := Compare([]Pair{{armWith(t, hf, "a", shifted), armWith(t, hf, "b", base)}}, CompareOptions{}).Comparisons[0]
	if !c.Stats.DzUndefined || c.Stats.Dz != 0 || !strings.Contains(c.Verdict(), "(d_z n/a, Holm p = 1e-4 over 1 comparison)") {
		t.Errorf("constant shift: %+v\n%s", c.Stats, c.Verdict())
	}
}

// TestPairScoresDroppedWhy: a query neither arm scores on a metric (an
// unanswerable question both leave unscored) is not dropped; the others
// are counted by reason.
func TestPairScoresDroppedWhy(t *testing.T) {
	row := func(id string, v float64, has bool, failed bool) Sample {
		s := Sample{QueryID: id}
		if failed {
			s.Error = "boom"
			return s
		}
		if has {
			s.Scores = map[string]float64{"token_f1": v}
		}
		return s
	}
	a := Result{PerSampleScores: []Sample{row("q1", 1, true, false), row("q2", 0, false, false), row("q3", 1, true, false), row("q4", 1, true, true), row("q5", 1, true, false)}}
	b := Result{PerSampleScores: []Sample{row("q1", 0.5, true, false), row("q2", 0, false, false), row("q3", 0, false, false), row("q4", 1, true, false), row("q6", 1, true, false)}}
	xa, xb, dropped, why := pairScores(a, b, "token_f1")
	if len(xa) != 1 || len(xb) != 1 || dropped != 4 || why != "2 in one arm only, 1 failed in an arm, 1 scored on token_f1 in one arm only" {
		t.Errorf("paired %d/%d, dropped %d (%s); want 1 pair and 4 dropped (q5, q6 in one arm; q4 failed; q3 scored in one arm), q2 not dropped", len(xa), len(xb), dropped, why)
	}
}

// TestCompareNoIntervals: NoIntervals leaves the bootstrap interval out
// and nothing else: the same p-values, Holm p, significance, effect size
// and smallest detectable difference.
func TestCompareNoIntervals(t *testing.T) {
	hf := testHeldFixed()
	base := series(40, func(i int) float64 { return float64((i*37)%90) / 100 })
	shifted := series(40, func(i int) float64 { return base[i] + float64(i%5)/50 })
	pairs := []Pair{{armWith(t, hf, "bm25", shifted), armWith(t, hf, "dense", base)}}
	with := Compare(pairs, CompareOptions{Seed: 1})
	without := Compare(pairs, CompareOptions{Seed: 1, NoIntervals: true})
	if len(with.Comparisons) != 1 || len(without.Comparisons) != 1 {
		t.Fatalf("%+v %+v", with, without)
	}
	a, b := with.Comparisons[0], without.Comparisons[0]
	if a.Stats.Lo == 0 && a.Stats.Hi == 0 || b.Stats.Lo != 0 || b.Stats.Hi != 0 {
		t.Errorf("intervals: with [%v, %v], without [%v, %v]", a.Stats.Lo, a.Stats.Hi, b.Stats.Lo, b.Stats.Hi)
	}
	a.Stats.Lo, a.Stats.Hi = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("beyond the interval:\nwith    %+v\nwithout %+v", a, b)
	}
}

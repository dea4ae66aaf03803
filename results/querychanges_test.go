package results

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

func TestQueryChanges(t *testing.T) {
	hf := testHeldFixed()
	base := armWith(t, hf, "base", []float64{1, 0.5, 0.2, 0.8, math.NaN()})
	arm := armWith(t, hf, "arm", []float64{0.3, 0.5, 0.6, 0, 0})
	lists := [][2][]string{
		{{"d1", "d2", "d3"}, {"d3", "d9"}},
		{{"d1"}, {"d1"}},
		{{"d5", "d6"}, {"d6", "d4"}},
		{{"d7", "d8"}, {"d8"}},
		{nil, nil},
	}
	for i, l := range lists {
		base.Result.PerSampleScores[i].RetrievedIDs = l[0]
		arm.Result.PerSampleScores[i].RetrievedIDs = l[1]
	}
	p := Pair{Arm: arm, Baseline: base}
	got := p.QueryChanges("ndcg@10", nil)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.QueryID)
	}
	// q3 fell most (0.8 → 0), then q0 (1 → 0.3); q2 rose; q1 is unchanged
	// and q4 failed in the baseline.
	if want := []string{"q3", "q0", "q2"}; !slices.Equal(ids, want) {
		t.Fatalf("queries %v, want %v", ids, want)
	}
	if c := got[1]; c.Before != 1 || c.After != 0.3 || !slices.Equal(c.Lost, []string{"d1", "d2"}) || !slices.Equal(c.Gained, []string{"d9"}) || c.Relevant {
		t.Errorf("q0 without data: %+v", c)
	}
	// With the benchmark: the question, and relevant documents only.
	bench := &lasagna.Benchmark{Name: hf.Benchmark, Queries: []lasagna.Query{{ID: "q0", Text: "what is d2?"}},
		Qrels: lasagna.Qrels{"q0": {"d2": 1, "d1": 0, "d9": 2}}}
	got = p.QueryChanges("ndcg@10", []*lasagna.Benchmark{bench})
	if c := got[1]; c.Question != "what is d2?" || !slices.Equal(c.Lost, []string{"d2"}) || !slices.Equal(c.Gained, []string{"d9"}) || !c.Relevant {
		t.Errorf("q0 with data: %+v", c)
	}
	// A cutoff of 1 looks at the top hit only.
	for i := range base.Result.PerSampleScores {
		if base.Result.PerSampleScores[i].Scores != nil {
			base.Result.PerSampleScores[i].Scores["recall@1"] = base.Result.PerSampleScores[i].Scores["ndcg@10"]
		}
		if arm.Result.PerSampleScores[i].Scores != nil {
			arm.Result.PerSampleScores[i].Scores["recall@1"] = arm.Result.PerSampleScores[i].Scores["ndcg@10"]
		}
	}
	if c := p.QueryChanges("recall@1", nil)[1]; !slices.Equal(c.Lost, []string{"d1"}) || !slices.Equal(c.Gained, []string{"d3"}) {
		t.Errorf("recall@1: %+v", c)
	}
}

// TestCompareMDE: each comparison carries the smallest detectable
// difference at the level Holm holds its family's first comparison to
// (alpha over the family size), from n and the sd of its differences; 0
// when the differences have no spread.
func TestCompareMDE(t *testing.T) {
	hf := testHeldFixed()
	a := armWith(t, hf, "a", series(40, func(i int) float64 { return float64(i%5) / 5 }))
	b := armWith(t, hf, "b", series(40, func(i int) float64 { return float64(i%3) / 3 }))
	for i := range a.Result.PerSampleScores {
		a.Result.PerSampleScores[i].Scores["recall@10"] = 0.5
		b.Result.PerSampleScores[i].Scores["recall@10"] = 0.25
	}
	got := Compare([]Pair{{Arm: a, Baseline: b}}, CompareOptions{Seed: 1})
	if len(got.Comparisons) != 2 {
		t.Fatalf("got %+v", got)
	}
	var d []float64
	for i := range 40 {
		d = append(d, float64(i%5)/5-float64(i%3)/3)
	}
	for _, c := range got.Comparisons {
		switch c.Metric {
		case "ndcg@10":
			want, _ := metrics.MinDetectable(40, metrics.SD(d), 0.05/2)
			if c.FamilySize != 2 || math.Abs(c.MDE-want) > 1e-12 || c.MDEText() != strconv.FormatFloat(want, 'g', 2, 64)+" at n=40" {
				t.Errorf("ndcg@10: MDE %v (%q), want %v", c.MDE, c.MDEText(), want)
			}
		case "recall@10":
			if c.MDE != 0 || c.MDEText() != "" || strings.Contains(c.Verdict(), "detectable") {
				t.Errorf("recall@10 (constant differences): MDE %v, verdict %q", c.MDE, c.Verdict())
			}
		}
	}
}

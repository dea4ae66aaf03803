package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/leaderboard"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// bundle returns a finalized bundle of one arm on bench with held_fixed
// h (varied: retriever), whose query qi scores score(qi) on ndcg@10 and
// recall@10 over n queries.
func bundle(t *testing.T, bench, arm, submitter string, h results.HeldFixed, n int, score func(i int) float64, warnings ...string) *results.Bundle {
	t.Helper()
	h.Benchmark, h.MetricsVersion, h.NSamples = bench, results.MetricsVersion, int64(n)
	if h.ResolvedMode == "" {
		h.ResolvedMode = lasagna.ModeRetrieval
	}
	b := &results.Bundle{
		SchemaVersion: results.SchemaVersion, MetricsVersion: results.MetricsVersion,
		Experiment: results.Experiment{Environment: results.CurrentEnvironment("test"), Determinism: results.Seeded, NothingSamples: true, StatsSeed: 42},
		Configs: []results.Config{{Name: arm, Benchmark: bench, HeldFixed: h, VariedDimensions: []string{"retriever"},
			VariedLevels: map[string]string{"retriever": arm}}},
		Integrity: results.Integrity{Warnings: findings(warnings), Blocking: []results.Finding{}},
	}
	if submitter != "" {
		b.Submitter = &results.Submitter{Name: submitter}
	}
	r := results.Result{BenchmarkName: bench, ConfigName: arm, Metrics: map[string]float64{}}
	for i := range n {
		s := score(i)
		r.PerSampleScores = append(r.PerSampleScores, results.Sample{QueryID: fmt.Sprintf("q%03d", i),
			Scores: map[string]float64{"ndcg@10": s, "recall@10": math.Min(1, s+0.1)}})
	}
	if err := results.Aggregate(&r, b.StatsOptions()); err != nil {
		t.Fatal(err)
	}
	b.Results = []results.Result{r}
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// wave is a per-query score between 0.2 and 0.8 with an offset.
func wave(offset float64) func(int) float64 {
	return func(i int) float64 { return 0.2 + 0.6*float64((i*37)%50)/50 + offset }
}

// TestBuild: arms on one benchmark and held_fixed share a group, ranked
// by ndcg@10 (the retrieval default), best first; a clearly better arm
// (+0.15 on every query) is ranked above, an arm equal to another on
// every query is tied with it and shares its rank, and the tie and the
// difference are the paired test's (metrics.ComparePaired seeded with the
// bundle's stats seed, Holm over the pair's gate metrics, as results
// compare has them). Another corpus provenance, another held-fixed setting and a
// synthetic benchmark are groups of their own; the synthetic group is
// labelled.
func TestBuild(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	pooled := results.HeldFixed{CorpusProvenance: lasagna.ProvenancePooledGold}
	native := results.HeldFixed{}
	k10 := 10
	topk := results.HeldFixed{RetrieverTopK: &k10}
	in := []leaderboard.Input{
		{ID: "r-low", Submitter: "ann", Date: day, Bundle: bundle(t, "faq@1", "bm25", "ann", pooled, 60, wave(0))},
		{ID: "r-high", Submitter: "bob <b>", Date: day.Add(time.Hour), Bundle: bundle(t, "faq@1", "dense", "bob <b>", pooled, 60, wave(0.15))},
		{ID: "r-same", Date: day.Add(2 * time.Hour), Bundle: bundle(t, "faq@1", "bm25-again", "", pooled, 60, wave(0))},
		{ID: "r-native", Date: day, Bundle: bundle(t, "faq@1", "bm25", "", native, 60, wave(0))},
		{ID: "r-topk", Date: day, Bundle: bundle(t, "faq@1", "bm25", "", topk, 60, wave(0))},
		{ID: "r-synth", Date: day, Bundle: bundle(t, "synth@2", "bm25", "", native, 60, wave(0),
			"SYNTHETIC_BENCHMARK at synth@2: 60 of 60 queries are LLM-written (metadata.synthetic)")},
	}
	groups, err := leaderboard.Build(in, leaderboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 4 {
		t.Fatalf("%d groups, want 4 (pooled, native, top_k 10, synthetic): %+v", len(groups), groups)
	}
	var pooledGroup *leaderboard.Group
	keys := map[string]bool{}
	for i, g := range groups {
		keys[g.Key] = true
		if g.Metric != "ndcg@10" {
			t.Errorf("group %d ranks by %s, want ndcg@10", i, g.Metric)
		}
		if g.Provenance == lasagna.ProvenancePooledGold {
			pooledGroup = &groups[i]
		}
		if (g.Benchmark == "synth@2") != g.Synthetic || g.Synthetic != (g.Label == leaderboard.SyntheticLabel) {
			t.Errorf("group %s: synthetic %v, label %q", g.Benchmark, g.Synthetic, g.Label)
		}
		if g.Provenance != lasagna.ProvenancePooledGold && len(g.Entries) != 1 {
			t.Errorf("group %s/%s has %d entries, want 1", g.Benchmark, g.Provenance, len(g.Entries))
		}
	}
	if len(keys) != 4 || pooledGroup == nil {
		t.Fatalf("keys %v, pooled group %v", keys, pooledGroup)
	}
	es := pooledGroup.Entries
	if len(es) != 3 {
		t.Fatalf("pooled group: %+v", es)
	}
	if es[0].RunID != "r-high" || es[0].Rank != 1 || es[0].Above != nil || es[0].Submitter != "bob <b>" {
		t.Errorf("first: %+v", es[0])
	}
	// r-low and r-same score alike on every query: ranked by date, tied.
	if es[1].RunID != "r-low" || es[1].Rank != 2 || es[1].Above == nil || es[1].Above.Tied {
		t.Errorf("second: %+v %+v", es[1], es[1].Above)
	}
	if es[2].RunID != "r-same" || es[2].Rank != 2 || !es[2].Above.Tied || es[2].Above.Diff != 0 {
		t.Errorf("third: %+v %+v", es[2], es[2].Above)
	}
	// The figures are the bundle's and the paired test's.
	st := in[1].Bundle.Results[0].MetricStats["ndcg@10"]
	if es[0].Mean != st.Mean || es[0].CILow != st.CILow || es[0].CIHigh != st.CIHigh || es[0].N != 60 {
		t.Errorf("first entry's figures %+v, bundle's %+v", es[0], st)
	}
	var hi, lo []float64
	for i := range 60 {
		hi, lo = append(hi, wave(0.15)(i)), append(lo, wave(0)(i))
	}
	p, err := metrics.ComparePaired(hi, lo, metrics.PairedOptions{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if es[1].Above.P != p.P || es[1].Above.Shared != 60 || math.Abs(es[1].Above.Diff-0.15) > 1e-9 {
		t.Errorf("vs above %+v, paired test p %v", es[1].Above, p.P)
	}
	// Holm over the pair's family, its two gate metrics (ndcg@10 and
	// recall@10, which the bundles score alike), not over the page.
	if want := math.Min(1, 2*p.P); math.Abs(es[1].Above.HolmP-want) > 1e-12 || es[1].Above.Family != 2 || es[2].Above.Family != 2 {
		t.Errorf("Holm p %v over %d, want %v over 2", es[1].Above.HolmP, es[1].Above.Family, want)
	}
}

// TestBuildMetric: a chosen metric ranks every group; a metric no entry
// scores is an UnknownMetricError naming the known ones.
func TestBuildMetric(t *testing.T) {
	in := []leaderboard.Input{
		{ID: "a", Bundle: bundle(t, "faq@1", "a", "", results.HeldFixed{}, 20, wave(0))},
		{ID: "b", Bundle: bundle(t, "faq@1", "b", "", results.HeldFixed{}, 20, wave(0.3))},
	}
	groups, err := leaderboard.Build(in, leaderboard.Options{Metric: "recall@10"})
	if err != nil || len(groups) != 1 || groups[0].Metric != "recall@10" || groups[0].Entries[0].RunID != "b" {
		t.Fatalf("%+v %v", groups, err)
	}
	_, err = leaderboard.Build(in, leaderboard.Options{Metric: "ndcg@100"})
	var u *leaderboard.UnknownMetricError
	if !errors.As(err, &u) || fmt.Sprint(u.Known) != "[ndcg@10 recall@10]" {
		t.Fatalf("unknown metric: %v", err)
	}
}

// TestDefaultMetricIsTheGates: the default ranking metric of each mode
// is the first metric the engine's regression gate checks for an arm of
// that mode.
func TestDefaultMetricIsTheGates(t *testing.T) {
	for _, mode := range results.Modes() {
		retriever := func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) { return nil, nil }
		generator := lasagna.GeneratorFunc(func(context.Context, lasagna.Query, []lasagna.Document) (lasagna.Answer, error) {
			return lasagna.Answer{}, nil
		})
		arm := &engine.Arm{Name: "a", Mode: mode}
		switch mode {
		case lasagna.ModeRetrieval:
			arm.Retriever = retriever
		case lasagna.ModeRAG:
			arm.Retriever, arm.Generator = retriever, generator
		default:
			arm.Generator = generator
		}
		if arm.ResolvedMode() != mode {
			t.Fatalf("the arm of %s resolves to %s", mode, arm.ResolvedMode())
		}
		gated := engine.GatedMetrics(engine.Gate{}, arm)
		if len(gated) == 0 || leaderboard.DefaultMetric(mode) != gated[0] {
			t.Errorf("%s: default %s, the gate checks %v", mode, leaderboard.DefaultMetric(mode), gated)
		}
	}
}

// findings reads integrity lines.
func findings(lines []string) []results.Finding {
	out := []results.Finding{}
	for _, l := range lines {
		var f results.Finding
		_ = f.UnmarshalText([]byte(l))
		out = append(out, f)
	}
	return out
}

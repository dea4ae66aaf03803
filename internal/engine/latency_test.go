package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
)

// sleepArm answers every query after at least d: its latency_ms is never
// below d (a lower bound, not a timing assertion).
func sleepArm(name string, d time.Duration) engine.Arm {
	return engine.Arm{Name: name, TopK: 10, Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			time.Sleep(d)
			if q.ID == "q02" {
				return nil, context.DeadlineExceeded
			}
			return []lasagna.Hit{{ID: "d01", Score: 1}}, nil
		}), nil
	}}
}

func TestLatencyInBundleRows(t *testing.T) {
	br := tinyRun(t)
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{sleepArm("slow", 2*time.Millisecond)}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{Latency: true})
	if err != nil {
		t.Fatal(err)
	}
	rows := b.Results[0].PerSampleScores
	for _, row := range rows {
		// Failed calls took time too: their rows record it.
		if row.LatencyMS == nil || *row.LatencyMS < 2 {
			t.Errorf("row %s latency_ms = %v, want ≥ 2", row.QueryID, row.LatencyMS)
		}
	}
	if _, ok := b.Results[0].Metrics[engine.MetricLatency]; ok {
		t.Error("latency_ms is an aggregate metric; it is a measurement, not a score")
	}
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"latency_ms":`) {
		t.Errorf("written bundle has no latency_ms")
	}
	back, err := results.Unmarshal(raw)
	if err != nil {
		t.Fatalf("the bundle with latency does not read back: %v", err)
	}
	if got := back.Results[0].PerSampleScores[0].LatencyMS; got == nil || *got != *rows[0].LatencyMS {
		t.Errorf("latency_ms read back as %v, want %v", got, *rows[0].LatencyMS)
	}

	// Without Latency (the default) the bundle is reproducible: two runs,
	// same bytes.
	quiet, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{sleepArm("slow", time.Millisecond)}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	quiet2, err := rep2.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if quiet.RunID != quiet2.RunID {
		t.Errorf("bundles without latency of two runs differ: %s vs %s", quiet.RunID, quiet2.RunID)
	}
	// results.WithoutLatency normalises a bundle that has it.
	stripped, err := results.WithoutLatency(b)
	if err != nil {
		t.Fatal(err)
	}
	if stripped.RunID != quiet.RunID || b.Results[0].PerSampleScores[0].LatencyMS == nil {
		t.Errorf("WithoutLatency: run_id %s, want the bundle without latency's %s (and the input unchanged)", stripped.RunID, quiet.RunID)
	}
	for _, row := range quiet.Results[0].PerSampleScores {
		if row.LatencyMS != nil {
			t.Errorf("default row %s has latency_ms %v", row.QueryID, *row.LatencyMS)
		}
	}
}

// TestLatencyThreshold checks AtMost on latency_ms end to end, per query
// and on the mean.
func TestLatencyThreshold(t *testing.T) {
	br := tinyRun(t)
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{sleepArm("slow", 2*time.Millisecond)}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(ths ...engine.Threshold) engine.VerdictPlan {
		return engine.VerdictPlan{Thresholds: map[string][]engine.Threshold{"slow": ths}}
	}
	failed := func(vs []engine.Verdict) (msgs []string) {
		for _, v := range vs {
			if !v.Pass && v.Kind != engine.VerdictQuery {
				msgs = append(msgs, v.Message)
			}
		}
		return msgs
	}
	perQuery := engine.AtMost(engine.MetricLatency, 1)
	perQuery.PerQuery = true
	if got := failed(engine.Verdicts(rep, plan(perQuery))); len(got) != 11 || !strings.Contains(got[0], "latency_ms = ") || !strings.Contains(got[0], "want <= 1") {
		t.Errorf("per-query latency_ms <= 1 on an arm slower than 2 ms: %d failures, want 11 (every query that answered):\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := failed(engine.Verdicts(rep, plan(engine.AtMost(engine.MetricLatency, 1)))); len(got) != 1 || !strings.Contains(got[0], "latency_ms = ") {
		t.Errorf("mean latency_ms <= 1: %q, want one failure", got)
	}
	if got := failed(engine.Verdicts(rep, plan(engine.AtMost(engine.MetricLatency, 3_600_000)))); len(got) != 0 {
		t.Errorf("latency_ms <= 1 h failed: %q", got)
	}
}

// sampler is a generator that says it samples, as package generate's do.
type sampler struct{ lasagna.GeneratorFunc }

func (sampler) Samples() bool { return true }

func TestSamplerGeneratorCountsAsSampling(t *testing.T) {
	br := tinyRun(t)
	gen := lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{Text: "soda"}, nil
	})
	for _, tc := range []struct {
		name string
		gen  lasagna.Generator
		want bool
	}{{"plain", gen, false}, {"llm", sampler{gen}, true}} {
		arm := engine.Arm{Name: tc.name, Generator: tc.gen}
		if got := arm.Sampling(); got != tc.want {
			t.Errorf("%s: Sampling() = %v, want %v", tc.name, got, tc.want)
		}
		rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{arm}, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		single := false
		for _, f := range rep.Findings {
			single = single || f.Code == lasagna.SingleRun
		}
		b, err := rep.Bundle(engine.BundleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if single != tc.want || b.Experiment.NothingSamples == tc.want {
			t.Errorf("%s: SINGLE_RUN %v, nothing_samples %v; want SINGLE_RUN %v", tc.name, single, b.Experiment.NothingSamples, tc.want)
		}
	}
}

// TestResumeKeepsLatency: a fully resumed run restores each query's
// latency from the journal, so its bundle equals the first run's byte for
// byte, latency_ms included.
func TestResumeKeepsLatency(t *testing.T) {
	dir := t.TempDir()
	br := tinyRun(t)
	opts := engine.Options{JournalDir: dir, Resume: true}
	first, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{sleepArm("slow", time.Millisecond)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{sleepArm("slow", time.Millisecond)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Cells[0].Resumed != 11 {
		t.Fatalf("resumed %d queries, want the 11 that succeeded", again.Cells[0].Resumed)
	}
	a, err := first.Bundle(engine.BundleOptions{Latency: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := again.Bundle(engine.BundleOptions{Latency: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range b.Results[0].PerSampleScores {
		if row.QueryID != "q02" && (row.LatencyMS == nil || *row.LatencyMS != *a.Results[0].PerSampleScores[i].LatencyMS) {
			t.Errorf("%s: resumed latency_ms %v, want the journalled %v", row.QueryID, row.LatencyMS, *a.Results[0].PerSampleScores[i].LatencyMS)
		}
	}
}

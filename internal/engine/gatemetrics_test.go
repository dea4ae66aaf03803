package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
)

// TestGatedMetricsAreResultsGateMetrics: the gate's default metrics for an
// arm of each mode are those results.GateMetrics compares by default for
// two arms of that mode, so the gate, results compare, results report and
// the leaderboards test the same family (docs/metrics.md, "Statistics").
func TestGatedMetricsAreResultsGateMetrics(t *testing.T) {
	retriever := func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) { return nil, nil }
	generator := lasagna.GeneratorFunc(func(context.Context, lasagna.Query, []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{}, nil
	})
	scored := map[string]float64{"ndcg@10": 1, "recall@10": 1, "token_f1": 1, "exact_match": 1, "mrr": 1}
	for _, mode := range results.Modes() {
		arm := &engine.Arm{Name: "a", Mode: mode}
		switch mode {
		case lasagna.ModeRetrieval:
			arm.Retriever = retriever
		case lasagna.ModeRAG:
			arm.Retriever, arm.Generator = retriever, generator
		default:
			arm.Generator = generator
		}
		a := results.ArmResult{Label: "a", Config: results.Config{HeldFixed: results.HeldFixed{ResolvedMode: mode}}, Result: results.Result{Metrics: scored}}
		got := results.GateMetrics(results.Pair{Arm: a, Baseline: a})
		if want := engine.GatedMetrics(engine.Gate{}, arm); !slices.Equal(got, want) {
			t.Errorf("%s: results.GateMetrics %v, the gate's defaults %v", mode, got, want)
		}
	}
}

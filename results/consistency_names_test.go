package results_test

import (
	"context"
	"slices"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
)

type nopJudge struct{}

func (nopJudge) Score(context.Context, lasagna.Query, lasagna.Output) (engine.Judgement, error) {
	return engine.Judgement{}, nil
}
func (nopJudge) Model() string { return "judge" }

// TestMetricRangeKnowsEngineMetrics checks that every metric the engine
// can score (engine.KnownMetrics of a judged RAG arm) has a range known to
// Validate, so a new metric cannot escape the range check unnoticed.
func TestMetricRangeKnowsEngineMetrics(t *testing.T) {
	arm := &engine.Arm{Name: "all", Mode: lasagna.ModeRAG, Judge: nopJudge{}}
	names := engine.KnownMetrics(arm, []int{1, 3, 10, 1000})
	if !slices.Contains(names, "groundedness") || !slices.Contains(names, "token_f1") || !slices.Contains(names, "ndcg@1000") {
		t.Fatalf("the arm does not score every kind of metric: %v", names)
	}
	for _, m := range names {
		if _, _, ok := results.MetricRange(m); !ok {
			t.Errorf("engine scores %s, which results.MetricRange does not know; give it its range", m)
		}
	}
}

package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
)

// fixedJudge is a judge of the given metrics.
type fixedJudge []string

func (j fixedJudge) Score(context.Context, lasagna.Query, lasagna.Output) (engine.Judgement, error) {
	return engine.Judgement{}, nil
}
func (fixedJudge) Model() string       { return "m" }
func (j fixedJudge) Metrics() []string { return j }

// TestTableMetrics: the plan's table metrics are each arm's judge and
// scorer metrics, its thresholds' metrics and the gate's, each once, and
// never latency_ms.
func TestTableMetrics(t *testing.T) {
	gen := lasagna.GeneratorFunc(func(context.Context, lasagna.Query, []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{}, nil
	})
	p := &engine.Plan{
		Arms: []engine.Arm{
			{Name: "a", Generator: gen, Judge: fixedJudge{"judge_correctness", "polite"},
				Scorers: []engine.Scorer{{Name: "s", Metrics: []string{"cites_source"}}}},
			{Name: "b", Generator: gen},
		},
		Thresholds: map[string][]engine.Threshold{
			"a": {engine.AtLeast("judge_correctness", 0.9), engine.AtMost("latency_ms", 100)},
			"b": {engine.AtLeast("exact_match", 0.5)},
		},
		Gate: &engine.GateOptions{Gate: engine.Gate{Metrics: []string{"token_f1", "polite"}}},
	}
	got := p.TableMetrics()
	want := []string{"judge_correctness", "polite", "cites_source", "token_f1", "exact_match"}
	if !slices.Equal(got, want) {
		t.Errorf("TableMetrics = %v, want %v", got, want)
	}
}

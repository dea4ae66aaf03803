package evaltest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
)

// costJudge is a judge whose every Score spends $0.01 (as an LLM client's
// tracker would record it) and which estimates one call of $0.01 per
// query, as llmarms's judge does.
type costJudge struct {
	mu     sync.Mutex
	scored int
}

func (j *costJudge) Score(context.Context, lasagna.Query, lasagna.Output) (engine.Judgement, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.scored++
	return engine.Judgement{Scores: map[string]float64{engine.MetricJudgeCorrectness: 1}, Model: "judge-model"}, nil
}

func (j *costJudge) Model() string { return "judge-model" }

func (j *costJudge) EstimateCalls(q lasagna.Query, _ []lasagna.Document, answer string) []engine.PlannedCalls {
	return []engine.PlannedCalls{{Stage: "judge", Model: "judge-model", Calls: 1, InputTokens: int64(len(q.Text)/4 + len(answer)/4 + 2), OutputTokens: 256, CostUSD: 0.01, Priced: true}}
}

func (j *costJudge) SpentUSD() (any, float64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j, 0.01 * float64(j.scored)
}

func judgedConfig(j *costJudge) Config {
	gen := lasagna.GeneratorFunc(func(_ context.Context, q lasagna.Query, _ []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{Text: "lime"}, nil
	})
	cfg := tinyConfig()
	cfg.Arms = []Arm{{Name: "gen", Generator: gen, Judge: j, Samples: true}}
	return cfg
}

func TestDryRunLogsTheEstimateAndSkips(t *testing.T) {
	j := &costJudge{}
	log, failed, out := fakeEval(t, judgedConfig(j), map[string]string{envDryRun: "1"})
	if failed || j.scored != 0 {
		t.Errorf("failed %v, %d judge calls; want a skip that calls nothing:\n%s", failed, j.scored, log)
	}
	for _, want := range []string{"LASAGNA_DRY_RUN=1: the LLM calls this run would make", "est. input tokens", "gen    judge  judge-model  12",
		"not estimated: arm gen: its generator is not one of lasagna's LLM generators", "SKIP: LASAGNA_DRY_RUN=1", "--- SKIP: TestRAG"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "=== RUN   TestRAG/") {
		t.Errorf("the dry run ran subtests:\n%s", log)
	}
	if files, _ := os.ReadDir(out); len(files) > 0 {
		t.Errorf("the dry run wrote %v", files)
	}
	if _, err := readSettings(env(map[string]string{envMaxCost: "-1"})); err == nil || !strings.Contains(err.Error(), "LASAGNA_MAX_COST=\"-1\": want a positive number of US dollars") {
		t.Errorf("LASAGNA_MAX_COST=-1: %v", err)
	}
}

func TestMaxCostStopsTheRun(t *testing.T) {
	j := &costJudge{}
	log, failed, out := fakeEval(t, judgedConfig(j), map[string]string{envMaxCost: "0.035", EnvConcurrency: "1"})
	if !failed || j.scored != 3 {
		t.Errorf("failed %v after %d judge calls; want a failure after 3 ($0.03 spent, a fourth would pass $0.035):\n%s", failed, j.scored, log)
	}
	for _, want := range []string{"not run: the run's cost cap of $0.0350 was reached",
		"evaltest: cost cap $0.0350 reached after 3 of ", "rerun with a higher LASAGNA_MAX_COST"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if files, _ := os.ReadDir(out); len(files) > 0 {
		t.Errorf("the capped run wrote %v", files)
	}
}

package evaltest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

// calibrated is an arm whose judge cites a record judge.Calibrate wrote.
type calibrated struct {
	srv         *fixtures.FakeOpenAI
	client      *llm.Client
	path, bench string
	gen         lasagna.Generator
	ev          *evaltest.Evaluation
}

// runCalibrated calibrates a judge of judge_correctness on two labels
// (judged by a scripted fake), writes the record and evaluates an arm
// citing it on the tiny benchmark.
func runCalibrated(t *testing.T) *calibrated {
	t.Helper()
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string { return `{"verdict": "correct"}` }})
	t.Cleanup(srv.Close)
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "judge-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.New(client, judge.Config{Metrics: []string{judge.Correctness}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := j.Calibrate(t.Context(), judge.Correctness, []judge.Label{
		{ID: "a", Question: "What is soda?", Reference: "sodium carbonate", Answer: "sodium carbonate", Label: true},
		{ID: "b", Question: "What is lime?", Reference: "calcium oxide", Answer: "chalk", Label: false},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.LasagnaVersion = "test"
	data, _ := json.Marshal(rec)
	path := filepath.Join(t.TempDir(), "calib.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tiny, err := fixtures.Data.ReadFile(fixtures.TinyJSONL)
	if err != nil {
		t.Fatal(err)
	}
	bench := filepath.Join(filepath.Dir(path), "tiny.jsonl")
	if err := os.WriteFile(bench, tiny, 0o644); err != nil {
		t.Fatal(err)
	}
	gen := lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{Text: "x"}, nil
	})
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
		Benchmarks: []string{bench},
		Arms:       []evaltest.Arm{{Name: "gen", Generator: gen, Judge: llmarms.Judge(j), JudgeCalibrations: []string{path}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &calibrated{srv: srv, client: client, path: path, bench: bench, gen: gen, ev: ev}
}

// TestArmJudgeCalibrations: an arm cites a record judge.Calibrate wrote;
// the bundle carries it, and a record of another judge model is refused
// before any call.
func TestArmJudgeCalibrations(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	run := runCalibrated(t)
	srv, client, path, bench, gen, ev := run.srv, run.client, run.path, run.bench, run.gen, run.ev
	got := ev.Bundle.Configs[0].JudgeCalibrations
	if len(got) != 1 || got[0].N != 2 || got[0].Accuracy != 0.5 || got[0].FalsePositiveIDs[0] != "b" || got[0].JudgeModel != "judge-model" {
		t.Errorf("bundle calibrations %+v", got)
	}

	other, _ := judge.New(client, judge.Config{Model: "other-model"})
	calls := srv.Count("chat")
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
		Benchmarks: []string{bench},
		Arms:       []evaltest.Arm{{Name: "gen", Generator: gen, Judge: llmarms.Judge(other), JudgeCalibrations: []string{path}}},
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if ev.Failed() && len(ev.Tests) > 0 {
		msg = ev.Tests[0].Failure()
	}
	if !strings.Contains(msg, `measured judge model "judge-model", and the arm's judge is "other-model"`) || srv.Count("chat") != calls {
		t.Errorf("another judge model: %q (%d calls)", msg, srv.Count("chat")-calls)
	}
}

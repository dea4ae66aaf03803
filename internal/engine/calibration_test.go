package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// versionedJudge is a fakeJudge that names its prompt, as package judge's
// judges do.
type versionedJudge struct {
	fakeJudge
	metrics []string
}

func (j *versionedJudge) PromptVersion(metric string) (string, string, bool) {
	for _, m := range j.metrics {
		if m == metric {
			return metric + "-v1", strings.Repeat("ab", 32), true
		}
	}
	return "", "", false
}

func calibRecord(mod func(*lasagna.JudgeCalibration)) []byte {
	k, lo, hi := 0.5, 0.1, 0.9
	rec := lasagna.JudgeCalibration{Metric: MetricJudgeCorrectness, JudgeModel: "jm", PromptID: "judge_correctness-v1", PromptSHA256: strings.Repeat("ab", 32),
		LabelsFile: "labels.jsonl", LabelsSHA256: strings.Repeat("cd", 32), N: 4, Threshold: 0.5, Accuracy: 0.75, Kappa: &k, KappaLo: &lo, KappaHi: &hi,
		Level: 0.95, Resamples: 10000, Seed: 1, TruePositives: 2, FalsePositives: 1, TrueNegatives: 1, FalsePositiveIDs: []string{"l3"},
		Reasons: map[string]string{"l3": "the judge's words"}, Date: "2026-12-02", LasagnaVersion: "dev"}
	if mod != nil {
		mod(&rec)
	}
	data, _ := json.Marshal(rec)
	return data
}

func TestCalibrationCitedBySweep(t *testing.T) {
	deps := Deps{
		Generator: func(spec GeneratorSpec) (lasagna.Generator, error) { return newRecorder().generator(), nil },
		Judge: func(spec JudgeSpec, ms []string) (Judge, error) {
			return &versionedJudge{fakeJudge{model: spec.Model}, ms}, nil
		},
	}
	fsys := fstest.MapFS{
		"run/sweep.yaml": {Data: []byte(`benchmarks: [{path: data.jsonl}]
judge: {model: jm, metrics: [judge_correctness], calibrations: [../calib/c.json]}
arms:
  - {name: gold, generator: {kind: grounded, model: g}}
`)},
		"calib/c.json": {Data: calibRecord(nil)},
	}
	s, err := ReadSweep(fsys, "run/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := deps.SweepPlan(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Check(); err != nil {
		t.Fatal(err)
	}
	arms := plan.Arms
	if len(arms[0].JudgeCalibrations) != 1 || arms[0].JudgeCalibrations[0].File != "calib/c.json" {
		t.Fatalf("calibrations %+v", arms[0].JudgeCalibrations)
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, arms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got := b.Configs[0].JudgeCalibrations
	if len(got) != 1 || got[0].Accuracy != 0.75 || *got[0].Kappa != 0.5 || got[0].Reasons != nil || got[0].FalsePositiveIDs[0] != "l3" {
		t.Errorf("bundle calibrations %+v", got)
	}
	data, _ := json.Marshal(b)
	if strings.Contains(string(data), "the judge's words") || strings.Contains(string(data), "calib/c.json") {
		t.Error("the bundle holds the judge's reasons or the record's path")
	}

	// Each mismatch is refused before any call.
	for _, c := range []struct {
		yaml, record, want string
	}{
		{"judge: {model: other, calibrations: [c.json]}", "", `measured judge model "jm", and the arm's judge is "other"; calibrate this judge (lasagna judge calibrate LABELS --model other --metric judge_correctness)`},
		{"judge: {model: jm, metrics: [groundedness], calibrations: [c.json]}", "", "calibrates judge_correctness, which the arm's judge does not score"},
		{"judge: {model: jm, calibrations: [c.json]}", `{"prompt_id": "judge_correctness-v0"}`, "measured prompt judge_correctness-v0@abababababab of judge_correctness, and the arm's judge uses judge_correctness-v1@abababababab"},
		{"judge: {model: jm, calibrations: [c.json, c.json]}", "", "both calibrate judge_correctness"},
		{"judge: {model: jm, calibrations: [c.json]}", `{"n": 5}`, `c.json: field "n": 5, but the confusion matrix sums to 4`},
		{"judge: {model: jm, calibrations: [c.json]}", `{"kappa_low": 1}`, `unknown field "kappa_low"`},
		{"judge: {model: jm, calibrations: [missing.json]}", "", "missing.json"},
	} {
		rec := calibRecord(nil)
		if c.record != "" {
			var m map[string]any
			json.Unmarshal(rec, &m)
			json.Unmarshal([]byte(c.record), &m)
			rec, _ = json.Marshal(m)
		}
		fs := fstest.MapFS{"sweep.yaml": {Data: []byte("benchmarks: [{path: d.jsonl}]\n" + c.yaml + "\narms: [{name: gold, generator: {kind: grounded, model: g}}]\n")}, "c.json": {Data: rec}}
		s, err := ReadSweep(fs, "sweep.yaml")
		if err == nil {
			var p *Plan
			if p, err = deps.SweepPlan(context.Background(), s); err == nil {
				err = p.Check()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want %q", c.yaml, c.record, err, c.want)
		}
	}

	// A judge that names no prompts cannot be checked; an arm without a
	// judge cannot cite one.
	var rec lasagna.JudgeCalibration
	json.Unmarshal(calibRecord(nil), &rec)
	plain := Arm{Name: "p", Generator: newRecorder().generator(), JudgeCalibrations: []lasagna.JudgeCalibration{rec}}
	if err := plain.Check(); err == nil || !strings.Contains(err.Error(), "has no judge") {
		t.Errorf("no judge: %v", err)
	}
	plain = plain.WithJudge(&fakeJudge{model: "jm"})
	if err := plain.Check(); err == nil || !strings.Contains(err.Error(), "names no prompt versions") {
		t.Errorf("judge without prompts: %v", err)
	}
}

func TestIsSHA256Hex(t *testing.T) {
	ok := strings.Repeat("0123456789abcdef", 4)
	for s, want := range map[string]bool{
		ok:                      true,
		ok[:63]:                 false,
		ok + "0":                false,
		strings.ToUpper(ok):     false,
		ok[:63] + "g":           false,
		ok[:63] + "/":           false,
		ok[:63] + ":":           false,
		"":                      false,
		strings.Repeat("f", 64): true,
		strings.Repeat("é", 32): false,
	} {
		if got := isSHA256Hex(s); got != want {
			t.Errorf("isSHA256Hex(%q) = %v, want %v", s, got, want)
		}
	}
}

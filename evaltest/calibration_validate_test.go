package evaltest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/results"
)

// calibratedBundle runs TestArmJudgeCalibrations' arm and returns its
// bundle, which cites a record judge.Calibrate wrote.
func calibratedBundle(t *testing.T) *results.Bundle {
	t.Helper()
	ev := runCalibrated(t).ev
	if len(ev.Bundle.Configs[0].JudgeCalibrations) != 1 {
		t.Fatalf("the bundle cites %d records", len(ev.Bundle.Configs[0].JudgeCalibrations))
	}
	return ev.Bundle
}

// revalidate finalizes b (new hashes, as a regenerated bundle has) and
// returns the problems of code c that Validate reports.
func revalidate(t *testing.T, b *results.Bundle, c lasagna.Code) []string {
	t.Helper()
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range results.Validate(raw).Problems {
		if p.Code == c {
			out = append(out, p.String())
		}
	}
	return out
}

// clone copies b through its JSON.
func clone(t *testing.T, b *results.Bundle) *results.Bundle {
	t.Helper()
	raw, _ := json.Marshal(b)
	var c results.Bundle
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestValidateJudgeCalibrations: results validate re-derives the numbers
// of a bundle's judge_calibrations — n from the confusion matrix,
// accuracy, kappa (present exactly when defined), the interval's shape,
// the disagreement ids — and checks the record against the arm's judge
// (judge_model, the prompt of held_fixed.fixed_stages.judge). A record
// judge.Calibrate wrote passes; each edit is INCONSISTENT_BUNDLE naming
// the field.
func TestValidateJudgeCalibrations(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	b := calibratedBundle(t)
	if got := revalidate(t, clone(t, b), lasagna.InconsistentBundle); len(got) != 0 {
		t.Fatalf("the run's own bundle: %v", got)
	}
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name string
		edit func(*lasagna.JudgeCalibration)
		want string
	}{
		{"accuracy", func(c *lasagna.JudgeCalibration) { c.Accuracy = 1 }, "accuracy is 1, but the confusion matrix gives (1 + 0) / 2 = 0.5"},
		{"n", func(c *lasagna.JudgeCalibration) { c.N = 3 }, "n is 3, but the confusion matrix"},
		{"matrix", func(c *lasagna.JudgeCalibration) { c.TrueNegatives, c.FalsePositives = 1, 0 }, "false_positive_ids lists 1 ids, but false_positives is 0"},
		{"kappa value", func(c *lasagna.JudgeCalibration) { c.Kappa = f(0.3) }, "kappa is 0.3, but the confusion matrix gives 0"},
		{"kappa absent", func(c *lasagna.JudgeCalibration) { c.Kappa, c.KappaLo, c.KappaHi = nil, nil, nil }, "kappa is absent, but the confusion matrix gives 0"},
		{"kappa undefined", func(c *lasagna.JudgeCalibration) {
			c.TruePositives, c.FalsePositives, c.FalsePositiveIDs, c.Accuracy = 2, 0, nil, 1
		}, "kappa is 0, but it is undefined for this confusion matrix"},
		{"half interval", func(c *lasagna.JudgeCalibration) { c.KappaHi = nil }, "the kappa interval has one end"},
		{"ids", func(c *lasagna.JudgeCalibration) { c.FalsePositiveIDs = []string{"b", "c"} }, "false_positive_ids lists 2 ids, but false_positives is 1"},
		{"level", func(c *lasagna.JudgeCalibration) { c.Level = 1.5 }, "level is 1.5"},
		{"judge model", func(c *lasagna.JudgeCalibration) { c.JudgeModel = "other" }, `judge_model is "other", but the arm's judge is "judge-model"`},
		{"prompt", func(c *lasagna.JudgeCalibration) { c.PromptSHA256 = strings.Repeat("0", 64) }, "prompt judge-correctness-v1@000000000000, but the arm's judge scores judge_correctness with judge-correctness-v1@"},
		{"metric", func(c *lasagna.JudgeCalibration) { c.Metric = "groundedness" }, `does not score "groundedness"`},
	} {
		c := clone(t, b)
		tc.edit(&c.Configs[0].JudgeCalibrations[0])
		got := revalidate(t, c, lasagna.InconsistentBundle)
		if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tc.want) || !strings.Contains(got[0], "judge_calibrations[") {
			t.Errorf("%s: %v\nwant INCONSISTENT_BUNDLE with %q", tc.name, got, tc.want)
		}
	}

	// A defined kappa: 2 1 / 1 2 gives p_o 2/3, p_e 1/2, kappa 1/3.
	c := clone(t, b)
	rec := &c.Configs[0].JudgeCalibrations[0]
	rec.N, rec.TruePositives, rec.FalseNegatives, rec.FalsePositives, rec.TrueNegatives = 6, 2, 1, 1, 2
	rec.FalsePositiveIDs, rec.FalseNegativeIDs = []string{"b"}, []string{"d"}
	rec.Accuracy, rec.Kappa, rec.KappaLo, rec.KappaHi = 4.0/6, f(1.0/3), f(-0.2), f(0.9)
	if got := revalidate(t, c, lasagna.InconsistentBundle); len(got) != 0 {
		t.Errorf("a consistent record with kappa 1/3: %v", got)
	}
	rec.Kappa = f(0.34)
	if got := revalidate(t, c, lasagna.InconsistentBundle); len(got) != 1 || !strings.Contains(got[0], "kappa is 0.34, but the confusion matrix gives 0.333") {
		t.Errorf("kappa 0.34 for 1/3: %v", got)
	}
	rec.Kappa, rec.KappaLo = f(1.0/3), f(0.95)
	if got := revalidate(t, c, lasagna.InconsistentBundle); len(got) != 1 || !strings.Contains(got[0], "the kappa interval [0.95, 0.9] is not an interval") {
		t.Errorf("an interval with low > high: %v", got)
	}
}

// TestValidateCalibrationPrompts: the prompt check re-derives
// judge.(*Judge).PromptVersion from held_fixed.fixed_stages.judge for
// every metric the judge scores — the yes/no metrics, the RAG metrics
// (several prompts and settings) and a rubric — and refuses another
// version of each.
func TestValidateCalibrationPrompts(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	b := calibratedBundle(t)
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "judge-model", EmbeddingModel: "emb", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ms := []string{judge.Correctness, judge.Groundedness, "faithfulness", "answer_relevancy", "context_precision", "context_recall", "polite"}
	j, err := judge.New(client, judge.Config{Metrics: ms, Rubrics: []judge.Rubric{{Name: "polite", Criterion: "The answer is polite.", Scale: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	base := b.Configs[0].JudgeCalibrations[0]
	c := clone(t, b)
	c.Configs[0].HeldFixed.FixedStages["judge"] = j.Describe()
	c.Configs[0].JudgeCalibrations = nil
	for _, m := range ms {
		id, sha, ok := j.PromptVersion(m)
		if !ok {
			t.Fatalf("the judge does not score %s", m)
		}
		rec := base
		rec.Metric, rec.PromptID, rec.PromptSHA256 = m, id, sha
		c.Configs[0].JudgeCalibrations = append(c.Configs[0].JudgeCalibrations, rec)
	}
	if got := revalidate(t, clone(t, c), lasagna.InconsistentBundle); len(got) != 0 {
		t.Fatalf("records of the judge's own prompts: %v", got)
	}
	for i, m := range ms {
		d := clone(t, c)
		d.Configs[0].JudgeCalibrations[i].PromptSHA256 = strings.Repeat("ab", 32)
		got := revalidate(t, d, lasagna.InconsistentBundle)
		if len(got) != 1 || !strings.Contains(got[0], `judge_calibrations["`+m+`"]: prompt `) {
			t.Errorf("%s: another prompt version: %v", m, got)
		}
	}
	d := clone(t, c)
	d.Configs[0].JudgeCalibrations[1].Metric = judge.Correctness
	if got := revalidate(t, d, lasagna.InconsistentBundle); !strings.Contains(strings.Join(got, "\n"), "a second record of metric") {
		t.Errorf("two records of one metric: %v", got)
	}
}

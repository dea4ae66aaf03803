package evaltest_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/generate"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

// TestJudgedGeneratorArm runs a generator arm scored by an LLM judge on
// the fake OpenAI server: the judge's scores reach the attrs and the
// bundle, judge_model is held fixed, a judge failure is JUDGE_ERRORS (never
// a score), and a single run of a judged arm raises SINGLE_RUN.
func TestJudgedGeneratorArm(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if strings.Contains(c.LastUser, "q05") || strings.Contains(c.LastUser, "lead glass") {
			return "I cannot say." // not the JSON the judge must return
		}
		return `{"verdict": "correct"}`
	}})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "judge-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.New(client, judge.Config{Metrics: []string{judge.Correctness}})
	if err != nil {
		t.Fatal(err)
	}
	gen := lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		if len(q.Answers) == 0 {
			return lasagna.Answer{Abstained: true}, nil
		}
		return lasagna.Answer{Text: q.Answers[0]}, nil
	})
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
		FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{{Name: "gen", Generator: gen, Judge: llmarms.Judge(j)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := ev.Bundle.Results[0]
	if st := res.MetricStats["judge_correctness"]; st.N == 0 || st.Mean != 1 {
		t.Errorf("judge_correctness = %+v, want a mean of 1 over the judged queries", st)
	}
	// The judge's metric has a column in the results table and is a
	// query attr by default (every metric the query scored).
	if logs := strings.Join(ev.Tests[0].Logs, "\n"); !strings.Contains(logs, "results:") || !strings.Contains(logs, "judge_correctness") {
		t.Errorf("no judge_correctness column in the results table:\n%s", logs)
	}
	if !slices.Contains(ev.Columns, "judge_correctness") {
		t.Errorf("Evaluation.Columns = %v, want judge_correctness among them", ev.Columns)
	}
	if q, ok := ev.Test("TestRAG/tiny/gen/q01"); !ok {
		t.Error("no test TestRAG/tiny/gen/q01")
	} else if v, ok := q.Attr("lasagna.judge_correctness"); !ok || v != "1" {
		t.Errorf("q01: lasagna.judge_correctness = %q, %v; want 1", v, ok)
	}
	if got := *ev.Bundle.Configs[0].HeldFixed.JudgeModel; got != "judge-model" {
		t.Errorf("held_fixed.judge_model = %q", got)
	}
	var judgeErrs, singleRun bool
	for _, l := range ev.Bundle.Integrity.Blocking {
		judgeErrs = judgeErrs || l.Code == lasagna.JudgeErrors
	}
	for _, l := range ev.Bundle.Integrity.Warnings {
		singleRun = singleRun || l.Code == lasagna.SingleRun
	}
	if !judgeErrs || !singleRun {
		t.Errorf("integrity = %+v, want JUDGE_ERRORS and SINGLE_RUN", ev.Bundle.Integrity)
	}
	for _, row := range res.PerSampleScores {
		if row.JudgeError != "" {
			if _, ok := row.Scores["judge_correctness"]; ok {
				t.Errorf("%s: a failed judge call left a score", row.QueryID)
			}
		}
	}
	if !ev.Failed() {
		t.Error("a blocking JUDGE_ERRORS did not fail the evaluation")
	}

	// A judge on an arm that returns no answer is refused.
	ev, err = evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
		FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{{Name: "r", Retriever: lasagna.RetrieverFunc(func(context.Context, lasagna.Query, int) ([]lasagna.Hit, error) { return nil, nil }), Judge: llmarms.Judge(j)}},
	})
	if err == nil && (!ev.Failed() || !strings.Contains(ev.Tests[0].Failure(), "a Judge scores answers")) {
		t.Errorf("judge on a retrieval arm: %+v", ev.Tests[0])
	}
}

// TestLibraryGeneratorSamples runs an arm whose Generator is package
// generate's LLM generator, without Arm.Samples: it counts as sampling, so
// a single run raises SINGLE_RUN and Repeats applies to it.
func TestLibraryGeneratorSamples(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(fixtures.ChatCall) string { return `{"answer": "soda", "abstained": false}` }})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "gen-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generate.NewGrounded(client, generate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, repeats := range []int{1, 2} {
		ev, err := evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
			FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Repeats: repeats,
			Arms: []evaltest.Arm{{Name: "gen", Generator: gen}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Bundle == nil {
			t.Fatalf("no bundle: %s", ev.Tests[0].Failure())
		}
		single := false
		for _, l := range ev.Bundle.Integrity.Warnings {
			single = single || l.Code == lasagna.SingleRun
		}
		if single != (repeats == 1) || ev.Bundle.Experiment.NothingSamples {
			t.Errorf("Repeats %d: SINGLE_RUN %v, nothing_samples %v; want SINGLE_RUN only for one run, nothing_samples false",
				repeats, single, ev.Bundle.Experiment.NothingSamples)
		}
		q, _ := ev.Test("TestRAG/tiny/gen/q01")
		if got, _ := q.Attr("lasagna.repeats"); repeats > 1 && got != "2" {
			t.Errorf("Repeats 2: lasagna.repeats = %q, want 2", got)
		}
	}
}

// TestRubricJudgeArmThresholds judges an arm with a rubric from Go
// (judge.Config.Rubrics): the rubric's metric reaches the attrs and the
// bundle, normalised to 0–1, a threshold on it is decided, and a misspelt
// threshold or a rubric named like a scorer's metric fails before the first
// call.
func TestRubricJudgeArmThresholds(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if strings.Contains(c.LastUser, "Criterion: The answer is polite.") {
			return `{"score": 4, "reason": "polite enough"}`
		}
		return "unexpected prompt"
	}})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "judge-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.New(client, judge.Config{Metrics: []string{"polite"}, Rubrics: []judge.Rubric{{Name: "polite", Criterion: "The answer is polite."}}})
	if err != nil {
		t.Fatal(err)
	}
	gen := lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{Text: "Thank you for asking: soda."}, nil
	})
	arm := func(metric string) evaltest.Config {
		return evaltest.Config{FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Repeats: 2,
			Arms: []evaltest.Arm{{Name: "gen", Generator: gen, Judge: llmarms.Judge(j),
				Thresholds: []evaltest.Threshold{evaltest.AtLeast(metric, 0.7)}}}}
	}
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", arm("polite"))
	if err != nil {
		t.Fatal(err)
	}
	if st := ev.Bundle.Results[0].MetricStats["polite"]; st.N == 0 || st.Mean != 0.75 {
		t.Errorf("polite = %+v, want (4-1)/(5-1) = 0.75 on every query", st)
	}
	if q, _ := ev.Test("TestRAG/tiny/gen/q01"); q == nil {
		t.Fatal("no q01 test")
	} else if v, _ := q.Attr("lasagna.polite"); v != "0.75" {
		t.Errorf("lasagna.polite = %q", v)
	}
	if ev.Failed() && strings.Contains(ev.Tests[0].Failure(), "polite") {
		t.Errorf("polite >= 0.7 failed: %s", ev.Tests[0].Failure())
	}
	if d := ev.Bundle.Configs[0].HeldFixed.FixedStages["judge"]; !strings.Contains(d, "polite=judge-rubric-v1@") || !strings.Contains(d, "criterion_sha256=") {
		t.Errorf("fixed_stages.judge = %q", d)
	}
	// Repeats: each repeat is a call of its own (cached apart).
	calls := srv.Count("chat")
	if calls != 2*len(ev.Bundle.Results[0].PerSampleScores) {
		t.Errorf("%d judge calls for %d queries × 2 repeats", calls, len(ev.Bundle.Results[0].PerSampleScores))
	}

	ev, err = evaltest.Evaluate(t.Context(), "TestRAG", arm("polit"))
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Failed() || !strings.Contains(ev.Tests[0].Failure(), `threshold on unknown metric "polit" (did you mean "polite"?)`) || srv.Count("chat") != calls {
		t.Errorf("misspelt threshold: %q, %d new calls", ev.Tests[0].Failure(), srv.Count("chat")-calls)
	}
	cfg := arm("polite")
	cfg.Arms[0].Scorers = []evaltest.Scorer{{Name: "mine", Metrics: []string{"polite"}, Scorer: lasagna.ScorerFunc(func(context.Context, lasagna.Query, lasagna.Output) (map[string]float64, error) { return nil, nil })}}
	ev, err = evaltest.Evaluate(t.Context(), "TestRAG", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Failed() || !strings.Contains(ev.Tests[0].Failure(), `metric "polite" is also scored by the arm's judge`) || srv.Count("chat") != calls {
		t.Errorf("scorer metric named like the rubric: %q", ev.Tests[0].Failure())
	}
}

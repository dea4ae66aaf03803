package main

import (
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/results"
)

// judgeEverything answers every generator call "lime" and judges every
// answer correct and supported.
func judgeEverything(c fixtures.ChatCall) string {
	switch sys := c.Messages[0].Content; {
	case strings.HasPrefix(sys, "You grade answers"):
		return `{"verdict": "correct", "reason": "ok"}`
	case strings.HasPrefix(sys, "You check whether"):
		return `{"verdict": "supported"}`
	}
	return `{"answer": "lime", "abstained": false}`
}

func TestBenchmarkRunFullProfileOnFakeServer(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "test-key", Reply: judgeEverything,
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"}})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("MODEL_NAME", "")
	bundle := filepath.Join(t.TempDir(), "b.json")
	args := []string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full", "--embedding-model", "toy-embed",
		"--model", "gpt-test", "--judge-model", "gpt-4o", "--n-samples", "12", "-o", bundle}
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"ndcg@10", "exact_match", "judge_correctness", "groundedness", "llm generator:", "llm judge:",
		"warning: SINGLE_RUN", `warning: UNRESOLVED_JUDGE_ALIAS at local/faq@`, `"gpt-4o-2024-08-06"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	hf := b.Configs[0].HeldFixed
	if hf.JudgeModel == nil || *hf.JudgeModel != "gpt-4o" || hf.ResolvedMode != "rag" || !strings.Contains(hf.FixedStages["generator"], "model=gpt-test") {
		t.Errorf("held_fixed = %+v", hf)
	}
	// Every answer is "lime": judged correct except on unanswerable
	// questions, which are scored without a call.
	if m := b.Results[0].Metrics; b.Experiment.NothingSamples || m["judge_correctness"] == 0 || m["groundedness"] != 1 {
		t.Errorf("nothing_samples %v, metrics %v", b.Experiment.NothingSamples, b.Results[0].Metrics)
	}
	// A rerun is answered from the response cache.
	calls := srv.Count("chat")
	if out, _, code := runCLI(t, args...); code != 0 || !strings.Contains(out, "llm judge:") {
		t.Fatalf("rerun: exit %d\n%s", code, out)
	}
	if got := srv.Count("chat"); got != calls {
		t.Errorf("the rerun made %d new chat requests, want 0", got-calls)
	}
}

func TestBenchmarkRunClosedBookErrors(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MODEL_NAME", "")
	_, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book")
	if code != 2 || !strings.Contains(errOut, "need a chat endpoint") || !strings.Contains(errOut, "variables read: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME") {
		t.Errorf("no key: exit %d\n%s", code, errOut)
	}
	t.Setenv("OPENAI_API_KEY", "k")
	_, errOut, code = runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book")
	if code != 2 || !strings.Contains(errOut, "need a chat model: pass --model or set MODEL_NAME") {
		t.Errorf("no model: exit %d\n%s", code, errOut)
	}
}

// TestBenchmarkRunRepeats: a sweep with repeats: 3 on a sampling arm runs
// each query three times (three chat calls per query, cached apart), keeps
// each metric's mean over the runs in the bundle row, decides per-query
// thresholds by the pass rule (pass: majority; --pass overrides it) and
// raises no SINGLE_RUN.
func TestBenchmarkRunRepeats(t *testing.T) {
	// Each question's nth call answers right or wrong as scripted.
	script := map[string][]bool{"Q1?": {true, true, false}, "Q2?": {false, false, true}, "Q3?": {true, true, true}, "Q4?": {true, false, true}}
	var (
		mu    sync.Mutex
		calls = map[string]int{}
	)
	srv := useFakeOpenAI(t, fixtures.FakeOpenAIOptions{APIKey: "test-key", Reply: func(c fixtures.ChatCall) string {
		mu.Lock()
		defer mu.Unlock()
		for q, plan := range script {
			if strings.Contains(c.LastUser, q) {
				n := calls[q]
				calls[q]++
				if n < len(plan) && plan[n] {
					return `{"answer": "alpha", "abstained": false}`
				}
				return `{"answer": "omega", "abstained": false}`
			}
		}
		return `{"answer": "?", "abstained": false}`
	}})
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Q1?", "answer": "alpha"}
{"id": "q2", "question": "Q2?", "answer": "alpha"}
{"id": "q3", "question": "Q3?", "answer": "alpha"}
{"id": "q4", "question": "Q4?", "answer": "alpha"}
`,
		"sweep.yaml": `benchmarks:
  - {path: qa.jsonl}
arms:
  - name: cb
    generator: {kind: closed_book, model: gpt-test}
    repeats: 3
    pass: majority
    thresholds: [{metric: exact_match, at_least: 1, per_query: true}]
`,
	})
	bundle := filepath.Join(dir, "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "sweep.yaml"), "-o", bundle)
	if code != 1 || strings.Contains(out, "SINGLE_RUN") || strings.Count(out, "fail: ") != 1 || !strings.Contains(out, "fail: local/qa@") ||
		!strings.Contains(out, "/cb/q2: ") || !strings.Contains(out, "majority") {
		t.Errorf("exit %d, want 1 with one failed query (q2) and no SINGLE_RUN:\n%s\n%s", code, out, errOut)
	}
	if got := srv.Count("chat"); got != 12 {
		t.Errorf("%d chat calls, want 3 per query (12)", got)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	em := map[string]float64{}
	for _, r := range b.Results[0].PerSampleScores {
		em[r.QueryID] = r.Scores["exact_match"]
	}
	for id, want := range map[string]float64{"q1": 2.0 / 3, "q2": 1.0 / 3, "q3": 1, "q4": 2.0 / 3} {
		if math.Abs(em[id]-want) > 1e-12 {
			t.Errorf("%s: exact_match %v, want the mean over 3 runs %v", id, em[id], want)
		}
	}
	for _, w := range b.Integrity.Warnings {
		if w.Code == lasagna.SingleRun {
			t.Errorf("bundle warns %s", w)
		}
	}
	// --pass any: every query has a passing run (answered from the cache).
	if out, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "sweep.yaml"), "-o", bundle, "--pass", "any"); code != 0 {
		t.Errorf("--pass any: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := srv.Count("chat"); got != 12 {
		t.Errorf("the rerun made %d new chat calls, want 0", got-12)
	}
	// Without repeats the sampling arm warns SINGLE_RUN, with the fix.
	if out, _, _ := runCLI(t, "benchmark", "run", filepath.Join(dir, "sweep.yaml"), "-o", bundle, "--repeats", "1"); !strings.Contains(out, "SINGLE_RUN") ||
		!strings.Contains(out, "repeats: 3 in the sweep file, or --repeats 3") {
		t.Errorf("--repeats 1 does not warn SINGLE_RUN:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "sweep.yaml"), "--pass", "most"); code != 2 || !strings.Contains(errOut, `pass rule "most": want all, majority, any or rate >= X`) {
		t.Errorf("--pass most: exit %d\n%s", code, errOut)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

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

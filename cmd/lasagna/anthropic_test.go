package main

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/results"
)

const cliAnthropicKey = "sk-ant-api03-CLI-TEST-0123456789"

// anthropicOnly points the CLI at a fake Anthropic endpoint, with no
// OpenAI variable set.
func anthropicOnly(t *testing.T, reply func(fixtures.ChatCall) string) *fixtures.FakeOpenAI {
	t.Helper()
	f := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{APIKey: cliAnthropicKey, Reply: reply,
		ModelNames: map[string]string{"claude-haiku-4-5": "claude-haiku-4-5-20251001"}})
	t.Cleanup(f.Close)
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MODEL_NAME", "")
	t.Setenv("ANTHROPIC_BASE_URL", f.URL)
	t.Setenv("ANTHROPIC_API_KEY", cliAnthropicKey)
	return f
}

// TestBenchmarkRunOnAnthropic: generation and the judge run on Claude
// models with only ANTHROPIC_API_KEY set, at temperature 0, priced, with
// the JSON answers wrapped in code fences (the endpoint ignores
// response_format).
func TestBenchmarkRunOnAnthropic(t *testing.T) {
	f := anthropicOnly(t, func(c fixtures.ChatCall) string { return "```json\n" + judgeEverything(c) + "\n```" })
	bundle := filepath.Join(t.TempDir(), "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "claude-haiku-4-5", "--judge-model", "claude-sonnet-4-5", "--n-samples", "4", "-o", bundle)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"judge_correctness", "llm generator:", "llm judge:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cost unknown") {
		t.Errorf("Claude calls are not priced:\n%s", out)
	}
	models := map[string]int{}
	for _, r := range f.Requests() {
		models[fmt.Sprint(r.Body["model"])]++
		if r.Status != 200 || !r.HasField("temperature") || !r.HasField("max_completion_tokens") {
			t.Errorf("request %+v", r)
		}
	}
	if models["claude-haiku-4-5"] == 0 || models["claude-sonnet-4-5"] == 0 {
		t.Errorf("models called: %v", models)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Results[0].Metrics; m["judge_correctness"] == 0 {
		t.Errorf("metrics %v", m)
	}
}

// TestSynthesizeOnAnthropic: synthesis runs on a Claude model with only
// ANTHROPIC_API_KEY set.
func TestSynthesizeOnAnthropic(t *testing.T) {
	f := anthropicOnly(t, func(c fixtures.ChatCall) string {
		switch {
		case strings.HasPrefix(c.LastUser, "Decide whether any"):
			return `{"answered": false}`
		case strings.HasPrefix(c.LastUser, "Decide whether"):
			return `{"supported": true}`
		}
		i := sha256.Sum256([]byte(c.LastUser))
		if strings.Contains(c.LastUser, `"answer": null`) {
			return fmt.Sprintf(`{"question": "Open question %x?", "answer": null}`, i[:4])
		}
		return fmt.Sprintf(`{"question": "Question %x?", "answer": "answer %x"}`, i[:4], i[:4])
	})
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	stdout, stderr, code := runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "3", "--out", out, "--model", "claude-haiku-4-5")
	if code != 0 || f.Count("chat") != 6 || !strings.Contains(stdout, "dropped: none") {
		t.Fatalf("exit %d after %d requests\n%s%s", code, f.Count("chat"), stdout, stderr)
	}
}

// TestNoKeyListsAnthropic: without any key the error names both keys and
// every variable read.
func TestNoKeyListsAnthropic(t *testing.T) {
	anthropicOnly(t, nil)
	t.Setenv("ANTHROPIC_API_KEY", "")
	_, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book", "--model", "m")
	if code != 2 || !strings.Contains(errOut, "set OPENAI_API_KEY") || !strings.Contains(errOut,
		"or ANTHROPIC_API_KEY (Claude models); variables read: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, LASAGNA_LLM_TIMEOUT, LASAGNA_LLM_RETRIES") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

// TestDenseNeedsOpenAIBesideAnthropic: dense retrieval with only an
// Anthropic key (which has no embeddings) is refused before any work.
func TestDenseNeedsOpenAIBesideAnthropic(t *testing.T) {
	f := anthropicOnly(t, judgeEverything)
	_, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full",
		"--model", "claude-haiku-4-5", "--embedding-model", "e", "--n-samples", "2", "-o", filepath.Join(t.TempDir(), "b.json"))
	if code != 2 || !strings.Contains(errOut, "dense retrieval needs an embedding endpoint: no embeddings API at Anthropic: set OPENAI_API_KEY") || f.Count("") != 0 {
		t.Errorf("exit %d after %d requests\n%s", code, f.Count(""), errOut)
	}
}

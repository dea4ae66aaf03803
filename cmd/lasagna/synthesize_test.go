package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

const synthDocs = "../../internal/extract/testdata/docs"

// synthFake is a fake LLM that writes a distinct question per generation
// prompt and passes every verification.
func synthFake(t *testing.T) *fixtures.FakeOpenAI {
	t.Helper()
	t.Setenv("MODEL_NAME", "")
	return useFakeOpenAI(t, fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string { return synthReply(c, true) }})
}

// synthReply answers the synthesizer's prompts: a distinct question per
// generation prompt (an open one when the prompt asks for no answer),
// supported as given, and no question answered from the other documents.
func synthReply(c fixtures.ChatCall, supported bool) string {
	switch {
	case strings.HasPrefix(c.LastUser, "Decide whether any"):
		return `{"answered": false}`
	case strings.HasPrefix(c.LastUser, "Decide whether"):
		return fmt.Sprintf(`{"supported": %v}`, supported)
	}
	i := sha256.Sum256([]byte(c.LastUser)) // a distinct question per prompt
	if strings.Contains(c.LastUser, `"answer": null`) {
		return fmt.Sprintf(`{"question": "Open question %x?", "answer": null}`, i[:4])
	}
	return fmt.Sprintf(`{"question": "Question %x?", "answer": "answer %x"}`, i[:4], i[:4])
}

func TestSynthesizeDryRun(t *testing.T) {
	f := synthFake(t)
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	stdout, stderr, code := runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "7", "--out", out,
		"--mix", "factoid=0.6,multihop=0.3,unanswerable=0.1", "--seed", "42", "--model", "gpt-4o-mini", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `synthesize ../../internal/extract/testdata/docs: seed 42, model gpt-4o-mini
documents: 5
passages: 7 (200 words each, a document's last one shorter)
questions: 7 (factoid 4, multihop 2, unanswerable 1; mix factoid=0.6,multihop=0.3,unanswerable=0.1)
LLM calls: 14 (a generation and a verification per question)
token estimate: at most 13726 (9526 prompt, as characters/4, + 4200 completion caps)
cost estimate: at most $0.0039 at gpt-4o-mini list prices
dry run: no LLM called, nothing written
`
	if stdout != want {
		t.Errorf("dry run output:\n%s\nwant:\n%s", stdout, want)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("the dry run sent %d requests", n)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the dry run created %s (stat: %v)", out, err)
	}
	// A dry run needs no key and no model.
	t.Setenv("OPENAI_API_KEY", "")
	stdout, stderr, code = runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "3", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "model none chosen (set --model or MODEL_NAME)") {
		t.Errorf("dry run without key: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestSynthesizeWritesBenchmark(t *testing.T) {
	f := synthFake(t)
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	args := []string{"benchmark", "synthesize", synthDocs, "--n", "7", "--out", out, "--seed", "42", "--model", "test-model"}
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"dropped: none",
		"LLM usage: 14 calls (0 from cache, 0 failed), 14 requests,",
		"cost unknown (no price for test-model)",
		"wrote 7 rows to " + out + " (7 planned)",
		"warning: synthetic questions are for development, not for claims.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if f.Count("chat") != 14 {
		t.Errorf("%d requests, want 14", f.Count("chat"))
	}
	rows, err := datasets.ReadJSONL(os.DirFS(filepath.Dir(out)), filepath.Base(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[0].ID != "synth-0001" || rows[0].Metadata["synthetic"] != true || rows[0].Metadata["model"] != "test-model" {
		t.Errorf("rows: %d, first %+v", len(rows), rows[0])
	}
	// validate-data accepts the file.
	vout, verr, vcode := runCLI(t, "benchmark", "validate-data", out)
	if vcode != 0 {
		t.Errorf("validate-data: exit %d\n%s%s", vcode, vout, verr)
	}
	// A run over the synthetic set is flagged as such.
	bundle := filepath.Join(t.TempDir(), "b.json")
	rout, rerr, rcode := runCLI(t, "benchmark", "run", out, "--profile", "speed", "-o", bundle)
	if rcode != 0 || !strings.Contains(rout, "SYNTHETIC_BENCHMARK") {
		t.Errorf("benchmark run on the synthetic set: exit %d, no SYNTHETIC_BENCHMARK warning\n%s%s", rcode, rout, rerr)
	}
	// A rerun is answered from the cache: no request, same bytes.
	first, _ := os.ReadFile(out)
	stdout, _, code = runCLI(t, args...)
	second, _ := os.ReadFile(out)
	if code != 0 || f.Count("chat") != 14 || string(first) != string(second) || !strings.Contains(stdout, "14 calls (14 from cache") {
		t.Errorf("rerun: exit %d, %d requests (want 14 in all), same file %v\n%s", code, f.Count("chat"), string(first) == string(second), stdout)
	}
}

func TestSynthesizeErrors(t *testing.T) {
	f := synthFake(t)
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{synthDocs, "--n", "5", "--model", "m"}, 2, "synthesize: --out FILE or --into NAME is required (or --dry-run to see the plan)"},
		{[]string{synthDocs, "--n", "0", "--dry-run"}, 2, "--n must be at least 1"},
		{[]string{synthDocs, "--n", "5", "--dry-run", "--mix", "factoid=0.5"}, 2, "synthesize: --mix: mix shares sum to 0.5, not 1"},
		{[]string{"nope", "--n", "5", "--dry-run"}, 2, "synthesize: nope is not a folder"},
		{[]string{synthDocs, "--n", "50", "--dry-run"}, 1, "synth: 30 factoid questions need 30 passages, and the documents hold 7"},
		{[]string{synthDocs, "--n", "5", "--out", out}, 2, "synthesize: no model: set --model or MODEL_NAME"},
		{[]string{synthDocs, "--n", "5", "--out", filepath.Join(out, "x", "y.jsonl"), "--model", "m"}, 2, "folder " + filepath.Join(out, "x") + " does not exist"},
	} {
		_, stderr, code := runCLI(t, append([]string{"benchmark", "synthesize"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	_, stderr, code := runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "5", "--out", out, "--model", "m")
	if code != 2 || !strings.Contains(stderr, "variables read: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME") {
		t.Errorf("no key: exit %d, %s", code, stderr)
	}
	if f.Count("") != 0 {
		t.Errorf("%d requests made by failing commands", f.Count(""))
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failing commands created %s", out)
	}
}

func TestSynthesizeAllCallsFail(t *testing.T) {
	f := synthFake(t)
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 400, Times: 100})
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	stdout, stderr, code := runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "3", "--out", out, "--model", "m")
	if code != 1 || !strings.Contains(stderr, "synth: every LLM call failed (3 questions dropped)") || !strings.Contains(stdout, "dropped: 3 (llm_error 3)") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed synthesis created %s", out)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
)

// fullProfileServer starts a fake OpenAI server for the full profile and
// points the environment at it.
func fullProfileServer(t *testing.T) *fixtures.FakeOpenAI {
	t.Helper()
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "test-key", Reply: judgeEverything})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("MODEL_NAME", "")
	return srv
}

// The done-when of issue 38 item 7: a dry run of the full profile sends
// nothing and prints the planned calls and tokens.
func TestBenchmarkRunDryRunCallsNothing(t *testing.T) {
	srv := fullProfileServer(t)
	bundle := filepath.Join(t.TempDir(), "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full",
		"--model", "gpt-4o-mini", "--dry-run", "-o", bundle)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if n := srv.Count(""); n != 0 {
		t.Errorf("the dry run sent %d requests, want none", n)
	}
	if _, err := os.Stat(bundle); err == nil {
		t.Errorf("the dry run wrote a bundle")
	}
	for _, want := range []string{"dry run:", "nothing was called", "est. input tokens", "est. output tokens", "est. cost",
		"full  embedder  text-embedding-3-small", "full  generator  gpt-4o-mini", "full     judge  gpt-4o-mini", "total", "a ceiling"} {
		if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(out, " "), regexp.MustCompile(` +`).ReplaceAllString(want, " ")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The estimate counts the calls the run makes: run it for real.
	calls := plannedCalls(t, out)
	if out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full",
		"--model", "gpt-4o-mini", "-o", bundle); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := srv.Count("chat"); got > calls["generator"]+calls["judge"] || got == 0 {
		t.Errorf("the run made %d chat requests; the dry run planned %d generator and %d judge calls", got, calls["generator"], calls["judge"])
	}
	if got := srv.Count("embeddings"); got != calls["embedder"] {
		t.Errorf("the run made %d embeddings requests; the dry run planned %d", got, calls["embedder"])
	}
}

// plannedCalls reads the calls column of a dry run's table, by stage.
func plannedCalls(t *testing.T, out string) map[string]int {
	t.Helper()
	calls := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && (f[1] == "embedder" || f[1] == "generator" || f[1] == "judge") {
			n, err := strconv.Atoi(f[3])
			if err != nil {
				t.Fatalf("calls column of %q: %v", line, err)
			}
			calls[f[1]] += n
		}
	}
	return calls
}

// dryRunCost reads the total estimated cost of a dry run.
func dryRunCost(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*total\s.*\$([0-9.]+)\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no total cost in:\n%s", out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBenchmarkRunMaxCostStopsAndResumes(t *testing.T) {
	srv := fullProfileServer(t)
	args := []string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full", "--model", "gpt-4o-mini",
		"--concurrency", "1", "-o", filepath.Join(t.TempDir(), "b.json")}
	out, _, code := runCLI(t, append(args, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	total := dryRunCost(t, out)
	chats := plannedCalls(t, out)
	// The estimate is a ceiling, well above what the fake server bills:
	// a tenth of it stops the run part way.
	capUSD := strconv.FormatFloat(total/10, 'f', 6, 64)
	out, errOut, code := runCLI(t, append(args, "--max-cost", capUSD)...)
	if code != 1 {
		t.Fatalf("capped run: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"cost cap $" + strconv.FormatFloat(total/10, 'f', 4, 64) + " reached after ", "queries journalled",
		"rerun with --resume and a higher --max-cost"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	sent := srv.Count("chat")
	if sent == 0 || sent >= chats["generator"]+chats["judge"] {
		t.Errorf("the capped run made %d chat requests; want some, and fewer than the %d planned", sent, chats["generator"]+chats["judge"])
	}
	// Resumed with a cap above the whole estimate, the run finishes.
	out, errOut, code = runCLI(t, append(args, "--resume", "--max-cost", strconv.FormatFloat(2*total, 'f', 6, 64))...)
	if code != 0 || !strings.Contains(out, "restored from the journal") {
		t.Fatalf("resumed run: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, append(args, "--max-cost", "0")...); code != 2 || !strings.Contains(errOut, "--max-cost is 0") {
		t.Errorf("--max-cost 0: exit %d\n%s", code, errOut)
	}
}

func TestBenchmarkRunMaxCostNeedsPrices(t *testing.T) {
	srv := fullProfileServer(t)
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full", "--model", "gpt-test",
		"--max-cost", "1", "-o", filepath.Join(t.TempDir(), "b.json"))
	if code == 0 || !strings.Contains(errOut, "gpt-test has none") || srv.Count("") != 0 {
		t.Errorf("exit %d, %d requests\n%s\n%s", code, srv.Count(""), out, errOut)
	}
}

// TestBenchmarkRunDryRunNeedsNoKey: a dry run calls nothing, so it runs
// without an API key (a real run without one is a usage error).
func TestBenchmarkRunDryRunNeedsNoKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full", "--model", "gpt-4o-mini", "--dry-run")
	if code != 0 || !strings.Contains(out, "nothing was called") {
		t.Errorf("dry run without a key: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "full", "--model", "gpt-4o-mini"); code != 2 {
		t.Errorf("a real run without a key: exit %d, want 2\n%s", code, errOut)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
)

// TestLLMTimeoutAndRetriesFromEnv: LASAGNA_LLM_TIMEOUT and
// LASAGNA_LLM_RETRIES bound a hanging server's cost to retries+1 attempts
// per call, and a bad value is refused before any work.
func TestLLMTimeoutAndRetriesFromEnv(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Latency: time.Hour})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("MODEL_NAME", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("LASAGNA_LLM_TIMEOUT", "20ms")
	t.Setenv("LASAGNA_LLM_RETRIES", "1")
	args := []string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "gpt-test", "--n-samples", "1", "-o", filepath.Join(t.TempDir(), "b.json")}
	out, errOut, code := runCLI(t, args...)
	// The client counts its attempts; the server may not have seen the
	// last one when the client gave up (a loaded machine can hold a request
	// past 20 ms before the handler runs), so it saw one or two.
	if n := srv.Count("chat"); code == 0 || !strings.Contains(out+errOut, "timeout [timeout] after 2 attempts") || n < 1 || n > 2 {
		t.Errorf("exit %d after %d requests, want a timeout after 2 attempts\nstdout:\n%s\nstderr:\n%s", code, srv.Count("chat"), out, errOut)
	}

	for _, bad := range [][2]string{{"LASAGNA_LLM_TIMEOUT", "20"}, {"LASAGNA_LLM_RETRIES", "many"}} {
		t.Setenv("LASAGNA_LLM_TIMEOUT", "20ms")
		t.Setenv("LASAGNA_LLM_RETRIES", "1")
		t.Setenv(bad[0], bad[1])
		srv.Reset()
		_, errOut, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, bad[0]+`="`+bad[1]+`"`) || srv.Count("") != 0 {
			t.Errorf("%s=%s: exit %d after %d requests\n%s", bad[0], bad[1], code, srv.Count(""), errOut)
		}
	}
}

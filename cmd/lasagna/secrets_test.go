package main

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
)

// cliSecret is the key the CLI is configured with in the secret tests.
const cliSecret = "sk-proj-CLI-SECRET-0123456789abcdef"

// assertNoSecret fails when secret occurs in any of texts or in any file
// under dirs.
func assertNoSecret(t *testing.T, secret string, texts map[string]string, dirs ...string) {
	t.Helper()
	for name, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("%s carries the key:\n%s", name, s)
		}
	}
	files := 0
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			files++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.Contains(string(b), secret) {
				t.Errorf("%s carries the key", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files == 0 {
		t.Errorf("no file written under %v: the test checks nothing", dirs)
	}
}

// TestEchoedKeyAppearsNowhere: a server that quotes the Authorization
// header in its 401, then one that quotes it in every answer, leave the
// key in no console output, bundle, journal or cache entry.
func TestEchoedKeyAppearsNowhere(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("LASAGNA_CACHE_DIR", cache)
	t.Setenv("OPENAI_API_KEY", cliSecret)
	t.Setenv("MODEL_NAME", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	out := t.TempDir()

	// 1. Wrong key, echoed in the 401 body.
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "sk-the-right-key-000", EchoAuthorization: true})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	bundle := filepath.Join(out, "auth.json")
	stdout, stderr, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "gpt-test", "--n-samples", "3", "-o", bundle)
	if code == 0 || !strings.Contains(stdout+stderr, "Bearer [REDACTED]") {
		t.Errorf("401 run: exit %d, the echoed header is not shown redacted\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	texts := map[string]string{"401 stdout": stdout, "401 stderr": stderr}

	// 2. Right key, echoed in every generated answer and judge reason.
	echo := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: cliSecret, Reply: func(c fixtures.ChatCall) string {
		if strings.HasPrefix(c.Messages[0].Content, "You grade answers") {
			return `{"verdict": "correct", "reason": "` + c.Authorization + `"}`
		}
		return `{"answer": "lime ` + c.Authorization + `", "abstained": false}`
	}})
	defer echo.Close()
	t.Setenv("OPENAI_BASE_URL", echo.URL)
	stdout, stderr, code = runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "gpt-test", "--n-samples", "3", "-o", filepath.Join(out, "echo.json"))
	if code != 0 || echo.Count("chat") == 0 {
		t.Errorf("echo run: exit %d after %d calls\nstdout:\n%s\nstderr:\n%s", code, echo.Count("chat"), stdout, stderr)
	}
	texts["echo stdout"], texts["echo stderr"] = stdout, stderr
	assertNoSecret(t, cliSecret, texts, out, cache)
}

// TestPartialKeyEchoesAppearNowhere: a server quoting the key's first 20
// characters and its last 10 in a 401, then one quoting them (and a middle
// run, JSON-escaped) in every answer and judge reason, leave no run of 8 of
// the key's characters, plain or JSON-escaped, in the console output, the
// bundles, the journal or the cache.
func TestPartialKeyEchoesAppearNowhere(t *testing.T) {
	const key = "sk-proj-CLI/part&SECRET-0123456789abcdef" // '/' and '&' are JSON-escaped
	cache := t.TempDir()
	t.Setenv("LASAGNA_CACHE_DIR", cache)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("MODEL_NAME", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	out := t.TempDir()
	texts := map[string]string{}
	check := func(what, stdout, stderr string) {
		texts[what+" stdout"], texts[what+" stderr"] = stdout, stderr
	}

	// 1. A 401 quoting the key's first 20 and last 10 characters, as the
	// server writes JSON ("\/" for '/').
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"key ` + strings.ReplaceAll(k[:20], "/", `\/`) + `... is invalid; ` + k[len(k)-10:] + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	stdout, stderr, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "gpt-test", "--n-samples", "3", "-o", filepath.Join(out, "auth.json"))
	if code == 0 || !strings.Contains(stdout+stderr, "key [REDACTED]... is invalid; [REDACTED]") {
		t.Errorf("401 run: exit %d, the echo is not shown redacted\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	check("401", stdout, stderr)

	// 2. The right key, partly quoted in every answer and judge reason.
	echo := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: key, Reply: func(c fixtures.ChatCall) string {
		k := strings.TrimPrefix(c.Authorization, "Bearer ")
		part, _ := json.Marshal(k[:20] + "... " + k[len(k)-10:] + " " + k[12:24])
		if strings.HasPrefix(c.Messages[0].Content, "You grade answers") {
			return `{"verdict": "correct", "reason": ` + string(part) + `}`
		}
		answer, _ := json.Marshal("lime " + k[len(k)-12:] + " " + k[:20] + "...")
		return `{"answer": ` + string(answer) + `, "abstained": false}`
	}})
	defer echo.Close()
	t.Setenv("OPENAI_BASE_URL", echo.URL)
	stdout, stderr, code = runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book",
		"--model", "gpt-test", "--n-samples", "3", "-o", filepath.Join(out, "echo.json"))
	if code != 0 || echo.Count("chat") == 0 {
		t.Errorf("echo run: exit %d after %d calls\nstdout:\n%s\nstderr:\n%s", code, echo.Count("chat"), stdout, stderr)
	}
	check("echo", stdout, stderr)

	for name, s := range texts {
		if run := tokenRun(s, key); run != "" {
			t.Errorf("%s carries %q of the key:\n%s", name, run, s)
		}
	}
	files := 0
	for _, d := range []string{out, cache} {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			files++
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if run := tokenRun(string(b), key); run != "" {
				t.Errorf("%s carries %q of the key", p, run)
			}
			return nil
		})
	}
	if b, _ := os.ReadFile(filepath.Join(out, "echo.json")); !strings.Contains(string(b), "[REDACTED]") {
		t.Errorf("the bundle shows no redacted echo: the test checks nothing (%d files)", files)
	}
}

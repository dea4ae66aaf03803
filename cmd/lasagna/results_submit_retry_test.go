package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/dashboard"
)

// TestResultsSubmitRetries: a 503 (the hub's storage unavailable) is sent
// again with backoff, each retry said on stderr, and the bundle accepted
// on the third attempt is exit 0; a server still unavailable after
// submitAttempts is "not submitted", exit 1; a refusal (422) is never
// sent again. --submitter, else LASAGNA_SUBMITTER, reaches the hub as
// ?submitter=; one with a control character is a usage error.
func TestResultsSubmitRetries(t *testing.T) {
	defer func(b time.Duration) { submitBackoff = b }(submitBackoff)
	submitBackoff = time.Millisecond
	var (
		mu         sync.Mutex
		calls      int
		submitters []string
		fail       int // the number of 503s before the answer
		final      = http.StatusCreated
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		submitters = append(submitters, r.URL.Query().Get("submitter"))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case calls <= fail:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status":"unavailable","error":"the registry's storage is unavailable (failed to connect)"}`))
		case final == http.StatusCreated:
			w.WriteHeader(final)
			w.Write([]byte(`{"status":"accepted","run_id":"abc","report":"/bundles/abc","benchmark":"faq","content_hash":"ea3e86b12545"}`))
		default:
			w.WriteHeader(final)
			w.Write([]byte(`{"status":"refused","error":"the bundle holds part of its sample","findings":[{"code":"PARTIAL_SAMPLE","where":"subset","detail":"not the whole sample"}]}`))
		}
	}))
	defer hs.Close()
	bundle := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(bundle, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(dashboard.TokenEnv, "submit-token-0123456789abcdef")
	t.Setenv(submitterEnv, "ci")
	reset := func(f, status int) {
		mu.Lock()
		defer mu.Unlock()
		calls, submitters, fail, final = 0, nil, f, status
	}

	reset(2, http.StatusCreated)
	out, errOut, code := runCLI(t, "results", "submit", bundle, "--to", hs.URL)
	if code != 0 || calls != 3 || strings.Count(errOut, "the server is unavailable (503") != 2 || !strings.Contains(errOut, "(attempt 3 of 5)") ||
		!strings.Contains(out, ": accepted: run_id abc") || submitters[2] != "ci" {
		t.Errorf("two 503s then accepted: exit %d, %d calls, submitters %q\n%s%s", code, calls, submitters, out, errOut)
	}

	reset(100, http.StatusCreated)
	out, errOut, code = runCLI(t, "results", "submit", bundle, "--to", hs.URL, "--submitter", "ann (lab)")
	if code != 1 || calls != submitAttempts || !strings.Contains(out, "not submitted: the server is still unavailable (503) after 5 attempts") ||
		!strings.Contains(out, "1 not submitted (server unavailable)") || submitters[0] != "ann (lab)" {
		t.Errorf("always 503: exit %d, %d calls, submitters %q\n%s%s", code, calls, submitters, out, errOut)
	}

	reset(0, http.StatusUnprocessableEntity)
	out, errOut, code = runCLI(t, "results", "submit", bundle, "--to", hs.URL)
	if code != 1 || calls != 1 || !strings.Contains(out, "refused: the bundle holds part of its sample") || strings.Contains(errOut, "503") {
		t.Errorf("422: exit %d, %d calls\n%s%s", code, calls, out, errOut)
	}

	reset(0, http.StatusCreated)
	if _, errOut, code := runCLI(t, "results", "submit", bundle, "--to", hs.URL, "--submitter", "a\x07b"); code != 2 || !strings.Contains(errOut, "--submitter") || calls != 0 {
		t.Errorf("control character: exit %d, %d calls\n%s", code, calls, errOut)
	}
}

// TestServePublicReadNeedsToken: --public-read without LASAGNA_SERVE_TOKEN
// is a usage error (without a token there are no writes to keep apart).
func TestServePublicReadNeedsToken(t *testing.T) {
	useRegistry(t)
	t.Setenv(dashboard.TokenEnv, "")
	_, errOut, code := runCLI(t, "serve", "--public-read", "--bundles", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "--public-read") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

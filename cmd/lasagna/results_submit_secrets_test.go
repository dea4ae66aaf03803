package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/dashboard"
)

// tokenRun returns the first run of 8 consecutive characters of secret
// that s holds, plain or JSON-escaped, or "".
func tokenRun(s, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		run := secret[i : i+8]
		esc, _ := json.Marshal(run)
		inner := string(esc[1 : len(esc)-1])
		if strings.Contains(s, run) || strings.Contains(s, inner) || strings.Contains(s, strings.ReplaceAll(inner, "/", `\/`)) {
			return run
		}
	}
	return ""
}

// TestResultsSubmitEchoedToken: a hub (or a proxy before it) that quotes
// the Authorization header in its refusal, whole, its first 20 or last 10
// characters, or JSON-escaped, in the error, a finding or a 403, does not
// make results submit print any run of 8 characters of the token.
func TestResultsSubmitEchoedToken(t *testing.T) {
	const token = "hub-token/+&0123456789abcdefXYZ" // '/', '&' are JSON-escaped by some servers
	bundle := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(bundle, []byte(`{"schema_version": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(dashboard.TokenEnv, token)
	for _, tc := range []struct {
		name   string
		status int
		body   func(auth string) string
	}{
		{"422 whole", 422, func(a string) string {
			b, _ := json.Marshal(map[string]any{"status": "refused", "error": "you sent Authorization: " + a,
				"findings": []map[string]string{{"Code": "E1", "Where": a[7:], "Detail": "token " + a[7:27] + "...", "Fix": "not " + a[len(a)-10:]}}})
			return string(b)
		}},
		{"422 prefix and suffix", 422, func(a string) string {
			k := strings.TrimPrefix(a, "Bearer ")
			return `{"status":"refused","error":"token ` + strings.ReplaceAll(k[:20], "/", `\/`) + `... is wrong; ` + k[len(k)-10:] + `"}`
		}},
		{"422 unicode-escaped", 422, func(a string) string {
			return `{"status":"refused","error":"header ` + strings.ReplaceAll(strings.ReplaceAll(a, "&", `\u0026`), "/", `\/`) + `"}`
		}},
		{"403", 403, func(a string) string {
			b, _ := json.Marshal(map[string]string{"error": "forbidden for " + a[len(a)-12:]})
			return string(b)
		}},
		{"401", 401, func(a string) string { return `{"error":"bad ` + a + `"}` }},
		{"413", 413, func(a string) string { return `{"status":"refused","error":"too big, ` + a + `"}` }},
		{"not JSON", 502, func(a string) string { return "<html>proxy: " + a + "</html>" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer "+token {
					t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body(r.Header.Get("Authorization"))))
			}))
			defer srv.Close()
			stdout, stderr, code := runCLI(t, "results", "submit", bundle, "--to", srv.URL)
			if code != 1 {
				t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if run := tokenRun(stdout+stderr, token); run != "" {
				t.Errorf("%q of the token reached the output\nstdout:\n%s\nstderr:\n%s", run, stdout, stderr)
			}
			if tc.status == 422 && !strings.Contains(stdout, "[REDACTED]") {
				t.Errorf("the echo is not shown redacted:\n%s", stdout)
			}
		})
	}
}

// TestServeLogRedactor: serve's log masks runs of the token, the
// registry's password, PGPASSWORD and the keys of the environment, and
// leaves a placeholder key such as "none" alone.
func TestServeLogRedactor(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "none")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-0123456789abcdef")
	t.Setenv("PGPASSWORD", "")
	var b strings.Builder
	w := serveLogRedactor("serve-token-0123456789abcdef", "postgres://u:reg-Password-xyz987@db/x").Writer(&b)
	w.Write([]byte("http: panic serving: header Bearer serve-token-01234… password reg-Password-x… key …456789abcdef none\n"))
	got := b.String()
	for _, run := range []string{"serve-to", "reg-Pass", "6789abcd"} {
		if strings.Contains(got, run) {
			t.Errorf("log %q shows %q", got, run)
		}
	}
	if !strings.Contains(got, " none\n") {
		t.Errorf("log %q: the placeholder key is masked", got)
	}
}

package llm_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// slashKey is a 37-character key with a '/', a '+' and a '&', which JSON
// encoders write as "\/", "+" and "\u0026".
const slashKey = "sk-proj-a/b+c&dSECRET0123456789wxyzQ"

// keyRun returns the first run of 8 consecutive characters of key that s
// holds, plain or JSON-escaped, or "".
func keyRun(s, key string) string {
	for i := 0; i+8 <= len(key); i++ {
		run := key[i : i+8]
		esc, _ := json.Marshal(run)
		if strings.Contains(s, run) || strings.Contains(s, string(esc[1:len(esc)-1])) ||
			strings.Contains(s, strings.ReplaceAll(string(esc[1:len(esc)-1]), "/", `\/`)) {
			return run
		}
	}
	return ""
}

// echoes are the ways a server quotes part of the key it was sent.
var echoes = map[string]func(key string) string{
	"prefix":         func(k string) string { return "key " + k[:20] + "... is invalid" },
	"suffix":         func(k string) string { return "key ending in " + k[len(k)-10:] + " is invalid" },
	"prefix+suffix":  func(k string) string { return "key " + k[:20] + "... is invalid; " + k[len(k)-10:] },
	"middle":         func(k string) string { return "saw …" + k[10:22] + "…" },
	"full":           func(k string) string { return "Incorrect API key provided: " + k },
	"slash-escaped":  func(k string) string { return "key " + strings.ReplaceAll(k[:24], "/", `\/`) + "..." },
	"unicode-escape": func(k string) string { return "key " + strings.ReplaceAll(k[5:25], "&", `\u0026`) },
}

// TestPartialKeyEchoesAreRedacted: a 401 whose body quotes the first 20
// characters of the key, its last 10, a middle run, or the key
// JSON-escaped, leaves no run of 8 of its characters in the error.
func TestPartialKeyEchoesAreRedacted(t *testing.T) {
	for name, echo := range echoes {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				// Written by hand: the server's own escaping, not Go's.
				w.Write([]byte(`{"error":{"message":"` + echo(key) + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
			}))
			defer srv.Close()
			c := newClient(t, llm.Config{BaseURL: srv.URL, APIKey: slashKey, Model: "gpt-4o",
				EmbeddingModel: "text-embedding-3-small", RequestTimeout: 5 * time.Second})
			_, err := c.Chat(t.Context(), ask("q"))
			_, _, eerr := c.Embed(t.Context(), []string{"x"}, "")
			for _, err := range []error{err, eerr} {
				if !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), llm.Redacted) {
					t.Errorf("err = %v, want ErrAuth with the echo redacted", err)
				}
				for e := err; e != nil; e = errors.Unwrap(e) {
					if run := keyRun(e.Error(), slashKey); run != "" {
						t.Errorf("%T carries %q of the key: %v", e, run, e)
					}
				}
				var le *llm.Error
				if errors.As(err, &le) && keyRun(le.Detail, slashKey) != "" {
					t.Errorf("Detail carries the key: %q", le.Detail)
				}
			}
		})
	}
}

// TestPartialKeyInAnswerIsRedacted: answers quoting parts of the key,
// plain and inside a JSON object the model wrote, reach neither the
// caller, Validate nor the cache.
func TestPartialKeyInAnswerIsRedacted(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: slashKey, Reply: func(c fixtures.ChatCall) string {
		k := strings.TrimPrefix(c.Authorization, "Bearer ")
		reason, _ := json.Marshal(k[:20] + "... and " + k[len(k)-10:])
		return `{"verdict": "correct", "reason": ` + string(reason) + `, "middle": "` + k[12:24] + `"}`
	}})
	defer f.Close()
	cfg := fast(f)
	cfg.APIKey = slashKey
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	var validated string
	req := ask("q")
	req.JSON = true
	req.Validate = func(s string) error { validated = s; return json.Unmarshal([]byte(s), new(map[string]any)) }
	resp, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"content": resp.Content, "validated": validated} {
		if run := keyRun(s, slashKey); run != "" || !strings.Contains(s, llm.Redacted) {
			t.Errorf("%s %q carries %q of the key", what, s, run)
		}
	}
	files := 0
	_ = filepath.WalkDir(cfg.CacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		if b, _ := os.ReadFile(p); keyRun(string(b), slashKey) != "" {
			t.Errorf("cache entry %s carries the key: %s", p, b)
		}
		return nil
	})
	if files == 0 {
		t.Error("no cache entry written")
	}
	if got := c.Redact("k=" + slashKey[:9]); got != "k="+llm.Redacted {
		t.Errorf("Redact = %q", got)
	}
}

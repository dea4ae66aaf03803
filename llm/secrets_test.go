package llm_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

const secretKey = "sk-proj-SECRET0123456789abcdef"

// TestKeyEchoedIn401IsRedacted: a server quoting the Authorization header
// in its 401 puts the key into neither the error's message, its Detail, nor
// the message of any error in its chain.
func TestKeyEchoedIn401IsRedacted(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "sk-the-right-key-000", EchoAuthorization: true})
	defer f.Close()
	cfg := fast(f)
	cfg.APIKey = secretKey
	c := newClient(t, cfg)
	_, err := c.Chat(t.Context(), ask("q"))
	if !errors.Is(err, llm.ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	_, _, eerr := c.Embed(t.Context(), []string{"x"}, "")
	for _, err := range []error{err, eerr} {
		if !strings.Contains(err.Error(), "Bearer "+llm.Redacted) {
			t.Errorf("the echoed header is not shown redacted: %v", err)
		}
		for e := err; e != nil; e = errors.Unwrap(e) {
			if strings.Contains(e.Error(), secretKey) {
				t.Errorf("%T carries the key: %v", e, e)
			}
		}
		var le *llm.Error
		if errors.As(err, &le) && (strings.Contains(le.Detail, secretKey) || le.Err != nil && strings.Contains(le.Err.Error(), secretKey)) {
			t.Errorf("llm.Error fields carry the key: %+v", le)
		}
	}
}

// TestKeyEchoedInAnswerIsRedacted: an answer or model name quoting the key
// is masked before it is returned, validated or cached.
func TestKeyEchoedInAnswerIsRedacted(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: secretKey,
		Reply:      func(c fixtures.ChatCall) string { return "your header was " + c.Authorization },
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-" + secretKey}})
	defer f.Close()
	cfg := fast(f)
	cfg.APIKey = secretKey
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	var validated string
	req := ask("q")
	req.Validate = func(s string) error { validated = s; return nil }
	resp, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "your header was Bearer "+llm.Redacted || strings.Contains(resp.Model, secretKey) || strings.Contains(validated, secretKey) {
		t.Errorf("content %q, model %q, validated %q", resp.Content, resp.Model, validated)
	}
	// A key-bearing answer rejected by Validate: the error is redacted too.
	req = ask("q2")
	req.Validate = func(s string) error { return errors.New("bad answer " + secretKey) }
	if _, err := c.Chat(t.Context(), req); err == nil || strings.Contains(err.Error(), secretKey) {
		t.Errorf("validate error: %v", err)
	}
	_ = filepath.WalkDir(cfg.CacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), secretKey) {
			t.Errorf("cache entry %s holds the key", p)
		}
		return nil
	})
	if got := c.Redact("k=" + secretKey); got != "k="+llm.Redacted {
		t.Errorf("Redact = %q", got)
	}
}

func TestRedactKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a " + secretKey + " b " + secretKey, "a " + llm.Redacted + " b " + llm.Redacted},
		{"short keys such as none stay", "short keys such as none stay"},
		{"", ""},
	} {
		if got := llm.RedactKeys(tc.in, secretKey, "none", ""); got != tc.want {
			t.Errorf("RedactKeys(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A key containing another is masked whole.
	if got := llm.RedactKeys("x"+secretKey+"x", secretKey[:10], secretKey); got != "x"+llm.Redacted+"x" {
		t.Errorf("nested keys: %q", got)
	}
}

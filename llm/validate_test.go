package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// TestValidateRejectsAndNeverCaches checks that an answer Validate rejects
// is an ErrMalformed error that is not cached, and that a cached answer it
// rejects is asked again.
func TestValidateRejectsAndNeverCaches(t *testing.T) {
	reply := "not json"
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(fixtures.ChatCall) string { return reply }})
	defer f.Close()
	cfg := fast(f)
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	isJSON := func(s string) error {
		if !strings.HasPrefix(s, "{") {
			return errors.New("not a JSON object")
		}
		return nil
	}
	req := ask("grade this")
	req.Validate = isJSON
	if _, err := c.Chat(t.Context(), req); !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("err = %v, want ErrMalformed naming the rejection", err)
	}
	reply = `{"ok": true}`
	resp, err := c.Chat(t.Context(), req)
	if err != nil || resp.Cached || resp.Content != reply {
		t.Fatalf("second call: %+v, %v; want a fresh, valid answer", resp, err)
	}
	if n := f.Count("chat"); n != 2 {
		t.Errorf("server saw %d requests, want 2 (the rejected answer was not cached)", n)
	}

	// A cached answer that a stricter Validate rejects is asked again.
	strict := ask("grade this")
	strict.Validate = func(s string) error { return errors.New("always wrong") }
	if _, err := c.Chat(t.Context(), strict); err == nil {
		t.Error("strict validation accepted an answer")
	}
	if n := f.Count("chat"); n != 3 {
		t.Errorf("server saw %d requests, want 3 (the cached answer was not replayed)", n)
	}
}

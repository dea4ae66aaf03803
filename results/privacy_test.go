package results

import (
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
)

// TestBundleHoldsNoPrivateFacts builds a bundle the way a run does, from a
// benchmark loaded from an absolute path under the home directory, with
// this machine's environment, and checks that no path, host name, user name
// or credential variable name reaches it.
func TestBundleHoldsNoPrivateFacts(t *testing.T) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	host, _ := os.Hostname()
	source := filepath.Join(t.TempDir(), "corpus", "faq.jsonl")
	t.Setenv("OPENAI_API_KEY", "sk-test-do-not-leak-0123456789")

	bench := testBenchmark(source, lasagna.ProvenanceNative)
	hf := NewHeldFixed(bench, lasagna.ModeRetrieval, 20, 42, strings.Repeat("ab", 32))
	b := retrievalBundle(t)
	b.Experiment.Environment = CurrentEnvironment("v0.1.0")
	for i := range b.Configs {
		b.Configs[i].HeldFixed = hf
	}
	raw := encode(t, b)

	forbidden := []string{source, filepath.Dir(source), cwd, os.TempDir(),
		"OPENAI_API_KEY", "API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI", "sk-test-do-not-leak", "PASSWORD", "SECRET", "TOKEN"}
	if home != "" && home != "/" {
		forbidden = append(forbidden, home)
	}
	words := []string{}
	if host != "" {
		words = append(words, host)
	}
	if u, err := user.Current(); err == nil {
		words = append(words, u.Username)
	}
	if u := os.Getenv("USER"); u != "" {
		words = append(words, u)
	}
	text := string(raw)
	for _, s := range forbidden {
		if strings.Contains(strings.ToUpper(text), strings.ToUpper(s)) {
			t.Errorf("bundle holds %q", s)
		}
	}
	for _, w := range words {
		if regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(w) + `\b`).MatchString(text) {
			t.Errorf("bundle holds the host or user name %q", w)
		}
	}
	// No string value looks like an absolute path.
	var walk func(v any)
	abs := regexp.MustCompile(`^(/|[A-Za-z]:\\|\\\\|~/)`)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if abs.MatchString(v) {
				t.Errorf("bundle holds the path-like value %q", v)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				walk(k)
				walk(x)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	// The environment holds exactly the three documented facts.
	env := obj(obj(doc, "experiment"), "environment")
	if len(env) != 3 || env["go"] == "" || env["platform"] == "" {
		t.Errorf("environment = %v, want lasagna_version, platform and go only", env)
	}
}

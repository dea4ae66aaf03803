package lasagna_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/lasagna-go/lasagna"

// forbidden lists, per package of this module (relative path; "" is the
// root), the import paths it must not depend on, directly or not. A path
// ending in "/..." forbids the whole subtree. The table is
// ARCHITECTURE.md's.
var forbidden = map[string][]string{
	"":            {module + "/...", "testing"},
	"metrics":     {module + "/...", "testing", "net/http", "os/exec"},
	"datasets":    {module + "/metrics", module + "/results", module + "/engine", module + "/evaltest", "testing"},
	"results":     {module + "/engine", module + "/evaltest", module + "/llm", module + "/datasets", "testing"},
	"retrieval":   {module + "/engine", module + "/evaltest", module + "/metrics", module + "/results", "testing"},
	"llm":         {module + "/engine", module + "/evaltest", "testing"},
	"generate":    {module + "/engine", module + "/evaltest", "testing"},
	"internal":    {module + "/engine", module + "/evaltest", "testing"},
	"judge":       {module + "/engine", module + "/evaltest", "testing"},
	"synth":       {module + "/engine", module + "/evaltest", "testing"},
	"extract":     {module + "/engine", module + "/evaltest", "testing"},
	"engine":      {module + "/evaltest", "testing"},
	"reporters":   {module + "/engine", module + "/evaltest", "testing"},
	"fixtures":    {module + "/evaltest"},
	"evaltest":    {module + "/cmd/..."},
	"cmd/lasagna": {module + "/evaltest", "testing"},
}

func TestDependencyRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Deps", "./...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		rel, ok := relPath(p.ImportPath)
		if !ok {
			continue
		}
		rules := rulesFor(rel)
		if rules == nil {
			continue
		}
		seen++
		for _, dep := range p.Deps {
			for _, f := range rules {
				if violates(rel, p.ImportPath, f, dep) {
					t.Errorf("%s imports %s (directly or not), which ARCHITECTURE.md forbids; move the shared piece inward or invert the dependency", p.ImportPath, dep)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("go list reported no package of this module with a rule; the table is stale")
	}
}

func relPath(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(importPath, module+"/")
	return rel, ok
}

// rulesFor returns the rules of the nearest listed ancestor of rel
// (retrieval/bm25 follows retrieval).
func rulesFor(rel string) []string {
	for p := rel; ; {
		if r, ok := forbidden[p]; ok {
			return r
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			if p == "" {
				return nil
			}
			p = ""
			if rel != "" {
				// Only the root package itself follows the root's rules.
				return nil
			}
			continue
		}
		p = p[:i]
	}
}

func matches(rule, dep string) bool {
	if prefix, ok := strings.CutSuffix(rule, "/..."); ok {
		return dep == prefix || strings.HasPrefix(dep, prefix+"/")
	}
	return dep == rule
}

// violates reports whether package importPath (rel inside the module)
// breaks rule by depending on dep. A package may always use its own
// sub-packages, except the root, whose sub-packages are the whole module.
func violates(rel, importPath, rule, dep string) bool {
	if !matches(rule, dep) {
		return false
	}
	if rel != "" && strings.HasPrefix(dep, importPath+"/") {
		return false
	}
	return true
}

func TestDependencyRuleMatcher(t *testing.T) {
	for _, c := range []struct {
		rel, dep string
		want     bool
	}{
		{"", module + "/datasets", true},
		{"", "testing", true},
		{"", "context", false},
		{"metrics", module + "/datasets", true},
		{"metrics", "math", false},
		{"datasets", module + "/metrics", true},
		{"datasets", module, false},
		{"retrieval/bm25", module + "/engine", true},
		{"retrieval", module + "/retrieval/bm25", false},
		{"cmd/lasagna", module + "/evaltest", true},
		{"evaltest/ginkgo", module + "/cmd/lasagna", true},
	} {
		importPath := module
		if c.rel != "" {
			importPath += "/" + c.rel
		}
		got := false
		for _, rule := range rulesFor(c.rel) {
			got = got || violates(c.rel, importPath, rule, c.dep)
		}
		if got != c.want {
			t.Errorf("%s depending on %s: violation = %v, want %v", importPath, c.dep, got, c.want)
		}
	}
}

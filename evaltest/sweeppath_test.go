package evaltest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
)

// TestSweepPaths: a sweep file read from disk names its benchmark by an
// absolute path, and by a relative path climbing with "..", resolved
// against the sweep file's folder (not the package folder).
func TestSweepPaths(t *testing.T) {
	tiny, err := fs.ReadFile(fixtures.Data, fixtures.TinyJSONL)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	data := filepath.Join(root, "data", "tiny.jsonl")
	for _, d := range []string{filepath.Dir(data), filepath.Join(root, "evals")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(data, tiny, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, bench := range map[string]string{
		"absolute": filepath.ToSlash(data),
		"climbing": "../data/tiny.jsonl",
	} {
		sweep := filepath.Join(root, "evals", name+".yaml")
		yaml := "benchmarks:\n  - path: " + bench + "\n    n_samples: 3\narms:\n  - name: bm25\n    retriever: bm25\n    top_k: 10\n"
		if err := os.WriteFile(sweep, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		got, failed, _ := fakeEval(t, Config{Sweep: sweep, Cutoffs: []int{10}, AttrMetrics: []string{}}, nil)
		if failed || strings.Count(got, "--- PASS: TestRAG/tiny/bm25/q") != 3 {
			t.Errorf("%s path %s: failed %v:\n%s", name, bench, failed, got)
		}
	}
}

// TestSweepThresholds: the thresholds of a sweep's arms are checked in
// go test as lasagna benchmark run checks them (they used to be dropped):
// a failing one fails the arm, a met one passes.
func TestSweepThresholds(t *testing.T) {
	tiny, err := fs.ReadFile(fixtures.Data, fixtures.TinyJSONL)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "tiny.jsonl"), tiny, 0o644); err != nil {
		t.Fatal(err)
	}
	for at, wantFail := range map[string]bool{"at_most: 0.01": true, "at_least: 0.01": false} {
		sweep := filepath.Join(root, "s.yaml")
		yaml := "benchmarks:\n  - path: tiny.jsonl\narms:\n  - name: bm25\n    retriever: bm25\n    thresholds: [{metric: recall@10, " + at + "}]\n"
		if err := os.WriteFile(sweep, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		got, failed, _ := fakeEval(t, Config{Sweep: sweep, AttrMetrics: []string{}}, nil)
		if failed != wantFail || wantFail && !strings.Contains(got, "recall@10 = ") {
			t.Errorf("threshold %s: failed %v, want %v:\n%s", at, failed, wantFail, got)
		}
	}
}

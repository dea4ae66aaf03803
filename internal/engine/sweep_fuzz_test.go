package engine

import (
	"strings"
	"testing"
)

// FuzzParseSweep checks that any sweep file parses or fails with an error
// naming the file, and never panics.
func FuzzParseSweep(f *testing.F) {
	for _, s := range []string{
		"benchmarks: [{path: a.jsonl, n_samples: 3}]\narms: [{name: a, retriever: bm25, bm25: {k1: 1.2}}]\n",
		"benchmarks:\n  - {path: a.jsonl}\narms:\n  - name: g\n    generator: {kind: closed_book}\n    judge: {}\n",
		"sed: 3\n",
		"benchmarks: [\n",
		"arms: 7\nbenchmarks: {}\n",
		"- a\n- b\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sw, err := ParseSweep([]byte(s), "dir/sweep.yaml")
		if err != nil {
			if !strings.Contains(err.Error(), "sweep") && !strings.Contains(err.Error(), "dir/sweep.yaml") {
				t.Fatalf("error %q names neither the file nor the sweep", err)
			}
			return
		}
		if len(sw.Benchmarks) == 0 || len(sw.Arms) == 0 {
			t.Fatalf("a sweep without benchmarks or arms was accepted: %q", s)
		}
	})
}

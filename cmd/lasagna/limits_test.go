package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// TestRunCountsAreUsageErrors: a count flag of 0 or less exits 2 with the
// flag named, as the same value in a sweep file does.
func TestRunCountsAreUsageErrors(t *testing.T) {
	faq := filepath.Join("..", "..", "examples", "data", "faq.jsonl")
	for _, args := range [][]string{{"--top-k", "-100"}, {"--top-k", "0"}, {"--n-samples", "-5"}, {"--concurrency", "-4"}, {"--concurrency", "0"}, {"--repeats", "0"}} {
		_, errOut, code := runCLI(t, append([]string{"benchmark", "run", faq, "-o", filepath.Join(t.TempDir(), "b.json")}, args...)...)
		if code != 2 || !strings.Contains(errOut, args[0]+" is "+args[1]) {
			t.Errorf("%s %s: exit %d, want 2 naming the flag:\n%s", args[0], args[1], code, errOut)
		}
	}
	dir := writeFiles(t, map[string]string{"sweep.yaml": "benchmarks:\n  - {path: x.jsonl}\narms:\n  - {name: bm25, retriever: bm25, top_k: 0}\n"})
	if _, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "sweep.yaml")); code != 2 || !strings.Contains(errOut, "sweep.yaml:4: arm bm25: top_k is 0; it must be positive") {
		t.Errorf("top_k: 0 in a sweep: exit %d, want 2:\n%s", code, errOut)
	}
}

// TestNSamplesAboveRows: n_samples at or above the rows draws them all
// and is recorded as 0, so the bundle has the comparability key of
// n_samples 0 (and of n_samples equal to the rows).
func TestNSamplesAboveRows(t *testing.T) {
	faq := filepath.Join("..", "..", "examples", "data", "faq.jsonl")
	keys := map[string]string{}
	for _, n := range []string{"0", "47", "1000000000000"} {
		out := filepath.Join(t.TempDir(), "b.json")
		if stdout, errOut, code := runCLI(t, "benchmark", "run", faq, "--n-samples", n, "-o", out); code != 0 {
			t.Fatalf("--n-samples %s: exit %d\n%s\n%s", n, code, stdout, errOut)
		}
		b, err := results.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Configs[0].HeldFixed.NSamples; got != 0 {
			t.Errorf("--n-samples %s: held_fixed.n_samples %d, want 0 (all 47 rows drawn)", n, got)
		}
		keys[n] = b.Configs[0].ComparabilityKey
	}
	if keys["0"] != keys["47"] || keys["0"] != keys["1000000000000"] {
		t.Errorf("comparability keys differ for one sample: %v", keys)
	}
}

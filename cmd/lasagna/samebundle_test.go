package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/results"
)

// TestSameSweepSameBundle runs one sweep file (a JSONL file and a BEIR
// folder, two arms) through evaltest.Run and through lasagna benchmark
// run: one engine, so the two bundles are the same bytes, run_id
// included (docs/bundles.md: the environment's lasagna version enters
// run_id, and both front ends record engine.Version).
func TestSameSweepSameBundle(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "examples", "data"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(sweep, []byte(`benchmarks:
  - path: `+filepath.Join(data, "faq.jsonl")+`
  - path: `+filepath.Join(data, "glasscoins")+`
arms:
  - {name: bm25, retriever: bm25, top_k: 10}
  - {name: plain, retriever: bm25, bm25: {stemming: false}, top_k: 10}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cliBundle := filepath.Join(dir, "cli.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", cliBundle); code != 0 {
		t.Fatalf("benchmark run: exit %d\n%s\n%s", code, out, errOut)
	}
	outDir := t.TempDir()
	t.Setenv(evaltest.EnvOut, outDir)
	t.Run("TestRAG", func(t *testing.T) {
		evaltest.Run(t, evaltest.Config{Sweep: sweep})
	})
	files, _ := filepath.Glob(filepath.Join(outDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("go test bundles %q, want one", files)
	}
	a, err := results.ReadFile(cliBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Configs) != 4 {
		t.Errorf("the CLI's bundle has %d configs, want 4", len(a.Configs))
	}
	for _, c := range b.Configs {
		if c.CorpusStats == nil {
			t.Errorf("go test bundle: config %s on %s has no corpus_stats", c.Name, c.Benchmark)
		}
	}
	for _, part := range []struct {
		name string
		a, b any
	}{
		{"configs", a.Configs, b.Configs},
		{"results", a.Results, b.Results},
		{"integrity", a.Integrity, b.Integrity},
		{"experiment", a.Experiment, b.Experiment},
	} {
		if d := cmp.Diff(part.a, part.b, cmp.Comparer(func(x, y results.Finding) bool { return x.String() == y.String() })); d != "" {
			t.Errorf("%s differ (-benchmark run +go test):\n%s", part.name, d)
		}
	}
	if a.RunID != b.RunID {
		t.Errorf("run_id %s (benchmark run) and %s (go test); want the same bundle", a.RunID, b.RunID)
	}
}

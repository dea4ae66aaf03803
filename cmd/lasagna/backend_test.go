package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
)

// TestBackendNotBuiltIn: the default lasagna links no vector-engine
// client, so a sweep naming one is refused before anything runs (exit 2),
// with the command that builds a lasagna with it. make test also runs this
// test in the default build, where it is not skipped.
func TestBackendNotBuiltIn(t *testing.T) {
	dir := faqDir(t)
	for _, c := range []struct {
		name, tag, backend string
		built              bool
	}{
		{"weaviate", "weaviate", "{name: weaviate, url: 'http://127.0.0.1:1'}", buildtag.Weaviate},
		{"pgvector", "postgres", "{name: pgvector, dsn: 'postgres://u@127.0.0.1:1/db'}", buildtag.Postgres},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.built {
				t.Skip("built with -tags " + c.tag + "; the default build runs this test (make test does)")
			}
			sweep := filepath.Join(dir, c.name+".yaml")
			os.WriteFile(sweep, []byte("benchmarks: [{path: faq.jsonl}]\nvector_backend: "+c.backend+
				"\narms:\n  - {name: dense, retriever: dense, embedder: {model: toy-embed}}\n  - {name: bm25, retriever: bm25}\n"), 0o644)
			out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", filepath.Join(dir, "b.json"))
			want := "lasagna: arm dense: vector_backend " + c.name + " is not built into this lasagna (the default build links no vector-engine client); build one with it, from a clone of the repository: go install -tags postgres,weaviate,parquet ./cmd/lasagna (or -tags " + c.tag + ")\n"
			if code != 2 || errOut != want || out != "" {
				t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit 2 and %q", code, out, errOut, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "b.json")); err == nil {
				t.Error("a refused run wrote a bundle")
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

func TestOpenVectorStore(t *testing.T) {
	for _, name := range []string{"exact", ""} {
		s, err := openVectorStore(t.Context(), engine.VectorBackendSpec{Name: name, Metric: vector.Dot})
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		ix, ok := s.(*vector.Index)
		if !ok || ix.Metric() != vector.Dot || s.Describe().String() != "exact" {
			t.Errorf("%q: store %T, metric %v, description %q", name, s, ix.Metric(), s.Describe())
		}
		s.Close()
	}
	if _, err := openVectorStore(t.Context(), engine.VectorBackendSpec{Name: "milvus"}); err == nil || !strings.Contains(err.Error(), `vector_backend "milvus" is not built into this lasagna`) {
		t.Errorf("unknown backend: %v", err)
	}
	d, err := sweepDeps(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "b", Retriever: engine.RetrieverBM25}}}, "")
	if err != nil || d.VectorStore == nil {
		t.Errorf("sweepDeps (the dashboard's Deps): VectorStore unset, %v", err)
	}
}

// TestBenchmarkRunVectorBackend: a sweep naming the exact index records
// what a sweep without vector_backend records (same comparability key), and
// a sweep with a password in its DSN is refused without quoting it.
func TestBenchmarkRunVectorBackend(t *testing.T) {
	fakeEmbedder(t)
	dir := faqDir(t)
	write := func(name, backend string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("benchmarks: [{path: faq.jsonl, n_samples: 5}]\n"+backend+"arms:\n  - {name: dense, retriever: dense, embedder: {model: toy-embed}}\n"), 0o644)
		return p
	}
	var keys []string
	for i, backend := range []string{"", "vector_backend: {name: exact}\n"} {
		bundle := filepath.Join(dir, "b"+string(rune('0'+i))+".json")
		out, errOut, code := runCLI(t, "benchmark", "run", write("s.yaml", backend), "-o", bundle)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		b, err := results.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		hf := b.Configs[0].HeldFixed
		if hf.VectorBackend == nil || *hf.VectorBackend != "exact" || hf.FixedStages["vector_backend"] != "exact cosine" {
			t.Errorf("%q: vector_backend %v, stage %q", backend, hf.VectorBackend, hf.FixedStages["vector_backend"])
		}
		keys = append(keys, b.Configs[0].ComparabilityKey)
	}
	if keys[0] != keys[1] {
		t.Errorf("vector_backend {name: exact} changed the comparability key: %v", keys)
	}
	out, errOut, code := runCLI(t, "benchmark", "run", write("pw.yaml", "vector_backend: {name: pgvector, dsn: 'postgres://lasagna:hunter2@db/evals'}\n"))
	if code == 0 || !strings.Contains(errOut, "pw.yaml:2: vector_backend: dsn holds a password") || !strings.Contains(errOut, "PGPASSWORD") || strings.Contains(out+errOut, "hunter2") {
		t.Errorf("password in the dsn: exit %d\n%s\n%s", code, out, errOut)
	}
}

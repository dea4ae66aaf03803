package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/servertest"
	"github.com/lasagna-go/lasagna/internal/weaviatetest"
	"github.com/lasagna-go/lasagna/results"
)

// TestBenchmarkRunWeaviate runs one sweep with the exact index, Weaviate
// (dense) and Weaviate's own BM25 and hybrid, beside the built-in BM25,
// against a real server; a second run reuses the collections. The dense
// arms score the same (the corpus is small enough for HNSW to be exact)
// and their configs differ only in vector_backend.
func TestBenchmarkRunWeaviate(t *testing.T) {
	servertest.NeedTag(t, "weaviate", buildtag.Weaviate)
	srv := weaviatetest.Start(t)
	fakeEmbedder(t)
	t.Setenv("WEAVIATE_API_KEY", "")
	dir := faqDir(t)
	sweep := filepath.Join(dir, "s.yaml")
	os.WriteFile(sweep, []byte(`benchmarks: [{path: faq.jsonl}]
vector_backend: {name: weaviate, url: `+srv.URL+`}
arms:
  - {name: exact, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: exact}, varied: [vector_backend]}
  - {name: weaviate, retriever: dense, embedder: {model: toy-embed}}
  - {name: bm25, retriever: bm25}
  - {name: weaviate-bm25, retriever: weaviate-bm25}
  - {name: weaviate-hybrid, retriever: weaviate-hybrid, alpha: 0.5, embedder: {model: toy-embed}}
`), 0o644)
	for run := range 2 {
		bundle := filepath.Join(dir, "b.json")
		out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
		}
		if strings.Contains(out+errOut, srv.URL) {
			t.Errorf("run %d: the output names the server's URL", run)
		}
		b, err := results.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		cfg, metrics := byArm(b)
		want := "weaviate " + strings.TrimPrefix(weaviatetest.Version, "v") + " hnsw m=64 ef_construction=512 ef=1536 cosine"
		// vector_backend is varied (declared on the exact arm), so it is
		// a level of each config and the dense arms share one key.
		if got := cfg["weaviate"].VariedLevels["vector_backend"]; got != want {
			t.Errorf("run %d: weaviate arm's vector_backend level %q, want %q", run, got, want)
		}
		if got := cfg["exact"].VariedLevels["vector_backend"]; got != "exact cosine" {
			t.Errorf("run %d: exact arm's vector_backend level %q", run, got)
		}
		if cfg["exact"].ComparabilityKey != cfg["weaviate"].ComparabilityKey {
			t.Errorf("run %d: the exact and weaviate dense arms have different comparability keys", run)
		}
		for _, m := range []string{"ndcg@10", "recall@10", "mrr@10"} {
			if e, w := metrics["exact"][m], metrics["weaviate"][m]; e != w || e == 0 {
				t.Errorf("run %d: %s exact %v, weaviate %v: want equal and > 0", run, m, e, w)
			}
		}
		for _, arm := range []string{"weaviate-bm25", "weaviate-hybrid"} {
			if metrics[arm]["ndcg@10"] <= 0.3 {
				t.Errorf("run %d: %s ndcg@10 = %v, want a working ranking", run, arm, metrics[arm]["ndcg@10"])
			}
		}
		for _, f := range append(b.Integrity.Warnings, b.Integrity.Blocking...) {
			if f.Code == lasagna.PartialCorpus {
				t.Errorf("run %d: %s", run, f)
			}
		}
	}
}

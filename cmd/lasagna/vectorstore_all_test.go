package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/pglitetest"
	"github.com/lasagna-go/lasagna/internal/servertest"
	"github.com/lasagna-go/lasagna/internal/weaviatetest"
	"github.com/lasagna-go/lasagna/results"
)

// TestOneSweepThreeBackends is issue 13's done-when: one sweep evaluates
// the same generated benchmark (2,000 passages, 200 queries) with the
// exact index, pgvector (PGlite) and Weaviate, each at its default index
// parameters. The three dense arms share one comparability key, their
// held_fixed differs only in the vector_backend level, every backend's
// top 10 agrees with the exact index's on at least 99% of the ids, and
// `results compare` accepts the bundle.
func TestOneSweepThreeBackends(t *testing.T) {
	servertest.NeedTag(t, "postgres", buildtag.Postgres)
	servertest.NeedTag(t, "weaviate", buildtag.Weaviate)
	pg := pglitetest.Start(t)
	wv := weaviatetest.Start(t)
	fakeEmbedder(t)
	t.Setenv("WEAVIATE_API_KEY", "")
	dir := t.TempDir()
	beir, _, err := writeBEIR(dir, 2000, 200)
	if err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sweep, []byte(`benchmarks: [{path: `+beir+`}]
top_k: 10
arms:
  - {name: exact, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: exact}, varied: [vector_backend]}
  - {name: pgvector, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: pgvector, dsn: '`+pg.DSN+`'}, varied: [vector_backend]}
  - {name: weaviate, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: weaviate, url: '`+wv.URL+`'}, varied: [vector_backend]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("go test -v shows the CLI's output:\n%s", out)
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := byArm(b)
	for _, name := range []string{"pgvector", "weaviate"} {
		c, ex := cfg[name], cfg["exact"]
		if c.ComparabilityKey == "" || c.ComparabilityKey != ex.ComparabilityKey {
			t.Errorf("%s: comparability key %q, exact's %q: want the same", name, c.ComparabilityKey, ex.ComparabilityKey)
		}
		if lvl := c.VariedLevels["vector_backend"]; !strings.HasPrefix(lvl, name+" ") || !strings.Contains(lvl, " hnsw ") {
			t.Errorf("%s: vector_backend level %q, want the backend, its version and its HNSW parameters", name, lvl)
		}
		if !equalExcept(t, c.HeldFixed, ex.HeldFixed) {
			t.Errorf("%s: held_fixed differs from the exact arm's beyond vector_backend", name)
		}
	}
	ids := map[string]map[string][]string{}
	for _, r := range b.Results {
		m := map[string][]string{}
		for _, s := range r.PerSampleScores {
			if s.Error != "" {
				t.Fatalf("%s %s: %s", r.ConfigName, s.QueryID, s.Error)
			}
			m[s.QueryID] = s.RetrievedIDs
		}
		ids[r.ConfigName] = m
	}
	if n := len(ids["exact"]); n != 200 {
		t.Fatalf("the exact arm has %d rows, want 200", n)
	}
	for _, name := range []string{"pgvector", "weaviate"} {
		found, total := 0, 0
		for q, want := range ids["exact"] {
			got := ids[name][q]
			for _, id := range want {
				total++
				if slices.Contains(got, id) {
					found++
				}
			}
		}
		recall := float64(found) / float64(total)
		t.Logf("%s: recall@10 against the exact index %.4f (%d of %d ids)", name, recall, found, total)
		if recall < 0.99 {
			t.Errorf("%s: recall@10 against the exact index %.4f, want ≥ 0.99", name, recall)
		}
	}
	if out, errOut, code := runCLI(t, "results", "compare", bundle); code != 0 {
		t.Errorf("results compare: exit %d\n%s\n%s", code, out, errOut)
	}
}

// byArm indexes a bundle of one benchmark by arm name: its configs and its
// results' metrics.
func byArm(b *results.Bundle) (map[string]results.Config, map[string]map[string]float64) {
	cfg := map[string]results.Config{}
	for _, c := range b.Configs {
		cfg[c.Name] = c
	}
	metrics := map[string]map[string]float64{}
	for _, r := range b.Results {
		metrics[r.ConfigName] = r.Metrics
	}
	return cfg, metrics
}

// equalExcept reports whether two held_fixed values are equal once their
// vector_backend fields (varied here, so recorded as levels) are set aside.
func equalExcept(t *testing.T, a, b results.HeldFixed) bool {
	t.Helper()
	a.VectorBackend, b.VectorBackend = nil, nil
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

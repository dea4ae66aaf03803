//go:build postgres

// pgx reads the collection's record, so the file is built with the
// postgres tag: make test builds with it, and make check (the default
// build) does not compile pgx.

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lasagna-go/lasagna/internal/pglitetest"
	"github.com/lasagna-go/lasagna/results"
)

// TestBenchmarkRunPgvector runs one sweep whose arms differ only in
// vector_backend, the exact index and pgvector (PGlite on loopback), twice
// (the second run reuses the sealed collection): the arms score the same,
// the bundle records pgvector's versions and index among the varied
// levels, and it holds no DSN.
func TestBenchmarkRunPgvector(t *testing.T) {
	srv := pglitetest.Start(t)
	fakeEmbedder(t)
	dir := faqDir(t)
	sweep := filepath.Join(dir, "s.yaml")
	os.WriteFile(sweep, []byte(`benchmarks: [{path: faq.jsonl}]
arms:
  - {name: exact, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: exact}, varied: [vector_backend]}
  - {name: pg, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: pgvector, dsn: '`+srv.DSN+`'}, varied: [vector_backend]}
`), 0o644)
	wantPG := regexp.MustCompile(`^pgvector \d+\.\d+\.\d+ PostgreSQL \d+\.\d+ hnsw m=32 ef_construction=400 ef_search=800 cosine$`)
	// The collection's record, which every Add and Seal updates.
	record := func() string {
		conn, err := pgx.Connect(t.Context(), srv.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		var rec string
		if err := conn.QueryRow(t.Context(), "SELECT string_agg(name || ' ' || documents || ' ' || sealed || ' ' || updated, ', ') FROM lasagna_collections").Scan(&rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	var records []string
	for run := range 2 {
		bundle := filepath.Join(dir, "b"+string(rune('0'+run))+".json")
		out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
		}
		t.Logf("run %d (go test -v shows the CLI's output):\n%s", run, out)
		raw, err := os.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), srv.Addr) {
			t.Errorf("run %d: the bundle holds the server's address %s", run, srv.Addr)
		}
		b, err := results.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		cfg, metrics := byArm(b)
		pg, ex := cfg["pg"], cfg["exact"]
		if got := pg.VariedLevels["vector_backend"]; !wantPG.MatchString(got) {
			t.Errorf("run %d: pg arm's varied_levels.vector_backend = %q, want %s", run, got, wantPG)
		}
		if got := ex.VariedLevels["vector_backend"]; got != "exact cosine" {
			t.Errorf("run %d: exact arm's varied_levels.vector_backend = %q", run, got)
		}
		if pg.ComparabilityKey != ex.ComparabilityKey {
			t.Errorf("run %d: the arms' comparability keys differ", run)
		}
		if len(metrics["pg"]) == 0 {
			t.Fatalf("run %d: no metrics for the pg arm", run)
		}
		for m, v := range metrics["exact"] {
			if w, ok := metrics["pg"][m]; !ok || w != v {
				t.Errorf("run %d: %s: exact %v, pgvector %v", run, m, v, w)
			}
		}
		records = append(records, record())
	}
	if !strings.Contains(records[0], " true ") || records[1] != records[0] {
		t.Errorf("lasagna_collections after the first run: %s; after the second: %s; want one sealed collection, untouched by the rerun", records[0], records[1])
	}
}

package pgvector_test

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/pglitetest"
	"github.com/lasagna-go/lasagna/retrieval/pgvector"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// ConformanceResult is what Conformance measured.
type ConformanceResult struct {
	// Recall is the mean recall@k of the store against the exact index,
	// counting a hit as relevant when its exact score reaches the exact
	// k-th score (so that ties at the cut do not count as misses).
	Recall float64
	// Ingest is the wall time of Add (all batches); Seal that of Seal (the
	// HNSW build); Search that of the nq searches, one at a time.
	Ingest, Seal, Search time.Duration
	// CPU is this process's CPU time over the same three phases.
	IngestCPU, SealCPU, SearchCPU time.Duration
}

// Conformance embeds docs and queries with the fake embedder
// (fixtures.HashEmbedding, dim dimensions), stores the vectors in the
// collection name of a pgvector store opened with cfg on dsn and in an
// exact vector.Index, and compares their top-k for every query.
func Conformance(tb testing.TB, dsn, name string, docs []lasagna.Document, queries []string, dim int, cfg pgvector.Config, k int) ConformanceResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	ids := make([]string, len(docs))
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		ids[i], vecs[i] = d.ID, fixtures.HashEmbedding(d.Text, dim)
	}
	exact, err := vector.New(vector.Cosine)
	if err != nil {
		tb.Fatal(err)
	}
	if err := exact.Add(ctx, ids, vecs); err != nil {
		tb.Fatal(err)
	}
	cfg.DSN = dsn
	s, err := pgvector.Open(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	c := vector.Collection{
		Name:        name,
		Fingerprint: vector.CorpusFingerprint(docs, func(d lasagna.Document) string { return d.Text }),
		Documents:   len(docs),
		Embedder:    "fixtures.HashEmbedding/" + strconv.Itoa(dim),
		Metric:      vector.Cosine,
	}
	if _, err := s.Open(ctx, c); err != nil {
		tb.Fatal(err)
	}
	var r ConformanceResult
	t0, c0 := time.Now(), cputime.Used()
	// The dense stage's calls: 2,000 vectors at a time.
	for start := 0; start < len(ids); start += 2000 {
		end := min(start+2000, len(ids))
		if err := s.Add(ctx, ids[start:end], vecs[start:end]); err != nil {
			tb.Fatal(err)
		}
	}
	t1, c1 := time.Now(), cputime.Used()
	if err := s.Seal(ctx, c, len(ids)); err != nil {
		tb.Fatal(err)
	}
	t2, c2 := time.Now(), cputime.Used()
	got := make([][]lasagna.Hit, len(queries))
	qv := make([][]float32, len(queries))
	for i, q := range queries {
		qv[i] = fixtures.HashEmbedding(q, dim)
	}
	for i := range queries {
		if got[i], err = s.Search(ctx, qv[i], k); err != nil {
			tb.Fatal(err)
		}
	}
	t3, c3 := time.Now(), cputime.Used()
	r.Ingest, r.Seal, r.Search = t1.Sub(t0), t2.Sub(t1), t3.Sub(t2)
	r.IngestCPU, r.SealCPU, r.SearchCPU = c1-c0, c2-c1, c3-c2

	byID := make(map[string][]float32, len(ids))
	for i, id := range ids {
		byID[id] = vecs[i]
	}
	var sum float64
	for i := range queries {
		want, err := exact.Search(ctx, qv[i], k)
		if err != nil {
			tb.Fatal(err)
		}
		if len(want) == 0 {
			continue
		}
		cut := cosine(qv[i], byID[want[len(want)-1].ID]) - 1e-6
		seen := map[string]bool{}
		hit := 0
		for _, h := range got[i] {
			if v, ok := byID[h.ID]; ok && !seen[h.ID] && cosine(qv[i], v) >= cut {
				hit++
			}
			seen[h.ID] = true
		}
		sum += float64(hit) / float64(len(want))
	}
	r.Recall = sum / float64(len(queries))
	return r
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// BenchmarkConformance50k ingests 50,000 vectors of the fake embedder into
// PGlite, builds the HNSW index with the defaults and runs 1,000 queries
// one at a time; it reports ingest rate, queries/s and recall@10 against
// the exact index. LASAGNA_PGVECTOR_BENCH_N and _DIM change the corpus size
// and the dimension (defaults 50000 and 64); LASAGNA_PGVECTOR_BENCH_DSN
// runs it against another server (its database must not hold a table
// named conform_bench from another corpus). Run it with -benchtime 1x.
func BenchmarkConformance50k(b *testing.B) {
	n, dim, nq := envInt(b, "LASAGNA_PGVECTOR_BENCH_N", 50000), envInt(b, "LASAGNA_PGVECTOR_BENCH_DIM", 64), 1000
	dsn := os.Getenv("LASAGNA_PGVECTOR_BENCH_DSN")
	if dsn == "" {
		dsn = pglitetest.Start(b).DSN
	}
	docs, queries := corpusgen.Zipf(n, nq)
	for i := 0; i < b.N; i++ {
		name := "conform_bench_" + strconv.Itoa(i)
		r := Conformance(b, dsn, name, docs, queries, dim, pgvector.Config{}, 10)
		b.ReportMetric(float64(n)/r.Ingest.Seconds(), "vectors/s-ingest")
		b.ReportMetric(r.Seal.Seconds(), "s-seal")
		b.ReportMetric(float64(nq)/r.Search.Seconds(), "queries/s")
		b.ReportMetric(r.Recall, "recall@10")
		b.Logf("n=%d dim=%d: ingest %v (client CPU %v), seal (HNSW build) %v (client CPU %v), %d searches %v (client CPU %v), recall@10 %.4f; %s",
			n, dim, r.Ingest.Round(time.Millisecond), r.IngestCPU.Round(time.Millisecond), r.Seal.Round(time.Millisecond), r.SealCPU.Round(time.Millisecond),
			nq, r.Search.Round(time.Millisecond), r.SearchCPU.Round(time.Millisecond), r.Recall, strings.TrimSpace(loadavg()))
	}
}

func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return "loadavg " + string(b)
}

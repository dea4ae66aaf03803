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
	// CPU is this process's CPU time over the same three phases, and
	// ServerCPU the server process's (when its PID is known).
	IngestCPU, SealCPU, SearchCPU                   time.Duration
	IngestServerCPU, SealServerCPU, SearchServerCPU time.Duration
}

// Conformance embeds docs and queries with the fake embedder
// (fixtures.HashEmbedding, dim dimensions), stores the vectors in the
// collection name of a pgvector store opened with cfg on dsn and in an
// exact vector.Index, and compares their top-k for every query. serverPID,
// when not 0, is the server's process, whose CPU time it measures too.
func Conformance(tb testing.TB, dsn string, serverPID int, name string, docs []lasagna.Document, queries []string, dim int, cfg pgvector.Config, k int) ConformanceResult {
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
	st, err := s.Open(ctx, c)
	if err != nil {
		tb.Fatal(err)
	}
	var r ConformanceResult
	t0, c0, s0 := time.Now(), cputime.Used(), procCPU(serverPID)
	t1, c1, s1, t2, c2, s2 := t0, c0, s0, t0, c0, s0
	// A sealed collection of this corpus is reused, as the dense stage
	// does (Ingest and Seal are then zero).
	if !st.Sealed || st.Fingerprint != c.Fingerprint || st.Documents != len(docs) {
		// The dense stage's calls: 2,000 vectors at a time.
		for start := 0; start < len(ids); start += 2000 {
			end := min(start+2000, len(ids))
			if err := s.Add(ctx, ids[start:end], vecs[start:end]); err != nil {
				tb.Fatal(err)
			}
		}
		t1, c1, s1 = time.Now(), cputime.Used(), procCPU(serverPID)
		if err := s.Seal(ctx, c, len(ids)); err != nil {
			tb.Fatal(err)
		}
		t2, c2, s2 = time.Now(), cputime.Used(), procCPU(serverPID)
	}
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
	t3, c3, s3 := time.Now(), cputime.Used(), procCPU(serverPID)
	r.Ingest, r.Seal, r.Search = t1.Sub(t0), t2.Sub(t1), t3.Sub(t2)
	r.IngestCPU, r.SealCPU, r.SearchCPU = c1-c0, c2-c1, c3-c2
	r.IngestServerCPU, r.SealServerCPU, r.SearchServerCPU = s1-s0, s2-s1, s3-s2

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
// PGlite, builds the HNSW index with the default m and ef_construction,
// and runs 1,000 queries one at a time at ef_search 100, 200, 400, 800 and
// 1000 on the same index; it reports ingest rate, queries/s and recall@10
// against the exact index for each. LASAGNA_PGVECTOR_BENCH_N, _DIM, _M and
// _EFC change the corpus size, the dimension, m and ef_construction
// (defaults 50000, 64 and the package's defaults);
// LASAGNA_PGVECTOR_BENCH_DSN runs it against another server. Run it with
// -benchtime 1x.
func BenchmarkConformance50k(b *testing.B) {
	n, dim, nq := envInt(b, "LASAGNA_PGVECTOR_BENCH_N", 50000), envInt(b, "LASAGNA_PGVECTOR_BENCH_DIM", 64), 1000
	m, efc := envInt(b, "LASAGNA_PGVECTOR_BENCH_M", pgvector.DefaultM), envInt(b, "LASAGNA_PGVECTOR_BENCH_EFC", pgvector.DefaultEfConstruction)
	dsn, pid := os.Getenv("LASAGNA_PGVECTOR_BENCH_DSN"), 0
	if dsn == "" {
		srv := pglitetest.Start(b)
		dsn, pid = srv.DSN, srv.PID
	}
	docs, queries := corpusgen.Zipf(n, nq)
	for i := 0; i < b.N; i++ {
		name := "conform_bench_" + strconv.Itoa(i)
		for _, ef := range []int{100, 200, 400, 800, 1000} {
			cfg := pgvector.Config{Index: vector.HNSW{M: m, EfConstruction: efc, EfSearch: ef}}
			r := Conformance(b, dsn, pid, name, docs, queries, dim, cfg, 10)
			if r.Ingest > 0 {
				b.ReportMetric(float64(n)/r.Ingest.Seconds(), "vectors/s-ingest")
				b.ReportMetric(r.Seal.Seconds(), "s-seal")
			}
			b.ReportMetric(float64(nq)/r.Search.Seconds(), "queries/s-ef"+strconv.Itoa(ef))
			b.ReportMetric(r.Recall, "recall@10-ef"+strconv.Itoa(ef))
			ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
			b.Logf("n=%d dim=%d m=%d ef_construction=%d ef_search=%d: ingest %v (CPU client %v, server %v), seal (HNSW build) %v (CPU client %v, server %v), %d searches %v (CPU client %v, server %v), recall@10 %.4f; %s",
				n, dim, m, efc, ef, ms(r.Ingest), ms(r.IngestCPU), ms(r.IngestServerCPU), ms(r.Seal), ms(r.SealCPU), ms(r.SealServerCPU),
				nq, ms(r.Search), ms(r.SearchCPU), ms(r.SearchServerCPU), r.Recall, strings.TrimSpace(loadavg()))
		}
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

// procCPU returns the user + system CPU time of process pid (Linux, 100
// clock ticks a second), or 0 when pid is 0 or unknown.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return "loadavg " + string(b)
}

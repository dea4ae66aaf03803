package weaviate_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/weaviatetest"
	"github.com/lasagna-go/lasagna/retrieval/vector"
	"github.com/lasagna-go/lasagna/retrieval/weaviate"
)

// BenchmarkWeaviate ingests LASAGNA_BENCH_DOCS (default 50,000) corpusgen
// passages with their fixtures.HashEmbedding vectors (64-d) into a Weaviate
// class with the default HNSW parameters, then runs 1,000 nearVector
// queries one at a time. It reports the ingest rate, the query rate, the
// recall@10 against the exact index over those queries, and the CPU time
// of the server and of the client (this process) beside the wall time.
// Run it once: go test -run '^$' -bench Weaviate -benchtime 1x ./retrieval/weaviate
func BenchmarkWeaviate(b *testing.B) {
	n := 50_000
	if v, err := strconv.Atoi(os.Getenv("LASAGNA_BENCH_DOCS")); err == nil && v > 0 {
		n = v
	}
	const nq = 1000
	srv := weaviatetest.Shared(b)
	ctx := context.Background()
	docs, queries := corpusgen.Zipf(n, nq)
	dim := fixtures.DefaultEmbeddingDim
	vecs := hashVectors(docs, dim)
	qvecs := make([][]float32, nq)
	for i, q := range queries {
		qvecs[i] = fixtures.HashEmbedding(q, dim)
	}
	exact, _ := vector.New(vector.Cosine)
	ids := make([]string, n)
	for i, d := range docs {
		ids[i] = d.ID
	}
	if err := exact.Add(ctx, ids, vecs); err != nil {
		b.Fatal(err)
	}
	index := vector.HNSW{M: envInt("LASAGNA_BENCH_M"), EfConstruction: envInt("LASAGNA_BENCH_EFC")}
	s, err := weaviate.Open(ctx, weaviate.Config{URL: srv.URL, Index: index})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s, %d docs × %d-d, %d queries", s.Describe(), n, dim, nq)
	var round int
	var store *weaviate.Store
	var coll vector.Collection
	b.Run("ingest", func(b *testing.B) {
		for b.Loop() {
			round++
			c := vector.Collection{Name: fmt.Sprintf("lasagna_bench_%d_%d_%d", n, time.Now().UnixNano(), round), Embedder: "hash-64"}
			if _, err := s.Open(ctx, c); err != nil {
				b.Fatal(err)
			}
			cpu, scpu, start := cputime.Used(), srv.CPU(), time.Now()
			for i := 0; i < n; i += 1000 {
				j := min(i+1000, n)
				if err := s.AddDocuments(ctx, docs[i:j], vecs[i:j]); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(start)
			b.ReportMetric(float64(n)/wall.Seconds(), "docs/s")
			b.ReportMetric((srv.CPU() - scpu).Seconds(), "server-cpu-s")
			b.ReportMetric((cputime.Used() - cpu).Seconds(), "client-cpu-s")
			store, coll = s, c
		}
	})
	if store == nil {
		return
	}
	efs := []int{0}
	for _, f := range strings.Split(os.Getenv("LASAGNA_BENCH_EF"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			if efs[0] == 0 {
				efs = efs[:0]
			}
			efs = append(efs, n)
		}
	}
	for _, ef := range efs {
		if ef > 0 {
			// The same class, searched with another ef (Open updates it).
			ix := index
			ix.EfSearch = ef
			var err error
			store, err = weaviate.Open(ctx, weaviate.Config{URL: srv.URL, Index: ix})
			if err == nil {
				_, err = store.Open(ctx, coll)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		benchSearch(b, store, srv, exact, qvecs)
	}
}

func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

func benchSearch(b *testing.B, store *weaviate.Store, srv *weaviatetest.Server, exact *vector.Index, qvecs [][]float32) {
	ctx := context.Background()
	nq := len(qvecs)
	b.Run("search/"+strings.Fields(store.Describe().Index)[3], func(b *testing.B) {
		cpu, scpu, q := cputime.Used(), srv.CPU(), 0
		for b.Loop() {
			for _, qv := range qvecs {
				if _, err := store.Search(ctx, qv, 10); err != nil {
					b.Fatal(err)
				}
				q++
			}
		}
		b.ReportMetric(float64(q)/b.Elapsed().Seconds(), "queries/s")
		b.ReportMetric(float64((srv.CPU()-scpu).Microseconds())/float64(q), "server-cpu-µs/query")
		b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(q), "client-cpu-µs/query")
		// Recall, after the timing: the exact index's top 10 (and the
		// scores of its top 1000, for ties) against the engine's.
		var sum float64
		for _, qv := range qvecs {
			got, err := store.Search(ctx, qv, 10)
			if err != nil {
				b.Fatal(err)
			}
			want, _ := exact.Search(ctx, qv, 10)
			all, _ := exact.Search(ctx, qv, 1000)
			score := make(map[string]float64, len(all))
			for _, h := range all {
				score[h.ID] = h.Score
			}
			sum += recallAt10(want, got, score)
		}
		b.ReportMetric(sum/float64(nq), "recall@10")
	})
}

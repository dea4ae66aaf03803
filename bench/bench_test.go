package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

const (
	defaultPassages = 100_000
	nQueries        = 2_000
	topK            = 100
)

// passages is the corpus size of BenchmarkBM25: 100,000, or
// LASAGNA_BENCH_PASSAGES when set (the harness test runs a small corpus).
func passages(b *testing.B) int {
	v := os.Getenv("LASAGNA_BENCH_PASSAGES")
	if v == "" {
		return defaultPassages
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("LASAGNA_BENCH_PASSAGES=%q: want a positive whole number", v)
	}
	return n
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cputime.Used()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkBM25 builds both indexes over the same 100,000 generated passages
// (index/*), then runs the same single-threaded top-100 queries on each
// (search/*). Our index uses bleve's k1 1.2 and b 0.75 and the same analysis,
// so both do the same work. With -count N every phase runs N times, each
// bleve build in its own new folder; a phase that fails stops the benchmark
// with an error rather than letting the search phases vanish.
func BenchmarkBM25(b *testing.B) {
	docs, queries := Generate(passages(b), nQueries)
	opts := bm25.DefaultOptions()
	opts.K1, opts.B = 1.2, 0.75

	var ours *bm25.Index
	okOurs := b.Run("index/lasagna", func(b *testing.B) {
		b.ReportAllocs()
		var before, after runtime.MemStats
		cpu := cputime.Used()
		for b.Loop() {
			ours = nil
			runtime.GC()
			runtime.ReadMemStats(&before)
			var err error
			if ours, err = bm25.Build(docs, opts); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "index-MiB")
		b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	})

	tmp, err := os.MkdirTemp("", "lasagna-bench-bleve-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	var theirs bleve.Index
	okTheirs := b.Run("index/bleve", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cputime.Used()
		for b.Loop() {
			if theirs != nil {
				theirs.Close()
				theirs = nil
			}
			// A new folder for every build: -count and b.Loop both run
			// this body more than once.
			dir, err := os.MkdirTemp(tmp, "idx-")
			if err != nil {
				b.Fatal(err)
			}
			if os.Getenv("LASAGNA_BENCH_BREAK_BLEVE") != "" { // harness_test.go
				b.Fatal("LASAGNA_BENCH_BREAK_BLEVE is set: the bleve build fails on purpose")
			}
			if theirs, err = BuildBleve(filepath.Join(dir, "idx"), docs); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	})
	if !okOurs || !okTheirs {
		b.Fatal("an index phase failed, so search/lasagna and search/bleve cannot run")
	}
	if ours == nil || theirs == nil {
		b.Skip("search/* need both indexes, and the -bench filter skipped an index phase")
	}
	defer theirs.Close()

	// Sanity check: the two engines should mostly agree on the top 10.
	same, total := 0, 0
	for _, q := range queries[:200] {
		ids, err := SearchBleve(theirs, q, 10)
		if err != nil {
			b.Fatal(err)
		}
		set := map[string]bool{}
		for _, id := range ids {
			set[id] = true
		}
		for _, h := range ours.Search(q, 10) {
			if set[h.ID] {
				same++
			}
		}
		total += len(ids)
	}
	b.Logf("top-10 overlap with bleve over 200 queries: %d of %d ids (%.1f%%)", same, total, 100*float64(same)/float64(max(total, 1)))

	b.Run("search/lasagna", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		cpu := cputime.Used()
		for b.Loop() {
			ours.Search(queries[i%len(queries)], topK)
			i++
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	})
	b.Run("search/bleve", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		cpu := cputime.Used()
		for b.Loop() {
			if _, err := SearchBleve(theirs, queries[i%len(queries)], topK); err != nil {
				b.Fatal(err)
			}
			i++
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	})
}

// TestBleveScoresBM25 checks that the bleve side really scores with BM25 on
// a scorch index: bleve's explanation of a hit names BM25's saturation term.
func TestBleveScoresBM25(t *testing.T) {
	docs, _ := Generate(200, 0)
	ix, err := BuildBleve(filepath.Join(t.TempDir(), "idx"), docs)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	q := bleve.NewMatchQuery("the kari")
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, 5, 0, true)
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hit")
	}
	if got := res.Hits[0].Expl.String(); !strings.Contains(got, "saturation") {
		t.Errorf("bleve explanation does not show BM25 scoring:\n%s", got)
	}
}

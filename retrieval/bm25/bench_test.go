package bm25

import (
	"testing"

	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/cputime"
)

// BenchmarkIndex builds an index over 20,000 generated passages.
func BenchmarkIndex(b *testing.B) {
	docs, _ := corpusgen.Zipf(20_000, 0)
	b.ReportAllocs()
	cpu := cputime.Used()
	for b.Loop() {
		if _, err := Build(docs, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkSearch runs single-threaded top-100 queries against an index of
// 20,000 generated passages.
func BenchmarkSearch(b *testing.B) {
	docs, queries := corpusgen.Zipf(20_000, 1000)
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	cpu := cputime.Used()
	for b.Loop() {
		ix.Search(queries[i%len(queries)], 100)
		i++
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

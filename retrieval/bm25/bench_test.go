package bm25

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
)

// zipfCorpus makes a deterministic corpus of n passages of 40–119 words drawn
// from a Zipfian vocabulary (s = 1.1) of 100,000 words whose most frequent
// ranks are English function words, and nq queries of 2–6 words, each taken
// from a random passage (as a question about that passage would be).
func zipfCorpus(n, nq int) ([]lasagna.Document, []string) {
	r := rand.New(rand.NewPCG(2026, 5))
	vocab := append([]string{}, strings.Fields("the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will can more other into")...)
	syll := strings.Fields("ka ri to me sa lo vi nu pe da ron tel mis gar en ing ed er tion al ly ous con pre")
	seen := map[string]bool{}
	for _, w := range vocab {
		seen[w] = true
	}
	for len(vocab) < 100_000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	z := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	docs := make([]lasagna.Document, n)
	words := make([]string, 0, 120)
	for i := range docs {
		words = words[:0]
		for range 40 + r.IntN(80) {
			words = append(words, vocab[z.Uint64()])
		}
		docs[i] = lasagna.Document{ID: fmt.Sprintf("p%06d", i), Text: strings.Join(words, " ")}
	}
	queries := make([]string, nq)
	for i := range queries {
		ws := strings.Fields(docs[r.IntN(n)].Text)
		q := make([]string, 2+r.IntN(5))
		for j := range q {
			q[j] = ws[r.IntN(len(ws))]
		}
		queries[i] = strings.Join(q, " ")
	}
	return docs, queries
}

// cpuTime returns the CPU time (user + system) the process has used. The
// benchmarks report CPU time per operation beside wall time, since the
// machine they run on may be shared.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndex builds an index over 20,000 generated passages.
func BenchmarkIndex(b *testing.B) {
	docs, _ := zipfCorpus(20_000, 0)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := Build(docs, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkSearch runs single-threaded top-100 queries against an index of
// 20,000 generated passages.
func BenchmarkSearch(b *testing.B) {
	docs, queries := zipfCorpus(20_000, 1000)
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		ix.Search(queries[i%len(queries)], 100)
		i++
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

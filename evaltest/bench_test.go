package evaltest

import (
	"context"
	"fmt"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/cputime"
)

// BenchmarkRunOverhead measures evaltest's own cost per query — subtest,
// dispatch, limiter, scoring, attrs and the bundle with its bootstrap
// intervals — with an instant pipeline on an in-memory benchmark of 1,000
// and of 10,000 queries, under the recording fake test (go test's own
// subtest machinery is not included). It reports queries per second of
// wall time and the CPU seconds (all threads) of one run.
func BenchmarkRunOverhead(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("queries=%d", n), func(b *testing.B) { runOverhead(b, n) })
	}
}

func runOverhead(b *testing.B, n int) {
	bench := &lasagna.Benchmark{Name: "local/synthetic@000000000000", Revision: "0", Qrels: lasagna.Qrels{}}
	for i := range n {
		id := fmt.Sprintf("q%05d", i)
		doc := fmt.Sprintf("d%05d", i)
		bench.Queries = append(bench.Queries, lasagna.Query{ID: id, Text: "question " + id})
		bench.Corpus = append(bench.Corpus, lasagna.Document{ID: doc, Text: "passage " + doc})
		bench.Qrels.Add(id, doc, 1)
	}
	bench.Provenance = lasagna.ProvenanceNative
	arm := Arm{Name: "instant", TopK: 10, Retriever: lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return []lasagna.Hit{{ID: "d" + q.ID[1:], Score: 1}}, nil
	})}
	cfg := Config{Data: []*lasagna.Benchmark{bench}, Arms: []Arm{arm}, Cutoffs: []int{10}}
	vars := env(map[string]string{EnvOut: b.TempDir()})
	b.ReportAllocs()
	cpu := cputime.Used()
	for b.Loop() {
		if _, failed := fakeRun("TestRAG", "", func(ft tb) { run(ft, cfg, vars, false) }); failed {
			b.Fatal("run failed")
		}
	}
	used := cputime.Used() - cpu
	b.ReportMetric(float64(b.N*len(bench.Queries))/b.Elapsed().Seconds(), "queries/s")
	b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
}

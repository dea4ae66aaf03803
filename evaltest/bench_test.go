package evaltest

import (
	"context"
	"fmt"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// BenchmarkRunOverhead measures evaltest's own cost per query — subtest,
// dispatch, limiter, scoring, attrs and the bundle — with an instant
// pipeline on a 1,000-query in-memory benchmark, under the recording fake
// test (go test's own subtest machinery is not included).
func BenchmarkRunOverhead(b *testing.B) {
	bench := &lasagna.Benchmark{Name: "local/synthetic@000000000000", Revision: "0", Qrels: lasagna.Qrels{}}
	for i := range 1000 {
		id := fmt.Sprintf("q%04d", i)
		doc := fmt.Sprintf("d%04d", i)
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
	for b.Loop() {
		if _, failed := fakeRun("TestRAG", "", func(ft tb) { run(ft, cfg, vars, false) }); failed {
			b.Fatal("run failed")
		}
	}
	b.ReportMetric(float64(b.N*len(bench.Queries))/b.Elapsed().Seconds(), "queries/s")
}

package engine

import (
	"context"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// TestCorpusIDsMadeAfterBuild checks that the corpus id set a cell checks
// hits against is made on the first lookup, after the arm's index is built
// (so that it is never in memory beside a build's analysis), and that it
// still finds an id outside the corpus.
func TestCorpusIDsMadeAfterBuild(t *testing.T) {
	br := tinyBench(t)
	ids := corpusIDs(br.Benchmark)
	built := false
	arm := Arm{Name: "a", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		if ids.ids != nil {
			t.Error("the corpus id set was made before the retriever was built")
		}
		built = true
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			return []lasagna.Hit{{ID: b.Corpus[0].ID, Score: 2}, {ID: "not-in-corpus", Score: 1}}, nil
		}), nil
	}}
	cell := &Cell{Bench: br, Arm: &arm}
	queries := (Shard{}).Select(br.Benchmark)
	runs, err := startRepeats(t.Context(), cell, queries, ids, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range queries {
		runs[0].run(t.Context(), i)
	}
	if err := runs[0].Close(); err != nil {
		t.Fatal(err)
	}
	mergeRuns(cell, runs)
	if !built || len(ids.ids) != len(br.Benchmark.Corpus) {
		t.Fatalf("built %v; id set of %d ids, want %d", built, len(ids.ids), len(br.Benchmark.Corpus))
	}
	for _, q := range cell.Queries {
		if q.Unknown != "not-in-corpus" {
			t.Errorf("%s: Unknown = %q, want not-in-corpus", q.Query.ID, q.Unknown)
		}
	}
}

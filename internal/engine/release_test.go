package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// TestReleaseTexts checks Options.ReleaseTexts: a run of built-in BM25 arms
// alone clears the corpus texts (keeping the ids) and ranks exactly as a
// run that keeps them; a run with an arm that may read texts keeps them.
func TestReleaseTexts(t *testing.T) {
	bm25Arm := func(name string) Arm {
		arm, err := BuiltinArm(ArmSpec{Name: name, Retriever: RetrieverBM25}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return arm
	}
	hits := func(rep *Report) [][]lasagna.Hit {
		var out [][]lasagna.Hit
		for _, c := range rep.Cells {
			for _, r := range c.Queries {
				out = append(out, r.Output.Hits)
			}
		}
		return out
	}
	texts := func(b *lasagna.Benchmark) (n int) {
		for _, d := range b.Corpus {
			if d.ID == "" {
				t.Fatalf("a document lost its id: %+v", d)
			}
			if d.Text != "" || d.Title != "" {
				n++
			}
		}
		return n
	}

	kept := tinyBench(t)
	all := texts(kept.Benchmark)
	want, err := Run(t.Context(), []*BenchmarkRun{kept}, []Arm{bm25Arm("a"), bm25Arm("b")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := texts(kept.Benchmark); all == 0 || n != all {
		t.Fatalf("without ReleaseTexts, %d of %d documents keep their texts", n, all)
	}

	released := tinyBench(t)
	got, err := Run(t.Context(), []*BenchmarkRun{released}, []Arm{bm25Arm("a"), bm25Arm("b")}, Options{ReleaseTexts: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := texts(released.Benchmark); n != 0 {
		t.Errorf("with ReleaseTexts and BM25 arms alone, %d documents keep their texts", n)
	}
	if g, w := hits(got), hits(want); !slices.EqualFunc(g, w, slices.Equal) {
		t.Errorf("hits with ReleaseTexts = %v, without %v", g, w)
	}

	// An arm the engine does not know may read the texts.
	mixed := tinyBench(t)
	own := bm25Arm("own")
	build := own.Retriever
	own.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) { return build(ctx, b) }
	own.bm25Only = false
	if _, err := Run(t.Context(), []*BenchmarkRun{mixed}, []Arm{own, bm25Arm("b")}, Options{ReleaseTexts: true}); err != nil {
		t.Fatal(err)
	}
	if n := texts(mixed.Benchmark); n != all {
		t.Errorf("with an arm of its own, %d of %d documents keep their texts", n, all)
	}
}

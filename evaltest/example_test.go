package evaltest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
)

// search stands for the user's own retrieval system: here, a word-overlap
// ranking of the benchmark's corpus.
func search(b *lasagna.Benchmark) lasagna.Retriever {
	return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		var hits []lasagna.Hit
		words := strings.Fields(strings.ToLower(q.Text))
		for _, d := range b.Corpus {
			score := 0.0
			for _, w := range words {
				if len(w) > 3 && strings.Contains(strings.ToLower(d.Text), w) {
					score++
				}
			}
			if score > 0 {
				hits = append(hits, lasagna.Hit{ID: d.ID, Score: score})
			}
		}
		lasagnaSort(hits)
		return hits[:min(k, len(hits))], nil
	})
}

// lasagnaSort orders hits by score, best first (stable, so ties keep
// corpus order).
func lasagnaSort(hits []lasagna.Hit) {
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].Score > hits[j-1].Score; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
}

// TestQuickStart is the package documentation's quick start, run for real:
// the user's retriever beside the BM25 baseline on a tiny shipped dataset.
func TestQuickStart(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		FS:         fixtures.Data, // or leave FS nil and name files beside the test
		Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{
			{Name: "mine", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return search(b), nil
			}, Thresholds: []evaltest.Threshold{
				evaltest.AtLeast("ndcg@10", 0.6),
				evaltest.PerQuery(evaltest.AtLeast("recall@10", 1)),
			}},
			evaltest.BM25(),
		},
	})
}

func Example_thresholds() {
	for _, th := range []evaltest.Threshold{
		evaltest.AtLeast("ndcg@10", 0.6),
		evaltest.AtMost("latency_ms", 250),
		evaltest.PerQuery(evaltest.AtLeast("recall@10", 1)),
	} {
		fmt.Println(th)
	}
	fmt.Println(evaltest.AtLeast("ndcg@10", 0.6).Met(0.59), evaltest.AtMost("latency_ms", 250).Met(250))
	fmt.Println(evaltest.All(), "|", evaltest.Majority(), "|", evaltest.RateAtLeast(0.8))
	// Output:
	// ndcg@10 >= 0.6
	// latency_ms <= 250
	// recall@10 >= 1 per query
	// false true
	// all | majority | rate >= 0.8
}

// ExampleRepeat shows a sampled pipeline passing the repeat index on, so
// each repeat is a fresh LLM call rather than a cached replay.
func ExampleRepeat() {
	arm := evaltest.Arm{
		Name:    "llm-answers",
		Samples: true, // Config.Repeats applies
		Generator: lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
			return lasagna.Answer{Text: fmt.Sprintf("answer %d", evaltest.Repeat(ctx))}, nil
		}),
	}
	a, _ := arm.Generator.Generate(context.Background(), lasagna.Query{}, nil)
	fmt.Println(a.Text)
	// Output:
	// answer 0
}

// ExampleEvaluation_Metric reads an arm's aggregate and its per-query
// values from an evaluation, for assertions in any framework; a misspelt
// name is an error with a "did you mean", never a 0.
func ExampleEvaluation_Metric() {
	ev, err := evaltest.Evaluate(context.Background(), "TestRAG", evaltest.Config{
		FS:         fixtures.Data,
		Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{{Name: "mine", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			return fixtures.Missing(b, fixtures.Perfect(b), "q02"), nil
		}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	recall, err := ev.Metric("mine", "recall@10")
	fmt.Printf("recall@10 = %.4f %v\n", recall, err)
	per, _ := ev.QueryValues("mine", "recall@10")
	fmt.Println("q01:", per["q01"], "q02:", per["q02"])
	_, err = ev.Metric("mine", "recal@10")
	fmt.Println(strings.Split(err.Error(), ";")[0])
	// Output:
	// recall@10 = 0.9167 <nil>
	// q01: 1 q02: 0
	// arm mine on local/tiny@abfc4c070c3b has no metric "recal@10" (did you mean "recall@10"?)
}

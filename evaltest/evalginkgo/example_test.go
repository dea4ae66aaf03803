package evalginkgo_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalginkgo"
	"github.com/lasagna-go/lasagna/fixtures"
)

// ExampleQueries lists the queries Entries turns into table entries, with
// each query's test outcome and its nDCG@10 from the bundle.
func ExampleQueries() {
	ev, err := evaltest.Evaluate(context.Background(), "example", evaltest.Config{
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
	qs, err := evalginkgo.Queries(ev, "mine")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range qs[:3] {
		fmt.Printf("%s failed=%v ndcg@10=%v\n", q, q.Test.Failed, q.Sample.Scores["ndcg@10"])
	}
	// Output:
	// tiny/mine/q01 failed=false ndcg@10=1
	// tiny/mine/q02 failed=false ndcg@10=0
	// tiny/mine/q03 failed=false ndcg@10=1
}

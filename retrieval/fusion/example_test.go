package fusion_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/fusion"
)

func Example() {
	lexical := lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return []lasagna.Hit{{ID: "a", Score: 12}, {ID: "b", Score: 9}, {ID: "c", Score: 4}}, nil
	})
	dense := lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return []lasagna.Hit{{ID: "c", Score: 0.91}, {ID: "a", Score: 0.88}, {ID: "d", Score: 0.52}}, nil
	})
	hybrid := fusion.RRF(60, lexical, dense)
	hits, _ := hybrid.Retrieve(context.Background(), lasagna.Query{Text: "solidus"}, 3)
	for _, h := range hits {
		fmt.Printf("%s %.5f\n", h.ID, h.Score)
	}
	// Output:
	// a 0.03252
	// c 0.03227
	// b 0.01613
}

package vector_test

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/retrieval/vector"
)

func Example() {
	ctx := context.Background()
	ix, err := vector.New(vector.Cosine)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = ix.Add(ctx, []string{"east", "north", "northeast"},
		[][]float32{{1, 0}, {0, 1}, {1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, _ := ix.Search(ctx, []float32{2, 0.5}, 2)
	for _, h := range hits {
		fmt.Printf("%s %.3f\n", h.ID, h.Score)
	}
	_, err = ix.Search(ctx, []float32{1, 2, 3}, 2)
	fmt.Println(err)
	// Output:
	// east 0.970
	// northeast 0.857
	// vector: the query vector has 3 dimensions, want 2 (the index's dimension, set by its first vector); embed every text with the same model
}

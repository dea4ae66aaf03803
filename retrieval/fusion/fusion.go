package fusion

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/lasagna-go/lasagna"
)

// DefaultK is the RRF constant k of Cormack et al. (2009).
const DefaultK = 60

// Fuse returns the reciprocal-rank fusion of lists with constant k (k ≤ 0
// means DefaultK): every document of any list once, best fused score first,
// ties by descending id (trec_eval's order). Hit scores of the inputs are ignored; only ranks
// count. Fuse returns nil when no list holds a hit.
func Fuse(k int, lists ...[]lasagna.Hit) []lasagna.Hit {
	if k <= 0 {
		k = DefaultK
	}
	score := map[string]float64{}
	var order []string
	for _, list := range lists {
		seen := make(map[string]bool, len(list))
		for r, h := range list {
			if seen[h.ID] {
				continue
			}
			seen[h.ID] = true
			if _, ok := score[h.ID]; !ok {
				order = append(order, h.ID)
			}
			score[h.ID] += 1 / float64(k+r+1)
		}
	}
	if len(order) == 0 {
		return nil
	}
	hits := make([]lasagna.Hit, len(order))
	for i, id := range order {
		hits[i] = lasagna.Hit{ID: id, Score: score[id]}
	}
	slices.SortFunc(hits, func(a, b lasagna.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return hits
}

// Retriever fuses the ranked lists of several retrievers by RRF. Each input
// is asked for Depth hits (0 means the k of the call), the inputs run
// concurrently, and the fused list is cut to k. A Retriever with no input
// returns no hit.
type Retriever struct {
	// K is the RRF constant; 0 means DefaultK (60).
	K int
	// Depth is how many hits each input retriever is asked for; 0 means
	// the k the fused retriever is asked for.
	Depth int
	// Inputs are the retrievers whose lists are fused.
	Inputs []lasagna.Retriever
}

var _ lasagna.Retriever = (*Retriever)(nil)

// RRF returns a retriever fusing retrievers with constant k (0 means
// DefaultK), asking each for as many hits as it is asked for.
func RRF(k int, retrievers ...lasagna.Retriever) lasagna.Retriever {
	return &Retriever{K: k, Inputs: retrievers}
}

// Retrieve runs every input retriever for q and returns the fusion of their
// lists, cut to k (none when k ≤ 0). When an input fails, Retrieve fails
// with the error of the first failing input in order, naming its position;
// it never returns a partial fusion.
func (f *Retriever) Retrieve(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
	if k <= 0 || len(f.Inputs) == 0 {
		return nil, ctx.Err()
	}
	depth := f.Depth
	if depth <= 0 {
		depth = k
	}
	lists := make([][]lasagna.Hit, len(f.Inputs))
	errs := make([]error, len(f.Inputs))
	var wg sync.WaitGroup
	for i, r := range f.Inputs {
		wg.Go(func() { lists[i], errs[i] = r.Retrieve(ctx, q, depth) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("fusion: retriever %d of %d: %w", i+1, len(f.Inputs), err)
		}
	}
	hits := Fuse(f.K, lists...)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

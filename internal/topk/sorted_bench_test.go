package topk

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSorted sorts a full heap of 1,000 random keys, as BM25 does
// for each query at depth 1,000.
func BenchmarkSorted(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	h := New(1000, make([]Entry[uint64, uint8, uint32], 0, 1000))
	for i := range 20000 {
		if k := r.Uint64(); !h.Full() || k > h.Worst().Score {
			h.Offer(k, 0, uint32(i))
		}
	}
	heap := h.items
	items := make([]Entry[uint64, uint8, uint32], len(heap))
	for b.Loop() {
		copy(items, heap)
		s := Heap[uint64, uint8, uint32]{items: items, k: 1000}
		s.Sorted()
	}
}

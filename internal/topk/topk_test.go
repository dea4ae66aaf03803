package topk

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHeapKeepsTheKBestInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n, k := r.IntN(60), 1+r.IntN(20)
		all := make([]Entry[float32, uint32, int], n)
		for i := range all {
			// Few distinct scores, so that ties on the score are common;
			// tie keys are distinct.
			all[i] = Entry[float32, uint32, int]{float32(r.IntN(5)), r.Uint32N(1000)*1000 + uint32(i), i}
		}
		h := New(k, make([]Entry[float32, uint32, int], 0, 3))
		for _, e := range all {
			if h.Full() && e.Score < h.Worst().Score {
				continue // the callers' shortcut must not change the result
			}
			h.Offer(e.Score, e.Tie, e.Value)
		}
		if h.Len() != min(n, k) {
			t.Fatalf("trial %d: Len = %d, want %d", trial, h.Len(), min(n, k))
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b Entry[float32, uint32, int]) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(b.Tie, a.Tie)
		})
		want = want[:min(n, k)]
		if got := h.Sorted(); !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, k %d):\n got %v\nwant %v", trial, n, k, got, want)
		}
	}
}

func TestHeapStringTies(t *testing.T) {
	h := New(2, []Entry[float32, string, struct{}](nil))
	for _, id := range []string{"a", "c", "b"} {
		h.Offer(1, id, struct{}{})
	}
	got := h.Sorted()
	if len(got) != 2 || got[0].Tie != "c" || got[1].Tie != "b" {
		t.Fatalf("Sorted = %v, want c then b (equal scores by descending id)", got)
	}
}

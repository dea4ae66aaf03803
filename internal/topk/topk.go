// Package topk keeps the k best of a stream of scored values in a bounded
// binary min-heap, for the retrievers' top-k searches.
package topk

import "cmp"

// Entry is a value with its score and tie key. Entries are ranked by score,
// higher first, and equal scores by tie key, higher first (the retrievers'
// tie key is the document id or its byte-wise rank, giving trec_eval's
// descending-id order).
type Entry[S, K cmp.Ordered, V any] struct {
	Score S
	Tie   K
	Value V
}

// better reports whether a ranks before b. It is a comparison of ordered
// type parameters, not a function value, so that it compiles to plain
// comparisons in each instantiation; a func-valued comparator made BM25's
// search about 15% slower.
func better[S, K cmp.Ordered, V any](a, b Entry[S, K, V]) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.Tie > b.Tie)
}

// Heap holds at most k entries, the best offered so far. The worst entry
// kept is at the root, so that an entry no better than it is turned away in
// one comparison. When no two entries tie on both score and tie key, the
// entries kept and their sorted order do not depend on the order they are
// offered in.
type Heap[S, K cmp.Ordered, V any] struct {
	items []Entry[S, K, V]
	k     int
}

// New returns an empty heap for the k ≥ 1 best entries, storing them in
// buf's backing array (buf[:0]) while it has room, so that a caller can
// reuse one buffer across searches.
func New[S, K cmp.Ordered, V any](k int, buf []Entry[S, K, V]) Heap[S, K, V] {
	return Heap[S, K, V]{items: buf[:0], k: k}
}

// Len returns the number of entries kept.
func (h *Heap[S, K, V]) Len() int { return len(h.items) }

// Full reports whether the heap holds k entries, so that a new entry is kept
// only when it ranks before Worst.
func (h *Heap[S, K, V]) Full() bool { return len(h.items) >= h.k }

// Worst returns the worst entry kept; the heap must not be empty.
func (h *Heap[S, K, V]) Worst() Entry[S, K, V] { return h.items[0] }

// Offer keeps the entry {score, tie, v} when the heap is not full or the
// entry ranks before the worst entry kept, which it then replaces.
func (h *Heap[S, K, V]) Offer(score S, tie K, v V) {
	e := Entry[S, K, V]{score, tie, v}
	items := h.items
	if len(items) < h.k {
		items = append(items, e)
		for j := len(items) - 1; j > 0; { // sift up
			p := (j - 1) / 2
			if !better(items[p], items[j]) {
				break
			}
			items[p], items[j] = items[j], items[p]
			j = p
		}
		h.items = items
		return
	}
	if !better(e, items[0]) {
		return
	}
	items[0] = e
	siftDown(items)
}

// siftDown restores the heap order of items after its first entry changed.
func siftDown[S, K cmp.Ordered, V any](items []Entry[S, K, V]) {
	for j := 0; ; {
		l := 2*j + 1
		if l >= len(items) {
			break
		}
		m := l
		if r := l + 1; r < len(items) && better(items[l], items[r]) {
			m = r
		}
		if !better(items[j], items[m]) {
			break
		}
		items[j], items[m] = items[m], items[j]
		j = m
	}
}

// Sorted sorts the entries kept best first and returns them; the result
// shares the heap's storage, so the heap must not be offered more entries
// afterwards.
//
// It is a heapsort: the worst entry, at the top of the heap, goes to the
// end in turn. Entries that compare equal (same score and tie key) may
// come in any order, as with any sort that is not stable.
func (h *Heap[S, K, V]) Sorted() []Entry[S, K, V] {
	items := h.items
	for n := len(items) - 1; n > 0; n-- {
		items[0], items[n] = items[n], items[0]
		siftDown(items[:n])
	}
	return items
}

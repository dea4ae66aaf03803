package trecparse

import (
	"math"
	"slices"
	"strings"
)

// ranker sorts hits into trec_eval's order (compareTREC) with scratch
// buffers reused from query to query. Lists close to that order (as
// retrieval systems write them) take an insertion sort; others, such as a
// query's lines gathered from a shuffled run, a radix sort on the scores
// (eight bits at a time, least significant first, skipping the bytes all
// scores share), after which each stretch of equal scores is put in
// descending id order.
type ranker struct {
	keys, tmpKeys []rankKey
	hits          []Hit
}

type rankKey struct {
	k uint64 // ascending k is descending score
	i int32
}

// scoreKey maps scores to words whose ascending order is the scores'
// descending order; equal scores (0 and -0 included) get equal words.
func scoreKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b == 1<<63 { // -0 ranks as 0
		b = 0
	}
	if b>>63 != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return ^b
}

// sort sorts l into trec_eval's order.
func (r *ranker) sort(l []Hit) {
	if nearlyRanked(l) && insertionRanked(l) {
		return
	}
	r.radix(l)
}

// nearlyRanked reports whether l's first 32 hits are at most four times
// out of trec_eval's order: a list in no order (a query's lines gathered
// from a shuffled run) goes straight to the radix sort.
func nearlyRanked(l []Hit) bool {
	out := 0
	for i := 1; i < min(len(l), 33); i++ {
		if a, b := &l[i-1], &l[i]; a.Score < b.Score || a.Score == b.Score && b.ID > a.ID {
			out++
		}
	}
	return out <= 4
}

// insertionRanked sorts l by insertion while that does at most about two
// moves a hit; it reports false, leaving l in some order, when it gives
// up.
func insertionRanked(l []Hit) bool {
	moves := 0
	for i := 1; i < len(l); i++ {
		// compareTREC(l[i-1], l[i]) <= 0, without a call.
		if a, b := &l[i-1], &l[i]; a.Score > b.Score || a.Score == b.Score && b.ID <= a.ID {
			continue
		}
		x := l[i]
		j := i
		for j > 0 && compareTREC(l[j-1], x) > 0 {
			l[j] = l[j-1]
			j--
			moves++
		}
		l[j] = x
		if moves > 2*len(l)+16 {
			return false
		}
	}
	return true
}

// radix sorts l by score with a least-significant-digit radix sort, then
// each run of equal scores by id descending.
func (r *ranker) radix(l []Hit) {
	n := len(l)
	if cap(r.keys) < n {
		r.keys = make([]rankKey, n)
		r.tmpKeys = make([]rankKey, n)
		r.hits = make([]Hit, n)
	}
	keys, tmp := r.keys[:n], r.tmpKeys[:n]
	var counts [8][256]int32
	for i := range l {
		k := scoreKey(l[i].Score)
		keys[i] = rankKey{k, int32(i)}
		for d := range 8 {
			counts[d][byte(k>>(8*d))]++
		}
	}
	for d := range 8 {
		c := &counts[d]
		if c[byte(keys[0].k>>(8*d))] == int32(n) {
			continue // every key has this byte
		}
		var sum int32
		for b := range c {
			sum, c[b] = sum+c[b], sum
		}
		sh := uint(8 * d)
		for _, k := range keys {
			b := byte(k.k >> sh)
			tmp[c[b]] = k
			c[b]++
		}
		keys, tmp = tmp, keys
	}
	out := r.hits[:n]
	for i, k := range keys {
		out[i] = l[k.i]
	}
	copy(l, out)
	// Equal scores: id descending.
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j].k == keys[i].k {
			j++
		}
		if j-i > 1 {
			tie := l[i:j]
			if len(tie) <= 12 {
				for a := 1; a < len(tie); a++ {
					for b := a; b > 0 && tie[b-1].ID < tie[b].ID; b-- {
						tie[b-1], tie[b] = tie[b], tie[b-1]
					}
				}
			} else {
				slices.SortFunc(tie, func(a, b Hit) int { return strings.Compare(b.ID, a.ID) })
			}
		}
		i = j
	}
}

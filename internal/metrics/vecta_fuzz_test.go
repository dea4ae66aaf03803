package metrics

import (
	"slices"
	"strings"
	"testing"
)

// FuzzScoreVecta checks the set metrics: scores in [0, 1], a retrieved set
// equal to the gold set scores 1, and the order of either list does not
// matter. Lists are given as comma-separated strings and page bytes.
func FuzzScoreVecta(f *testing.F) {
	f.Add("c1,c2,c3", "c2,c9", []byte{3, 4}, []byte{4}, "a.pdf,b.pdf", "a.pdf")
	f.Add("", "c1", []byte{}, []byte{}, "", "")
	f.Fuzz(func(t *testing.T, rc, gc string, rp, gp []byte, rs, gs string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		pages := func(b []byte) []int {
			out := make([]int, len(b))
			for i, x := range b {
				out[i] = int(x)
			}
			return out
		}
		ret := VectaRefs{split(rc), pages(rp), split(rs)}
		gold := VectaRefs{split(gc), pages(gp), split(gs)}
		s := ScoreVecta(ret, gold)
		for _, l := range []SetScore{s.Chunk, s.Page, s.Document} {
			for _, v := range []float64{l.Precision, l.Recall, l.F1} {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("score %v outside [0, 1]: %+v", v, s)
				}
			}
		}
		if s.Page.OK != (len(gp) > 0) {
			t.Fatalf("page OK = %v with %d gold pages", s.Page.OK, len(gp))
		}
		rev := VectaRefs{slices.Clone(ret.ChunkIDs), slices.Clone(ret.PageNums), slices.Clone(ret.SourcePaths)}
		slices.Reverse(rev.ChunkIDs)
		slices.Reverse(rev.PageNums)
		slices.Reverse(rev.SourcePaths)
		if r := ScoreVecta(rev, gold); r != s {
			t.Fatalf("order changes the score: %+v vs %+v", s, r)
		}
		p := ScoreVecta(gold, gold)
		for _, l := range []SetScore{p.Chunk, p.Page, p.Document} {
			if l.OK && (l.Precision != 1 || l.Recall != 1 || l.F1 != 1) {
				t.Fatalf("gold against itself scores %+v", p)
			}
		}
	})
}

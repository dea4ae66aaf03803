package bm25

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// tieDocs holds exact ties: z, m and a score the same for "words" (same
// text), b scores higher (tf 2), x scores lower (longer), q not at all;
// the ids are given out of order so that the rule, not the input order,
// decides.
var tieDocs = []lasagna.Document{
	{ID: "z", Text: "same words here"},
	{ID: "b", Text: "same words words here"},
	{ID: "m", Text: "same words here"},
	{ID: "x", Text: "same words here and a good many other terms too"},
	{ID: "a", Text: "same words here"},
	{ID: "q", Text: "other text"},
}

// trecEvalOrder returns the ids of hits in the order trec_eval ranks them
// in a run file: score descending, ties by id descending.
func trecEvalOrder(hits []lasagna.Hit) []string {
	hs := slices.Clone(hits)
	slices.SortStableFunc(hs, func(a, b lasagna.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return ids(hs)
}

func TestTiesAnserini(t *testing.T) {
	for _, norms := range []Norms{NormsExact, NormsLucene} {
		def := build(t, tieDocs, Options{Norms: norms})
		ans := build(t, tieDocs, Options{Norms: norms, Ties: "anserini"})
		dh, ah := def.Search("words", 10), ans.Search("words", 10)
		if got, want := ids(dh), []string{"b", "z", "m", "a", "x"}; !slices.Equal(got, want) {
			t.Fatalf("norms %q, default ties: %v, want %v", norms, got, want)
		}
		if dh[1].Score != dh[2].Score || dh[2].Score != dh[3].Score {
			t.Fatalf("norms %q: z, m, a do not tie exactly: %v", norms, dh)
		}
		if got, want := ids(ah), []string{"b", "a", "m", "z", "x"}; !slices.Equal(got, want) {
			t.Errorf("norms %q, anserini ties: %v, want %v (ties by ascending id)", norms, got, want)
		}
		// Scores: rounded to 4 decimals, each tie 1e-6 below the one above.
		round := func(s float64) float32 {
			return float32(float32(math.Floor(float64(float32(float32(s)*1e4))+0.5)) / 1e4)
		}
		tie := round(dh[1].Score)
		want := []float32{round(dh[0].Score), tie, tie - 1e-6, tie - 2e-6, round(dh[4].Score)}
		for i, h := range ah {
			if float32(h.Score) != want[i] {
				t.Errorf("norms %q: score of %s = %v, want %v", norms, h.ID, h.Score, want[i])
			}
			if i > 0 && !(h.Score < ah[i-1].Score) {
				t.Errorf("norms %q: score of %s (%v) is not below the one above (%v)", norms, h.ID, h.Score, ah[i-1].Score)
			}
		}
		// A run file of these hits ranks the same under trec_eval.
		if got := trecEvalOrder(ah); !slices.Equal(got, ids(ah)) {
			t.Errorf("norms %q: trec_eval would rank the anserini hits %v, not %v", norms, got, ids(ah))
		}
		// The cut keeps the smaller ids.
		if got := ids(ans.Search("words", 3)); !slices.Equal(got, []string{"b", "a", "m"}) {
			t.Errorf("norms %q: anserini ties cut at 3 = %v, want b a m", norms, got)
		}
		if got := ids(def.Search("words", 3)); !slices.Equal(got, []string{"b", "z", "m"}) {
			t.Errorf("norms %q: default ties cut at 3 = %v, want b z m", norms, got)
		}
		if ans.Options().Ties != "anserini" {
			t.Errorf("Options().Ties = %q", ans.Options().Ties)
		}
	}
}

// TestAnseriniScore checks the adjustment on hand-made lists: Anserini's
// own example (ScoreTiesAdjusterReranker's comment) and scores that differ
// but round to the same 4 decimals (a tie after rounding, kept in score
// order).
func TestAnseriniScore(t *testing.T) {
	for _, c := range []struct {
		in, want []float32
	}{
		{[]float32{23.439316, 22.087432, 22.087432, 21.602508}, []float32{23.4393, 22.0874, 22.0874 - 1e-6, 21.6025}},
		{[]float32{5.00004, 5.00001, 4.99996, 4.5}, []float32{5, 5 - 1e-6, 5 - 2e-6, 4.5}},
		{[]float32{3.00005, 3.00005, 3.00005, 2.99}, []float32{3.0001, 3.0001 - 1e-6, 3.0001 - 2e-6, 2.99}},
	} {
		var prev float32
		dup := 0
		for i, s := range c.in {
			var got float32
			got, dup = anseriniScore(s, prev, i == 0, dup)
			prev = got
			if got != c.want[i] {
				t.Errorf("%v: score %d = %v, want %v", c.in, i, got, c.want[i])
			}
		}
	}
}

func TestTiesOption(t *testing.T) {
	ix := build(t, tieDocs, Options{Ties: "trec_eval"})
	if got := ids(ix.Search("words", 10)); !slices.Equal(got, []string{"b", "z", "m", "a", "x"}) {
		t.Errorf(`Ties "trec_eval": %v, want the default order`, got)
	}
	if ix.Options().Ties != "" {
		t.Errorf(`Ties "trec_eval" resolves to %q, want ""`, ix.Options().Ties)
	}
	if _, err := Build(tieDocs, Options{Ties: "lucene"}); err == nil || !strings.Contains(err.Error(), `Ties = "lucene"`) {
		t.Errorf(`Ties "lucene": error %v`, err)
	}
}

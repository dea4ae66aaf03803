package metrics

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// FuzzEvaluateQuery checks invariants of the trec_eval measures on arbitrary
// rankings: every value is in [0, 1], counts are consistent, the result does
// not depend on the order of the input lines (only scores and ids rank), and
// the ideal ranking scores 1 on ndcg, ndcg_cut, map, Rprec and recip_rank.
func FuzzEvaluateQuery(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, uint8(1), uint64(1))
	f.Add([]byte{0, 0, 0, 0}, uint8(0), uint64(2))
	f.Add([]byte{255, 7, 7, 7, 128, 3}, uint8(2), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, level uint8, seed uint64) {
		if len(data) > 400 {
			data = data[:400]
		}
		opts := DefaultTrecOptions()
		opts.RelLevel = int(level%4) + 1
		opts.P = []int{1, 2, 3, 10}
		opts.NDCGCut = []int{1, 2, 3, 10}
		// Each byte pair is a document: grade (−1..3, or unjudged) and score.
		var run []Scored
		judged := map[string]int{}
		for i := 0; i+1 < len(data); i += 2 {
			id := "d" + strconv.Itoa(i/2)
			run = append(run, Scored{id, float64(data[i+1] % 8)})
			if g := int(data[i]%6) - 1; g <= 3 {
				judged[id] = g
			}
		}
		m := evalOne(run, judged, opts)
		all := slices.Concat([]float64{m.MAP, m.RPrec, m.RecipRank, m.NDCG, m.Bpref, m.Avg11pt, m.SetP, m.SetRelativeP, m.SetRecall, m.SetMAP, m.SetF,
			m.BinG, m.G, m.NDCGRel, m.RNDCG, m.InfAP, m.RBP, m.RBPResid},
			m.P, m.Recall, m.NDCGCut, m.MAPCut, m.Success, m.RelativeP, m.Unj, m.IPrecAtRecall, m.RPrecMult)
		for i, v := range all {
			if !(v >= 0 && v <= 1+1e-12) { // rounding may overshoot 1 by an ulp, in trec_eval too
				t.Fatalf("value %d = %v outside [0, 1]: %+v", i, v, m)
			}
		}
		if m.NumRelRet > m.NumRel || m.NumRelRet > m.NumRet || m.NumRet != len(run) || m.NumNonrelJudgedRet < 0 ||
			m.Utility != float64(2*m.NumRelRet-m.NumRet) {
			t.Fatalf("inconsistent counts %+v", m)
		}
		// Input order does not matter.
		shuffled := slices.Clone(run)
		r := rand.New(rand.NewPCG(seed, 0))
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		m2 := evalOne(shuffled, judged, opts)
		if !equalMeasures(m, m2) {
			t.Fatalf("result depends on line order:\n%+v\n%+v", m, m2)
		}
		// The ideal ranking: judged documents by grade, descending.
		var ideal []Scored
		for id, g := range judged {
			if g > 0 {
				ideal = append(ideal, Scored{id, float64(g)})
			}
		}
		if len(ideal) == 0 {
			return
		}
		mi := evalOne(ideal, judged, opts)
		if mi.NDCG < 1-1e-12 || mi.NDCGCut[0] < 1-1e-12 {
			t.Fatalf("ideal ranking ndcg %v ndcg_cut %v", mi.NDCG, mi.NDCGCut)
		}
		if mi.NumRel > 0 && (mi.MAP < 1-1e-12 || mi.RPrec != 1 || mi.RecipRank != 1) {
			t.Fatalf("ideal ranking map %v Rprec %v recip_rank %v", mi.MAP, mi.RPrec, mi.RecipRank)
		}
	})
}

func equalMeasures(a, b TrecMeasures) bool {
	return a.NumRet == b.NumRet && a.NumRel == b.NumRel && a.NumRelRet == b.NumRelRet &&
		a.MAP == b.MAP && a.RPrec == b.RPrec && a.RecipRank == b.RecipRank && a.NDCG == b.NDCG &&
		slices.Equal(a.P, b.P) && slices.Equal(a.Recall, b.Recall) && slices.Equal(a.NDCGCut, b.NDCGCut) &&
		slices.Equal(a.MAPCut, b.MAPCut) && slices.Equal(a.Success, b.Success) &&
		a.Bpref == b.Bpref && a.NumNonrelJudgedRet == b.NumNonrelJudgedRet && a.Avg11pt == b.Avg11pt &&
		a.SetP == b.SetP && a.SetRelativeP == b.SetRelativeP && a.SetRecall == b.SetRecall && a.SetMAP == b.SetMAP && a.SetF == b.SetF &&
		slices.Equal(a.RelativeP, b.RelativeP) && slices.Equal(a.Unj, b.Unj) &&
		slices.Equal(a.IPrecAtRecall, b.IPrecAtRecall) && slices.Equal(a.RPrecMult, b.RPrecMult) &&
		a.BinG == b.BinG && a.G == b.G && a.NDCGRel == b.NDCGRel && a.RNDCG == b.RNDCG &&
		a.InfAP == b.InfAP && a.RBP == b.RBP && a.RBPResid == b.RBPResid && a.RelString == b.RelString
}

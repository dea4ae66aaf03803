package treceval

import (
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// jgValues are a query's (or the summary's) -R qrels_jg measures:
// map_avgjg, P_avgjg at each cutoff and Rprec_mult_avgjg at each fraction
// of R, each averaged over the query's judgement groups.
type jgValues struct {
	mapv float64
	p    []float64
	rpm  []float64
}

// trec_eval's default parameters of P_avgjg and Rprec_mult_avgjg (those of
// P and Rprec_mult).
var (
	defaultPAvgjg         = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	defaultRprecMultAvgjg = []float64{0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0}
)

// Relevance values of a retrieved document in a judgement group, as
// trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED.
const (
	relNonpool  = -1
	relUnjudged = -2
)

// jgMeasures evaluates a query's ranking (trec_eval's order: score
// descending, equal scores by docno descending, as trecparse ranks a run)
// against each of its judgement groups as form_res_rels_jg.c and
// m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c do; pCuts and rpmCuts
// are the parameters of P_avgjg and Rprec_mult_avgjg.
func jgMeasures(js []trecparse.JGJudgement, ranked []trecparse.Hit, opts *metrics.TrecOptions, pCuts []int, rpmCuts []float64) jgValues {
	v := jgValues{p: make([]float64, len(pCuts)), rpm: make([]float64, len(rpmCuts))}
	if opts.LimitRetrieved && len(ranked) > opts.MaxRetrieved {
		ranked = ranked[:opts.MaxRetrieved]
	}
	groups := slices.Clone(js)
	slices.SortStableFunc(groups, func(a, b trecparse.JGJudgement) int { return strings.Compare(a.JG, b.JG) })
	level := opts.RelLevel
	numJGs := 0
	rels := make([]int, 0, len(ranked))
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && groups[end].JG == groups[start].JG {
			end++
		}
		numJGs++
		grade := make(map[string]int, end-start)
		numRel := 0
		for _, j := range groups[start:end] {
			grade[j.Doc] = j.Grade
			if j.Grade >= 0 && j.Grade >= level {
				numRel++
			}
		}
		start = end
		rels = rels[:0]
		numRelRet := 0
		for _, h := range ranked {
			g, ok := grade[h.ID]
			switch {
			case !ok:
				g = relNonpool
			case g < 0:
				g = relUnjudged
			}
			if opts.JudgedOnly && g < 0 {
				continue
			}
			if g >= 0 && g >= level {
				numRelRet++
			}
			rels = append(rels, g)
		}
		numRet := len(rels)

		// map_avgjg
		relSoFar, sum := 0, 0.0
		for i, g := range rels {
			if g >= level {
				relSoFar++
				sum += float64(relSoFar) / float64(i+1)
			}
		}
		if relSoFar != 0 {
			v.mapv += sum / float64(numRel)
		}

		// P_avgjg
		ci := 0
		relSoFar = 0
		for i, g := range rels {
			if i == pCuts[ci] {
				v.p[ci] += float64(relSoFar) / float64(i)
				if ci++; ci == len(pCuts) {
					break
				}
			}
			if g >= level {
				relSoFar++
			}
		}
		for ; ci < len(pCuts); ci++ {
			v.p[ci] += float64(relSoFar) / float64(pCuts[ci])
		}

		// Rprec_mult_avgjg
		cuts := make([]int, len(rpmCuts))
		for i, f := range rpmCuts {
			x := float64(f * float64(numRel))
			cuts[i] = int(x + 0.9)
		}
		cur := len(cuts) - 1
		for cur >= 0 && cuts[cur] > numRet {
			v.rpm[cur] += float64(numRelRet) / float64(cuts[cur])
			cur--
		}
		relSoFar = numRelRet
		for i := numRet; i > 0 && relSoFar > 0; i-- {
			precis := float64(relSoFar) / float64(i)
			for cur >= 0 && i == cuts[cur] {
				v.rpm[cur] += precis
				cur--
			}
			if rels[i-1] >= level {
				relSoFar--
			}
		}
	}
	if numJGs > 1 {
		n := float64(numJGs)
		v.mapv /= n
		for i := range v.p {
			v.p[i] /= n
		}
		for i := range v.rpm {
			v.rpm[i] /= n
		}
	}
	return v
}

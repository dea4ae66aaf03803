package metrics

import (
	"math"
)

// GainPair is one rel_level=gain parameter of trec_eval's gain measures
// (-m ndcg.1=0.5,2=3): documents judged at Level get Gain. Levels -1 and
// -2 are trec_eval's values of a retrieved document absent from the qrels
// and of one judged with a negative grade.
type GainPair struct {
	Level int64
	Gain  float64
}

// TrecParams holds the -m parameters of trec_eval's parameterised measures
// that are one value a query. The zero value is trec_eval's defaults.
type TrecParams struct {
	// Gains of ndcg (and of dcg and ideal_dcg), ndcg_rel, Rndcg, G and
	// rbp, in the order given; nil for trec_eval's default, gain = grade.
	// A level given no gain keeps its grade as gain (gain_init.c).
	NDCGGains, NDCGRelGains, RNDCGGains, GGains, RBPGains []GainPair
	// RBPP and RBPResidP are the persistence of rbp and rbp_resid when
	// given (p=); trec_eval's default is 0.9.
	RBPP, RBPResidP *float64
	// Utility is utility's four coefficients (retrieved relevant,
	// retrieved non-relevant, relevant not retrieved, non-relevant not
	// retrieved); nil for 1, -1, 0, 0.
	Utility []float64
	// Recall11pt is the recall levels 11pt_avg averages over, in the
	// order given; nil for 0, 0.1, …, 1.
	Recall11pt []float64
	// SetFBeta is set_F's relative weight of recall when given (default
	// 1).
	SetFBeta *float64
	// NumDocs is the collection size (trec_eval -N), used by utility's
	// fourth coefficient only.
	NumDocs int64
}

// HasGains tells whether a gain measure has rel_level=gain parameters.
func (p *TrecParams) HasGains() bool {
	return p.NDCGGains != nil || p.NDCGRelGains != nil || p.RNDCGGains != nil || p.GGains != nil || p.RBPGains != nil
}

// gainTable is one query's gains as trec_eval's setup_gains builds them:
// the pairs given, then every level 0..max grade not given, with the
// number of judgements at each, sorted by gain as its qsort leaves them.
type gainTable struct {
	rel   []relGain
	ideal []float64 // the ideal ranking's gains: positive, in order
	top   float64   // the gain of the last entry, where trec_eval starts
}

type relGain struct {
	level int64
	gain  float64
	n     int // judgements at the level
}

// newGainTable builds the gain table of pairs for the query whose judged
// grades are grades.
func newGainTable(pairs []GainPair, grades []int) *gainTable {
	maxGrade := math.MinInt
	for _, g := range grades {
		maxGrade = max(maxGrade, g)
	}
	t := &gainTable{}
	for _, p := range pairs {
		t.rel = append(t.rel, relGain{level: p.Level, gain: p.Gain})
	}
	given := len(t.rel)
	var counts []int // judgements at each level from 0 to maxGrade
	if maxGrade >= 0 {
		counts = make([]int, maxGrade+1)
	}
	for _, g := range grades {
		if g >= 0 {
			counts[g]++
		}
	}
	for i, n := range counts {
		j := 0
		for j < given && t.rel[j].level != int64(i) {
			j++
		}
		if j < given {
			t.rel[j].n = n
		} else {
			t.rel = append(t.rel, relGain{level: int64(i), gain: float64(i), n: n})
		}
	}
	msortGains(t.rel, make([]relGain, len(t.rel)))
	if len(t.rel) > 0 {
		t.top = t.rel[len(t.rel)-1].gain
	}
	if t.top > 0 {
		for i := len(t.rel) - 1; i >= 0; i-- {
			r := t.rel[i]
			if r.n == 0 {
				continue
			}
			if r.gain <= 0 {
				break
			}
			for range r.n {
				t.ideal = append(t.ideal, r.gain)
			}
		}
	}
	return t
}

// of returns the gain of relevance value r: the first entry of its level,
// or 0 (get_gain).
func (t *gainTable) of(r int) float64 {
	for _, x := range t.rel {
		if x.level == int64(r) {
			return x.gain
		}
	}
	return 0
}

// idealAt is the ideal ranking's gain at position i (0 past its end).
func (t *gainTable) idealAt(i int) float64 {
	if i < len(t.ideal) {
		return t.ideal[i]
	}
	return 0
}

// compareGains is trec_eval's comparison of two gains (comp_rel_gain): the
// difference converted to a C int, which truncates it (gains less than 1
// apart compare equal) and gives INT_MIN when it does not fit, as x86-64's
// conversion does.
func compareGains(a, b relGain) int {
	d := a.gain - b.gain
	if !(d > math.MinInt32-1 && d < math.MaxInt32+1) {
		return math.MinInt32
	}
	return int(int32(d))
}

// msortGains sorts s as glibc's qsort does with compareGains (its merge
// sort, msort.c: halves sorted in turn, then merged taking the left one
// unless it compares greater), so that gains the comparison does not
// order come out where trec_eval has them. tmp is as long as s.
func msortGains(s, tmp []relGain) {
	n := len(s)
	if n <= 1 {
		return
	}
	n1 := n / 2
	b1, b2 := s[:n1], s[n1:]
	msortGains(b1, tmp)
	msortGains(b2, tmp)
	out := tmp[:0]
	for len(b1) > 0 && len(b2) > 0 {
		if compareGains(b1[0], b2[0]) <= 0 {
			out, b1 = append(out, b1[0]), b1[1:]
		} else {
			out, b2 = append(out, b2[0]), b2[1:]
		}
	}
	out = append(out, b1...)
	copy(s, out) // what is left of b2 is in place
}

// ndcgGains computes dcg, ideal_dcg and ndcg with gains t (m_ndcg.c).
func (e *Evaluator) ndcgGains(m *TrecMeasures, t *gainTable) {
	dcg, idcg := 0.0, 0.0
	for i, r := range e.rels {
		if g := t.of(r); g != 0 {
			dcg += g / log2Plus2(i)
		}
	}
	for i, g := range t.ideal {
		idcg += g / log2Plus2(i)
	}
	m.DCG, m.IdealDCG, m.NDCG = dcg, idcg, 0
	if idcg > 0 {
		m.NDCG = dcg / idcg
	}
}

// gGains computes G with gains t (m_G.c).
func (e *Evaluator) gGains(m *TrecMeasures, t *gainTable) {
	sumIdeal := 0.0
	for _, g := range t.ideal {
		sumIdeal += g
	}
	resultsG, sumResults, sumCost := 0.0, 0.0, 0.0
	for i, r := range e.rels {
		g := t.of(r)
		sumResults += g
		sumCost += max(t.idealAt(i), 1) // 1 past the ideal ranking
		if g != 0 {
			resultsG += g / math.Log2(2+sumCost-sumResults)
		}
	}
	m.G = 0
	if sumIdeal > 0 {
		m.G = resultsG / sumIdeal
	}
}

// ndcgRelGains computes ndcg_rel with gains t (m_ndcg_rel.c).
func (e *Evaluator) ndcgRelGains(m *TrecMeasures, t *gainTable) {
	sum, cnt := 0.0, 0
	dcg, idcg := 0.0, 0.0
	for i, r := range e.rels {
		g := t.of(r)
		if g != 0 {
			dcg += g / log2Plus2(i)
		}
		if i < len(t.ideal) {
			idcg += t.ideal[i] / log2Plus2(i)
		}
		if g > 0 {
			sum += dcg / idcg
			cnt++
		}
	}
	for i := len(e.rels); i < len(t.ideal); i++ {
		idcg += t.ideal[i] / log2Plus2(i)
	}
	L := len(t.ideal)
	sum += float64(L-cnt) * dcg / idcg
	m.NDCGRel = 0
	if sum > 0 {
		m.NDCGRel = sum / float64(L)
	}
}

// rndcgGains computes Rndcg with gains t (m_Rndcg.c): ndcg averaged where
// the ideal gain changes, and at the end of the retrieved list when the
// ideal ranking ends before it.
func (e *Evaluator) rndcgGains(m *TrecMeasures, t *gainTable) {
	m.RNDCG = 0
	if m.NumRel == 0 {
		return
	}
	n := len(e.rels)
	sum, cnt := 0.0, 0
	old, cur := t.top, t.top
	rd, id := 0.0, 0.0
	change := func(g float64) {
		if old != g {
			if id > 0 {
				sum += rd / id
				cnt++
			}
			old = g
		}
	}
	i := 0
	for ; i < n && cur > 0; i++ {
		cur = t.idealAt(i)
		change(cur)
		if g := t.of(e.rels[i]); g != 0 {
			rd += g / log2Plus2(i)
		}
		if cur > 0 {
			id += cur / log2Plus2(i)
		}
	}
	if i < n {
		for ; i < n; i++ {
			if g := t.of(e.rels[i]); g != 0 {
				rd += g / log2Plus2(i)
			}
		}
		if id > 0 {
			sum += rd / id
			cnt++
		}
	}
	for ; cur > 0; i++ {
		cur = t.idealAt(i)
		change(cur)
		if cur > 0 {
			id += cur / log2Plus2(i)
		}
	}
	m.RNDCG = sum / float64(cnt)
}

// rbpGains computes rbp with gains t and persistence p (m_rbp.c): the
// gains are mapped onto [0, 1] when one lies outside, from a minimum and a
// maximum that start at 0 (see infAPAndRBP).
func (e *Evaluator) rbpGains(m *TrecMeasures, t *gainTable, p float64) {
	lo, hi := 0.0, 0.0
	for _, x := range t.rel {
		lo, hi = min(lo, x.gain), max(hi, x.gain)
	}
	if lo < 0 || hi > 1 {
		for i := range t.rel {
			t.rel[i].gain = (t.rel[i].gain - lo) / (hi - lo)
		}
	}
	sum, curP := 0.0, 1.0
	for _, r := range e.rels {
		if g := t.of(r); g != 0 {
			sum += g * curP
		}
		curP *= p
	}
	m.RBP = (1 - p) * sum
}

// avg11pt computes 11pt_avg at the recall levels pcts, in their order
// (m_11pt_avg.c; unsorted levels are walked as trec_eval walks them).
func (e *Evaluator) avg11pt(m *TrecMeasures, pcts []float64, level int) float64 {
	if m.NumRet == 0 && !e.emptyNaN {
		return 0 // a query missing from the run: one unjudged document
	}
	cuts := make([]int64, len(pcts))
	for i, x := range pcts {
		cuts[i] = int64(math.Round(x * float64(m.NumRel)))
	}
	cur := len(cuts) - 1
	for cur >= 0 && cuts[cur] > int64(m.NumRelRet) {
		cur--
	}
	sum := 0.0
	intPrecis := float64(m.NumRelRet) / float64(m.NumRet)
	relSoFar := m.NumRelRet
	for i := m.NumRet; i > 0 && relSoFar > 0; i-- {
		if p := float64(relSoFar) / float64(i); intPrecis < p {
			intPrecis = p
		}
		if e.rels[i-1] >= level {
			for cur >= 0 && int64(relSoFar) == cuts[cur] {
				sum += intPrecis
				cur--
			}
			relSoFar--
		}
	}
	for ; cur >= 0; cur-- {
		sum += intPrecis
	}
	return sum / float64(len(pcts))
}

// paramMeasures recomputes the measures whose parameters opts gives.
func (e *Evaluator) paramMeasures(m *TrecMeasures, opts *TrecOptions, level int) {
	pr := &opts.Params
	if pr.Utility != nil {
		u := pr.Utility
		a, b := float64(m.NumRelRet), float64(m.NumRet-m.NumRelRet)
		c, d := float64(m.NumRel-m.NumRelRet), float64(pr.NumDocs+int64(m.NumRelRet-m.NumRet-m.NumRel))
		m.Utility = float64(u[0]*a) + float64(u[1]*b) + float64(u[2]*c) + float64(u[3]*d)
	}
	if pr.SetFBeta != nil {
		m.SetF = 0
		if m.NumRelRet > 0 {
			p := float64(m.NumRelRet) / float64(m.NumRet)
			r := float64(m.NumRelRet) / float64(m.NumRel)
			x := *pr.SetFBeta
			m.SetF = (x + 1) * p * r / (float64(x*p) + r)
		}
	}
	if pr.Recall11pt != nil && opts.Omit&Omit11pt == 0 {
		m.Avg11pt = e.avg11pt(m, pr.Recall11pt, level)
	}
	if pr.RBPResidP != nil && opts.Omit&OmitInfAPRBP == 0 {
		p := *pr.RBPResidP
		unj, sum, curP := 0, 0.0, 1.0
		for _, r := range e.rels {
			if r < 0 {
				unj++
				sum += curP
			}
			curP *= p
		}
		m.RBPResid = 0
		if unj > 0 {
			m.RBPResid = curP + (1-p)*sum
		}
	}
	if (pr.RBPGains != nil || pr.RBPP != nil) && opts.Omit&OmitInfAPRBP == 0 {
		p := 0.9
		if pr.RBPP != nil {
			p = *pr.RBPP
		}
		e.rbpGains(m, newGainTable(pr.RBPGains, e.grades), p)
	}
	if pr.NDCGGains != nil {
		e.ndcgGains(m, newGainTable(pr.NDCGGains, e.grades))
	}
	if opts.Omit&OmitGain != 0 {
		return
	}
	if pr.GGains != nil {
		e.gGains(m, newGainTable(pr.GGains, e.grades))
	}
	if pr.NDCGRelGains != nil {
		e.ndcgRelGains(m, newGainTable(pr.NDCGRelGains, e.grades))
	}
	if pr.RNDCGGains != nil {
		e.rndcgGains(m, newGainTable(pr.RNDCGGains, e.grades))
	}
}

// missingQuery evaluates a query missing from the run under
// AverageComplete: an empty ranking, except where trec_eval's evaluation
// of its one unjudged document ("ceci_nest_pas_un_docno") is not cleared
// afterwards, which is so of utility and rbp_resid with parameters (it
// clears them by name) and of the gain measures when that document's level
// (-1) is given a gain.
func (e *Evaluator) missingQuery(judged map[string]int, opts *TrecOptions) TrecMeasures {
	m := EvaluateQuery(e, []Scored(nil), func(s Scored) string { return s.ID }, judged, opts)
	pr := opts.Params
	if opts.JudgedOnly || (opts.LimitRetrieved && opts.MaxRetrieved == 0) ||
		(pr.Utility == nil && pr.RBPResidP == nil && !pr.HasGains()) {
		return m
	}
	e.rels = append(e.rels[:0], relNotJudged)
	e.emptyNaN = false
	b := e.evaluate(judged, opts)
	if pr.Utility != nil {
		m.Utility = b.Utility
	}
	if pr.RBPResidP != nil {
		m.RBPResid = b.RBPResid
	}
	if pr.NDCGGains != nil {
		m.DCG, m.IdealDCG, m.NDCG = b.DCG, b.IdealDCG, b.NDCG
	}
	if pr.GGains != nil {
		m.G = b.G
	}
	if pr.NDCGRelGains != nil {
		m.NDCGRel = b.NDCGRel
	}
	if pr.RNDCGGains != nil {
		m.RNDCG = b.RNDCG
	}
	if pr.RBPGains != nil {
		m.RBP = b.RBP
	}
	return m
}

package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/crmath"
	"github.com/lasagna-go/lasagna/internal/idhash"
)

// Scored is one retrieved document of a TREC-style run: its id and the score
// the system gave it.
type Scored struct {
	ID    string
	Score float64
}

// CompareTREC orders two retrieved documents as trec_eval ranks them: higher
// score first; equal scores by document id descending, compared byte-wise
// (so "d9" ranks above "d10"). It returns a negative number when a ranks
// above b. A run file's rank column plays no part.
func CompareTREC(a, b Scored) int {
	if a.Score > b.Score {
		return -1
	}
	if a.Score < b.Score {
		return 1
	}
	return strings.Compare(b.ID, a.ID)
}

// SortTREC sorts ranked in place into trec_eval's rank order (see
// [CompareTREC]). Scores must not be NaN.
func SortTREC(ranked []Scored) {
	if !slices.IsSortedFunc(ranked, CompareTREC) {
		slices.SortFunc(ranked, CompareTREC)
	}
}

// DefaultCutoffs are trec_eval's default cutoffs for P, recall, ndcg_cut,
// map_cut and relative_P; DefaultSuccessCutoffs those of success,
// DefaultUnjCutoffs those of unj; DefaultRecallPoints the recall levels of
// iprec_at_recall (and 11pt_avg); DefaultRPrecMults the multiples of R of
// Rprec_mult.
var (
	DefaultCutoffs        = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	DefaultSuccessCutoffs = []int{1, 5, 10}
	DefaultUnjCutoffs     = []int{5, 10, 20}
	DefaultRecallPoints   = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	DefaultRPrecMults     = []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}
)

// TrecOptions selects the relevance threshold and the cutoffs of a trec_eval
// evaluation. Each cutoff list must hold positive, distinct values in
// ascending order ([TrecOptions.Validate] checks); a nil list computes no
// value for that measure. The zero value computes no cutoff measure and uses
// relevance level 0 (every judged document relevant, trec_eval's -l0); use
// [DefaultTrecOptions] for trec_eval's defaults.
type TrecOptions struct {
	// RelLevel is trec_eval's -l: a retrieved document is relevant when its
	// grade is at least RelLevel. It applies to every measure except ndcg
	// and ndcg_cut, whose gain is always the grade itself.
	RelLevel int
	// Cutoffs of P_k, recall_k, ndcg_cut_k, map_cut_k, success_k,
	// relative_P_k and unj_k.
	P, Recall, NDCGCut, MAPCut, Success, RelativeP, Unj []int
	// IPrecAtRecall holds the recall levels of iprec_at_recall and RPrecMult
	// the multiples of R of Rprec_mult (ascending, distinct, >= 0).
	IPrecAtRecall, RPrecMult []float64
	// RelString is the number of leading ranks relstring shows (trec_eval's
	// default is 10; 0 computes no relstring).
	RelString int
	// Omit names measures left at 0, to save their cost when nobody reads
	// them (as trec_eval computes only the measures it prints); the zero
	// value computes them all.
	Omit TrecOmit
	// LimitRetrieved keeps only the first MaxRetrieved (>= 0) ranked
	// documents of each query, dropping the rest before any measure, as
	// trec_eval -M does (its default is no limit).
	LimitRetrieved bool
	MaxRetrieved   int
	// JudgedOnly drops every retrieved document without a judgement of
	// grade 0 or more (absent from the qrels, or with a negative grade)
	// before any measure, closing up the ranks, as trec_eval -J does. It
	// applies after MaxRetrieved.
	JudgedOnly bool
	// Params holds the parameters of utility, 11pt_avg, set_F and the gain
	// measures (the zero value: trec_eval's defaults).
	Params TrecParams
	// Query, when not empty, evaluates and averages that query alone, as
	// trec_eval -D level.qid does; under [AverageComplete] the summary's
	// NumRel still counts the positive grades of every qrels query, as
	// trec_eval's does.
	Query string
}

// TrecOmit is a set of measures [EvaluateQuery] may leave at 0.
type TrecOmit uint8

const (
	// OmitGain omits the gain measures binG, G, ndcg_rel and Rndcg.
	OmitGain TrecOmit = 1 << iota
	// OmitInfAPRBP omits infAP, rbp and rbp_resid.
	OmitInfAPRBP
	// Omit11pt omits 11pt_avg.
	Omit11pt
)

// DefaultTrecOptions returns trec_eval's defaults: relevance level 1 and
// the default parameters of every measure (see [DefaultCutoffs]).
func DefaultTrecOptions() TrecOptions {
	return TrecOptions{
		RelLevel:      1,
		P:             slices.Clone(DefaultCutoffs),
		Recall:        slices.Clone(DefaultCutoffs),
		NDCGCut:       slices.Clone(DefaultCutoffs),
		MAPCut:        slices.Clone(DefaultCutoffs),
		Success:       slices.Clone(DefaultSuccessCutoffs),
		RelativeP:     slices.Clone(DefaultCutoffs),
		Unj:           slices.Clone(DefaultUnjCutoffs),
		IPrecAtRecall: slices.Clone(DefaultRecallPoints),
		RPrecMult:     slices.Clone(DefaultRPrecMults),
		RelString:     10,
	}
}

// Validate reports the first cutoff list that is not strictly ascending
// positive integers, or a negative MaxRetrieved.
func (o *TrecOptions) Validate() error {
	if o.LimitRetrieved && o.MaxRetrieved < 0 {
		return fmt.Errorf("the maximum number of documents retrieved per query %d is negative", o.MaxRetrieved)
	}
	for _, l := range []struct {
		name string
		cuts []int
	}{{"P", o.P}, {"recall", o.Recall}, {"ndcg_cut", o.NDCGCut}, {"map_cut", o.MAPCut}, {"success", o.Success}, {"relative_P", o.RelativeP}, {"unj", o.Unj}} {
		for i, k := range l.cuts {
			if k <= 0 {
				return fmt.Errorf("%s cutoff %d is not positive", l.name, k)
			}
			if i > 0 && l.cuts[i-1] >= k {
				return fmt.Errorf("%s cutoffs %v are not distinct and ascending", l.name, l.cuts)
			}
		}
	}
	for _, l := range []struct {
		name string
		cuts []float64
	}{{"iprec_at_recall", o.IPrecAtRecall}, {"Rprec_mult", o.RPrecMult}} {
		for i, k := range l.cuts {
			if !(k >= 0) || math.IsInf(k, 1) {
				return fmt.Errorf("%s parameter %v is not a finite number >= 0", l.name, k)
			}
			if i > 0 && l.cuts[i-1] >= k {
				return fmt.Errorf("%s parameters %v are not distinct and ascending", l.name, l.cuts)
			}
		}
	}
	if u := o.Params.Utility; u != nil && len(u) != 4 {
		return fmt.Errorf("utility takes 4 coefficients, not %d", len(u))
	}
	if r := o.Params.Recall11pt; r != nil && len(r) == 0 {
		return fmt.Errorf("11pt_avg has no recall level")
	}
	return nil
}

// TrecMeasures holds trec_eval's measures for one query, or their summary
// over queries; each field is named after the trec_eval measure it holds.
// For one query every field is that query's value. In a summary, the counts
// (NumRet, NumRel, NumRelRet, NumNonrelJudgedRet) are sums over the averaged
// queries and every other field is the arithmetic mean, except GMMAP and
// GMBpref, the geometric means of MAP and Bpref (each floored at 0.00001)
// that trec_eval prints as gm_map and gm_bpref, exp of the mean of the
// logarithms with log and exp correctly rounded, as the C library gives
// trec_eval's (internal/crmath). Under [AverageComplete]
// the summary's NumRel is what trec_eval -c prints instead: the judgements
// with a grade above 0 in every qrels query, whatever RelLevel (its
// m_num_rel.c counts them afresh from the qrels; docs/metrics.md, "trec_eval's
// edge cases"). The slices are parallel to the [TrecOptions] lists they were
// computed with.
type TrecMeasures struct {
	NumRet             int // documents retrieved
	NumRel             int // judged documents with grade >= RelLevel (grades < 0 excluded); see above for the -c summary
	NumRelRet          int // relevant documents retrieved
	NumNonrelJudgedRet int // judged non-relevant documents retrieved
	MAP                float64
	GMMAP              float64 // summary only (0 for one query)
	RPrec              float64
	Bpref              float64
	GMBpref            float64 // summary only (0 for one query)
	RecipRank          float64
	NDCG               float64
	DCG                float64 // trec_eval's dcg: the DCG behind NDCG
	IdealDCG           float64 // trec_eval's ideal_dcg: NDCG's normaliser
	Utility            float64 // utility: by default relevant retrieved − non-relevant retrieved (TrecParams.Utility)
	Avg11pt            float64 // 11pt_avg: mean interpolated precision at recall 0, 0.1, …, 1 (TrecParams.Recall11pt)
	SetP               float64
	SetRelativeP       float64
	SetRecall          float64
	SetMAP             float64
	SetF               float64 // set_F, beta 1 by default (TrecParams.SetFBeta)
	BinG               float64
	G                  float64
	NDCGRel            float64
	RNDCG              float64 // trec_eval's Rndcg; NaN when NumRel > 0 but no grade is above 0 (RelLevel <= 0), as trec_eval's 0/0
	InfAP              float64
	RBP                float64 // rank-biased precision, persistence 0.9 by default (TrecParams)
	RBPResid           float64 // rbp_resid: RBP's residual from unjudged documents
	Yaap               float64 // trec_eval's yaap: log((1+s)/(1+NumRel-s)), s the sum of precisions at relevant ranks
	RelString          string  // one query only: relevance of the first ranks, e.g. "10-0"
	P                  []float64
	Recall             []float64
	NDCGCut            []float64
	MAPCut             []float64
	Success            []float64
	RelativeP          []float64
	Unj                []float64
	IPrecAtRecall      []float64
	RPrecMult          []float64

	// numPositive is the number of judgements with a grade above 0 (one
	// query's, or the sum in a summary): trec_eval -c's num_rel.
	numPositive int
}

// Relevance values of retrieved documents that are not a judged grade, as in
// trec_eval: not in the qrels at all, or in the qrels with a negative grade
// (pooled but unjudged).
const (
	relNotJudged = -1
	relUnjudged  = -2
)

// Evaluator computes trec_eval measures query by query. It keeps scratch
// space between calls, so reuse one per goroutine; it is not safe for
// concurrent use. The zero value is ready to use.
type Evaluator struct {
	rels   []int
	grades []int // the query's judged grades, in map order
	// relRanks are the ranks (1-based) whose relevance value is at least
	// the level, ascending.
	relRanks []int
	ideal    []int
	nRel     []int     // prefix: relevant among the first i documents
	apSum    []float64 // prefix: sum of precision at relevant ranks
	dcg      []float64 // prefix: discounted cumulative gain
	idcg     []float64 // prefix: ideal DCG
	firstR   int
	filter   []uint64 // bitmap of idBits of the judged ids (judgedFilter)
	// emptyNaN: an empty ranking is one trec_eval evaluates empty, so its
	// interpolated precision divides 0 by 0. Without -J or -M 0 the only
	// empty ranking is a query missing from the run under -c, which
	// trec_eval evaluates as one unjudged document (precision 0).
	emptyNaN bool
}

// judgedFilter returns a bitmap with the bit idBits(d) set for every
// judged document d, sized to about 64 bits a judgement, or nil when the
// map lookups it saves would not pay for building it. A clear bit means d
// is not judged; a set bit is confirmed in the map, so the filter changes
// only the cost, never the result, whatever the ids.
func (e *Evaluator) judgedFilter(judged map[string]int, retrieved int) []uint64 {
	if len(judged) == 0 || retrieved < 2*len(judged) || len(judged) > 1<<16 {
		return nil
	}
	words := 1
	for words < len(judged) {
		words *= 2
	}
	if cap(e.filter) < words {
		e.filter = make([]uint64, words)
	}
	f := e.filter[:words]
	clear(f)
	mask := uint64(words*64 - 1)
	for d := range judged {
		b := idBits(d) & mask
		f[b>>6] |= 1 << (b & 63)
	}
	return f
}

// idBits is a cheap hash of a document id for judgedFilter: its length
// and last eight bytes (ids tend to share prefixes, not suffixes), mixed
// by a multiplication whose high bits it keeps.
func idBits(d string) uint64 {
	x := idhash.Suffix(d) * 0x9e3779b97f4a7c15
	return x>>32 ^ x>>17
}

// log2Plus2 returns log2(i+2), from log2Table when i is in it.
func log2Plus2(i int) float64 {
	if i < len(log2Table) {
		return log2Table[i]
	}
	return math.Log2(float64(i + 2))
}

// EvaluateQuery computes trec_eval's measures for one query. ranked holds
// the retrieved documents in rank order (index 0 is rank 1; the order is
// authoritative — sort with [SortTREC] first to rank as trec_eval does) and
// id returns a document's id. judged maps document ids to grades for this
// query; a retrieved document absent from judged is non-relevant, and a
// negative grade means "pooled but unjudged" (neither relevant nor counted in
// NumRel), as in trec_eval.
//
// Document ids must be distinct within ranked: a duplicate would be counted
// at each of its ranks (trec_eval rejects such a run, as does
// datasets.ReadRun). Gains for ndcg and ndcg_cut are the grades themselves
// (trec_eval's default; opts.Params may give ndcg and the others other gains), discounted by log2(rank+1), normalised by the ideal
// ranking of every judged document with a positive grade.
//
// A query whose judgements are all negative (or with no relevant document)
// is evaluated all the same: every measure of relevant documents is 0, and
// those of the ranking alone (NumRet, Utility, Unj, RBPResid, RelString)
// have their usual values, as in trec_eval. Only RNDCG may be NaN (see
// [TrecMeasures]).
//
// opts.LimitRetrieved and opts.JudgedOnly drop documents from ranked before
// anything is computed (trec_eval's -M and -J); opts.Query is for
// [EvaluateRun] and [SummarizeRun] only.
func EvaluateQuery[H any](e *Evaluator, ranked []H, id func(H) string, judged map[string]int, opts *TrecOptions) TrecMeasures {
	e.rels = e.rels[:0]
	if opts.LimitRetrieved && len(ranked) > opts.MaxRetrieved {
		ranked = ranked[:max(opts.MaxRetrieved, 0)]
	}
	filter := e.judgedFilter(judged, len(ranked))
	mask := uint64(len(filter)*64 - 1)
	for _, h := range ranked {
		d := id(h)
		if filter != nil {
			if b := idBits(d) & mask; filter[b>>6]&(1<<(b&63)) == 0 {
				e.rels = append(e.rels, relNotJudged)
				continue
			}
		}
		g, ok := judged[d]
		switch {
		case !ok:
			g = relNotJudged
		case g < 0:
			g = relUnjudged
		}
		e.rels = append(e.rels, g)
	}
	if opts.JudgedOnly {
		e.rels = slices.DeleteFunc(e.rels, func(r int) bool { return r < 0 })
	}
	e.emptyNaN = opts.JudgedOnly || (opts.LimitRetrieved && opts.MaxRetrieved == 0)
	return e.evaluate(judged, opts)
}

// evaluate computes the measures from e.rels (the relevance value at each
// rank) and the query's judgements.
func (e *Evaluator) evaluate(judged map[string]int, opts *TrecOptions) TrecMeasures {
	level := opts.RelLevel
	var m TrecMeasures

	// Judged side: num_rel and the ideal gains (positive grades, descending).
	// The grades are read from the map once, for every measure.
	e.grades = e.grades[:0]
	for _, g := range judged {
		e.grades = append(e.grades, g)
	}
	e.ideal = e.ideal[:0]
	for _, g := range e.grades {
		if g < 0 {
			continue
		}
		if g >= level {
			m.NumRel++
		}
		if g > 0 {
			e.ideal = append(e.ideal, g)
		}
	}
	m.numPositive = len(e.ideal)
	slices.SortFunc(e.ideal, func(a, b int) int { return cmp.Compare(b, a) })

	// Retrieved side: prefix sums over ranks.
	n := len(e.rels)
	m.NumRet = n
	e.nRel = grow(e.nRel, n+1)
	e.apSum = growF(e.apSum, n+1)
	e.dcg = growF(e.dcg, n+1)
	e.nRel[0], e.apSum[0], e.dcg[0] = 0, 0, 0
	e.firstR = 0
	relSoFar := 0
	ap, dcg := 0.0, 0.0
	e.relRanks = e.relRanks[:0]
	for i, r := range e.rels {
		if r >= level {
			e.relRanks = append(e.relRanks, i+1)
			relSoFar++
			ap += float64(relSoFar) / float64(i+1)
			if e.firstR == 0 {
				e.firstR = i + 1
			}
		}
		if r >= 0 && r >= level {
			m.NumRelRet++
		}
		if r > 0 {
			dcg += float64(r) / log2Plus2(i)
		}
		e.nRel[i+1] = relSoFar
		e.apSum[i+1] = ap
		e.dcg[i+1] = dcg
	}
	e.idcg = growF(e.idcg, len(e.ideal)+1)
	e.idcg[0] = 0
	idcg := 0.0
	for i, g := range e.ideal {
		idcg += float64(g) / log2Plus2(i)
		e.idcg[i+1] = idcg
	}

	if m.NumRel > 0 {
		m.MAP = ap / float64(m.NumRel)
		k := min(n, m.NumRel)
		m.RPrec = float64(e.nRel[k]) / float64(m.NumRel)
	}
	if e.firstR > 0 {
		m.RecipRank = 1 / float64(e.firstR)
	}
	if idcg > 0 {
		m.NDCG = dcg / idcg
	}
	m.DCG, m.IdealDCG = dcg, idcg

	m.P = make([]float64, len(opts.P))
	for j, k := range opts.P {
		m.P[j] = float64(e.nRel[min(k, n)]) / float64(k)
	}
	m.Recall = make([]float64, len(opts.Recall))
	if m.NumRel > 0 {
		for j, k := range opts.Recall {
			m.Recall[j] = float64(e.nRel[min(k, n)]) / float64(m.NumRel)
		}
	}
	m.NDCGCut = make([]float64, len(opts.NDCGCut))
	for j, k := range opts.NDCGCut {
		ideal := e.idcg[min(k, len(e.ideal))]
		if ideal > 0 {
			m.NDCGCut[j] = e.dcg[min(k, n)] / ideal
		}
	}
	m.MAPCut = make([]float64, len(opts.MAPCut))
	if m.NumRel > 0 {
		for j, k := range opts.MAPCut {
			m.MAPCut[j] = e.apSum[min(k, n)] / float64(m.NumRel)
		}
	}
	m.Success = make([]float64, len(opts.Success))
	for j, k := range opts.Success {
		if e.firstR > 0 && e.firstR <= k {
			m.Success[j] = 1
		}
	}
	e.setMeasures(&m, level)
	m.RelativeP = make([]float64, len(opts.RelativeP))
	if m.NumRel > 0 {
		for j, k := range opts.RelativeP {
			m.RelativeP[j] = float64(e.nRel[min(k, n)]) / float64(min(k, m.NumRel))
		}
	}
	m.Unj = make([]float64, len(opts.Unj))
	for j, k := range opts.Unj {
		unj := 0
		for _, r := range e.rels[:min(k, n)] {
			if r < 0 {
				unj++
			}
		}
		m.Unj[j] = float64(unj) / float64(k)
	}
	m.IPrecAtRecall = make([]float64, len(opts.IPrecAtRecall))
	e.iprec(&m, opts.IPrecAtRecall, m.IPrecAtRecall, level)
	if opts.Omit&Omit11pt == 0 {
		var pts [11]float64
		e.iprec(&m, DefaultRecallPoints, pts[:], level)
		sum := 0.0
		for _, v := range pts {
			sum += v
		}
		m.Avg11pt = sum / float64(len(pts))
	}
	m.RPrecMult = make([]float64, len(opts.RPrecMult))
	e.rprecMult(&m, opts.RPrecMult, m.RPrecMult)
	if opts.Omit&OmitGain == 0 {
		e.gainMeasures(&m, level)
	}
	if opts.Omit&OmitInfAPRBP == 0 {
		e.infAPAndRBP(&m, level)
	}
	e.paramMeasures(&m, opts, level)
	m.Yaap = crmath.Log((1 + ap) / (1 + float64(m.NumRel) - ap))
	if opts.RelString > 0 {
		m.RelString = e.relString(min(opts.RelString, n))
	}
	return m
}

// gain is the gain of a retrieved document's relevance value: its grade,
// or 0 when it is not judged (trec_eval's default gains).
func gain(r int) float64 {
	if r > 0 {
		return float64(r)
	}
	return 0
}

// idealGain is the gain at position i of the ideal ranking.
func (e *Evaluator) idealGain(i int) float64 {
	if i < len(e.ideal) {
		return float64(e.ideal[i])
	}
	return 0
}

// gainMeasures computes trec_eval's experimental gain measures binG, G,
// ndcg_rel and Rndcg with default gains, ported from m_binG.c, m_G.c,
// m_ndcg_rel.c and m_Rndcg.c.
func (e *Evaluator) gainMeasures(m *TrecMeasures, level int) {
	n := len(e.rels)
	// binG: relevant documents discounted by the non-relevant ones above.
	relSoFar, sum := 0, 0.0
	for i, r := range e.rels {
		if r >= level {
			relSoFar++
			sum += 1 / math.Log2(float64(3+i-relSoFar))
		}
	}
	if relSoFar > 0 {
		m.BinG = sum / float64(m.NumRel)
	}

	// G: gain discounted by the gain still missing against the ideal.
	sumIdeal := 0.0
	for _, g := range e.ideal {
		sumIdeal += float64(g)
	}
	resultsG, sumResults, sumCost := 0.0, 0.0, 0.0
	for i, r := range e.rels {
		g := gain(r)
		sumResults += g
		sumCost += max(e.idealGain(i), 1)
		if g != 0 {
			resultsG += g / math.Log2(2+sumCost-sumResults)
		}
	}
	if sumIdeal > 0 {
		m.G = resultsG / sumIdeal
	}

	L := len(e.ideal)
	if L == 0 {
		if m.NumRel > 0 {
			// Relevant documents (RelLevel <= 0) but no positive gain:
			// m_Rndcg.c averages over no ideal-gain change, 0/0.
			m.RNDCG = math.NaN()
		}
		return
	}
	// ndcg_rel: ndcg averaged at each document with a positive gain;
	// unretrieved ones count the final ndcg.
	sum, cnt := 0.0, 0
	for i, r := range e.rels {
		if gain(r) > 0 {
			sum += e.dcg[i+1] / e.idcg[min(i+1, L)]
			cnt++
		}
	}
	sum += float64(L-cnt) * e.dcg[n] / e.idcg[L]
	if sum > 0 {
		m.NDCGRel = sum / float64(L)
	}

	// Rndcg: ndcg averaged where the ideal gain changes level, and at the
	// end of the retrieved list.
	if m.NumRel == 0 {
		return
	}
	sum, cnt = 0, 0
	old := e.idealGain(0)
	rd, id := 0.0, 0.0
	cur := old
	i := 0
	for ; i < n && cur > 0; i++ {
		g := e.idealGain(i)
		if old != g {
			if id > 0 {
				sum += rd / id
				cnt++
			}
			old = g
		}
		if rg := gain(e.rels[i]); rg != 0 {
			rd += rg / log2Plus2(i)
		}
		if g > 0 {
			id += g / log2Plus2(i)
		}
		cur = g
	}
	if i < n {
		for ; i < n; i++ {
			if rg := gain(e.rels[i]); rg != 0 {
				rd += rg / log2Plus2(i)
			}
		}
		if id > 0 {
			sum += rd / id
			cnt++
		}
	}
	for ; cur > 0; i++ {
		g := e.idealGain(i)
		if old != g {
			if id > 0 {
				sum += rd / id
				cnt++
			}
			old = g
		}
		if g > 0 {
			id += g / log2Plus2(i)
		}
		cur = g
	}
	if cnt > 0 {
		m.RNDCG = sum / float64(cnt)
	}
}

// infapEpsilon is trec_eval's INFAP_EPSILON.
const infapEpsilon = 0.00001

// infAPAndRBP computes infAP (m_infap.c), rbp and rbp_resid (m_rbp.c,
// m_rbp_resid.c) with persistence 0.9. trec_eval 10's m_rbp.c reads two
// uninitialised variables when it normalises gains; its shipped expected
// outputs hold the values for both starting at 0, which is what this
// computes: gain = grade ÷ the query's largest judged grade when that is
// above 1.
func (e *Evaluator) infAPAndRBP(m *TrecMeasures, level int) {
	nonrelSoFar, relSoFar, unjudgedSoFar := 0, 0, 0
	infAP := 0.0
	for j, r := range e.rels {
		switch {
		case r == relNotJudged:
			continue
		case r == relUnjudged:
			unjudgedSoFar++
			continue
		case r >= 0 && r < level:
			nonrelSoFar++
			continue
		}
		relSoFar++
		if j == 0 {
			infAP += 1
			continue
		}
		fj := float64(j)
		infAP += 1/(fj+1) + (fj/(fj+1))*(float64(relSoFar-1+nonrelSoFar+unjudgedSoFar)/fj)*
			((float64(relSoFar-1)+infapEpsilon)/(float64(relSoFar-1+nonrelSoFar)+2*infapEpsilon))
	}
	if m.NumRel > 0 {
		infAP /= float64(m.NumRel)
	}
	m.InfAP = infAP

	maxGrade := 0
	for _, g := range e.grades {
		maxGrade = max(maxGrade, g)
	}
	p := 0.9
	sum, curP := 0.0, 1.0
	unj, resid := 0, 0.0
	for _, r := range e.rels {
		if r > 0 {
			g := float64(r)
			if maxGrade > 1 {
				g /= float64(maxGrade)
			}
			sum += g * curP
		}
		if r < 0 {
			unj++
			resid += curP
		}
		curP *= p
	}
	m.RBP = (1 - p) * sum
	if unj > 0 {
		m.RBPResid = curP + (1-p)*resid
	}
}

// relString renders the relevance of the first k ranks as trec_eval's
// relstring: the grade 0-9, '>' above 9, '-' not judged, '.' pooled but
// unjudged.
func (e *Evaluator) relString(k int) string {
	b := make([]byte, k)
	for i, r := range e.rels[:k] {
		switch {
		case r > 9:
			b[i] = '>'
		case r >= 0:
			b[i] = byte('0' + r)
		case r == relNotJudged:
			b[i] = '-'
		default:
			b[i] = '.'
		}
	}
	return string(b)
}

// setMeasures computes the measures of the retrieved set and bpref, as
// trec_eval's m_set_*.c, m_utility.c, m_num_nonrel_judged_ret.c and
// m_bpref.c do.
func (e *Evaluator) setMeasures(m *TrecMeasures, level int) {
	unjudged := 0
	for _, r := range e.rels {
		if r < 0 {
			unjudged++
		}
	}
	m.NumNonrelJudgedRet = m.NumRet - unjudged - m.NumRelRet
	m.Utility = float64(m.NumRelRet) - float64(m.NumRet-m.NumRelRet)
	if m.NumRet > 0 {
		m.SetP = float64(m.NumRelRet) / float64(m.NumRet)
	}
	if m.NumRet > 0 && m.NumRel > 0 {
		m.SetRelativeP = float64(m.NumRelRet) / float64(min(m.NumRet, m.NumRel))
		m.SetMAP = float64(m.NumRelRet) * float64(m.NumRelRet) / (float64(m.NumRet) * float64(m.NumRel))
	}
	if m.NumRel > 0 {
		m.SetRecall = float64(m.NumRelRet) / float64(m.NumRel)
	}
	if m.NumRelRet > 0 {
		p := float64(m.NumRelRet) / float64(m.NumRet)
		r := float64(m.NumRelRet) / float64(m.NumRel)
		m.SetF = 2 * p * r / (p + r)
	}

	// bpref: judged non-relevant documents are those with 0 <= grade < level.
	numNonrel := 0
	for _, g := range e.grades {
		if g >= 0 && g < level {
			numNonrel++
		}
	}
	nonrelSoFar := 0
	bpref := 0.0
	for _, r := range e.rels {
		switch {
		case r < 0:
			// not in the pool, or pooled but unjudged: skipped
		case r < level:
			nonrelSoFar++
		default:
			if nonrelSoFar > 0 {
				bpref += 1 - float64(min(nonrelSoFar, m.NumRel))/float64(min(numNonrel, m.NumRel))
			} else {
				bpref++
			}
		}
	}
	if m.NumRel > 0 {
		bpref /= float64(m.NumRel)
	}
	m.Bpref = bpref
}

// iprec computes interpolated precision at the recall levels pcts into out,
// as trec_eval's m_iprec_at_recall.c: the level's number of relevant
// documents is pct*R rounded to the nearest integer, and the value is the
// best precision at or below the rank where that many relevant documents
// have been seen. (trec_eval 9's source adds 0.9 and truncates instead; the
// expected outputs of trec_eval 10 in its test folder fit rounding and not
// that, e.g. topic 302 at recall 0.6.)
func (e *Evaluator) iprec(m *TrecMeasures, pcts, out []float64, level int) {
	clear(out)
	cut := func(i int) int { return int(math.Round(pcts[i] * float64(m.NumRel))) }
	if m.NumRet == 0 {
		if e.emptyNaN {
			// trec_eval's precision 0/0 at the recall levels of 0
			// relevant documents (m_iprec_at_recall.c, m_11pt_avg.c).
			for i := range pcts {
				if cut(i) == 0 {
					out[i] = math.NaN()
				}
			}
		}
		return
	}
	cur := len(pcts) - 1
	for cur >= 0 && cut(cur) > m.NumRelRet {
		cur--
	}
	intPrecis := float64(m.NumRelRet) / float64(m.NumRet)
	relSoFar := m.NumRelRet
	if level >= 0 && len(e.relRanks) == relSoFar {
		// The same, visiting only the relevant ranks: precision at a rank
		// that is not relevant is below that at the relevant rank before
		// it (the same count over fewer documents; correctly rounded
		// division keeps the order), so it never sets the maximum read at
		// a relevant rank or after the loop.
		for j := len(e.relRanks) - 1; j >= 0; j-- {
			if p := float64(relSoFar) / float64(e.relRanks[j]); intPrecis < p {
				intPrecis = p
			}
			for cur >= 0 && relSoFar == cut(cur) {
				out[cur] = intPrecis
				cur--
			}
			relSoFar--
		}
		for ; cur >= 0; cur-- {
			out[cur] = intPrecis
		}
		return
	}
	for i := m.NumRet; i > 0 && relSoFar > 0; i-- {
		if p := float64(relSoFar) / float64(i); intPrecis < p {
			intPrecis = p
		}
		if e.rels[i-1] >= level {
			for cur >= 0 && relSoFar == cut(cur) {
				out[cur] = intPrecis
				cur--
			}
			relSoFar--
		}
	}
	for ; cur >= 0; cur-- {
		out[cur] = intPrecis
	}
}

// rprecMult computes precision at multiples of R into out, as trec_eval's
// m_Rprec_mult.c: at int(mult*R + 0.9) documents, dividing by that number
// even beyond the documents retrieved.
func (e *Evaluator) rprecMult(m *TrecMeasures, mults, out []float64) {
	clear(out)
	for j, x := range mults {
		k := int(x*float64(m.NumRel) + 0.9)
		switch {
		case k > m.NumRet:
			out[j] = float64(m.NumRelRet) / float64(k)
		case k > 0 && e.nRel[k] > 0:
			out[j] = float64(e.nRel[k]) / float64(k)
		}
	}
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/4)
	}
	return s[:n]
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

// Retrieval computes lasagna's retrieval metrics for one query from a ranked
// list of document ids already in rank order (index 0 is rank 1; the order is
// authoritative, nothing is re-sorted) and the query's judgements (document
// id → grade; grade >= 1 is relevant, trec_eval's default level). The
// result maps metric names to values:
//
//   - for each cutoff k: "ndcg@k" (trec_eval ndcg_cut_k), "recall@k"
//     (recall_k), "precision@k" (P_k, divided by k), "mrr@k" (reciprocal rank
//     of the first relevant document within the top k, else 0), "map@k"
//     (map_cut_k, divided by all relevant documents), "hit@k" (success_k);
//   - without cutoff: "ndcg" (trec_eval ndcg), "mrr" (recip_rank), "map"
//     (map), "r_precision" (Rprec).
//
// A query with no relevant judged document scores 0 on every metric, as in
// trec_eval. It returns an error when cutoffs holds a value below 1 or when
// ranked holds the same id twice (trec_eval rejects such runs).
func Retrieval(ranked []string, judged map[string]int, cutoffs []int) (map[string]float64, error) {
	sc, err := NewRetrievalScorer(cutoffs)
	if err != nil {
		return nil, err
	}
	return sc.Score(ranked, judged)
}

// RetrievalScorer computes [Retrieval] for many queries with the same
// cutoffs, reusing its buffers and metric names. It is not safe for
// concurrent use: give each goroutine its own.
type RetrievalScorer struct {
	cuts  []int
	names [][6]string // per cutoff: ndcg@k, recall@k, precision@k, map@k, hit@k, mrr@k
	opts  TrecOptions
	e     Evaluator
	seen  map[string]struct{}
}

// NewRetrievalScorer returns a scorer for the given cutoffs (sorted and
// deduplicated); a cutoff below 1 is an error.
func NewRetrievalScorer(cutoffs []int) (*RetrievalScorer, error) {
	cuts := slices.Clone(cutoffs)
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	if len(cuts) > 0 && cuts[0] < 1 {
		return nil, fmt.Errorf("retrieval cutoff %d is not positive", cuts[0])
	}
	sc := &RetrievalScorer{
		cuts:  cuts,
		names: make([][6]string, len(cuts)),
		opts:  TrecOptions{RelLevel: 1, P: cuts, Recall: cuts, NDCGCut: cuts, MAPCut: cuts, Success: cuts},
		seen:  map[string]struct{}{},
	}
	for j, k := range cuts {
		s := strconv.Itoa(k)
		for i, f := range cutoffFamilies {
			sc.names[j][i] = f + "@" + s
		}
	}
	return sc, nil
}

// cutoffFamilies are the ranked metrics that take an @k cutoff, in the
// order a RetrievalScorer names them at each cutoff.
var cutoffFamilies = [6]string{"ndcg", "recall", "precision", "map", "hit", "mrr"}

// CutoffFamilies returns the ranked retrieval metrics that take an @k
// cutoff: ndcg, recall, precision, map, hit and mrr. Each call returns a
// new slice.
func CutoffFamilies() []string { return slices.Clone(cutoffFamilies[:]) }

// Score returns the metrics of one query, as [Retrieval] does.
func (sc *RetrievalScorer) Score(ranked []string, judged map[string]int) (map[string]float64, error) {
	clear(sc.seen)
	for i, id := range ranked {
		if _, dup := sc.seen[id]; dup {
			return nil, fmt.Errorf("document %q appears twice in the ranked list (second time at rank %d)", id, i+1)
		}
		sc.seen[id] = struct{}{}
	}
	return sc.ScoreDistinct(ranked, judged), nil
}

// ScoreDistinct is Score for a ranked list its caller has checked holds no
// id twice; it does not check again.
func (sc *RetrievalScorer) ScoreDistinct(ranked []string, judged map[string]int) map[string]float64 {
	m := EvaluateQuery(&sc.e, ranked, func(s string) string { return s }, judged, &sc.opts)
	out := make(map[string]float64, 6*len(sc.cuts)+4)
	out["ndcg"] = m.NDCG
	out["mrr"] = m.RecipRank
	out["map"] = m.MAP
	out["r_precision"] = m.RPrec
	for j, k := range sc.cuts {
		n := &sc.names[j]
		out[n[0]] = m.NDCGCut[j]
		out[n[1]] = m.Recall[j]
		out[n[2]] = m.P[j]
		out[n[3]] = m.MAPCut[j]
		out[n[4]] = m.Success[j]
		if sc.e.firstR > 0 && sc.e.firstR <= k {
			out[n[5]] = 1 / float64(sc.e.firstR)
		} else {
			out[n[5]] = 0
		}
	}
	return out
}

// FirstRise returns the rank (1-based) of the first hit of a ranked list of
// n hits that scores higher than the hit above it, or 0 when the scores
// never rise with rank (ties are allowed). score(i) is the score of the
// hit at index i. Such a list is scored in the order given, whereas
// trec_eval ranks a run by score (SCORES_OUT_OF_ORDER, docs/bundles.md).
func FirstRise(n int, score func(i int) float64) int {
	for i := 1; i < n; i++ {
		if score(i) > score(i-1) {
			return i + 1
		}
	}
	return 0
}

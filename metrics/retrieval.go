package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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

// DefaultCutoffs are trec_eval's default cutoffs for P, recall, ndcg_cut and
// map_cut; DefaultSuccessCutoffs those of success.
var (
	DefaultCutoffs        = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	DefaultSuccessCutoffs = []int{1, 5, 10}
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
	// Cutoffs of P_k, recall_k, ndcg_cut_k, map_cut_k and success_k.
	P, Recall, NDCGCut, MAPCut, Success []int
}

// DefaultTrecOptions returns trec_eval's defaults: relevance level 1,
// cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000 for P, recall, ndcg_cut
// and map_cut, and 1, 5, 10 for success.
func DefaultTrecOptions() TrecOptions {
	return TrecOptions{
		RelLevel: 1,
		P:        slices.Clone(DefaultCutoffs),
		Recall:   slices.Clone(DefaultCutoffs),
		NDCGCut:  slices.Clone(DefaultCutoffs),
		MAPCut:   slices.Clone(DefaultCutoffs),
		Success:  slices.Clone(DefaultSuccessCutoffs),
	}
}

// Validate reports the first cutoff list that is not strictly ascending
// positive integers.
func (o *TrecOptions) Validate() error {
	for _, l := range []struct {
		name string
		cuts []int
	}{{"P", o.P}, {"recall", o.Recall}, {"ndcg_cut", o.NDCGCut}, {"map_cut", o.MAPCut}, {"success", o.Success}} {
		for i, k := range l.cuts {
			if k <= 0 {
				return fmt.Errorf("%s cutoff %d is not positive", l.name, k)
			}
			if i > 0 && l.cuts[i-1] >= k {
				return fmt.Errorf("%s cutoffs %v are not distinct and ascending", l.name, l.cuts)
			}
		}
	}
	return nil
}

// TrecMeasures holds trec_eval's measures for one query, or their summary
// over queries. For one query every field is that query's value. In a
// summary, NumRet, NumRel and NumRelRet are sums over the averaged queries
// and every other field is the arithmetic mean (GMMAP the geometric mean of
// MAP, as trec_eval's gm_map). The cutoff slices are parallel to the
// [TrecOptions] lists they were computed with.
type TrecMeasures struct {
	NumRet    int // documents retrieved
	NumRel    int // judged documents with grade >= RelLevel (grades < 0 excluded)
	NumRelRet int // relevant documents retrieved
	MAP       float64
	GMMAP     float64 // summary only (0 for one query)
	RPrec     float64
	RecipRank float64
	NDCG      float64
	P         []float64
	Recall    []float64
	NDCGCut   []float64
	MAPCut    []float64
	Success   []float64
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
	ideal  []int
	nRel   []int     // prefix: relevant among the first i documents
	apSum  []float64 // prefix: sum of precision at relevant ranks
	dcg    []float64 // prefix: discounted cumulative gain
	idcg   []float64 // prefix: ideal DCG
	firstR int
}

// log2Table caches log2(i+2) for ranks i+1; log2Plus2 extends it on demand.
var log2Table = func() []float64 {
	t := make([]float64, 4096)
	for i := range t {
		t[i] = math.Log2(float64(i + 2))
	}
	return t
}()

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
// (trec_eval's default), discounted by log2(rank+1), normalised by the ideal
// ranking of every judged document with a positive grade.
func EvaluateQuery[H any](e *Evaluator, ranked []H, id func(H) string, judged map[string]int, opts *TrecOptions) TrecMeasures {
	e.rels = e.rels[:0]
	for _, h := range ranked {
		g, ok := judged[id(h)]
		switch {
		case !ok:
			g = relNotJudged
		case g < 0:
			g = relUnjudged
		}
		e.rels = append(e.rels, g)
	}
	return e.evaluate(judged, opts)
}

// evaluate computes the measures from e.rels (the relevance value at each
// rank) and the query's judgements.
func (e *Evaluator) evaluate(judged map[string]int, opts *TrecOptions) TrecMeasures {
	level := opts.RelLevel
	var m TrecMeasures

	// Judged side: num_rel and the ideal gains (positive grades, descending).
	e.ideal = e.ideal[:0]
	for _, g := range judged {
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
	for i, r := range e.rels {
		if r >= level {
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
	return m
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
	cuts := slices.Clone(cutoffs)
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	if len(cuts) > 0 && cuts[0] < 1 {
		return nil, fmt.Errorf("retrieval cutoff %d is not positive", cuts[0])
	}
	seen := make(map[string]struct{}, len(ranked))
	for i, id := range ranked {
		if _, dup := seen[id]; dup {
			return nil, fmt.Errorf("document %q appears twice in the ranked list (second time at rank %d)", id, i+1)
		}
		seen[id] = struct{}{}
	}
	opts := TrecOptions{RelLevel: 1, P: cuts, Recall: cuts, NDCGCut: cuts, MAPCut: cuts, Success: cuts}
	var e Evaluator
	m := EvaluateQuery(&e, ranked, func(s string) string { return s }, judged, &opts)
	out := make(map[string]float64, 6*len(cuts)+4)
	out["ndcg"] = m.NDCG
	out["mrr"] = m.RecipRank
	out["map"] = m.MAP
	out["r_precision"] = m.RPrec
	for j, k := range cuts {
		s := strconv.Itoa(k)
		out["ndcg@"+s] = m.NDCGCut[j]
		out["recall@"+s] = m.Recall[j]
		out["precision@"+s] = m.P[j]
		out["map@"+s] = m.MAPCut[j]
		out["hit@"+s] = m.Success[j]
		if e.firstR > 0 && e.firstR <= k {
			out["mrr@"+s] = 1 / float64(e.firstR)
		} else {
			out["mrr@"+s] = 0
		}
	}
	return out, nil
}

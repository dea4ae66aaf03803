package metrics

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lasagna-go/lasagna/internal/crmath"
)

// Averaging names the set of queries a run's summary averages over. The
// tools disagree, so lasagna always says which one it used.
type Averaging int

const (
	// AverageTrecEval is trec_eval 10's default: the queries present in both
	// the qrels and the run. Run queries without judgements are ignored; a
	// qrels query missing from the run is an error ([MissingQueriesError]),
	// as trec_eval 10 makes it fatal.
	AverageTrecEval Averaging = iota
	// AverageComplete is trec_eval -c (and ir_measures): every qrels query;
	// a query missing from the run scores 0 on every measure (its NumRel
	// still counts). The summary's NumRel is trec_eval -c's: the judgements
	// with a grade above 0, whatever RelLevel (see [TrecMeasures]).
	AverageComplete
	// AverageRun is BEIR / pytrec_eval: the run's queries that have
	// judgements; qrels queries missing from the run are silently left out
	// (as trec_eval 9 did).
	AverageRun
)

// String returns the mode's name: "trec_eval", "complete" or "run".
func (a Averaging) String() string {
	switch a {
	case AverageTrecEval:
		return "trec_eval"
	case AverageComplete:
		return "complete"
	case AverageRun:
		return "run"
	}
	return fmt.Sprintf("Averaging(%d)", int(a))
}

// MissingQueriesError reports qrels queries with no results in the run under
// [AverageTrecEval]. IDs are sorted byte-wise.
type MissingQueriesError struct {
	IDs []string
	// Kind names the judgement file the queries come from in the message:
	// "qrels" when empty, or trec_eval's other -R formats ("prefs",
	// "qrels_prefs", "qrels_jg").
	Kind string
}

// FileKind is e.Kind, or "qrels" when it is empty.
func (e *MissingQueriesError) FileKind() string {
	if e.Kind == "" {
		return "qrels"
	}
	return e.Kind
}

func (e *MissingQueriesError) Error() string {
	more := ""
	if len(e.IDs) > 1 {
		more = fmt.Sprintf(" (and %d more %s queries)", len(e.IDs)-1, e.FileKind())
	}
	return fmt.Sprintf("%s query %q has no results in the run%s; average with complete judgements (trec_eval -c) to score such queries 0", e.FileKind(), e.IDs[0], more)
}

// TrecQuery is one evaluated query: its id, whether it was missing from the
// run (only under [AverageComplete]), and its measures.
type TrecQuery struct {
	ID      string
	Missing bool
	TrecMeasures
}

// TrecRun is the evaluation of a whole run. Queries are the averaged
// queries in byte-wise ascending id order (trec_eval's -q order); Summary
// holds the sums and means over them (see [TrecMeasures]); NumQ is
// len(Queries).
type TrecRun struct {
	Averaging Averaging
	Queries   []TrecQuery
	Summary   TrecMeasures
	NumQ      int
}

// EvaluateRun evaluates a run against qrels as trec_eval does and averages
// over the queries avg names. run maps query ids to that query's retrieved
// documents in rank order (sort with [SortTREC] first for trec_eval's
// order); id returns a document's id. See [EvaluateQuery] for the per-query
// rules. Queries are evaluated in parallel over GOMAXPROCS goroutines; run
// and qrels are only read.
//
// It returns an error when opts is invalid, when no query can be averaged,
// or (under [AverageTrecEval]) a [*MissingQueriesError].
func EvaluateRun[H any](qrels map[string]map[string]int, run map[string][]H, id func(H) string, opts TrecOptions, avg Averaging) (*TrecRun, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ids, err := averagedIDs(qrels, func(q string) bool { _, ok := run[q]; return ok }, avg, opts.Query)
	if err != nil {
		return nil, err
	}
	out := &TrecRun{Averaging: avg, Queries: make([]TrecQuery, len(ids)), NumQ: len(ids)}
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(ids))
	for range workers {
		wg.Go(func() {
			var e Evaluator
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) {
					return
				}
				q := ids[i]
				hits, inRun := run[q]
				tq := TrecQuery{ID: q, Missing: !inRun}
				if inRun {
					tq.TrecMeasures = EvaluateQuery(&e, hits, id, qrels[q], &opts)
				} else {
					tq.TrecMeasures = e.missingQuery(qrels[q], &opts)
				}
				out.Queries[i] = tq
			}
		})
	}
	wg.Wait()
	out.Summary = summarize(out.Queries, &opts, avg)
	completeQuery(out, qrels, &opts, avg)
	return out, nil
}

// SummarizeRun assembles a run's evaluation from measures computed query
// by query, as [EvaluateRun] would: evaluated maps the id of every query
// that has both results in the run and judgements in qrels to its
// [EvaluateQuery] measures, computed with opts. Queries of qrels missing
// from evaluated are missing from the run: under [AverageComplete] they
// score as an empty ranking, under [AverageTrecEval] they are a
// [*MissingQueriesError]. It lets a caller evaluate each query as soon as
// it has read it instead of holding the whole run.
func SummarizeRun(qrels map[string]map[string]int, evaluated map[string]TrecMeasures, opts TrecOptions, avg Averaging) (*TrecRun, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ids, err := averagedIDs(qrels, func(q string) bool { _, ok := evaluated[q]; return ok }, avg, opts.Query)
	if err != nil {
		return nil, err
	}
	out := &TrecRun{Averaging: avg, Queries: make([]TrecQuery, len(ids)), NumQ: len(ids)}
	var e Evaluator
	for i, q := range ids {
		m, ok := evaluated[q]
		if !ok {
			m = e.missingQuery(qrels[q], &opts)
		}
		out.Queries[i] = TrecQuery{ID: q, Missing: !ok, TrecMeasures: m}
	}
	out.Summary = summarize(out.Queries, &opts, avg)
	completeQuery(out, qrels, &opts, avg)
	return out, nil
}

// completeQuery fixes the summary when opts.Query leaves queries out under
// AverageComplete, as trec_eval -c -D level.qid does: its averages divide
// by the number of qrels queries (meas_avg.c), the left-out ones adding 0
// (and the geometric means' floor), num_q is that number, and num_rel
// counts the positive grades of every qrels query (m_num_rel.c).
func completeQuery(out *TrecRun, qrels map[string]map[string]int, opts *TrecOptions, avg Averaging) {
	if avg != AverageComplete || opts.Query == "" {
		return
	}
	s := &out.Summary
	n := 0
	for _, judged := range qrels {
		for _, g := range judged {
			if g > 0 {
				n++
			}
		}
	}
	s.NumRel = n
	all, in := float64(len(qrels)), float64(len(out.Queries))
	logSum, logBpref := (all-in)*crmath.Log(gmMinMAP), (all-in)*crmath.Log(gmMinMAP)
	for i := range out.Queries {
		logSum += crmath.Log(max(out.Queries[i].MAP, gmMinMAP))
		logBpref += crmath.Log(max(out.Queries[i].Bpref, gmMinMAP))
	}
	s.GMMAP = crmath.Exp(logSum / all)
	s.GMBpref = crmath.Exp(logBpref / all)
	s.divideMeans(1 / in) // back to the sums (in is 1: exact)
	s.divideMeans(all)
	out.NumQ = len(qrels)
}

// averagedIDs returns the qrels queries a summary averages over under avg,
// in byte-wise order; inRun tells whether the run has results for a query.
// When only is not empty, no other query is averaged (TrecOptions.Query).
func averagedIDs(qrels map[string]map[string]int, inRun func(string) bool, avg Averaging, only string) ([]string, error) {
	ids := make([]string, 0, len(qrels))
	var missing []string
	for q := range qrels {
		switch {
		case only != "" && q != only:
		case inRun(q):
			ids = append(ids, q)
		case avg == AverageComplete:
			ids = append(ids, q)
		case avg == AverageTrecEval:
			missing = append(missing, q)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, &MissingQueriesError{IDs: missing}
	}
	if len(ids) == 0 && only != "" {
		return nil, fmt.Errorf("no query has both results in the run and judgements in the qrels (averaging %s, query %q only)", avg, only)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no query has both results in the run and judgements in the qrels (averaging %s)", avg)
	}
	slices.SortFunc(ids, strings.Compare)
	return ids, nil
}

// summarize sums counts and averages values in query order (trec_eval's
// accumulation order, so rounding matches). Under AverageComplete, NumRel
// is trec_eval -c's count of positive grades.
func summarize(qs []TrecQuery, opts *TrecOptions, avg Averaging) TrecMeasures {
	s := TrecMeasures{
		P:             make([]float64, len(opts.P)),
		Recall:        make([]float64, len(opts.Recall)),
		NDCGCut:       make([]float64, len(opts.NDCGCut)),
		MAPCut:        make([]float64, len(opts.MAPCut)),
		Success:       make([]float64, len(opts.Success)),
		RelativeP:     make([]float64, len(opts.RelativeP)),
		Unj:           make([]float64, len(opts.Unj)),
		IPrecAtRecall: make([]float64, len(opts.IPrecAtRecall)),
		RPrecMult:     make([]float64, len(opts.RPrecMult)),
	}
	logSum, logBpref := 0.0, 0.0
	for i := range qs {
		m := &qs[i].TrecMeasures
		s.NumRet += m.NumRet
		s.NumRel += m.NumRel
		s.numPositive += m.numPositive
		s.NumRelRet += m.NumRelRet
		s.NumNonrelJudgedRet += m.NumNonrelJudgedRet
		s.MAP += m.MAP
		logSum += crmath.Log(max(m.MAP, gmMinMAP))
		s.RPrec += m.RPrec
		s.Bpref += m.Bpref
		logBpref += crmath.Log(max(m.Bpref, gmMinMAP))
		s.RecipRank += m.RecipRank
		s.NDCG += m.NDCG
		s.DCG += m.DCG
		s.IdealDCG += m.IdealDCG
		s.Utility += m.Utility
		s.Avg11pt += m.Avg11pt
		s.SetP += m.SetP
		s.SetRelativeP += m.SetRelativeP
		s.SetRecall += m.SetRecall
		s.SetMAP += m.SetMAP
		s.SetF += m.SetF
		s.BinG += m.BinG
		s.G += m.G
		s.NDCGRel += m.NDCGRel
		s.RNDCG += m.RNDCG
		s.InfAP += m.InfAP
		s.RBP += m.RBP
		s.RBPResid += m.RBPResid
		s.Yaap += m.Yaap
		addTo(s.P, m.P)
		addTo(s.Recall, m.Recall)
		addTo(s.NDCGCut, m.NDCGCut)
		addTo(s.MAPCut, m.MAPCut)
		addTo(s.Success, m.Success)
		addTo(s.RelativeP, m.RelativeP)
		addTo(s.Unj, m.Unj)
		addTo(s.IPrecAtRecall, m.IPrecAtRecall)
		addTo(s.RPrecMult, m.RPrecMult)
	}
	if avg == AverageComplete {
		// m_num_rel.c: under -c, the summary counts the judgements with a
		// grade above 0 in every qrels query (the averaged queries), not
		// the per-query num_rel at -l.
		s.NumRel = s.numPositive
	}
	n := float64(len(qs))
	if n == 0 {
		return s
	}
	s.GMMAP = crmath.Exp(logSum / n)
	s.GMBpref = crmath.Exp(logBpref / n)
	s.divideMeans(n)
	return s
}

// divideMeans divides every averaged value (all but the counts and the
// geometric means) by n.
func (s *TrecMeasures) divideMeans(n float64) {
	for _, v := range []*float64{&s.MAP, &s.RPrec, &s.Bpref, &s.RecipRank, &s.NDCG, &s.DCG, &s.IdealDCG, &s.Utility, &s.Avg11pt, &s.SetP, &s.SetRelativeP, &s.SetRecall, &s.SetMAP, &s.SetF, &s.BinG, &s.G, &s.NDCGRel, &s.RNDCG, &s.InfAP, &s.RBP, &s.RBPResid, &s.Yaap} {
		*v /= n
	}
	for _, v := range [][]float64{s.P, s.Recall, s.NDCGCut, s.MAPCut, s.Success, s.RelativeP, s.Unj, s.IPrecAtRecall, s.RPrecMult} {
		for j := range v {
			v[j] /= n
		}
	}
}

// gmMinMAP is the floor trec_eval's gm_map puts under a query's average
// precision before taking its logarithm.
const gmMinMAP = 0.00001

func addTo(dst, src []float64) {
	for j := range dst {
		dst[j] += src[j]
	}
}

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// trecMeasure is one trec_eval measure (or family of cutoff measures) in
// trec_eval's output order.
type trecMeasure struct {
	name         string
	implemented  bool
	cut          bool // takes cutoff parameters: name.k1,k2,…
	fcut         bool // takes fractional parameters: name.0.1,0.5 (printed %3.2f)
	summaryOnly  bool // printed only in the "all" block (runid, num_q, gm_map)
	perQueryOnly bool // printed only in query blocks (relstring)
}

// trecMeasures lists trec_eval 10's measures in the order it prints them;
// lasagna implements those marked.
var trecMeasures = []trecMeasure{
	{name: "runid", implemented: true, summaryOnly: true},
	{name: "num_q", implemented: true, summaryOnly: true},
	{name: "num_ret", implemented: true},
	{name: "num_rel", implemented: true},
	{name: "num_rel_ret", implemented: true},
	{name: "map", implemented: true},
	{name: "gm_map", implemented: true, summaryOnly: true},
	{name: "Rprec", implemented: true},
	{name: "bpref", implemented: true},
	{name: "recip_rank", implemented: true},
	{name: "iprec_at_recall", implemented: true, fcut: true},
	{name: "P", implemented: true, cut: true},
	{name: "relstring", implemented: true, perQueryOnly: true},
	{name: "recall", implemented: true, cut: true},
	{name: "infAP", implemented: true},
	{name: "gm_bpref", implemented: true, summaryOnly: true},
	{name: "Rprec_mult", implemented: true, fcut: true},
	{name: "utility", implemented: true},
	{name: "11pt_avg", implemented: true},
	{name: "binG", implemented: true},
	{name: "G", implemented: true},
	{name: "dcg", implemented: true},
	{name: "ideal_dcg", implemented: true},
	{name: "ndcg", implemented: true},
	{name: "ndcg_rel", implemented: true},
	{name: "Rndcg", implemented: true},
	{name: "ndcg_cut", implemented: true, cut: true},
	{name: "map_cut", implemented: true, cut: true},
	{name: "relative_P", implemented: true, cut: true},
	{name: "success", implemented: true, cut: true},
	{name: "set_P", implemented: true},
	{name: "set_relative_P", implemented: true},
	{name: "set_recall", implemented: true},
	{name: "set_map", implemented: true},
	{name: "set_F", implemented: true},
	{name: "num_nonrel_judged_ret", implemented: true},
	{name: "rbp", implemented: true},
	{name: "rbp_resid", implemented: true},
	{name: "unj", implemented: true, cut: true},
}

// trecNicknames are trec_eval's names for sets of measures.
var trecNicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"},
	"all_trec": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
		"recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
		"map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
		"num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"},
	"set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"},
}

// trecSelection is what -m asked for: the measures to print and the cutoffs
// of the cutoff measures.
type trecSelection struct {
	on      map[string]bool
	cutoffs map[string][]int     // only for measures given with parameters
	fcuts   map[string][]float64 // the same for fractional parameters
	// relstringParam is relstring's -m parameter as written (it names the
	// measure, "relstring_20"); relstringLen the number of ranks it shows.
	relstringParam string
	relstringLen   int
}

func findTrecMeasure(name string) (trecMeasure, bool) {
	for _, m := range trecMeasures {
		if m.name == name {
			return m, true
		}
	}
	return trecMeasure{}, false
}

func implementedTrecNames() []string {
	var names []string
	for _, m := range trecMeasures {
		if m.implemented {
			names = append(names, m.name)
		}
	}
	return names
}

// parseTrecMeasures interprets -m values as trec_eval does: a measure name,
// a nickname (official, all_trec, set), or name.params where params are
// comma-separated cutoffs; the first parameters given for a measure win.
// No -m means "official".
func parseTrecMeasures(specs []string) (*trecSelection, error) {
	if len(specs) == 0 {
		specs = []string{"official"}
	}
	sel := &trecSelection{on: map[string]bool{}, cutoffs: map[string][]int{}, fcuts: map[string][]float64{}}
	for _, spec := range specs {
		name, params, hasParams := strings.Cut(spec, ".")
		if hasParams && params == "" {
			return nil, fmt.Errorf("measure %q has an empty parameter list after '.'; write e.g. P.5,10", spec)
		}
		if list, ok := trecNicknames[name]; ok {
			if hasParams {
				return nil, fmt.Errorf("measure set %q takes no parameters", name)
			}
			for _, n := range list {
				sel.on[n] = true
			}
			continue
		}
		m, ok := findTrecMeasure(name)
		if te, isLasagna := lasagnaToTrec(spec); !ok && isLasagna {
			if strings.HasPrefix(spec, "mrr@") {
				return nil, fmt.Errorf("%q is lasagna's name; trec_eval's reciprocal rank has no cutoff: write -m %s", spec, te)
			}
			return nil, fmt.Errorf("%q is lasagna's name; did you mean trec_eval's %s? (write -m %s)", spec, te, te)
		}
		if !ok {
			return nil, fmt.Errorf("unknown trec_eval measure %q%s (lasagna implements %s; sets: official, all_trec, set)", name, didYouMean(name), strings.Join(implementedTrecNames(), ", "))
		}
		if !m.implemented {
			return nil, fmt.Errorf("trec_eval measure %q is not implemented by lasagna (it implements %s)", name, strings.Join(implementedTrecNames(), ", "))
		}
		sel.on[name] = true
		if !hasParams {
			continue
		}
		if name == "relstring" {
			if sel.relstringParam == "" {
				x, err := strconv.ParseFloat(params, 64)
				if err != nil || x < 0 || x > 1e6 {
					return nil, fmt.Errorf("measure relstring: parameter %q is not a number of ranks; write e.g. relstring.20", params)
				}
				sel.relstringParam, sel.relstringLen = params, int(x)
			}
			continue
		}
		if !m.cut && !m.fcut {
			return nil, fmt.Errorf("measure %q takes no parameters in lasagna (trec_eval's parameters of ndcg, ndcg_rel, Rndcg, G, rbp, rbp_resid, utility, 11pt_avg and set_F are not implemented)", spec)
		}
		_, done := sel.cutoffs[name]
		_, fdone := sel.fcuts[name]
		if done || fdone {
			continue // trec_eval uses the first parameters given
		}
		if m.fcut {
			cuts, err := parseFloatCutoffs(name, params)
			if err != nil {
				return nil, err
			}
			sel.fcuts[name] = cuts
			continue
		}
		cuts, err := parseCutoffs(name, params)
		if err != nil {
			return nil, err
		}
		sel.cutoffs[name] = cuts
	}
	return sel, nil
}

// parseCutoffs parses "5,10,3" like trec_eval: integers (a fractional part
// is dropped, as strtol does), sorted ascending, positive and distinct.
func parseCutoffs(name, params string) ([]int, error) {
	var cuts []int
	for p := range strings.SplitSeq(params, ",") {
		digits := p
		if i := strings.IndexByte(p, '.'); i > 0 && strings.Trim(p[i+1:], "0123456789") == "" {
			digits = p[:i]
		}
		k, err := strconv.Atoi(digits)
		if err != nil {
			return nil, fmt.Errorf("measure %s: cutoff %q is not an integer; write e.g. %s.5,10,100", name, p, name)
		}
		if k <= 0 {
			return nil, fmt.Errorf("measure %s: cutoff %d is not positive", name, k)
		}
		cuts = append(cuts, k)
	}
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		if cuts[i] == cuts[i-1] {
			return nil, fmt.Errorf("measure %s: cutoff %d is given twice", name, cuts[i])
		}
	}
	return cuts, nil
}

// parseFloatCutoffs parses "0.1,.5" like trec_eval: numbers, sorted
// ascending and distinct.
func parseFloatCutoffs(name, params string) ([]float64, error) {
	var cuts []float64
	for p := range strings.SplitSeq(params, ",") {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("measure %s: parameter %q is not a number >= 0; write e.g. %s.0.1,0.5", name, p, name)
		}
		cuts = append(cuts, x)
	}
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		if cuts[i] == cuts[i-1] {
			return nil, fmt.Errorf("measure %s: parameter %v is given twice", name, cuts[i])
		}
	}
	return cuts, nil
}

// lasagnaToTrec returns the trec_eval -m spec of a lasagna retrieval
// metric name (the table of the README's metrics section), e.g. ndcg@10 →
// ndcg_cut.10; mrr@k maps to recip_rank, which has no cutoff.
func lasagnaToTrec(name string) (string, bool) {
	family, k, cut := strings.Cut(name, "@")
	if !cut {
		te, ok := map[string]string{"mrr": "recip_rank", "r_precision": "Rprec"}[name]
		return te, ok
	}
	if n, err := strconv.Atoi(k); err != nil || n < 1 {
		return "", false
	}
	te, ok := map[string]string{"ndcg": "ndcg_cut.", "recall": "recall.", "precision": "P.", "map": "map_cut.", "hit": "success."}[family]
	if ok {
		return te + k, true
	}
	if family == "mrr" {
		return "recip_rank", true // trec_eval's reciprocal rank has no cutoff
	}
	return "", false
}

func didYouMean(name string) string {
	names := make([]string, len(trecMeasures))
	for i, m := range trecMeasures {
		names[i] = m.name
	}
	return suggest.Hint(name, names)
}

// options turns the selection into metrics options: selected cutoff
// measures get their -m parameters or trec_eval's defaults.
func (s *trecSelection) options(level int) metrics.TrecOptions {
	d := metrics.DefaultTrecOptions()
	pick := func(name string, def []int) []int {
		if !s.on[name] {
			return nil
		}
		if c, ok := s.cutoffs[name]; ok {
			return c
		}
		return def
	}
	relstringLen := 0
	if s.on["relstring"] {
		relstringLen = d.RelString
		if s.relstringParam != "" {
			relstringLen = s.relstringLen
		}
	}
	fpick := func(name string, def []float64) []float64 {
		if !s.on[name] {
			return nil
		}
		if c, ok := s.fcuts[name]; ok {
			return c
		}
		return def
	}
	// Measures nobody prints are not computed.
	var omit metrics.TrecOmit
	if !s.on["binG"] && !s.on["G"] && !s.on["ndcg_rel"] && !s.on["Rndcg"] {
		omit |= metrics.OmitGain
	}
	if !s.on["infAP"] && !s.on["rbp"] && !s.on["rbp_resid"] {
		omit |= metrics.OmitInfAPRBP
	}
	if !s.on["11pt_avg"] {
		omit |= metrics.Omit11pt
	}
	return metrics.TrecOptions{
		Omit:          omit,
		RelLevel:      level,
		P:             pick("P", d.P),
		Recall:        pick("recall", d.Recall),
		NDCGCut:       pick("ndcg_cut", d.NDCGCut),
		MAPCut:        pick("map_cut", d.MAPCut),
		Success:       pick("success", d.Success),
		RelativeP:     pick("relative_P", d.RelativeP),
		Unj:           pick("unj", d.Unj),
		IPrecAtRecall: fpick("iprec_at_recall", d.IPrecAtRecall),
		RPrecMult:     fpick("Rprec_mult", d.RPrecMult),
		RelString:     relstringLen,
	}
}

func newMetricsTrecCmd(stdout io.Writer) *cobra.Command {
	var (
		perQuery, complete, noSummary bool
		level                         int
		measures                      []string
		average                       string
	)
	cmd := &cobra.Command{
		Use:   "trec QRELS RUN",
		Short: "Evaluate a TREC run against qrels, printing what trec_eval prints",
		Long: `Evaluate a TREC run file (qid Q0 docno rank score run_id) against a qrels file
(qid iter docno rel) exactly as trec_eval 10 does, and print trec_eval's output
format: measure name padded to 22 characters, a tab, the query id or "all", a
tab, the value.

Ranking follows trec_eval: score descending, equal scores by docno descending
(byte-wise); the rank column is ignored. Measures (-m, repeatable; default
"official"): all of trec_eval's standard measures — runid num_q num_ret num_rel
num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring
recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg
ndcg_rel Rndcg ndcg_cut map_cut relative_P success set_P set_relative_P
set_recall set_map set_F num_nonrel_judged_ret rbp rbp_resid unj — and the
sets official, all_trec and set. Parameters as in "-m P.5,10", "-m ndcg_cut.10",
"-m iprec_at_recall.0.5" or "-m relstring.20"; the parameters of ndcg,
ndcg_rel, Rndcg, G, rbp (gains, persistence), utility, 11pt_avg and set_F are
not implemented.

Averaging: by default over the queries in both the qrels and the run; a qrels
query missing from the run is an error, as in trec_eval 10. -c averages over
every qrels query (missing ones score 0), so a run file without a result
line scores 0 on every measure (trec_eval itself cannot read an empty file);
--average run averages over the run's judged queries and skips missing ones
(BEIR / pytrec_eval). Run queries without judgements are never evaluated, so a
document may repeat in them, as trec_eval allows. With -c the num_rel summary
counts every grade above 0, whatever -l, and Rndcg at -l 0 prints -nan for a
query with only grade-0 judgements, both as trec_eval does (docs/metrics.md,
"trec_eval's edge cases").

A lasagna metric name is answered with its trec_eval name: -m ndcg@10 is
refused with "did you mean trec_eval's ndcg_cut.10?".

Exit status: 0 evaluated; 1 unreadable or malformed qrels or run, or a qrels
query missing from the run without -c; 2 usage errors (unknown measure or
flag).`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			avg := metrics.AverageTrecEval
			switch average {
			case "", "trec_eval":
			case "complete":
				avg = metrics.AverageComplete
			case "run":
				avg = metrics.AverageRun
			default:
				return usageError("metrics trec: --average %q is not one of trec_eval, complete, run", average)
			}
			if complete {
				if average != "" && average != "complete" {
					return usageError("metrics trec: -c (complete averaging) contradicts --average %s", average)
				}
				avg = metrics.AverageComplete
			}
			if level < 0 {
				return usageError("metrics trec: -l (--level) %d is negative; give a relevance level of 0 or more (a judged grade >= it is relevant; default 1)", level)
			}
			sel, err := parseTrecMeasures(measures)
			if err != nil {
				return usageError("metrics trec: %v", err)
			}
			return runMetricsTrec(stdout, args[0], args[1], sel, sel.options(level), avg, perQuery, !noSummary)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&perQuery, "query", "q", false, "also print each query's values (queries in byte-wise id order), then the summary")
	f.BoolVarP(&complete, "complete", "c", false, "average over every qrels query; queries missing from the run score 0 (trec_eval -c)")
	f.IntVarP(&level, "level", "l", 1, "relevance level: a grade >= level is relevant (ndcg and ndcg_cut always use the grade as gain)")
	f.StringArrayVarP(&measures, "measure", "m", nil, "measure[.cutoffs] or set (official, all_trec, set) to print; repeatable")
	f.BoolVarP(&noSummary, "nosummary", "n", false, "do not print the summary (\"all\") block")
	f.StringVar(&average, "average", "", "averaging set: trec_eval (default), complete (same as -c), run (BEIR / pytrec_eval)")
	return cmd
}

// runProblems converts the run parser's problems into the
// datasets.Problems that datasets.ParseRun reports for the same file.
func runProblems(probs []trecparse.Problem) datasets.Problems {
	ps := make(datasets.Problems, len(probs))
	for i, p := range probs {
		ps[i] = datasets.Problem(p)
	}
	return ps
}

// trecHeapLimitMin is the smallest heap limit runMetricsTrec sets while
// the collector is paused.
const trecHeapLimitMin = 64 << 20

// pauseGC turns the garbage collector's proportional pacing off and lets
// it run only when the heap reaches limit bytes; the returned function
// restores both settings. Nearly everything `metrics trec` allocates (the
// hits, the qrels) lives until it exits, so collecting as the heap grows
// only rescans live memory: a fifth of the wall time on a 5M-line run.
// The limit keeps the peak bounded all the same.
func pauseGC(limit int64) func() {
	oldLimit := debug.SetMemoryLimit(max(limit, trecHeapLimitMin))
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

func runMetricsTrec(stdout io.Writer, qrelsPath, runPath string, sel *trecSelection, opts metrics.TrecOptions, avg metrics.Averaging, perQuery, summary bool) error {
	// The qrels are read while the run is parsed (on all CPUs): the run's
	// parser leaves a CPU idle while it reads the file.
	var (
		qrels     lasagna.Qrels
		qrelsErr  error
		qrelsDone = make(chan struct{})
	)
	go func() {
		defer close(qrelsDone)
		qdata, err := datasets.ReadFile(cliPath(qrelsPath))
		if err != nil {
			qrelsErr = err
			return
		}
		qrels, qrelsErr = datasets.ParseQrels(qrelsPath, qdata)
	}()
	rdata, release, drop, runErr := readRunFile(runPath)
	var (
		ev  *metrics.TrecRun
		tag string
		err error
	)
	if runErr == nil {
		// The heap is nearly all live data (the qrels, and the hits when
		// the run must be held whole: 24 bytes a line, about half the run
		// file for usual line lengths). The limit only guards against
		// garbage piling up.
		defer pauseGC(2 * int64(len(rdata)))()
		// The run's ids alias rdata (trecparse, not datasets.ParseRun, which
		// would copy the file); everything that uses them (evaluation,
		// output) is done before release. Error messages hold copies.
		defer release()
		var streamed bool
		if opts.Validate() == nil {
			ev, tag, streamed, err = streamTrec(rdata, drop, qrelsDone, &qrels, &qrelsErr, opts, avg)
		}
		if !streamed {
			<-qrelsDone
			ev, tag, runErr, err = evaluateTrecWhole(runPath, rdata, qrels, qrelsErr, opts, avg)
		}
	}
	<-qrelsDone
	if qrelsErr != nil {
		return problems(qrelsErr)
	}
	if runErr != nil {
		return problems(runErr)
	}
	if err != nil {
		var me *metrics.MissingQueriesError
		if errors.As(err, &me) {
			more := ""
			if len(me.IDs) > 1 {
				more = fmt.Sprintf(" (nor do %d more qrels queries)", len(me.IDs)-1)
			}
			return problems(fmt.Errorf("%s: qrels query %q has no results in the run%s; use -c to score such queries 0, or --average run to leave them out as trec_eval 9 and BEIR do (trec_eval 10 stops here too)", runPath, me.IDs[0], more))
		}
		return problems(fmt.Errorf("%s and %s: %w", qrelsPath, runPath, err))
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	if perQuery {
		for i := range ev.Queries {
			writeTrecBlock(w, ev.Queries[i].ID, &ev.Queries[i].TrecMeasures, sel, &opts, tag, 0, false)
		}
	}
	if summary {
		writeTrecBlock(w, "all", &ev.Summary, sel, &opts, tag, ev.NumQ, true)
	}
	return w.Flush()
}

func hitID(h trecparse.Hit) string { return h.ID }

// evaluateTrecWhole parses the whole run and evaluates it: the path for
// runs that cannot be streamed (queries not grouped, or problems to
// report, which it returns as runErr). err is the evaluation's error.
func evaluateTrecWhole(runPath string, rdata []byte, qrels lasagna.Qrels, qrelsErr error, opts metrics.TrecOptions, avg metrics.Averaging) (ev *metrics.TrecRun, tag string, runErr, err error) {
	// A document retrieved twice is refused only in a query trec_eval
	// evaluates, one with judgements (docs/metrics.md, "trec_eval's edge
	// cases"); without readable qrels, their error is reported instead.
	run, probs := trecparse.ParseRunJudged(runPath, rdata, datasets.MaxProblems, func(qid string) bool {
		_, ok := qrels[qid]
		return ok
	})
	switch {
	case len(probs) == 1 && probs[0].Msg == trecparse.NoResults && avg == metrics.AverageComplete:
		// A run without results, averaged over every qrels query: each
		// query is missing and scores 0.
		run = &trecparse.Run{Hits: map[string][]trecparse.Hit{}}
	case len(probs) == 1 && probs[0].Msg == trecparse.NoResults:
		return nil, "", fmt.Errorf("%s: %s; with -c every qrels query scores 0", runPath, trecparse.NoResults), nil
	case probs != nil:
		return nil, "", runProblems(probs), nil
	}
	if qrelsErr != nil {
		return nil, "", nil, nil
	}
	ev, err = metrics.EvaluateRun(qrels, run.Hits, hitID, opts, avg)
	return ev, run.Tag, nil, err
}

// trecStreamWorker is one run parser's evaluation state in streamTrec.
type trecStreamWorker struct {
	e       metrics.Evaluator
	ready   bool // the qrels are parsed
	pending []trecPending
	held    []trecparse.Hit // the pending queries' hits
	out     []trecEvaluated
}

// trecPendingHits is how many hits a streamTrec worker holds while the
// qrels are parsed (24 MB, about 1,000 queries of 1,000 hits: more than
// it parses while a 300k-line qrels file is read on an idle CPU); with
// more, it waits for them.
const trecPendingHits = 1 << 20

// trecHeldCap is the capacity of a worker's held hits for a run file of n
// bytes: trecPendingHits, or fewer when the file cannot hold that many
// lines (a run line is at least 10 bytes), so a small run does not touch
// 24 MB of fresh memory. A run that holds more waits for the qrels.
func trecHeldCap(n int) int { return min(trecPendingHits, n/10+1) }

type trecPending struct {
	qid  string
	hits []trecparse.Hit
}

type trecEvaluated struct {
	qid string
	m   metrics.TrecMeasures
}

// streamTrec evaluates each query of a run grouped by query as soon as it
// is parsed (trecparse.StreamRun), so the run is never held whole. Queries
// parsed before the qrels are ready wait in a copy. ok is false when the
// run cannot be streamed, or retrieves a document twice for a judged query;
// the caller then parses it whole (and reports the duplicate). opts must be
// valid.
func streamTrec(rdata []byte, drop func(lo, hi int), qrelsDone <-chan struct{}, qrels *lasagna.Qrels, qrelsErr *error, opts metrics.TrecOptions, avg metrics.Averaging) (ev *metrics.TrecRun, tag string, ok bool, err error) {
	workers := make([]trecStreamWorker, trecparse.StreamWorkers(len(rdata)))
	eval := func(s *trecStreamWorker, qid string, hits []trecparse.Hit) {
		if *qrelsErr != nil {
			return
		}
		judged, ok := (*qrels)[qid]
		if !ok {
			return // not averaged under any mode
		}
		s.out = append(s.out, trecEvaluated{qid, metrics.EvaluateQuery(&s.e, hits, hitID, judged, &opts)})
	}
	drain := func(s *trecStreamWorker) {
		s.ready = true
		for _, p := range s.pending {
			eval(s, p.qid, p.hits)
		}
		s.pending, s.held = nil, nil
	}
	visit := func(w int, qid string, ranked []trecparse.Hit) {
		s := &workers[w]
		if !s.ready {
			select {
			case <-qrelsDone:
				drain(s)
			default:
				if s.held == nil {
					s.held = make([]trecparse.Hit, 0, trecHeldCap(len(rdata)))
				}
				if len(s.held)+len(ranked) > cap(s.held) {
					<-qrelsDone
					drain(s)
					break
				}
				at := len(s.held)
				s.held = append(s.held, ranked...)
				s.pending = append(s.pending, trecPending{qid, s.held[at:len(s.held):len(s.held)]})
				return
			}
		}
		eval(s, qid, ranked)
	}
	tag, _, dups, ok := trecparse.StreamRun(rdata, len(workers), visit)
	if !ok {
		// Not grouped by query (or a line to report): partition the lines
		// by query and evaluate query by query all the same, once the
		// qrels are read. What the stream did is dropped.
		held := false
		for i := range workers {
			held = held || workers[i].held != nil
		}
		clear(workers)
		if held {
			runtime.GC() // the dropped hits would stay: the collector is paused
		}
		part, pok := trecparse.PartitionRun(rdata, len(workers), drop)
		if !pok {
			return nil, "", false, nil
		}
		<-qrelsDone
		if *qrelsErr != nil {
			return nil, "", true, nil
		}
		dups = part.Rank(len(workers), visit)
		tag = part.Tag()
	}
	<-qrelsDone
	if *qrelsErr != nil {
		return nil, "", true, nil
	}
	for _, q := range dups {
		if _, judged := (*qrels)[q]; judged {
			return nil, "", false, nil
		}
	}
	n := 0
	for i := range workers {
		if !workers[i].ready {
			drain(&workers[i])
		}
		n += len(workers[i].out)
	}
	evaluated := make(map[string]metrics.TrecMeasures, n)
	for i := range workers {
		for _, q := range workers[i].out {
			evaluated[q.qid] = q.m
		}
	}
	ev, err = metrics.SummarizeRun(*qrels, evaluated, opts, avg)
	return ev, tag, true, err
}

// trecLine formats one line of trec_eval's output, as its printf formats
// "%-22s\t%s\t%6.4f\n" (or %d, %s) do: strconv rounds a float's exact
// value to the nearest with ties to even, as C's printf does. NaN and the
// infinities are spelt as glibc spells them: trec_eval's only NaN is a 0/0
// (Rndcg at -l 0, docs/metrics.md), which x86-64 makes a negative NaN,
// printed "-nan"; infinities are "inf" and "-inf".
type trecLine struct{ b []byte }

// name starts the line with name, then sep and k when sep is not empty
// ("P" "_" 10: P_10); the caller may append more before the value.
func (o *trecLine) name(name, sep string, k int) {
	o.b = append(o.b[:0], name...)
	if sep != "" {
		o.b = append(o.b, sep...)
		if k > 0 {
			o.b = strconv.AppendInt(o.b, int64(k), 10)
		}
	}
}

// pad pads the name to 22 bytes and adds the query id.
func (o *trecLine) pad(qid string) {
	for len(o.b) < 22 {
		o.b = append(o.b, ' ')
	}
	o.b = append(o.b, '\t')
	o.b = append(o.b, qid...)
	o.b = append(o.b, '\t')
}

func (o *trecLine) float(w *bufio.Writer, qid string, v float64) {
	o.pad(qid)
	at := len(o.b)
	switch {
	case math.IsNaN(v):
		o.b = append(o.b, "-nan"...)
	case math.IsInf(v, 1):
		o.b = append(o.b, "inf"...)
	case math.IsInf(v, -1):
		o.b = append(o.b, "-inf"...)
	default:
		o.b = strconv.AppendFloat(o.b, v, 'f', 4, 64)
	}
	if n := len(o.b) - at; n < 6 { // %6.4f: right-aligned in 6 (-nan, inf)
		o.b = append(o.b, "      "[:6-n]...)
		copy(o.b[at+6-n:], o.b[at:at+n])
		copy(o.b[at:], "      "[:6-n])
	}
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

func (o *trecLine) int(w *bufio.Writer, qid string, v int) {
	o.pad(qid)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

func (o *trecLine) str(w *bufio.Writer, qid, v string) {
	o.pad(qid)
	o.b = append(o.b, v...)
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

// writeTrecBlock prints one query's (or the summary's) selected measures in
// trec_eval's order and format.
func writeTrecBlock(w *bufio.Writer, qid string, m *metrics.TrecMeasures, sel *trecSelection, opts *metrics.TrecOptions, tag string, numQ int, isSummary bool) {
	var o trecLine
	long := func(name string, v int) { o.name(name, "", 0); o.int(w, qid, v) }
	float := func(name string, v float64) { o.name(name, "", 0); o.float(w, qid, v) }
	cuts := func(name string, ks []int, vs []float64) {
		for j, k := range ks {
			o.name(name, "_", k)
			o.float(w, qid, vs[j])
		}
	}
	fcuts := func(name string, ks []float64, vs []float64) {
		for j, k := range ks {
			o.name(name, "_", 0)
			o.b = strconv.AppendFloat(o.b, k, 'f', 2, 64) // %3.2f: always 4 bytes or more
			o.float(w, qid, vs[j])
		}
	}
	for _, tm := range trecMeasures {
		if !sel.on[tm.name] || (tm.summaryOnly && !isSummary) || (tm.perQueryOnly && isSummary) {
			continue
		}
		switch tm.name {
		case "runid":
			o.name("runid", "", 0)
			o.str(w, qid, tag)
		case "num_q":
			long("num_q", numQ)
		case "num_ret":
			long("num_ret", m.NumRet)
		case "num_rel":
			long("num_rel", m.NumRel)
		case "num_rel_ret":
			long("num_rel_ret", m.NumRelRet)
		case "map":
			float("map", m.MAP)
		case "gm_map":
			float("gm_map", m.GMMAP)
		case "Rprec":
			float("Rprec", m.RPrec)
		case "bpref":
			float("bpref", m.Bpref)
		case "recip_rank":
			float("recip_rank", m.RecipRank)
		case "iprec_at_recall":
			fcuts("iprec_at_recall", opts.IPrecAtRecall, m.IPrecAtRecall)
		case "P":
			cuts("P", opts.P, m.P)
		case "recall":
			cuts("recall", opts.Recall, m.Recall)
		case "gm_bpref":
			float("gm_bpref", m.GMBpref)
		case "Rprec_mult":
			fcuts("Rprec_mult", opts.RPrecMult, m.RPrecMult)
		case "utility":
			float("utility", m.Utility)
		case "11pt_avg":
			float("11pt_avg", m.Avg11pt)
		case "dcg":
			float("dcg", m.DCG)
		case "ideal_dcg":
			float("ideal_dcg", m.IdealDCG)
		case "ndcg":
			float("ndcg", m.NDCG)
		case "ndcg_cut":
			cuts("ndcg_cut", opts.NDCGCut, m.NDCGCut)
		case "map_cut":
			cuts("map_cut", opts.MAPCut, m.MAPCut)
		case "relative_P":
			cuts("relative_P", opts.RelativeP, m.RelativeP)
		case "success":
			cuts("success", opts.Success, m.Success)
		case "relstring":
			name := "relstring"
			if sel.relstringParam != "" {
				name += "_" + sel.relstringParam
			}
			o.name(name, "", 0)
			o.str(w, qid, "'"+m.RelString+"'")
		case "infAP":
			float("infAP", m.InfAP)
		case "rbp":
			float("rbp", m.RBP)
		case "rbp_resid":
			float("rbp_resid", m.RBPResid)
		case "binG":
			float("binG", m.BinG)
		case "G":
			float("G", m.G)
		case "ndcg_rel":
			float("ndcg_rel", m.NDCGRel)
		case "Rndcg":
			float("Rndcg", m.RNDCG)
		case "set_P":
			float("set_P", m.SetP)
		case "set_relative_P":
			float("set_relative_P", m.SetRelativeP)
		case "set_recall":
			float("set_recall", m.SetRecall)
		case "set_map":
			float("set_map", m.SetMAP)
		case "set_F":
			float("set_F", m.SetF)
		case "num_nonrel_judged_ret":
			long("num_nonrel_judged_ret", m.NumNonrelJudgedRet)
		case "unj":
			cuts("unj", opts.Unj, m.Unj)
		}
	}
}

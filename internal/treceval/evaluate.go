package treceval

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"runtime/debug"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// runProblems converts the run parser's problems into the
// datasets.Problems that datasets.ParseRun reports for the same file.
func runProblems(probs []trecparse.Problem) datasets.Problems {
	ps := make(datasets.Problems, len(probs))
	for i, p := range probs {
		ps[i] = datasets.Problem(p)
	}
	return ps
}

// trecHeapLimitMin is the smallest heap limit Evaluate sets while
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

// File is an input file: the file system and name it is read from, and
// the path its messages name (as the user wrote it).
type File struct {
	FS   fs.FS
	Name string
	Path string
}

// Config says what Evaluate computes and prints.
type Config struct {
	// Selection is the measures to print (ParseMeasures); Options the
	// metrics options computed for it (Selection.Options).
	Selection *Selection
	Options   metrics.TrecOptions
	// Average is the set of queries the summary averages over.
	Average metrics.Averaging
	// PerQuery prints each query's block (queries in byte-wise id order);
	// Summary prints the "all" block after them.
	PerQuery, Summary bool
	// RelFormat is the format of the rel_info (qrels) file, trec_eval's
	// -R: RelQrels ("" too), RelPrefs, RelQrelsPrefs or RelQrelsJG. The
	// selection must hold only measures of that format
	// (Selection.CheckFormat).
	RelFormat string
	// ZScores, when not nil, is trec_eval -Z's file of "qid measure mean
	// stddev" lines: every value is printed as its z-score against them.
	ZScores *File
}

// Evaluate evaluates the run against the qrels as trec_eval 10 does and
// writes trec_eval's output to w. The qrels are read while the run is
// parsed; a run grouped by query is evaluated query by query as it is
// parsed (streamTrec), any other is partitioned by query or parsed whole.
// The collector is paused while it works (pauseGC).
//
// With cfg.RelFormat prefs, qrels_prefs or qrels_jg the rel_info file is
// read in that format and the run parsed whole (evaluateRel); the
// selection must hold only that format's measures.
//
// Its errors are, in this order: the qrels' (unreadable or malformed), the
// run's, and the evaluation's, wrapped with both paths (a
// *metrics.MissingQueriesError under metrics.AverageTrecEval when a qrels
// query has no results); then the writer's.
func Evaluate(w io.Writer, qrelsFile, runFile File, cfg Config) error {
	if cfg.RelFormat != "" && cfg.RelFormat != RelQrels {
		if err := cfg.Selection.CheckFormat(cfg.RelFormat); err != nil {
			return err
		}
		return evaluateRel(w, qrelsFile, runFile, cfg)
	}
	// The qrels are read while the run is parsed (on all CPUs): the run's
	// parser leaves a CPU idle while it reads the file.
	var (
		qrels     lasagna.Qrels
		qrelsErr  error
		qrelsDone = make(chan struct{})
	)
	go func() {
		defer close(qrelsDone)
		qdata, err := datasets.ReadFile(qrelsFile.FS, qrelsFile.Name)
		if err != nil {
			qrelsErr = err
			return
		}
		qrels, qrelsErr = datasets.ParseQrels(qrelsFile.Path, qdata)
		if qrelsErr == nil && cfg.Options.Params.HasGains() {
			qrelsErr = checkGainGrades(qrelsFile.Path, qdata, qrels)
		}
	}()
	rdata, release, drop, runErr := readRunFile(runFile.FS, runFile.Name)
	if runErr != nil {
		<-qrelsDone
		if qrelsErr != nil {
			return qrelsErr
		}
		return runErr
	}
	// The heap is nearly all live data (the qrels, and the hits when the
	// run must be held whole: 24 bytes a line, about half the run file for
	// usual line lengths). The limit only guards against garbage piling
	// up.
	defer pauseGC(2 * int64(len(rdata)))()
	// The run's ids alias rdata (trecparse, not datasets.ParseRun, which
	// would copy the file); everything that uses them (evaluation, output)
	// is done before release. Error messages hold copies.
	defer release()
	opts := cfg.Options
	var (
		ev       *metrics.TrecRun
		tag      string
		err      error
		streamed bool
	)
	if opts.Validate() == nil {
		ev, tag, streamed, err = streamTrec(rdata, drop, qrelsDone, &qrels, &qrelsErr, opts, cfg.Average)
	}
	if !streamed {
		<-qrelsDone
		ev, tag, runErr, err = evaluateTrecWhole(runFile.Path, rdata, qrels, qrelsErr, opts, cfg.Average)
	}
	<-qrelsDone
	switch {
	case qrelsErr != nil:
		return qrelsErr
	case runErr != nil:
		return runErr
	case err != nil:
		return fmt.Errorf("%s and %s: %w", qrelsFile.Path, runFile.Path, err)
	}
	if cfg.ZScores != nil {
		z, err := readZScores(*cfg.ZScores)
		if err != nil {
			return err
		}
		return writeZScores(w, ev, tag, cfg.Selection, &opts, z, cfg.PerQuery, cfg.Summary)
	}
	return writeTrec(w, ev, tag, cfg.Selection, &opts, cfg.PerQuery, cfg.Summary)
}

// writeTrec writes the evaluated run in trec_eval's format: each query's
// block when perQuery, then the summary ("all") block when summary.
func writeTrec(out io.Writer, ev *metrics.TrecRun, tag string, sel *Selection, opts *metrics.TrecOptions, perQuery, summary bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	if perQuery {
		for i := range ev.Queries {
			writeTrecBlock(w, ev.Queries[i].ID, relstringQuery(&ev.Queries[i], sel, opts), sel, opts, tag, 0, false)
		}
	}
	if summary {
		writeTrecBlock(w, "all", &ev.Summary, sel, opts, tag, ev.NumQ, true)
	}
	return w.Flush()
}

// relstringQuery returns q's measures as printed: under -c trec_eval
// evaluates a query missing from the run as one unjudged document
// ("ceci_nest_pas_un_docno") and then clears the values that describe that
// ranking, relstring included, but only when it is named "relstring": with
// a parameter ("relstring_20") it keeps the document's '-'. -J drops it,
// and -M 0 too.
func relstringQuery(q *metrics.TrecQuery, sel *Selection, opts *metrics.TrecOptions) *metrics.TrecMeasures {
	if !q.Missing || sel.relstringParam == "" || sel.relstringLen == 0 || opts.JudgedOnly || (opts.LimitRetrieved && opts.MaxRetrieved == 0) {
		return &q.TrecMeasures
	}
	m := q.TrecMeasures
	m.RelString = "-"
	return &m
}

func hitID(h trecparse.Hit) string { return h.ID }

// evaluated tells whether trec_eval evaluates query qid of the run (and so
// refuses a document it retrieves twice): it has judgements, and it is the
// query of -D level.qid if one is given.
func evaluated(qrels lasagna.Qrels, qid string, opts *metrics.TrecOptions) bool {
	_, ok := qrels[qid]
	return ok && (opts.Query == "" || qid == opts.Query)
}

// evaluateTrecWhole parses the whole run and evaluates it: the path for
// runs that cannot be streamed (queries not grouped, or problems to
// report, which it returns as runErr). err is the evaluation's error.
func evaluateTrecWhole(runPath string, rdata []byte, qrels lasagna.Qrels, qrelsErr error, opts metrics.TrecOptions, avg metrics.Averaging) (ev *metrics.TrecRun, tag string, runErr, err error) {
	// A document retrieved twice is refused only in a query trec_eval
	// evaluates, one with judgements (docs/metrics.md, "trec_eval's edge
	// cases"); without readable qrels, their error is reported instead.
	run, probs := trecparse.ParseRunJudged(runPath, rdata, datasets.MaxProblems, func(qid string) bool {
		return evaluated(qrels, qid, &opts)
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
		if !evaluated(*qrels, qid, &opts) {
			return // not averaged under any mode
		}
		judged := (*qrels)[qid]
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
		if evaluated(*qrels, q, &opts) {
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

// maxGainGrade is the largest grade lasagna takes with gain parameters
// (-m ndcg.1=3): like trec_eval (gain_init.c), the gain table of a query
// has an entry for every level from 0 to its largest grade, which for a
// grade of 2,000,000,000 is more memory than the machine has (trec_eval
// runs on without end).
const maxGainGrade = 1 << 16

// checkGainGrades refuses a judgement whose grade is above maxGainGrade,
// naming its file and line.
func checkGainGrades(path string, data []byte, qrels lasagna.Qrels) error {
	for qid, docs := range qrels {
		for doc, grade := range docs {
			if grade <= maxGainGrade {
				continue
			}
			line := 0
			for n, l := range bytes.Split(data, []byte("\n")) {
				if f := bytes.Fields(l); len(f) == 4 && string(f[0]) == qid && string(f[2]) == doc {
					line = n + 1 // the last judgement of the pair is the one kept
				}
			}
			return fmt.Errorf("%s:%d: grade %d is above %d, the largest grade the gain parameters of -m (rel_level=gain) take: the gain table has an entry for every level from 0 to a query's largest grade (as in trec_eval); put the grades on a smaller scale, or leave the gain parameters out", path, line, grade, maxGainGrade)
		}
	}
	return nil
}

package treceval

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// The rel_info formats of trec_eval's -R.
const (
	RelQrels      = "qrels"
	RelPrefs      = "prefs"
	RelQrelsPrefs = "qrels_prefs"
	RelQrelsJG    = "qrels_jg"
)

// missingDocno is the one document trec_eval ranks for a query missing
// from the run under -c.
const missingDocno = "ceci_nest_pas_un_docno"

// relQuery is one evaluated query of a prefs or qrels_jg evaluation.
type relQuery struct {
	qid   string
	prefs prefsValues
	jg    jgValues
}

// evaluateRel evaluates the run against a rel_info file of format -R
// prefs, qrels_prefs or qrels_jg and writes trec_eval's output: each
// query's block (cfg.PerQuery) and the summary, for the preference or
// judgement-group measures the selection names. The run is parsed whole
// (these files are small).
func evaluateRel(w io.Writer, relFile, runFile File, cfg Config) error {
	rdata, err := datasets.ReadFile(relFile.FS, relFile.Name)
	if err != nil {
		return err
	}
	var (
		prefs map[string][]trecparse.Pref
		jgs   map[string][]trecparse.JGJudgement
		probs []trecparse.Problem
		qids  []string
	)
	if cfg.RelFormat == RelQrelsJG {
		jgs, probs = trecparse.ParseQrelsJG(relFile.Path, rdata, datasets.MaxProblems)
		for q := range jgs {
			qids = append(qids, q)
		}
	} else {
		prefs, probs = trecparse.ParsePrefs(relFile.Path, rdata, datasets.MaxProblems, cfg.RelFormat == RelQrelsPrefs)
		for q := range prefs {
			qids = append(qids, q)
		}
	}
	if probs != nil {
		return runProblems(probs)
	}
	slices.Sort(qids)
	opts := &cfg.Options
	data, err := datasets.ReadFile(runFile.FS, runFile.Name)
	if err != nil {
		return err
	}
	run, rprobs := trecparse.ParseRunJudged(runFile.Path, data, datasets.MaxProblems, func(qid string) bool {
		_, ok := slices.BinarySearch(qids, qid)
		return ok && (opts.Query == "" || qid == opts.Query)
	})
	switch {
	case len(rprobs) == 1 && rprobs[0].Msg == trecparse.NoResults && cfg.Average == metrics.AverageComplete:
		run = &trecparse.Run{Hits: map[string][]trecparse.Hit{}}
	case len(rprobs) == 1 && rprobs[0].Msg == trecparse.NoResults:
		return fmt.Errorf("%s: %s; with -c every query of %s scores 0", runFile.Path, trecparse.NoResults, relFile.Path)
	case rprobs != nil:
		return runProblems(rprobs)
	}
	both := func(err error) error { return fmt.Errorf("%s and %s: %w", relFile.Path, runFile.Path, err) }

	// The queries evaluated, in trec_eval's order (byte-wise by id).
	var evalIDs, missing []string
	for _, q := range qids {
		_, inRun := run.Hits[q]
		switch {
		case opts.Query != "" && q != opts.Query:
		case inRun || cfg.Average == metrics.AverageComplete:
			evalIDs = append(evalIDs, q)
		case cfg.Average == metrics.AverageTrecEval:
			missing = append(missing, q)
		}
	}
	if len(missing) > 0 {
		return both(&metrics.MissingQueriesError{IDs: missing, Kind: cfg.RelFormat})
	}
	if len(evalIDs) == 0 {
		only := ""
		if opts.Query != "" {
			only = fmt.Sprintf(", query %q only", opts.Query)
		}
		return both(fmt.Errorf("no query has both results in the run and judgements in %s (averaging %s%s)", relFile.Path, cfg.Average, only))
	}
	pCuts, rpmCuts := cfg.Selection.jgParams()
	out := make([]relQuery, 0, len(evalIDs))
	var pool rankPool
	for _, q := range evalIDs {
		hits, inRun := run.Hits[q]
		if !inRun {
			hits = []trecparse.Hit{{ID: missingDocno, Score: 1}}
		}
		rq := relQuery{qid: q}
		if jgs != nil {
			rq.jg = jgMeasures(jgs[q], hits, opts, pCuts, rpmCuts)
		} else {
			pq, err := formPrefs(q, prefs[q], prefsRanking(hits, opts.LimitRetrieved, opts.MaxRetrieved), &pool)
			if err != nil {
				return both(err)
			}
			if rq.prefs, err = pq.measures(cfg.Selection.on["prefs_avgjg_Rnonrel"], cfg.Selection.on["prefs_avgjg_Rnonrel_ret"]); err != nil {
				return both(err)
			}
			pq.storeRanks()
		}
		out = append(out, rq)
	}

	// The summary: counts summed, other values summed in query order and
	// divided by the number of queries (under -c, every query of the file).
	numQ := len(out)
	if cfg.Average == metrics.AverageComplete {
		numQ = len(qids)
	}
	sum := relQuery{qid: "all", jg: jgValues{p: make([]float64, len(pCuts)), rpm: make([]float64, len(rpmCuts))}}
	for _, q := range out {
		for i, x := range q.prefs {
			sum.prefs[i] += x
		}
		sum.jg.mapv += q.jg.mapv
		for i, x := range q.jg.p {
			sum.jg.p[i] += x
		}
		for i, x := range q.jg.rpm {
			sum.jg.rpm[i] += x
		}
	}
	n := float64(numQ)
	for i := prefsCounts; i < len(sum.prefs); i++ {
		sum.prefs[i] /= n
	}
	sum.jg.mapv /= n
	for i := range sum.jg.p {
		sum.jg.p[i] /= n
	}
	for i := range sum.jg.rpm {
		sum.jg.rpm[i] /= n
	}

	if cfg.ZScores != nil {
		z, err := readZScores(*cfg.ZScores)
		if err != nil {
			return err
		}
		return writeRelZScores(w, out, cfg.Selection, pCuts, rpmCuts, z, run.Tag, numQ, cfg.PerQuery, cfg.Summary)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if cfg.PerQuery {
		for i := range out {
			writeRelBlock(bw, &out[i], cfg.Selection, pCuts, rpmCuts, run.Tag, 0, false)
		}
	}
	if cfg.Summary {
		writeRelBlock(bw, &sum, cfg.Selection, pCuts, rpmCuts, run.Tag, numQ, true)
	}
	return bw.Flush()
}

// jgParams returns the parameters of P_avgjg and Rprec_mult_avgjg: those
// -m gave, else trec_eval's defaults.
func (s *Selection) jgParams() ([]int, []float64) {
	p, rpm := defaultPAvgjg, defaultRprecMultAvgjg
	if c, ok := s.cutoffs["P_avgjg"]; ok {
		p = c
	}
	if c, ok := s.fcuts["Rprec_mult_avgjg"]; ok {
		rpm = c
	}
	return p, rpm
}

// writeRelBlock prints one query's (or the summary's) selected measures of
// a prefs or qrels_jg evaluation in trec_eval's order and format.
func writeRelBlock(w *bufio.Writer, q *relQuery, sel *Selection, pCuts []int, rpmCuts []float64, tag string, numQ int, isSummary bool) {
	var o trecLine
	for _, tm := range trecMeasures {
		if !sel.on[tm.name] || (tm.summaryOnly && !isSummary) {
			continue
		}
		switch tm.name {
		case "runid":
			o.name("runid", "", 0)
			o.str(w, q.qid, tag)
		case "num_q":
			o.name("num_q", "", 0)
			o.int(w, q.qid, numQ)
		case "map_avgjg":
			o.name("map_avgjg", "", 0)
			o.float(w, q.qid, q.jg.mapv)
		case "P_avgjg":
			for j, k := range pCuts {
				o.name("P_avgjg", "_", k)
				o.float(w, q.qid, q.jg.p[j])
			}
		case "Rprec_mult_avgjg":
			for j, k := range rpmCuts {
				o.name("Rprec_mult_avgjg", "_", 0)
				o.b = strconv.AppendFloat(o.b, k, 'f', 2, 64)
				o.float(w, q.qid, q.jg.rpm[j])
			}
		default:
			for i, name := range prefsMeasureNames {
				if name != tm.name {
					continue
				}
				o.name(name, "", 0)
				if i < prefsCounts {
					o.int(w, q.qid, int(q.prefs[i]))
				} else {
					o.float(w, q.qid, q.prefs[i])
				}
			}
		}
	}
}

// relValues lists the values of measure name for one query of a prefs or
// qrels_jg evaluation, as trec_eval names them (P_avgjg_5,
// Rprec_mult_avgjg_0.20): what -Z converts. runid and num_q have none.
func relValues(name string, q *relQuery, pCuts []int, rpmCuts []float64) []zValue {
	switch name {
	case "map_avgjg":
		return []zValue{{name, q.jg.mapv}}
	case "P_avgjg":
		out := make([]zValue, len(pCuts))
		for j, k := range pCuts {
			out[j] = zValue{name + "_" + strconv.Itoa(k), q.jg.p[j]}
		}
		return out
	case "Rprec_mult_avgjg":
		out := make([]zValue, len(rpmCuts))
		for j, k := range rpmCuts {
			out[j] = zValue{name + "_" + strconv.FormatFloat(k, 'f', 2, 64), q.jg.rpm[j]}
		}
		return out
	}
	for i, n := range prefsMeasureNames {
		if n == name {
			return []zValue{{name, q.prefs[i]}}
		}
	}
	return nil
}

// writeRelZScores writes trec_eval -Z's output for a prefs or qrels_jg
// evaluation: each query's values converted to z-scores against z
// ("Z", the name padded to 22, %6.4f), then their summary: sums for the
// preference counts, means over numQ queries for the rest; runid is
// printed as usual and num_q unconverted, as trec_eval does.
func writeRelZScores(out io.Writer, qs []relQuery, sel *Selection, pCuts []int, rpmCuts []float64, z *zScores, tag string, numQ int, perQuery, summary bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	var o trecLine
	zline := func(qid, name string, v float64) {
		o.b = append(append(o.b[:0], 'Z'), padName(name)...) // "Z%-22s"
		o.float(w, qid, v)
	}
	acc := map[string]float64{}
	for i := range qs {
		q := &qs[i]
		for _, tm := range trecMeasures {
			if !sel.on[tm.name] {
				continue
			}
			for _, v := range relValues(tm.name, q, pCuts, rpmCuts) {
				zv := z.convert(q.qid, v.name, v.v)
				acc[v.name] += zv
				if perQuery {
					zline(q.qid, v.name, zv)
				}
			}
		}
	}
	if !summary {
		return w.Flush()
	}
	n := float64(numQ)
	sum := relQuery{jg: jgValues{p: make([]float64, len(pCuts)), rpm: make([]float64, len(rpmCuts))}}
	for _, tm := range trecMeasures {
		if !sel.on[tm.name] {
			continue
		}
		switch tm.name {
		case "runid":
			o.name("runid", "", 0)
			o.str(w, "all", tag)
			continue
		case "num_q":
			zline("all", "num_q", n)
			continue
		}
		counts := slices.Contains(prefsMeasureNames[:prefsCounts], tm.name)
		for _, v := range relValues(tm.name, &sum, pCuts, rpmCuts) {
			s := acc[v.name]
			if !counts {
				s /= n
			}
			zline("all", v.name, s)
		}
	}
	return w.Flush()
}

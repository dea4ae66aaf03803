package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/treceval"
)

// metricsTrecLong is `metrics trec --help`'s text.
const metricsTrecLong = `Evaluate a TREC run file (qid Q0 docno rank score run_id) against a qrels file
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
flag).`

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
		Long:  metricsTrecLong,
		Args:  exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			avg, err := trecAveraging(average, complete)
			if err != nil {
				return err
			}
			if level < 0 {
				return usageError("metrics trec: -l (--level) %d is negative; give a relevance level of 0 or more (a judged grade >= it is relevant; default 1)", level)
			}
			sel, err := treceval.ParseMeasures(measures)
			if err != nil {
				return usageError("metrics trec: %v", err)
			}
			return runMetricsTrec(stdout, args[0], args[1], treceval.Config{
				Selection: sel,
				Options:   sel.Options(level),
				Average:   avg,
				PerQuery:  perQuery,
				Summary:   !noSummary,
			})
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

// trecAveraging reads --average and -c into the averaging set; they may
// not contradict each other.
func trecAveraging(average string, complete bool) (metrics.Averaging, error) {
	avg := metrics.AverageTrecEval
	switch average {
	case "", "trec_eval":
	case "complete":
		avg = metrics.AverageComplete
	case "run":
		avg = metrics.AverageRun
	default:
		return 0, usageError("metrics trec: --average %q is not one of trec_eval, complete, run", average)
	}
	if complete {
		if average != "" && average != "complete" {
			return 0, usageError("metrics trec: -c (complete averaging) contradicts --average %s", average)
		}
		avg = metrics.AverageComplete
	}
	return avg, nil
}

// trecFile is the treceval input for command-line path p.
func trecFile(p string) treceval.File {
	fsys, name := cliPath(p)
	return treceval.File{FS: fsys, Name: name, Path: p}
}

// runMetricsTrec evaluates the run at runPath against the qrels at
// qrelsPath and prints the result; a qrels query missing from the run is
// answered with the flags that score it.
func runMetricsTrec(stdout io.Writer, qrelsPath, runPath string, cfg treceval.Config) error {
	err := treceval.Evaluate(stdout, trecFile(qrelsPath), trecFile(runPath), cfg)
	if err == nil {
		return nil
	}
	var me *metrics.MissingQueriesError
	if errors.As(err, &me) {
		more := ""
		if len(me.IDs) > 1 {
			more = fmt.Sprintf(" (nor do %d more qrels queries)", len(me.IDs)-1)
		}
		return problems(fmt.Errorf("%s: qrels query %q has no results in the run%s; use -c to score such queries 0, or --average run to leave them out as trec_eval 9 and BEIR do (trec_eval 10 stops here too)", runPath, me.IDs[0], more))
	}
	return problems(err)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
set_recall set_map set_F num_nonrel_judged_ret rbp rbp_resid unj, and yaap —
and the sets official, all_trec and set. Parameters as in "-m P.5,10", "-m
ndcg_cut.10", "-m iprec_at_recall.0.5", "-m relstring.20", gains
rel_level=gain for ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg, G and rbp ("-m
ndcg.1=0.5,2=3"; levels not given keep their grade), persistence p= for rbp
and rbp_resid ("-m rbp.p=0.8"), "-m utility.1,-1,0,0" (with -N),
"-m 11pt_avg.0.2,0.5,0.8" and "-m set_F.0.5" (beta); such a measure is
printed with its parameters as written (set_F_0.5).

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

trec_eval's other flags: -M num (only each query's first num ranked documents
count), -J (unjudged documents are removed first), -N num (the collection
size, for utility's fourth parameter), -D level[.qid] (.qid evaluates that query only;
debugging lines are not printed), -Z file (z-scores against "qid measure mean
stddev" lines), -R format (below), -T trec_results (trec_eval's only results
format), -o (ignored). trec_eval's long option names work too, whole or as a
unique prefix: --Max_retrieved_per_topic 1000, --Judged_docs_only,
--Max_retr=1000 (docs/metrics.md, "trec_eval's flags").

-R (rel_info file format): qrels (default); prefs (qid jg jsg docno rel_level
lines: preferences within judgement sub-groups) and qrels_prefs (a qrels file
read as preferences, its iter field the judgement group) compute trec_eval's
preference measures: -m prefs (its set), -m all_prefs, or by name
prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp
prefs_pair prefs_avgjg prefs_avgjg_Rnonrel, the _ret form of the last four
and the _imp form of prefs_simp, prefs_pair and prefs_avgjg; qrels_jg (a qrels
file whose iter field names a user's judgement group) computes map_avgjg,
P_avgjg and Rprec_mult_avgjg, averaged over the groups (-m qrels_jg). Each
format computes only its own measures, plus runid and num_q: as in trec_eval,
the default "official" measures need -R qrels.

A lasagna metric name is answered with its trec_eval name: -m ndcg@10 is
refused with "did you mean trec_eval's ndcg_cut.10?".

Exit status: 0 evaluated; 1 unreadable or malformed qrels, run or z-score
file, or a qrels query missing from the run without -c; 2 usage errors
(unknown measure or flag, negative -M, an unknown -R or -T format, a measure
its -R format does not compute).`

// trecFlags are `metrics trec`'s flags, trec_eval's and lasagna's.
type trecFlags struct {
	perQuery, complete, noSummary, judgedOnly, oldFormat bool
	level, maxRetrieved                                  int
	numDocs                                              int64
	measures                                             []string
	average, debug, relFormat, resultsFormat, zscore     string
	oldFormatArg                                         string
}

func newMetricsTrecCmd(stdout io.Writer) *cobra.Command {
	var fl trecFlags
	cmd := &cobra.Command{
		Use:   "trec QRELS RUN",
		Short: "Evaluate a TREC run against qrels, printing what trec_eval prints",
		Long:  metricsTrecLong,
		Args:  exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := fl.config(c)
			if err != nil {
				return err
			}
			return runMetricsTrec(stdout, args[0], args[1], cfg)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&fl.perQuery, "query", "q", false, "also print each query's values (queries in byte-wise id order), then the summary")
	f.BoolVarP(&fl.complete, "complete", "c", false, "average over every qrels query; queries missing from the run score 0 (trec_eval -c)")
	f.IntVarP(&fl.level, "level", "l", 1, "relevance level: a grade >= level is relevant (ndcg and ndcg_cut always use the grade as gain)")
	f.StringArrayVarP(&fl.measures, "measure", "m", nil, "measure[.cutoffs] or set (official, all_trec, set, prefs, all_prefs, qrels_jg) to print; repeatable")
	f.BoolVarP(&fl.noSummary, "nosummary", "n", false, "do not print the summary (\"all\") block")
	f.StringVar(&fl.average, "average", "", "averaging set: trec_eval (default), complete (same as -c), run (BEIR / pytrec_eval)")
	f.IntVarP(&fl.maxRetrieved, "max-retrieved", "M", 0, "evaluate only each query's first `num` ranked documents (trec_eval -M; default no limit)")
	f.BoolVarP(&fl.judgedOnly, "judged-only", "J", false, "drop retrieved documents without a judgement of grade 0 or more before evaluating (trec_eval -J)")
	f.Int64VarP(&fl.numDocs, "num-docs", "N", 0, "number of documents in the collection (trec_eval -N; only utility's fourth parameter uses it)")
	f.StringVarP(&fl.debug, "debug", "D", "0", "trec_eval's debug `level[.qid]`: with .qid only that query is evaluated; the level's debugging lines are not printed")
	f.StringVarP(&fl.relFormat, "rel-format", "R", "qrels", "rel_info_file `format` (trec_eval -R): qrels; prefs or qrels_prefs (preference measures); qrels_jg (measures averaged over judgement groups)")
	f.StringVarP(&fl.resultsFormat, "results-format", "T", "trec_results", "results file format (trec_eval -T): trec_results, trec_eval's only one")
	f.StringVarP(&fl.zscore, "zscore", "Z", "", "print z-scores against the `file` of \"qid measure mean stddev\" lines instead of raw values (trec_eval -Z)")
	f.BoolVarP(&fl.oldFormat, "old-results-format", "o", false, "ignored, as by trec_eval (its obsolete -o)")
	f.StringVar(&fl.oldFormatArg, "Output_old_results_format", "", "ignored, as by trec_eval")
	_ = f.MarkHidden("old-results-format")
	_ = f.MarkHidden("Output_old_results_format")
	f.SetNormalizeFunc(trecLongFlag)
	return cmd
}

// config checks the flags and turns them into the evaluator's
// configuration.
func (fl *trecFlags) config(c *cobra.Command) (treceval.Config, error) {
	avg, err := trecAveraging(fl.average, fl.complete)
	if err != nil {
		return treceval.Config{}, err
	}
	if fl.level < 0 {
		return treceval.Config{}, usageError("metrics trec: -l (--level) %d is negative; give a relevance level of 0 or more (a judged grade >= it is relevant; default 1)", fl.level)
	}
	if c.Flags().Changed("max-retrieved") && fl.maxRetrieved < 0 {
		return treceval.Config{}, usageError("metrics trec: -M (--max-retrieved) %d is negative; give the number of ranked documents to evaluate per query, 0 or more (trec_eval crashes on a negative -M)", fl.maxRetrieved)
	}
	query, err := trecDebugQuery(fl.debug)
	if err != nil {
		return treceval.Config{}, err
	}
	if err := trecFormats(fl.relFormat, fl.resultsFormat); err != nil {
		return treceval.Config{}, err
	}
	sel, err := treceval.ParseMeasures(fl.measures)
	if err != nil {
		return treceval.Config{}, usageError("metrics trec: %v", err)
	}
	if err := sel.CheckFormat(fl.relFormat); err != nil {
		return treceval.Config{}, usageError("metrics trec: %v", err)
	}
	opts := sel.Options(fl.level)
	opts.LimitRetrieved, opts.MaxRetrieved = c.Flags().Changed("max-retrieved"), fl.maxRetrieved
	opts.JudgedOnly = fl.judgedOnly
	opts.Params.NumDocs = fl.numDocs
	opts.Query = query
	cfg := treceval.Config{
		Selection: sel,
		Options:   opts,
		Average:   avg,
		RelFormat: fl.relFormat,
		PerQuery:  fl.perQuery,
		Summary:   !fl.noSummary,
	}
	if fl.zscore != "" {
		zf := trecFile(fl.zscore)
		cfg.ZScores = &zf
	}
	return cfg, nil
}

// trecDebugQuery reads -D level[.qid] as trec_eval does and returns the
// query it restricts the evaluation to ("" for every query). The level
// itself only turns on trec_eval's debugging lines, which lasagna does not
// print.
func trecDebugQuery(d string) (string, error) {
	level, qid, _ := strings.Cut(d, ".")
	if _, err := strconv.Atoi(level); err != nil {
		return "", usageError("metrics trec: -D (--debug) %q is not level[.qid] (an integer, optionally a dot and a query id)", d)
	}
	return qid, nil
}

// trecFormats checks -R and -T: trec_eval's rel_info formats (qrels,
// prefs, qrels_prefs, qrels_jg) and its one results format.
func trecFormats(rel, results string) error {
	switch rel {
	case treceval.RelQrels, treceval.RelPrefs, treceval.RelQrelsPrefs, treceval.RelQrelsJG:
	default:
		return usageError("metrics trec: -R (--rel-format) %q is not a rel_info_file format of trec_eval (qrels, prefs, qrels_prefs, qrels_jg)", rel)
	}
	if results != "trec_results" {
		return usageError("metrics trec: -T (--results-format) %q is not a results format of trec_eval (its only one is trec_results)", results)
	}
	return nil
}

// trecLongFlags maps trec_eval's long option names (its getopt_long table)
// to the flags that implement them.
var trecLongFlags = map[string]string{
	"help":                      "help",
	"query_eval_wanted":         "query",
	"measure":                   "measure",
	"complete_rel_info_wanted":  "complete",
	"level_for_rel":             "level",
	"nosummary":                 "nosummary",
	"Debug_level":               "debug",
	"Judged_docs_only":          "judged-only",
	"Number_docs_in_coll":       "num-docs",
	"Max_retrieved_per_topic":   "max-retrieved",
	"Rel_info_format":           "rel-format",
	"Results_format":            "results-format",
	"Output_old_results_format": "Output_old_results_format",
	"Zscore":                    "zscore",
}

// trecLongFlag lets trec_eval's long options name `metrics trec`'s flags,
// written in full or, as getopt_long allows, shortened to a prefix that
// only one of them starts with (--Max_retr=100). lasagna's own flag names
// are left as they are.
func trecLongFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	for _, own := range trecLongFlags {
		if name == own {
			return pflag.NormalizedName(name)
		}
	}
	if own, ok := trecLongFlags[name]; ok {
		return pflag.NormalizedName(own)
	}
	match := ""
	for long, own := range trecLongFlags {
		if strings.HasPrefix(long, name) && own != match {
			if match != "" {
				return pflag.NormalizedName(name) // ambiguous: unknown
			}
			match = own
		}
	}
	if match == "" || name == "" {
		return pflag.NormalizedName(name)
	}
	return pflag.NormalizedName(match)
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
			more = fmt.Sprintf(" (nor do %d more %s queries)", len(me.IDs)-1, me.FileKind())
		}
		return problems(fmt.Errorf("%s: %s query %q has no results in the run%s; use -c to score such queries 0, or --average run to leave them out as trec_eval 9 and BEIR do (trec_eval 10 stops here too)", runPath, me.FileKind(), me.IDs[0], more))
	}
	return problems(err)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// scoreListMax is how many ids a "missing"/"unknown" note lists before it
// says "and N more".
const scoreListMax = 10

// replayFlags are the flags `benchmark score` and `results bundle` share.
type replayFlags struct {
	out     string
	arm     string
	format  string
	cutoffs []int
	seed    uint64
	own     bool
	topK    int
	// slices, missing and normalization: --slice, --missing,
	// --normalization.
	slices        []string
	missing       string
	normalization string
}

func (f *replayFlags) register(cmd *cobra.Command, outHelp string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", outHelp)
	fl.StringVar(&f.arm, "arm", "", "name of the replayed arm (default: the predictions or run file's name without its extension)")
	fl.IntSliceVarP(&f.cutoffs, "cutoffs", "k", nil, "retrieval cutoffs, e.g. -k 1,5,10 (default 1,5,10; the depth, --top-k or the longest list's length, is always added)")
	fl.StringVar(&f.format, "format", "auto", "dataset format: auto (by name; a .csv whose header has chunk_ids, page_nums or source_paths is a Vecta CSV), jsonl, csv, vecta, beir")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the bootstrap confidence intervals (default 42, as benchmark run)")
	fl.IntVar(&f.topK, "top-k", 0, "depth the lists were retrieved at, recorded as retriever_top_k (longer lists are cut; default: the longest list's length)")
	fl.StringArrayVar(&f.slices, "slice", nil, "break every metric down by this metadata key of the queries (repeatable): each value's mean, n and 95% CI; the answerable / unanswerable split is built in")
	fl.StringVar(&f.missing, "missing", "fail", "a dataset query without a prediction: fail (a failed row, left out of every mean) or zero (scored 0 on every metric, SQuAD v1.1's official convention; recorded in held_fixed as missing_predictions zero, so such bundles never compare with fail ones)")
	fl.StringVar(&f.normalization, "normalization", "squad", "answer normalisation before exact_match and token_f1: squad (SQuAD's official rules) or orqa (NQ-open's: Unicode NFD first, empty references kept); recorded in held_fixed")
	fl.BoolVar(&f.own, "own-index", false, "the lists come from a system searching its own index: ids outside the dataset's corpus count as non-relevant (OUTSIDE_CORPUS_IDS warning) instead of blocking UNKNOWN_DOC_ID; corpus_provenance own_index")
}

// input checks the flags and returns the replay input for data.
func (f *replayFlags) input(cmdName, data string) (replayInput, error) {
	switch f.format {
	case "auto", "jsonl", "csv", "vecta", "beir":
	default:
		return replayInput{}, usageError("%s: --format %q is not one of auto, jsonl, csv, vecta, beir", cmdName, f.format)
	}
	switch f.missing {
	case "fail", "zero":
	default:
		return replayInput{}, usageError("%s: --missing %q is not one of fail, zero", cmdName, f.missing)
	}
	norm, err := metrics.ParseNormalization(f.normalization)
	if err != nil {
		return replayInput{}, usageError("%s: --normalization %q is not one of squad, orqa", cmdName, f.normalization)
	}
	for _, k := range f.slices {
		if strings.TrimSpace(k) == "" {
			return replayInput{}, usageError("%s: --slice needs a metadata key, e.g. --slice question_type", cmdName)
		}
	}
	if f.topK < 0 {
		return replayInput{}, usageError("%s: --top-k %d is not positive", cmdName, f.topK)
	}
	var cuts []int
	if len(f.cutoffs) > 0 {
		for _, k := range f.cutoffs {
			if k < 1 {
				return replayInput{}, usageError("%s: cutoff %d is not positive (-k 1,5,10)", cmdName, k)
			}
		}
		cuts = slices.Clone(f.cutoffs)
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
	}
	in := replayInput{data: data, format: f.format, arm: f.arm, cutoffs: cuts, seed: f.seed, ownIndex: f.own, topK: f.topK,
		slices: slices.Clone(f.slices), missingZero: f.missing == "zero"}
	if norm == metrics.ORQA {
		in.normalization = string(norm)
	}
	return in, nil
}

func newScoreCmd(stdout io.Writer) *cobra.Command {
	var (
		f         replayFlags
		perQuery  string
		resamples int
	)
	cmd := &cobra.Command{
		Use:   "score DATA PREDICTIONS",
		Short: "Score predictions produced elsewhere against a benchmark",
		Long: `Score predictions produced elsewhere against a benchmark.

DATA is a benchmark: a .jsonl or .csv file, a Vecta benchmark CSV, or a BEIR
folder. PREDICTIONS is a predictions JSONL file (name ending in .jsonl:
{"id", "answer", "retrieved", "abstained", "passages"} per line) or, for any
other name, a TREC run file (qid Q0 docid rank score tag).

score is ` + "`lasagna results bundle`" + ` printing to the console: the predictions
are replayed through the engine as one arm (named after the file, or
--arm), so the numbers are the ones a bundle holds, with the same rules as
benchmark run. -o also writes that bundle.

A dataset query without a prediction is a failed row (PIPELINE_ERRORS,
blocking), never a 0: it is left out of every mean and counted as failed.
So is a line with "answer": null (or no answer) when other lines answer,
and a line without "retrieved" when other lines retrieve. Prediction ids
that are not dataset queries are ignored and listed.

Answer metrics (exact_match, token_f1; SQuAD normalisation, max over the
reference answers, unanswerable questions per SQuAD v2.0) are averaged over
the queries with a reference answer or marked unanswerable. Retrieval
metrics (trec_eval semantics, one family per -k cutoff) are averaged over
the queries with relevance judgements. For a Vecta benchmark CSV (which has
no corpus), chunk_precision/recall/f1 compare the whole retrieved list with
the entry's chunk_ids; they are printed, not bundled.

Each mean is printed with n and a 95% percentile bootstrap confidence
interval (seeded: the same --seed gives the same interval).

Exit status: 0 scored; 1 the data or predictions have problems, or a
blocking integrity problem (such as a missing prediction) was raised; 2
usage errors.`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			in, err := f.input("benchmark score", args[0])
			if err != nil {
				return err
			}
			if strings.EqualFold(filepath.Ext(args[1]), ".jsonl") {
				in.predictions = args[1]
			} else {
				in.run = args[1]
			}
			return replayAndReport(c.Context(), stdout, in, f.out, f.out != "", perQuery)
		},
	}
	f.register(cmd, "also write the results bundle here (as `lasagna results bundle -o` does)")
	fl := cmd.Flags()
	fl.StringVar(&perQuery, "per-query", "", "write per-query scores to this TSV file (id, one column per metric, then error; an empty cell = not scored)")
	fl.IntVar(&resamples, "resamples", 0, "ignored")
	fl.MarkDeprecated("resamples", "the intervals are the bundle's, with its number of resamples")
	return cmd
}

// replayAndReport replays in (see replay), prints the bundle's summary
// table (reporters), every metric with its n, the Vecta set metrics when
// there are any, notes and integrity findings, writes the bundle when
// write is set (to out, default lasagna-out/<run id>.json) and the
// per-query TSV to perQuery when it is set, and returns an exit-1 error
// when the bundle has blocking findings.
func replayAndReport(ctx context.Context, stdout io.Writer, in replayInput, out string, write bool, perQuery string) error {
	r, err := replay(ctx, in)
	if err != nil {
		return err
	}
	if r.scoresNothing && write {
		return problems(fmt.Errorf("%s: a bundle of these predictions would hold no metric: a Vecta CSV has no corpus, so its retrieved chunk ids are scored only by the Vecta set metrics, which are printed (drop -o, or add answers to the predictions)", r.source))
	}
	b := r.bundle
	fmt.Fprintf(stdout, "benchmark    %s (%d queries)\n", r.bench.Name, len(r.bench.Queries))
	fmt.Fprintf(stdout, "predictions  %s (%s, %d queries), replayed as arm %s (mode %s)\n\n", r.source, r.kind, r.entries, r.arm.Name, r.arm.ResolvedMode())
	if err := printBundleTable(ctx, stdout, b, nil); err != nil {
		return err
	}
	if arms := results.Arms(b, ""); len(arms) > 0 && len(arms[0].Result.Metrics) > 0 {
		fmt.Fprintln(stdout)
		printArms(stdout, arms, nil)
	}
	if r.vecta != nil && len(r.vecta.Result.Metrics) > 0 {
		fmt.Fprintln(stdout, "\nVecta set metrics (from the same replay; not bundle metrics):")
		printArms(stdout, []results.ArmResult{*r.vecta}, nil)
	}
	printSlices(stdout, b, nil)
	printSQuADFigures(stdout, b)
	switch {
	case len(r.missing) > 0 && in.missingZero:
		fmt.Fprintf(stdout, "\n%d dataset quer%s no prediction (scored 0 on every metric, --missing zero; held_fixed missing_predictions zero): %s\n", len(r.missing), scorePlural(len(r.missing), "y has", "ies have"), scoreList(r.missing))
	case len(r.missing) > 0:
		fmt.Fprintf(stdout, "\n%d dataset quer%s no prediction (failed rows, left out of every mean; PIPELINE_ERRORS): %s\n", len(r.missing), scorePlural(len(r.missing), "y has", "ies have"), scoreList(r.missing))
	}
	if len(r.unknown) > 0 {
		fmt.Fprintf(stdout, "\n%d prediction id%s not in the dataset (ignored): %s\n", len(r.unknown), scorePlural(len(r.unknown), " is", "s are"), scoreList(r.unknown))
	}
	for _, n := range r.notes {
		fmt.Fprintf(stdout, "\nnote: %s\n", n)
	}
	if len(b.Integrity.Warnings)+len(b.Integrity.Blocking) > 0 {
		fmt.Fprintln(stdout)
	}
	printIntegrity(stdout, b)
	if perQuery != "" {
		if err := writePerQueryTSV(perQuery, b); err != nil {
			return problems(err)
		}
	}
	if write {
		if out == "" {
			out = filepath.Join("lasagna-out", b.RunID[:12]+".json")
		}
		if err := writeBundleFile(out, b); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nbundle: %s\n", out)
	}
	if n := len(b.Integrity.Blocking); n > 0 {
		msg := fmt.Sprintf("%d blocking integrity problem(s)", n)
		if write {
			msg += "; the bundle was written, but its numbers cannot be trusted"
		}
		return problems(errors.New(msg))
	}
	return nil
}

// writePerQueryTSV writes one row per bundle row: the query id, its score
// of each metric of the result (an empty cell when the query was not
// scored on it), and its error (empty unless the row failed).
func writePerQueryTSV(path string, b *results.Bundle) error {
	var sb strings.Builder
	for _, res := range b.Results {
		names := make([]string, 0, len(res.Metrics))
		for m := range res.Metrics {
			names = append(names, m)
		}
		slices.SortFunc(names, compareMetricNames)
		sb.WriteString("id")
		for _, m := range names {
			sb.WriteString("\t" + m)
		}
		sb.WriteString("\terror\n")
		for _, row := range res.PerSampleScores {
			sb.WriteString(scoreTSVField(row.QueryID))
			for _, m := range names {
				sb.WriteByte('\t')
				if v, ok := row.Scores[m]; ok {
					sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			sb.WriteString("\t" + scoreTSVField(row.Error) + "\n")
		}
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return fmt.Errorf("--per-query: %w", err)
	}
	return nil
}

// scoreTSVField replaces tabs and line breaks, which TSV cannot hold, in an id.
func scoreTSVField(s string) string {
	return strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

func scoreList(ids []string) string {
	if len(ids) <= scoreListMax {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:scoreListMax], ", "), len(ids)-scoreListMax)
}

func scorePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// compareFlags are the options compare and significance share.
type compareFlags struct {
	baseline  string
	data      []string
	corpus    string
	metrics   []string
	seed      uint64
	resamples int
	level     float64
	queries   bool // compare --queries
}

func (f *compareFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "compare every arm against `ARM` (default: the first arm of each benchmark)")
	addDataFlags(cmd, &f.data, &f.corpus, "re-score each bundle against the benchmark `PATH` it ran on before comparing (as results validate --data does; repeatable)")
	cmd.Flags().StringArrayVar(&f.metrics, "metric", nil, "compare `METRIC` only (repeatable), or \"all\" for every metric both arms score per query (default: the gate metrics, ndcg@10 and recall@10 for a retrieving arm and token_f1 for an answering one)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "`SEED` of the bootstrap and randomisation resampling (default: the candidate bundle's experiment.stats_seed, 42 when absent, as the gate uses)")
	cmd.Flags().IntVar(&f.resamples, "resamples", 10000, "number of bootstrap and sign-flip resamples")
	cmd.Flags().Float64Var(&f.level, "level", 0.95, "confidence level; a difference is significant when its Holm p < 1 - LEVEL")
}

func (f *compareFlags) options() (results.CompareOptions, error) {
	if !(f.level > 0 && f.level < 1) {
		return results.CompareOptions{}, usageError("--level %v: want a number between 0 and 1, such as 0.95", f.level)
	}
	if f.resamples < 100 {
		return results.CompareOptions{}, usageError("--resamples %d: want at least 100", f.resamples)
	}
	ms := f.metrics
	if slices.Contains(ms, "all") {
		if len(ms) > 1 {
			return results.CompareOptions{}, usageError("--metric all shows every metric; give it alone, or name the metrics")
		}
		ms = nil
	}
	return results.CompareOptions{Metrics: ms, Seed: f.seed, Resamples: f.resamples, Level: f.level}, nil
}

// allMetrics reports whether --metric all was given.
func (f *compareFlags) allMetrics() bool { return slices.Equal(f.metrics, []string{"all"}) }

// shown returns the metrics of arm a that compare shows: the --metric
// list, every metric with --metric all, else the gate metrics of the
// arm's mode (engine.Gate's default) that it has, or all of its metrics
// when it has none of them.
func (f *compareFlags) shown(a results.ArmResult) []string {
	var ms []string
	switch {
	case f.allMetrics():
		for m := range a.Result.Metrics {
			ms = append(ms, m)
		}
	case len(f.metrics) > 0:
		for _, m := range f.metrics {
			if _, ok := a.Result.Metrics[m]; ok {
				ms = append(ms, m)
			}
		}
	default:
		ms = results.GateMetrics(results.Pair{Arm: a, Baseline: a})
	}
	slices.SortFunc(ms, compareMetricNames)
	return ms
}

// newResultsCompareCmd is `lasagna results compare A.json [B.json]`.
func newResultsCompareCmd(stdout io.Writer) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare A.json [B.json]",
		Short: "Compare the arms of a bundle, or two bundles, query by query",
		Long: `compare prints each arm's metrics, then compares arms paired by query id:
with one bundle, every arm of a benchmark against the baseline arm; with two,
each arm of B against the arm of A with the same name (A is the baseline).
Only queries present and error-free in both arms are paired; the number
dropped is shown. Pairs whose held_fixed blocks (comparability keys) differ,
or that differ in an undeclared stage (STAGE_ISOLATION), are refused.
Each comparison gets a verdict line: the mean difference, the effect size
d_z and the Holm-adjusted p-value of a paired sign-flip test, with the
number of comparisons its Holm family holds, and the smallest difference
the test could detect (80% power at its level, given n and the spread of
the per-query differences).

--queries lists, for each comparison, the queries whose score changed,
worst first: before → after and, for a ranked metric, the documents that
left and entered the top k (the relevant ones, with the question, when
--data gives the benchmark; a bundle records neither), or for an answer
metric the two answers.

By default the tables show, and the tests compare, the gate metrics of
benchmark run --baseline: ndcg@10 and recall@10 for an arm that retrieves,
token_f1 for one that answers (an arm with none of them shows all of its
metrics). --metric M (repeatable) picks metrics, --metric all shows every
metric. One Holm correction covers the metrics compared between one arm
and its baseline on one benchmark (docs/metrics.md, "Statistics"): the gate
of benchmark run --baseline, results report and the dashboard use the same
families, the same test and the same seed, so they print the same p.
A bundle whose benchmarks each have one arm prints its table: there is
nothing to compare, and that is not an error.

Exit status: 0 compared (or nothing to compare in one bundle); 1 an
unreadable or invalid bundle, a refused pair, or two bundles with no arm in
common; 2 usage error.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError("%s: want one or two bundles, got %d (usage: %s)", c.CommandPath(), len(args), c.UseLine())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return resultsCompare(c.Context(), stdout, args, &f, true)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&f.queries, "queries", false, "after the verdicts, list for each comparison the queries whose score changed, worst first: before → after, the question and the relevant documents lost and gained (with --data; else the ids that left and entered the top k), or the answers")
	return cmd
}

// newResultsSignificanceCmd is `lasagna results significance FILE...`.
func newResultsSignificanceCmd(stdout io.Writer) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "significance FILE... [--baseline ARM] [--metric M]...",
		Short: "Paired significance tests between arms, Holm-adjusted",
		Long: `significance pools the arms of the given bundles and compares every arm of
each benchmark with the baseline arm (--baseline, default the first), paired
by query id: mean difference with its paired-bootstrap interval, d_z, the
two-sided sign-flip p-value and the Holm-adjusted p-value over its family
(the metrics compared between the two arms on that benchmark; see
docs/metrics.md, "Statistics"). Arms of different files with the same name are
labelled FILE:ARM. Pairs that are not comparable are refused, with the
held_fixed fields that differ. The metrics are those of compare: the gate
metrics by default, --metric M to pick, --metric all for every one.

Exit status: 0 compared; 1 an unreadable or invalid bundle, a refused pair,
or nothing to compare; 2 usage error.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("%s: want one or more bundles (usage: %s)", c.CommandPath(), c.UseLine())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return resultsCompare(c.Context(), stdout, args, &f, false)
		},
	}
	f.register(cmd)
	return cmd
}

// readTrustedBundle reads the bundle at p for a command that shows its
// numbers: an edited or malformed bundle is refused (its problems printed
// to w), since its numbers cannot be trusted. what says what the command
// would have done ("compared", "reported"). With data (the benchmarks of
// --data), the bundle is re-scored against them first, as results validate
// --data does, and one whose rows disagree with the data is refused too.
func readTrustedBundle(w io.Writer, p, what string, data []*lasagna.Benchmark) (*results.Bundle, error) {
	raw, err := datasets.ReadFile(cliPath(p))
	if err != nil {
		return nil, problems(fmt.Errorf("results: %w", err))
	}
	r, _, err := results.ValidateAgainst(raw, data, schema.Check)
	if err != nil {
		return nil, usageError("results: %s: --data: %v", p, err)
	}
	var bad []string
	for _, pr := range r.Problems {
		switch pr.Code {
		case lasagna.RunIDMismatch, lasagna.ComparabilityKeyMismatch, lasagna.SchemaVersion, lasagna.InvalidBundle, lasagna.InconsistentBundle:
			bad = append(bad, pr.String())
		}
	}
	if len(bad) > 0 {
		for _, l := range bad {
			fmt.Fprintf(w, "%s: %s\n", p, l)
		}
		return nil, problems(fmt.Errorf("results: %s fails validation; not %s (see lasagna results validate %s)", p, what, p))
	}
	b := r.Bundle()
	if b == nil {
		return nil, problems(fmt.Errorf("results: %s does not read as a bundle (see lasagna results validate %s)", p, p))
	}
	return b, nil
}

func resultsCompare(ctx context.Context, w io.Writer, paths []string, f *compareFlags, summary bool) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	data, err := loadData(ctx, f.data, f.corpus)
	if err != nil {
		return err
	}
	var bundles []*results.Bundle
	for _, p := range paths {
		b, err := readTrustedBundle(w, p, "compared", data)
		if err != nil {
			return err
		}
		bundles = append(bundles, b)
	}
	prefixes := armPrefixes(paths, bundles, summary && len(paths) == 2)
	var all [][]results.ArmResult
	for i, b := range bundles {
		all = append(all, results.Arms(b, prefixes[i]))
	}

	var pairs []results.Pair
	var unpaired []string
	if summary && len(paths) == 2 {
		if f.baseline != "" {
			return usageError("compare: --baseline applies to one bundle; with two, A is the baseline")
		}
		pairs, unpaired = results.PairAcross(all[1], all[0])
	} else {
		pairs, err = results.PairWithin(slices.Concat(all...), f.baseline)
		if err != nil {
			return problems(fmt.Errorf("results: %w", err))
		}
	}

	if len(f.metrics) == 0 {
		opts.PairMetrics = results.GateMetrics
	}
	if summary {
		arms := slices.Concat(all...)
		printArms(w, arms, f.shown)
		if hidden := hiddenMetrics(arms, f.shown); hidden > 0 && len(f.metrics) == 0 {
			fmt.Fprintf(w, "(the gate metrics; --metric all shows %d more)\n", hidden)
		}
		fmt.Fprintln(w)
	}
	res := results.Compare(pairs, opts)
	if len(res.Comparisons) > 0 {
		printComparisons(w, res.Comparisons, opts.Level)
		fmt.Fprintln(w)
		for _, c := range res.Comparisons {
			fmt.Fprintln(w, c.Verdict())
		}
		if f.queries {
			fmt.Fprintln(w)
			printQueryChanges(w, pairs, res.Comparisons, data)
		}
	}
	for _, u := range unpaired {
		fmt.Fprintf(w, "not compared: %s has no arm of the same name and benchmark in the other bundle\n", u)
	}
	for _, r := range res.Refusals {
		fmt.Fprintf(w, "refused: %s\n", r)
	}
	switch {
	case len(res.Refusals) > 0:
		return problems(fmt.Errorf("results: %d %s refused", len(res.Refusals), resultsPlural(len(res.Refusals), "comparison", "comparisons")))
	case len(pairs) == 0 && summary && len(paths) == 1:
		// One arm per benchmark: its table is the whole answer.
		fmt.Fprintln(w, "nothing to compare: each benchmark of the bundle has one arm (a comparison needs two arms of the same benchmark, or a second bundle)")
	case len(pairs) == 0:
		return problems(fmt.Errorf("results: nothing to compare: a comparison needs two arms of the same benchmark"))
	}
	return nil
}

// hiddenMetrics counts the metrics of arms that shown leaves out.
func hiddenMetrics(arms []results.ArmResult, shown func(results.ArmResult) []string) int {
	n := 0
	for _, a := range arms {
		n += len(a.Result.Metrics) - len(shown(a))
	}
	return n
}

// armPrefixes labels arms: by config name alone when names are unique
// across the files (always for one file), else FILE:NAME with the file's
// base name (or its path when base names collide). With two files under
// compare, labels always carry the file, so "A:bm25 vs B:bm25" reads.
func armPrefixes(paths []string, bundles []*results.Bundle, always bool) []string {
	out := make([]string, len(paths))
	if len(paths) == 1 {
		return out
	}
	seen := map[string]int{}
	for _, b := range bundles {
		for _, c := range b.Configs {
			seen[c.Benchmark+"\x00"+c.Name]++
		}
	}
	collide := always
	for _, n := range seen {
		collide = collide || n > 1
	}
	if !collide {
		return out
	}
	bases := map[string]int{}
	for _, p := range paths {
		bases[filepath.Base(p)]++
	}
	for i, p := range paths {
		name := filepath.Base(p)
		if bases[name] > 1 {
			name = p
		}
		out[i] = strings.TrimSuffix(name, ".json") + ":"
	}
	return out
}

// printArms prints each arm's metrics with n, mean and interval: those
// shown returns for the arm, or every metric when shown is nil.
func printArms(w io.Writer, arms []results.ArmResult, shown func(results.ArmResult) []string) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tarm\tmetric\tn\tmean\t95% CI")
	for _, a := range arms {
		var names []string
		if shown != nil {
			names = shown(a)
		} else {
			for m := range a.Result.Metrics {
				names = append(names, m)
			}
			slices.SortFunc(names, compareMetricNames)
		}
		for _, m := range names {
			n, ci := "-", "-"
			if st, ok := a.Result.MetricStats[m]; ok {
				n = fmt.Sprint(st.N)
				ci = fmt.Sprintf("[%s, %s]", reporters.FormatNumber(st.CILow, 3), reporters.FormatNumber(st.CIHigh, 3))
				if st.Level != 0 && st.Level != 0.95 {
					ci += fmt.Sprintf(" at %g", st.Level)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Config.Benchmark, a.Label, m, n, reporters.FormatNumber(a.Result.Metrics[m], 4), ci)
		}
	}
	tw.Flush()
}

// compareMetricNames orders metric names by family, then by cutoff as a
// number ("ndcg" before "ndcg@5" before "ndcg@10").
func compareMetricNames(a, b string) int {
	fa, ka, _ := strings.Cut(a, "@")
	fb, kb, _ := strings.Cut(b, "@")
	if c := strings.Compare(fa, fb); c != 0 {
		return c
	}
	na, errA := strconv.Atoi(ka)
	nb, errB := strconv.Atoi(kb)
	switch {
	case ka == "" || kb == "":
		return strings.Compare(ka, kb)
	case errA == nil && errB == nil:
		return na - nb
	}
	return strings.Compare(ka, kb)
}

func printComparisons(w io.Writer, cs []results.Comparison, level float64) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "benchmark\tcomparison\tmetric\tn\tdropped\tmean\tbaseline\tdiff\t%g%% CI\td_z\tp\tHolm p\n", level*100)
	for _, c := range cs {
		dz := reporters.FormatNumber(c.Stats.Dz, 2)
		if c.Stats.DzUndefined {
			dz = "n/a"
		}
		fmt.Fprintf(tw, "%s\t%s vs %s\t%s\t%d\t%d\t%s\t%s\t%s\t[%s, %s]\t%s\t%s\t%s\n",
			c.Benchmark, c.Arm, c.Baseline, c.Metric, c.Stats.N, c.Dropped,
			reporters.FormatNumber(c.Mean, 4), reporters.FormatNumber(c.BaselineMean, 4),
			reporters.FormatSigned(c.Stats.MeanDiff, 4), reporters.FormatSigned(c.Stats.Lo, 4), reporters.FormatSigned(c.Stats.Hi, 4),
			dz, reporters.FormatP(c.Stats.P), c.HolmCell())
	}
	tw.Flush()
}

// printQueryChanges prints, for each comparison of cs, the queries whose
// score changed (results.Pair.QueryChanges), worst first.
func printQueryChanges(w io.Writer, pairs []results.Pair, cs []results.Comparison, data []*lasagna.Benchmark) {
	fmt.Fprintln(w, "queries whose score changed, worst first:")
	if len(data) == 0 {
		fmt.Fprintln(w, "(a bundle records neither questions nor relevant documents: lost and gained are the ids that left and entered the top k; --data FILE names the relevant ones)")
	}
	for _, c := range cs {
		i := slices.IndexFunc(pairs, func(p results.Pair) bool {
			return p.Arm.Label == c.Arm && p.Baseline.Label == c.Baseline && p.Arm.Config.Benchmark == c.Benchmark
		})
		if i < 0 {
			continue
		}
		qs := pairs[i].QueryChanges(c.Metric, data)
		fmt.Fprintf(w, "\n%s: %s vs %s, %s: %s\n", c.Benchmark, c.Arm, c.Baseline, c.Metric, changedCount(qs))
		if len(qs) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		answers := slices.ContainsFunc(qs, func(q results.QueryChange) bool {
			return q.BeforeAnswer != nil || q.AfterAnswer != nil
		})
		head := "  query\tbefore → after\tchange"
		if len(data) > 0 {
			head += "\tquestion"
		}
		switch {
		case answers:
			head += "\tanswer before\tanswer after"
		case qs[0].Relevant:
			head += "\trelevant lost\trelevant gained"
		default:
			head += "\tlost\tgained"
		}
		fmt.Fprintln(tw, head)
		for _, q := range qs {
			line := fmt.Sprintf("  %s\t%s → %s\t%s", q.QueryID, reporters.FormatNumber(q.Before, 4), reporters.FormatNumber(q.After, 4), reporters.FormatSigned(q.Change(), 4))
			if len(data) > 0 {
				line += "\t" + clip(q.Question, 60)
			}
			if answers {
				line += "\t" + clip(answerText(q.BeforeAnswer), 40) + "\t" + clip(answerText(q.AfterAnswer), 40)
			} else {
				line += "\t" + idList(q.Lost) + "\t" + idList(q.Gained)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
}

// changedCount says how many queries of qs fell and rose.
func changedCount(qs []results.QueryChange) string {
	if len(qs) == 0 {
		return "no query changed"
	}
	fell := 0
	for _, q := range qs {
		if q.Change() < 0 {
			fell++
		}
	}
	return fmt.Sprintf("%d %s changed (%d fell, %d rose)", len(qs), resultsPlural(len(qs), "query", "queries"), fell, len(qs)-fell)
}

// idList joins ids with spaces ("-" for none), the first 5 and a count of
// the rest.
func idList(ids []string) string {
	switch {
	case len(ids) == 0:
		return "-"
	case len(ids) > 5:
		return strings.Join(ids[:5], " ") + fmt.Sprintf(" (+%d)", len(ids)-5)
	}
	return strings.Join(ids, " ")
}

// answerText quotes an answer ("-" for none).
func answerText(a *string) string {
	if a == nil {
		return "-"
	}
	return strconv.Quote(*a)
}

// clip shortens s to at most n runes, ending with "…" when cut, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// printSlices prints the metric slices of b's results (metric_slices):
// per slice and metric (of shown, when not nil), n, the mean and its 95%
// CI. Nothing when no result is sliced.
func printSlices(w io.Writer, b *results.Bundle, shown []string) {
	sliced := false
	for _, res := range b.Results {
		sliced = sliced || len(res.Slices) > 0
	}
	if !sliced {
		return
	}
	fmt.Fprintln(w, "\nslices (each metric over the queries of one value of a query property):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tarm\tslice\tmetric\tn\tmean\t95% CI")
	for _, res := range b.Results {
		for _, s := range res.Slices {
			names := slices.SortedFunc(maps.Keys(s.MetricStats), compareMetricNames)
			if shown != nil {
				names = shown // in the table's order
			}
			for _, m := range names {
				st, ok := s.MetricStats[m]
				if !ok {
					continue
				}
				ci := fmt.Sprintf("[%s, %s]", reporters.FormatNumber(st.CILow, 3), reporters.FormatNumber(st.CIHigh, 3))
				fmt.Fprintf(tw, "%s\t%s\t%s=%s\t%s\t%d\t%s\t%s\n", res.BenchmarkName, res.ConfigName, s.Key, s.Value, m, st.N, reporters.FormatNumber(st.Mean, 4), ci)
			}
		}
	}
	tw.Flush()
}

// printSQuADFigures prints, for each result that scores exact_match and
// token_f1, the figures the official SQuAD evaluation scripts print, with
// their names: evaluate-v2.0.py's exact, f1, total and the HasAns_ and
// NoAns_ figures when the result has the built-in answerable split,
// evaluate-v1.1.py's exact_match and f1 otherwise, when the run scored
// missing predictions 0 as that script does (--missing zero; without
// it, the metrics table says the same as fractions). Each is computed as
// the scripts do, 100 × the sum of the rows' scores / their number, from
// the bundle's rows (so a sum of whole numbers gives the script's digits).
func printSQuADFigures(w io.Writer, b *results.Bundle) {
	for _, res := range b.Results {
		if _, ok := res.Metrics["exact_match"]; !ok {
			continue
		}
		if _, ok := res.Metrics["token_f1"]; !ok {
			continue
		}
		figures := func(ids []string) (em, f1 string, n int) {
			member := map[string]bool{}
			for _, id := range ids {
				member[id] = true
			}
			var se, sf float64
			for _, row := range res.PerSampleScores {
				e, ok1 := row.Scores["exact_match"]
				f, ok2 := row.Scores["token_f1"]
				if row.Error != "" || !ok1 || !ok2 || (ids != nil && !member[row.QueryID]) {
					continue
				}
				se, sf, n = se+e, sf+f, n+1
			}
			if n == 0 {
				return "", "", 0
			}
			return pyFloat(100 * se / float64(n)), pyFloat(100 * sf / float64(n)), n
		}
		split := map[string][]string{}
		for _, s := range res.Slices {
			if s.Key == datasets.AnswerableSlice {
				split[s.Value] = s.QueryIDs
			}
		}
		where := res.BenchmarkName + "/" + res.ConfigName
		em, f1, n := figures(nil)
		if len(split) == 0 {
			if c, ok := b.Config(res.BenchmarkName, res.ConfigName); !ok || c.HeldFixed.MissingPredictions != "zero" {
				continue
			}
			fmt.Fprintf(w, "\nSQuAD v1.1 figures of %s (evaluate-v1.1.py's names, percentages):\n", where)
			fmt.Fprintf(w, "{\"exact_match\": %s, \"f1\": %s}\n", em, f1)
			continue
		}
		fmt.Fprintf(w, "\nSQuAD v2.0 figures of %s (evaluate-v2.0.py's names, percentages):\n", where)
		lines := []string{`"exact": ` + em, `"f1": ` + f1, fmt.Sprintf(`"total": %d`, n)}
		for _, part := range []struct{ value, prefix string }{{"true", "HasAns"}, {"false", "NoAns"}} {
			ids, ok := split[part.value]
			if !ok {
				continue
			}
			if em, f1, n := figures(ids); n > 0 {
				lines = append(lines, fmt.Sprintf(`"%s_exact": %s`, part.prefix, em), fmt.Sprintf(`"%s_f1": %s`, part.prefix, f1), fmt.Sprintf(`"%s_total": %d`, part.prefix, n))
			}
		}
		fmt.Fprintf(w, "{\n  %s\n}\n", strings.Join(lines, ",\n  "))
	}
}

// pyFloat formats x as Python's repr of a float does: the shortest text
// that reads back as x, with ".0" on an integral value.
func pyFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if ax := max(x, -x); ax >= 1e16 || (ax != 0 && ax < 1e-4) {
		return s
	}
	s = strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

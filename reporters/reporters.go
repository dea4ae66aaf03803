package reporters

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lasagna-go/lasagna/results"
)

// Reporter receives the finished bundle of a run. Report must not modify
// b; it is called once per run, after the bundle is final (hashes set).
type Reporter interface {
	Report(ctx context.Context, b *results.Bundle) error
}

// FileReporter is a Reporter that writes a file. After its Report
// succeeds, evaltest logs the path File returns ("lasagna report: …"), so
// the file is found from the go test output. JSONFile, Markdown and
// htmlreport.Reporter are FileReporters.
type FileReporter interface {
	Reporter
	// File returns the path Report writes under ctx (which may carry the
	// bundle's path: BundlePath), or "" when it is unknown.
	File(ctx context.Context) string
}

// bundlePathKey is the context key of WithBundlePath.
type bundlePathKey struct{}

// WithBundlePath returns ctx carrying the path the bundle was written to,
// so that a reporter can write beside it. evaltest and the CLI set it
// before calling reporters.
func WithBundlePath(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, bundlePathKey{}, path)
}

// BundlePath returns the path set by WithBundlePath, or "".
func BundlePath(ctx context.Context) string {
	p, _ := ctx.Value(bundlePathKey{}).(string)
	return p
}

// Func adapts a plain function to a Reporter.
type Func func(ctx context.Context, b *results.Bundle) error

// Report calls f(ctx, b).
func (f Func) Report(ctx context.Context, b *results.Bundle) error { return f(ctx, b) }

// JSONFile writes the bundle to Path as indented JSON (results.WriteFile),
// creating Path's folder when needed and replacing an existing file.
type JSONFile struct {
	Path string
}

// File returns r.Path.
func (r JSONFile) File(context.Context) string { return r.Path }

// Report writes b to r.Path.
func (r JSONFile) Report(ctx context.Context, b *results.Bundle) error {
	if r.Path == "" {
		return fmt.Errorf("json reporter: no path given")
	}
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		return fmt.Errorf("json reporter: %w", err)
	}
	return results.WriteFile(r.Path, b)
}

// Text writes the console summary table (see Table) to W.
type Text struct {
	W io.Writer
	// Metrics are the columns; nil means SummaryMetrics(b).
	Metrics []string
}

// Report writes Table(b, r.Metrics) to r.W.
func (r Text) Report(ctx context.Context, b *results.Bundle) error {
	if r.W == nil {
		return fmt.Errorf("text reporter: no writer given")
	}
	_, err := io.WriteString(r.W, Table(b, r.Metrics))
	return err
}

// Markdown appends the Markdown summary (see MarkdownSummary) to the file
// at Path, creating it when absent — the contract of GitHub's
// $GITHUB_STEP_SUMMARY file, whose path the caller passes.
type Markdown struct {
	Path string
	// Metrics are the columns; nil means SummaryMetrics(b).
	Metrics []string
	// Baseline, when set, adds the deltas against it and the verdict lines
	// (see MarkdownBaseline).
	Baseline *results.Bundle
}

// File returns r.Path.
func (r Markdown) File(context.Context) string { return r.Path }

// Report appends MarkdownSummary(b, r.Metrics) to r.Path.
func (r Markdown) Report(ctx context.Context, b *results.Bundle) error {
	if r.Path == "" {
		return fmt.Errorf("markdown reporter: no path given")
	}
	f, err := os.OpenFile(r.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("markdown reporter: %w", err)
	}
	text := MarkdownSummary(b, r.Metrics)
	if r.Baseline != nil {
		text += MarkdownBaseline(b, r.Baseline, r.Metrics)
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return fmt.Errorf("markdown reporter: %s: %w", r.Path, err)
	}
	return f.Close()
}

// preferred are the summary columns shown by default, in order, when some
// result has them.
var preferred = []string{"ndcg@10", "recall@10", "mrr", "exact_match", "token_f1"}

// SummaryMetrics returns the columns of b's results tables: those of
// ndcg@10, recall@10, mrr, exact_match and token_f1 that some result
// scores, in that order (when none is scored, the first four metric names
// in sorted order), then each metric of checked that some result scores
// and is not among them yet. checked are the metrics a run checks and
// produces beyond the defaults: evaltest and the lasagna CLI pass the
// engine plan's (the judge's and scorers' metrics and those the
// thresholds and the gate check), so both show the same columns.
func SummaryMetrics(b *results.Bundle, checked ...string) []string {
	var all []string
	for _, r := range b.Results {
		for m := range r.Metrics {
			if !slices.Contains(all, m) {
				all = append(all, m)
			}
		}
	}
	var out []string
	for _, m := range preferred {
		if slices.Contains(all, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		slices.Sort(all)
		out = slices.Clone(all[:min(4, len(all))])
	}
	for _, m := range checked {
		if slices.Contains(all, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// row is one result as the summaries show it.
type row struct {
	bench, arm      string
	queries, failed int
	cells           []string
}

func rows(b *results.Bundle, metrics []string, cell func(results.Result, string) string) []row {
	var out []row
	for _, r := range b.Results {
		rw := row{bench: r.BenchmarkName, arm: r.ConfigName, queries: len(r.PerSampleScores)}
		for _, s := range r.PerSampleScores {
			if s.Error != "" {
				rw.failed++
			}
		}
		for _, m := range metrics {
			rw.cells = append(rw.cells, cell(r, m))
		}
		out = append(out, rw)
	}
	return out
}

// value formats a metric of r as "0.712 [0.650, 0.771]" (mean and
// confidence interval), "0.712" without an interval, or "-" when r has no
// such metric.
func value(r results.Result, m string, open, sep, close string) string {
	v, ok := r.Metrics[m]
	if !ok {
		return "-"
	}
	s := FormatNumber(v, 3)
	if st, ok := r.MetricStats[m]; ok && st.N > 1 {
		s += " " + open + FormatNumber(st.CILow, 3) + sep + FormatNumber(st.CIHigh, 3) + close
	}
	return s
}

// Table returns the console summary of b: one line per result (benchmark,
// arm, queries run, failed queries, and each metric's mean with its 95%
// confidence interval) aligned in columns, then one line counting the
// integrity findings. metrics nil means SummaryMetrics(b).
func Table(b *results.Bundle, metrics []string) string {
	if metrics == nil {
		metrics = SummaryMetrics(b)
	}
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "benchmark\tarm\tqueries\tfailed")
	for _, m := range metrics {
		fmt.Fprintf(tw, "\t%s", m)
	}
	fmt.Fprintln(tw)
	for _, r := range rows(b, metrics, func(r results.Result, m string) string { return value(r, m, "[", ", ", "]") }) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d", r.bench, r.arm, r.queries, r.failed)
		for _, c := range r.cells {
			fmt.Fprintf(tw, "\t%s", c)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(&sb, "integrity: %s\n", counts(b))
	return sb.String()
}

func counts(b *results.Bundle) string {
	return fmt.Sprintf("%d blocking, %d %s", len(b.Integrity.Blocking), len(b.Integrity.Warnings),
		plural(len(b.Integrity.Warnings), "warning", "warnings"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// MarkdownSummary returns b as a Markdown section: a heading, a table with
// one row per result (as in Table, intervals in parentheses), and the
// integrity findings as a list, blocking first. Table cells escape '|'.
// metrics nil means SummaryMetrics(b).
func MarkdownSummary(b *results.Bundle, metrics []string) string {
	if metrics == nil {
		metrics = SummaryMetrics(b)
	}
	var sb strings.Builder
	sb.WriteString("### lasagna results\n\n| benchmark | arm | queries | failed |")
	for _, m := range metrics {
		fmt.Fprintf(&sb, " %s |", mdCell(m))
	}
	sb.WriteString("\n| --- | --- | ---: | ---: |")
	for range metrics {
		sb.WriteString(" ---: |")
	}
	sb.WriteString("\n")
	for _, r := range rows(b, metrics, func(r results.Result, m string) string { return value(r, m, "(", "–", ")") }) {
		fmt.Fprintf(&sb, "| %s | %s | %d | %d |", mdCell(r.bench), mdCell(r.arm), r.queries, r.failed)
		for _, c := range r.cells {
			fmt.Fprintf(&sb, " %s |", c)
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "\n**Integrity:** %s\n", counts(b))
	if n := len(b.Integrity.Blocking) + len(b.Integrity.Warnings); n > 0 {
		sb.WriteString("\n")
		for _, f := range b.Integrity.Blocking {
			fmt.Fprintf(&sb, "- **blocking:** %s\n", mdText(f.String()))
		}
		for _, f := range b.Integrity.Warnings {
			fmt.Fprintf(&sb, "- warning: %s\n", mdText(f.String()))
		}
	}
	sb.WriteString("\n")
	return sb.String()
}

// MarkdownBaseline returns the comparison of b with a baseline bundle as a
// Markdown section: for each arm of b paired with the baseline's arm of the
// same benchmark and name, and each metric, the baseline's mean, b's mean,
// the paired difference and its Holm-adjusted p with the size of its
// family (as results compare and the gate compute them), then one verdict
// line per comparison. Pairs that cannot be compared are listed with the
// reason. metrics nil means each pair's gate metrics (results.GateMetrics),
// as results compare and the gate compare by default.
func MarkdownBaseline(b, baseline *results.Bundle, metrics []string) string {
	pairs, unpaired := results.PairAcross(results.Arms(b, ""), results.Arms(baseline, "baseline "))
	var sb strings.Builder
	sb.WriteString("#### against the baseline\n\n")
	if len(pairs) == 0 {
		sb.WriteString("No arm of this run has a counterpart in the baseline.\n\n")
		return sb.String()
	}
	o := results.CompareOptions{Metrics: metrics}
	if metrics == nil {
		o.PairMetrics = results.GateMetrics
	}
	cs := results.Compare(pairs, o)
	if len(cs.Comparisons) > 0 {
		sb.WriteString("| benchmark | arm | metric | baseline | now | Δ (paired) | Holm p | n |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
		for _, c := range cs.Comparisons {
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %d |\n", mdCell(c.Benchmark), mdCell(c.Arm), mdCell(c.Metric),
				FormatNumber(c.BaselineMean, 4), FormatNumber(c.Mean, 4), FormatSigned(c.Stats.MeanDiff, 4), c.HolmCell(), c.Stats.N)
		}
		sb.WriteString("\n")
		for _, c := range cs.Comparisons {
			fmt.Fprintf(&sb, "- %s\n", mdText(c.Verdict()))
		}
	}
	for _, r := range cs.Refusals {
		fmt.Fprintf(&sb, "- not compared: %s\n", mdText(r.String()))
	}
	for _, u := range unpaired {
		fmt.Fprintf(&sb, "- not in the baseline: %s\n", mdText(u))
	}
	sb.WriteString("\n")
	return sb.String()
}

func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

// mdText keeps s on one line and stops Markdown from reading its
// underscores and asterisks as emphasis.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("*", `\*`, "_", `\_`, "<", "&lt;").Replace(s)
}

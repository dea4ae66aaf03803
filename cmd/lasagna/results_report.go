package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
	"github.com/spf13/cobra"
)

// newResultsReportCmd is `lasagna results report BUNDLE… [-o report.html]`.
func newResultsReportCmd(stdout io.Writer) *cobra.Command {
	var o reportFlags
	cmd := &cobra.Command{
		Use:   "report BUNDLE.json... [-o report.html]",
		Short: "Write a self-contained HTML report with plots of one or more bundles",
		Long: `report writes one HTML file that opens offline (it makes no request to any
other host): the benchmark's identity and provenance, the comparability keys,
the integrity findings (blocking ones first), each arm's mean with its 95%
confidence interval and its per-query distribution as plots, the paired
comparisons of the arms (or of each arm against --baseline's arm of the same
name) with d_z, the Holm-adjusted p with the size of its family and the
verdict line that results compare prints, and a sortable, filterable
per-query table. The comparisons test the --metric metrics, else each arm
pair's gate metrics, with the families and seed of results compare and the
regression gate, so all three print the same p (docs/metrics.md,
"Statistics").

--data names the benchmarks the bundle ran on (a file, a BEIR folder,
registry:NAME@HASH or a sweep file, as given to benchmark run): the bundle
is first re-scored against them as results validate --data does (a bundle
whose rows disagree with the data is refused, and data at another revision
is a usage error naming both), and the table then shows each question and
its reference answers and marks the relevant documents of each ranked list.

The report of one bundle is written beside it, named after it (run.json →
run.html), unless -o names a file; a report of several bundles needs -o.
The command prints where it wrote.

Exit status: 0 written; 1 an unreadable or invalid bundle or data file;
2 usage error.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageError("%s: want at least one bundle (usage: %s)", c.CommandPath(), c.UseLine())
			}
			if o.out == "" && len(args) > 1 {
				return usageError("%s: -o FILE.html is required for a report of several bundles", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return resultsReport(c.Context(), stdout, args, o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "write the report to `FILE.html` (default: beside the one bundle, named after it)")
	cmd.Flags().StringVar(&o.baseline, "baseline", "", "compare each arm with the arm of the same name in `BUNDLE.json`")
	addDataFlags(cmd, &o.data, &o.corpus, "the benchmark `PATH` the bundle ran on (a file, BEIR folder, registry:NAME@HASH or sweep; repeatable): re-scores the bundle against it, shows questions and gold answers, marks relevant documents")
	cmd.Flags().StringArrayVar(&o.metrics, "metric", nil, "plot and compare `METRIC` (repeatable; default: ndcg@10, recall@10, mrr, exact_match, token_f1 where scored, then the judge, rubric and scorer metrics scored)")
	return cmd
}

// reportFlags are the flags of results report: the output file, the
// baseline bundle, the --data paths and the --metric metrics.
type reportFlags struct {
	out, baseline, corpus string
	data, metrics         []string
}

// resultsReport writes the HTML report of the bundles at paths.
func resultsReport(ctx context.Context, stdout io.Writer, paths []string, f reportFlags) error {
	benches, err := loadData(ctx, f.data, f.corpus)
	if err != nil {
		return err
	}
	var ins []htmlreport.Input
	for _, p := range paths {
		b, err := readTrustedBundle(stdout, p, "reported", benches)
		if err != nil {
			return err
		}
		in := htmlreport.Input{Bundle: b}
		if len(paths) > 1 {
			in.Label = filepath.Base(p)
		}
		ins = append(ins, in)
	}
	o := htmlreport.Options{Metrics: f.metrics}
	if f.baseline != "" {
		b, err := readTrustedBundle(stdout, f.baseline, "reported", nil)
		if err != nil {
			return err
		}
		o.Baseline = b
	}
	o.Data = benches
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, ins, o); err != nil {
		return problems(err)
	}
	out := f.out
	if out == "" {
		out = strings.TrimSuffix(paths[0], filepath.Ext(paths[0])) + ".html"
	}
	if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return problems(fmt.Errorf("results report: %w", err))
	}
	fmt.Fprintf(stdout, "report: %s (%d bytes)\n", out, buf.Len())
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// newResultsValidateCmd is `lasagna results validate FILE [--strict]
// [--data PATH]...`.
func newResultsValidateCmd(stdout io.Writer) *cobra.Command {
	var (
		strict bool
		data   []string
		corpus string
	)
	cmd := &cobra.Command{
		Use:   "validate FILE [--strict] [--data PATH]...",
		Short: "Check a results bundle: schema, version, hashes, consistency and integrity",
		Long: `validate checks a results bundle: its schema_version (1.0 <= v < 2.0), the
JSON Schema, its run_id and every comparability_key recomputed from its
contents (an edited number no longer matches), the integrity checks a bundle
alone allows, and the integrity codes it lists. It checks that the numbers
agree (INCONSISTENT_BUNDLE): each aggregate equals its metric_stats mean and
the mean of its per-query rows, n is the number of scored rows, each
confidence interval brackets its mean and is recomputed from the rows with
the recorded seed, every value lies in its metric's range, and no row is
empty. run_id shows that a bundle was edited, not who made it: anyone can
recompute it after an edit, and only these checks then catch numbers that
disagree. It checks what the rows say about each other: each arm's rows
are its sample (unless the bundle marks itself a shard or a go test -run
subset), ranked lists within retriever_top_k whose scores never rise
(unless SCORES_OUT_OF_ORDER is listed), retrieval metrics that agree
(hit, mrr, precision, recall, ndcg and map), SMALL_SAMPLE, a known
metrics_version.

--data re-scores the bundle against the benchmarks it ran on (a file, a
BEIR folder, registry:NAME@HASH or a sweep file naming them; each at the
revision the bundle names): the sample is drawn again and must be the
rows, and every retrieval and answer metric of every row is recomputed
from its ranked list or answer and the data. What stays unprovable is that
the lists and answers came from the system named, and the judge's
verdicts, which are taken as written.

Every problem is printed as "CODE at where: detail (fix: ...)".
Exit status: 0 valid, 1 blocking problems (or warnings with --strict),
2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return resultsValidate(c.Context(), stdout, args[0], strict, data, corpus)
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on warnings too")
	addDataFlags(cmd, &data, &corpus, "re-score against the benchmark `PATH` the bundle ran on (a file, BEIR folder, registry:NAME@HASH or sweep; repeatable)")
	return cmd
}

func resultsValidate(ctx context.Context, w io.Writer, path string, strict bool, data []string, corpus string) error {
	raw, err := datasets.ReadFile(cliPath(path))
	if err != nil {
		return problems(fmt.Errorf("results validate: %w", err))
	}
	benches, err := loadData(ctx, data, corpus)
	if err != nil {
		return err
	}
	// The checks of results.Validate (version, hashes, structure, listed
	// codes) plus the JSON Schema, and with --data the re-scoring.
	r, rs, err := results.ValidateAgainst(raw, benches, schema.Check)
	if err != nil {
		return usageError("results validate --data: %v", err)
	}
	summary := ""
	if len(benches) > 0 {
		summary = rs.String()
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "%s: %s: %s\n", path, p.Level, p)
	}
	if summary != "" {
		fmt.Fprintf(w, "%s: %s\n", path, summary)
	}
	nb, nw := r.Blocking(), r.Warnings()
	switch {
	case !r.OK(strict):
		fmt.Fprintf(w, "%s: invalid: %d blocking, %d %s%s\n", path, nb, nw, resultsPlural(nw, "warning", "warnings"), resultsStrictNote(strict, nb))
		return problems(nil)
	case nw > 0:
		fmt.Fprintf(w, "%s: valid, %d %s (use --strict to fail on warnings)\n", path, nw, resultsPlural(nw, "warning", "warnings"))
	default:
		fmt.Fprintf(w, "%s: valid\n", path)
	}
	return nil
}

func resultsStrictNote(strict bool, blocking int) string {
	if strict && blocking == 0 {
		return " (--strict fails on warnings)"
	}
	return ""
}

func resultsPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// addDataFlags adds --data (repeatable, described by help) and --corpus
// to a results command.
func addDataFlags(cmd *cobra.Command, data *[]string, corpus *string, help string) {
	cmd.Flags().StringArrayVar(data, "data", nil, help)
	cmd.Flags().StringVar(corpus, "corpus", "", "the corpus `FILE` (BEIR corpus.jsonl layout) of the --data JSONL or CSV file, as benchmark run --corpus takes it")
}

// loadData loads the benchmarks of --data paths whole (no sampling: the
// bundle's held_fixed says how the sample was drawn): files, BEIR folders,
// registry:NAME[@HASH] and the benchmarks of sweep files; corpus, when
// set, is the corpus file of the one --data JSONL or CSV file.
func loadData(ctx context.Context, paths []string, corpus string) ([]*lasagna.Benchmark, error) {
	if corpus != "" {
		if len(paths) != 1 || isSweepFile(paths[0]) || engine.IsRegistryPath(paths[0]) {
			return nil, usageError("--corpus goes with one --data JSONL or CSV file; give a sweep file whose entries name their corpus: for several")
		}
		if _, err := os.Stat(corpus); err != nil {
			return nil, usageError("--corpus %s: no such file", corpus)
		}
		_, corpus = cliPath(corpus)
	}
	resolve, closeRegistry := registryResolver(ctx)
	defer closeRegistry()
	var out []*lasagna.Benchmark
	for _, target := range paths {
		fsys, p := cliPath(target)
		sweep := &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: p, Corpus: corpus}}}
		if isSweepFile(p) {
			s, err := engine.ReadSweep(fsys, p)
			if err != nil {
				return nil, &exitError{code: exitUsage, err: err}
			}
			sweep = &engine.Sweep{Benchmarks: s.Benchmarks}
			for i := range sweep.Benchmarks {
				sweep.Benchmarks[i].NSamples, sweep.Benchmarks[i].Filters = 0, nil
			}
		}
		if err := checkRegistryPaths(sweep); err != nil {
			return nil, err
		}
		runs, err := engine.LoadBenchmarksWith(fsys, sweep, resolve)
		if err != nil {
			return nil, loadErr(err)
		}
		for _, br := range runs {
			out = append(out, br.Benchmark)
		}
	}
	return out, nil
}

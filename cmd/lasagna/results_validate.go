package main

import (
	"fmt"
	"io"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// newResultsValidateCmd is `lasagna results validate FILE [--strict]`.
func newResultsValidateCmd(stdout io.Writer) *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "validate FILE [--strict]",
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
disagree. Every problem is printed as "CODE at where: detail (fix: ...)".
Exit status: 0 valid, 1 blocking problems (or warnings with --strict),
2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return resultsValidate(stdout, args[0], strict)
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on warnings too")
	return cmd
}

func resultsValidate(w io.Writer, path string, strict bool) error {
	raw, err := datasets.ReadFile(cliPath(path))
	if err != nil {
		return problems(fmt.Errorf("results validate: %w", err))
	}
	// schema.Validate is results.Validate (version, hashes, structure,
	// listed codes) plus the JSON Schema.
	r := schema.Validate(raw)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "%s: %s: %s\n", path, p.Level, p)
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

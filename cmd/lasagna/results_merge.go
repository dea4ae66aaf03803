package main

import (
	"fmt"
	"io"

	"github.com/lasagna-go/lasagna/results"
	"github.com/spf13/cobra"
)

// newResultsMergeCmd is `lasagna results merge SHARD... -o OUT`.
func newResultsMergeCmd(stdout io.Writer) *cobra.Command {
	var out string
	var seed uint64
	cmd := &cobra.Command{
		Use:   "merge SHARD... -o OUT",
		Short: "Join the shard bundles of one run into one bundle",
		Long: `merge joins the bundles of one plan run as shards (LASAGNA_SHARD=i/n) into
one bundle. The shards must share the metrics version, the experiment and
every config (same comparability keys); per-query rows are unioned, and a
query of one arm in two shards is refused as an overlap. Aggregate metrics
are recomputed as means over the merged per-query scores (with bootstrap
intervals), never averaged from the shards, and the hashes are recomputed.
Gaps merge can see (an arm with no row, fewer rows than n_samples) are
recorded as MISSING_RESULTS in the merged bundle and printed.
Exit status: 0 merged, 1 refused or gaps found (the bundle is still
written when only gaps were found), 2 usage error.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("%s: want one or more shard bundles (usage: %s)", c.CommandPath(), c.UseLine())
			}
			if out == "" {
				return usageError("%s: -o OUT is required", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			var shards []*results.Bundle
			for _, p := range args {
				b, err := results.ReadFile(p)
				if err != nil {
					return problems(fmt.Errorf("results merge: %w", err))
				}
				shards = append(shards, b)
			}
			merged, gaps, err := results.Merge(shards, results.StatsOptions{Seed: seed})
			if err != nil {
				return problems(fmt.Errorf("results merge: %w", err))
			}
			if err := results.WriteFile(out, merged); err != nil {
				return problems(fmt.Errorf("results merge: %w", err))
			}
			rows := 0
			for _, r := range merged.Results {
				rows += len(r.PerSampleScores)
			}
			fmt.Fprintf(stdout, "merged %d %s: %d %s, %d per-query rows → %s (run_id %s)\n",
				len(shards), resultsPlural(len(shards), "shard", "shards"), len(merged.Configs), resultsPlural(len(merged.Configs), "arm", "arms"), rows, out, merged.RunID[:12])
			for _, g := range gaps {
				fmt.Fprintln(stdout, g.String())
			}
			if len(gaps) > 0 {
				return problems(fmt.Errorf("results merge: %d %s found; the merged bundle records them as blocking", len(gaps), resultsPlural(len(gaps), "gap", "gaps")))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged bundle to `OUT`")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "`SEED` of the bootstrap intervals of the recomputed aggregates")
	return cmd
}

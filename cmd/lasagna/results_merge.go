package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// newResultsMergeCmd is `lasagna results merge SHARD... -o OUT`.
func newResultsMergeCmd(stdout io.Writer) *cobra.Command {
	var (
		out    string
		data   []string
		corpus string
	)
	cmd := &cobra.Command{
		Use:   "merge SHARD... -o OUT",
		Short: "Join the shard bundles of one run into one bundle",
		Long: `merge joins the bundles of one run's shards (benchmark run --shard i/n, or
LASAGNA_SHARD=i/n in go test) into the bundle the unsharded run writes,
byte for byte: the same run_id.

Each shard is first checked as "results validate --strict" checks it (schema,
version, hashes, consistency, listed codes); a blocking problem refuses the
merge. merge also refuses shards of different runs (metrics version,
experiment, arms, held_fixed: each differing field is named), edited
aggregates, a query of one arm in two shards (an overlap) and a missing
shard (the merged query ids must hash to held_fixed.sample_id_digest).
Aggregates and their bootstrap intervals are recomputed from the merged
per-query rows with the seed the shards record, never averaged. Merging one
complete bundle writes it unchanged. Nothing is written when merge refuses.

--data re-scores each shard against the benchmarks it ran on first, as
results validate --data does (its shard of the sample drawn again, every
row's metrics recomputed); a shard whose rows disagree with the data
refuses the merge.
Exit status: 0 merged, 1 refused, 2 usage error.`,
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
			return resultsMerge(c.Context(), stdout, args, out, data, corpus)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged bundle to `OUT`")
	addDataFlags(cmd, &data, &corpus, "re-score each shard against the benchmark `PATH` it ran on (a file, BEIR folder, registry:NAME@HASH or sweep; repeatable)")
	return cmd
}

func resultsMerge(ctx context.Context, w io.Writer, paths []string, out string, dataPaths []string, corpus string) error {
	data, err := loadData(ctx, dataPaths, corpus)
	if err != nil {
		return err
	}
	var shards []*results.Bundle
	refused := 0
	for _, p := range paths {
		raw, err := datasets.ReadFile(cliPath(p))
		if err != nil {
			return problems(fmt.Errorf("results merge: %w", err))
		}
		// The validator of `results validate`, so merge refuses what it
		// refuses; warnings (e.g. POOLED_GOLD_CORPUS) carry over.
		r, _, err := results.ValidateAgainst(raw, data, schema.Check)
		if err != nil {
			return usageError("results merge: %s: --data: %v", p, err)
		}
		if r.Blocking() > 0 {
			refused++
			for _, pr := range r.Problems {
				if pr.Blocking() {
					fmt.Fprintf(w, "%s: blocking: %s\n", p, pr)
				}
			}
			continue
		}
		b := r.Bundle()
		if b == nil {
			return problems(fmt.Errorf("results merge: %s does not read as a bundle (see lasagna results validate %s)", p, p))
		}
		shards = append(shards, b)
	}
	if refused > 0 {
		return problems(fmt.Errorf("results merge: %d of the %d bundles failed validation (see above); nothing written", refused, len(paths)))
	}
	merged, err := results.Merge(shards, paths)
	if err != nil {
		var me *results.MergeError
		if errors.As(err, &me) {
			for _, pr := range me.Problems {
				fmt.Fprintln(w, pr)
			}
			return problems(fmt.Errorf("results merge: refused (%d %s above); nothing written", len(me.Problems), resultsPlural(len(me.Problems), "problem", "problems")))
		}
		return problems(fmt.Errorf("results merge: %w", err))
	}
	if err := results.WriteFile(out, merged); err != nil {
		return problems(fmt.Errorf("results merge: %w", err))
	}
	rows := 0
	for _, r := range merged.Results {
		rows += len(r.PerSampleScores)
	}
	fmt.Fprintf(w, "merged %d %s: %d %s, %d per-query rows → %s (run_id %s)\n",
		len(shards), resultsPlural(len(shards), "shard", "shards"), len(merged.Configs), resultsPlural(len(merged.Configs), "arm", "arms"), rows, out, merged.RunID[:12])
	return nil
}

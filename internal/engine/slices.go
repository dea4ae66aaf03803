package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/results"
)

// CheckSlices checks the slice keys of a plan (Options.Slices) against
// its benchmarks, all problems at once: a key is not empty and named
// once, each benchmark has a query whose metadata holds it (with "did you
// mean" among the benchmark's metadata keys), and every value under it is
// a string, number or boolean or a list of them. "answerable", the
// built-in split, is always known.
func CheckSlices(benches []*BenchmarkRun, keys []string) error {
	var errs []error
	seen := map[string]bool{}
	for _, k := range keys {
		switch {
		case strings.TrimSpace(k) == "":
			errs = append(errs, errors.New("a slice key is empty; name a metadata key of the queries (slices: [question_type])"))
		case seen[k]:
			errs = append(errs, fmt.Errorf("slice key %q is named twice", k))
		}
		seen[k] = true
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, br := range benches {
		b := br.Benchmark
		for _, k := range keys {
			if k == datasets.AnswerableSlice {
				continue
			}
			found := false
			for i := range b.Queries {
				q := &b.Queries[i]
				if _, ok := q.Metadata[k]; ok {
					found = true
				}
				if _, err := datasets.SliceValues(q, k); err != nil {
					errs = append(errs, fmt.Errorf("benchmark %s: slice key %q: %w", b.Name, k, err))
					break
				}
			}
			if !found {
				have := metadataKeys(b)
				list := "its queries have no metadata"
				if len(have) > 0 {
					list = "its metadata keys: " + strings.Join(have, ", ")
				}
				errs = append(errs, fmt.Errorf("benchmark %s: slice key %q: no query has metadata %q%s; %s", b.Name, k, k, suggest.Hint(k, have), list))
			}
		}
	}
	return errors.Join(errs...)
}

// metadataKeys returns the metadata keys of b's queries, sorted.
func metadataKeys(b *lasagna.Benchmark) []string {
	keys := map[string]bool{}
	for _, q := range b.Queries {
		for k := range q.Metadata {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// addSlices adds to res, whose rows are final, the slices of cell c: one
// per value of each key of keys, and the built-in answerable split when
// the arm scores answers and the benchmark's sample holds an unanswerable
// query (decided on the whole sample, so that every shard slices alike).
func addSlices(res *results.Result, c *Cell, keys []string, o results.StatsOptions) {
	b := c.Bench.Benchmark
	keys = slices.Clone(keys)
	if c.Arm.Answers() && slices.ContainsFunc(b.Queries, func(q lasagna.Query) bool { return q.Unanswerable }) && !slices.Contains(keys, datasets.AnswerableSlice) {
		keys = append(keys, datasets.AnswerableSlice)
	}
	for _, k := range keys {
		groups := map[string][]string{}
		for _, r := range c.Queries {
			vals, err := datasets.SliceValues(r.Query, k)
			if err != nil {
				continue // refused before the run (CheckSlices)
			}
			for _, v := range vals {
				groups[v] = append(groups[v], r.Query.ID)
			}
		}
		for _, v := range slices.Sorted(maps.Keys(groups)) {
			res.AddSlice(k, v, groups[v], o)
		}
	}
}

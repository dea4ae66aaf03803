package results

import (
	"fmt"
	"slices"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/metrics"
)

// StatsOptions configures the bootstrap of Aggregate; the zero value means
// metrics' defaults (10000 resamples, seed 0, 95%).
type StatsOptions = metrics.BootstrapOptions

// Aggregate recomputes r.Metrics and r.MetricStats from
// r.PerSampleScores: each metric's value is the mean over the rows that
// have a score for it and no error, and its stats hold n, that mean and
// the bootstrap confidence interval. A metric of r.Metrics that no row
// scores cannot be recomputed, and Aggregate fails naming it rather than
// dropping it.
func Aggregate(r *Result, o StatsOptions) error {
	scores := map[string][]float64{}
	for _, row := range r.PerSampleScores {
		if row.Error != "" {
			continue
		}
		for m, v := range row.Scores {
			scores[m] = append(scores[m], v)
		}
	}
	for m := range r.Metrics {
		if _, ok := scores[m]; !ok {
			return fmt.Errorf("%s/%s: metric %s has no per-query score, so its aggregate cannot be recomputed", r.BenchmarkName, r.ConfigName, m)
		}
	}
	r.Metrics = make(map[string]float64, len(scores))
	r.MetricStats = make(map[string]MetricStat, len(scores))
	for m, xs := range scores {
		st := NewMetricStat(xs, o)
		r.Metrics[m] = st.Mean
		r.MetricStats[m] = st
	}
	return nil
}

// MergeError is why Merge refused its shards: every overlap and mismatch
// found, one per line.
type MergeError struct {
	Problems []string
}

func (e *MergeError) Error() string {
	return "cannot merge the shards:\n  " + strings.Join(e.Problems, "\n  ")
}

// Merge joins bundles of one plan run as shards (LASAGNA_SHARD=i/n) into
// one bundle. The shards must agree on metrics_version, the experiment and
// the configs (same arms, same comparability keys); their per-query rows are
// unioned and sorted by query id, and a query of one arm in two shards is
// an overlap. Any mismatch or overlap makes Merge fail with a *MergeError
// naming each one.
//
// Gaps Merge can see are recorded as MISSING_RESULTS in the merged
// integrity.blocking: an arm with no row in any shard, and an arm with fewer
// rows than held_fixed.n_samples; Merge also returns them. Integrity lines of the shards are
// unioned. Aggregate metrics are recomputed from the merged per-query scores
// (see Aggregate; a shard's own aggregates are not averaged), and the hashes
// are recomputed by Finalize.
func Merge(shards []*Bundle, o StatsOptions) (*Bundle, []lasagna.Finding, error) {
	if len(shards) == 0 {
		return nil, nil, fmt.Errorf("no shard to merge")
	}
	var probs []string
	first := shards[0]
	out := &Bundle{
		SchemaVersion:  SchemaVersion,
		MetricsVersion: first.MetricsVersion,
		Submitter:      first.Submitter,
		Experiment:     first.Experiment,
		Configs:        slices.Clone(first.Configs),
	}
	firstExp, _ := marshal(first.Experiment)
	firstCfgs := configKeys(first)
	for i, s := range shards[1:] {
		n := i + 2
		if s.MetricsVersion != first.MetricsVersion {
			probs = append(probs, fmt.Sprintf("shard %d has metrics_version %q, shard 1 %q", n, s.MetricsVersion, first.MetricsVersion))
		}
		if exp, _ := marshal(s.Experiment); string(exp) != string(firstExp) {
			probs = append(probs, fmt.Sprintf("shard %d's experiment (environment, components, determinism) differs from shard 1's: shards of one plan run with the same release and settings", n))
		}
		if got := configKeys(s); !slices.Equal(got, firstCfgs) {
			probs = append(probs, fmt.Sprintf("shard %d's configs differ from shard 1's (%s vs %s): shards of one plan share every arm and comparability key", n, strings.Join(got, ", "), strings.Join(firstCfgs, ", ")))
		}
	}

	type armKey struct{ bench, name string }
	owner := map[armKey]map[string]int{} // query id → shard number
	rows := map[armKey][]Sample{}
	hasResult := map[armKey]bool{}
	for i, s := range shards {
		for _, r := range s.Results {
			k := armKey{r.BenchmarkName, r.ConfigName}
			hasResult[k] = true
			if owner[k] == nil {
				owner[k] = map[string]int{}
			}
			for _, row := range r.PerSampleScores {
				if prev, dup := owner[k][row.QueryID]; dup {
					probs = append(probs, fmt.Sprintf("overlap: %s/%s/%s is in shard %d and shard %d", k.bench, k.name, row.QueryID, prev, i+1))
					continue
				}
				owner[k][row.QueryID] = i + 1
				rows[k] = append(rows[k], row)
			}
		}
		for _, w := range s.Integrity.Warnings {
			if !slices.Contains(out.Integrity.Warnings, w) {
				out.Integrity.Warnings = append(out.Integrity.Warnings, w)
			}
		}
		for _, b := range s.Integrity.Blocking {
			if !slices.Contains(out.Integrity.Blocking, b) {
				out.Integrity.Blocking = append(out.Integrity.Blocking, b)
			}
		}
	}
	if len(probs) > 0 {
		return nil, nil, &MergeError{Problems: probs}
	}
	var gaps []lasagna.Finding
	for _, c := range out.Configs {
		k := armKey{c.Benchmark, c.Name}
		where := c.Benchmark + "/" + c.Name
		rs := rows[k]
		switch {
		case !hasResult[k] || len(rs) == 0:
			gaps = append(gaps, lasagna.Finding{Code: lasagna.MissingResults, Where: where,
				Detail: fmt.Sprintf("no shard of %d holds a row for this arm", len(shards))})
		case int64(len(rs)) < c.HeldFixed.NSamples:
			gaps = append(gaps, lasagna.Finding{Code: lasagna.MissingResults, Where: where,
				Detail: fmt.Sprintf("the shards hold %d of the %d sampled queries", len(rs), c.HeldFixed.NSamples)})
		}
		if len(rs) == 0 {
			continue // no result to recompute; MISSING_RESULTS says so
		}
		slices.SortStableFunc(rs, func(a, b Sample) int { return strings.Compare(a.QueryID, b.QueryID) })
		r := Result{BenchmarkName: c.Benchmark, ConfigName: c.Name, PerSampleScores: rs}
		for _, s := range shards {
			if sr, ok := s.Result(c.Benchmark, c.Name); ok {
				r.Metrics = mergeMetricNames(r.Metrics, sr.Metrics)
			}
		}
		if err := Aggregate(&r, o); err != nil {
			return nil, nil, err
		}
		out.Results = append(out.Results, r)
	}
	for _, s := range shards {
		for _, r := range s.Results {
			if _, ok := out.Config(r.BenchmarkName, r.ConfigName); !ok {
				return nil, nil, &MergeError{Problems: []string{fmt.Sprintf("a result names %s/%s, which no config describes", r.BenchmarkName, r.ConfigName)}}
			}
		}
	}
	for _, g := range gaps {
		out.Integrity.Add(g)
	}
	if err := Finalize(out); err != nil {
		return nil, nil, err
	}
	return out, gaps, nil
}

// mergeMetricNames adds the names of src to dst (values are recomputed).
func mergeMetricNames(dst, src map[string]float64) map[string]float64 {
	if dst == nil {
		dst = map[string]float64{}
	}
	for k := range src {
		dst[k] = 0
	}
	return dst
}

func configKeys(b *Bundle) []string {
	out := make([]string, len(b.Configs))
	for i, c := range b.Configs {
		key, err := ComparabilityKey(c.HeldFixed)
		if err != nil {
			key = "?"
		}
		out[i] = c.Benchmark + "/" + c.Name + "@" + key[:min(12, len(key))]
	}
	slices.Sort(out)
	return out
}

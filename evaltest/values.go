package evaltest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/results"
)

// Metric returns the value of metric for an arm: its mean over the arm's
// scored queries, as the bundle's aggregate holds it (for latency_ms,
// the mean pipeline time of the queries that recorded one). arm is the
// arm's Name or subtest name; when the arm ran on several benchmarks,
// name one as "benchmark/arm" with the benchmark's subtest name
// ("faq/mine"). An unknown arm, benchmark or metric is an error that
// names what the evaluation has, with a "did you mean"; a metric no query
// scored is an error, never 0.
func (e *Evaluation) Metric(arm, metric string) (float64, error) {
	r, err := e.result(arm)
	if err != nil {
		return 0, err
	}
	if metric == engine.MetricLatency {
		per, err := e.values(r, metric)
		if err != nil {
			return 0, err
		}
		sum := 0.0
		for _, v := range per {
			sum += v
		}
		return sum / float64(len(per)), nil
	}
	v, ok := r.Metrics[metric]
	if !ok {
		return 0, metricError(r, metric)
	}
	return v, nil
}

// QueryValues returns the value of metric for each query of an arm that
// scored it, by query id: a failed query, or a query a retrieval metric
// does not score (it has no judgements), is absent, never 0. latency_ms
// gives each query's pipeline time in milliseconds. arm and the errors
// are as for Metric.
func (e *Evaluation) QueryValues(arm, metric string) (map[string]float64, error) {
	r, err := e.result(arm)
	if err != nil {
		return nil, err
	}
	return e.values(r, metric)
}

// values returns metric's per-query values in r.
func (e *Evaluation) values(r *results.Result, metric string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, row := range r.PerSampleScores {
		if metric == engine.MetricLatency {
			if row.LatencyMS != nil {
				out[row.QueryID] = *row.LatencyMS
			}
			continue
		}
		if v, ok := row.Scores[metric]; ok {
			out[row.QueryID] = v
		}
	}
	if len(out) == 0 {
		return nil, metricError(r, metric)
	}
	return out, nil
}

// metricError says that r has no value of metric, and which it has.
func metricError(r *results.Result, metric string) error {
	var have []string
	for m := range r.Metrics {
		have = append(have, m)
	}
	for _, row := range r.PerSampleScores {
		if row.LatencyMS != nil {
			have = append(have, engine.MetricLatency)
			break
		}
	}
	slices.Sort(have)
	where := "arm " + r.ConfigName + " on " + r.BenchmarkName
	if len(have) == 0 {
		return fmt.Errorf("%s has no metric %q: none of its queries was scored", where, metric)
	}
	return fmt.Errorf("%s has no metric %q%s; it has %s", where, metric, suggest.Hint(metric, have), strings.Join(have, ", "))
}

// result returns the bundle's result for arm ("arm" or "benchmark/arm").
func (e *Evaluation) result(arm string) (*results.Result, error) {
	if e == nil {
		return nil, fmt.Errorf("the evaluation is nil")
	}
	if e.Bundle == nil {
		why := "no query ran"
		if len(e.Tests) > 0 && e.Tests[0].Failed {
			why = e.Tests[0].Failure()
		}
		return nil, fmt.Errorf("evaluation %s has no bundle: %s", e.Name, why)
	}
	var arms, benches []string
	for _, r := range e.Bundle.Results {
		arms = appendNew(arms, r.ConfigName)
		benches = appendNew(benches, ShortName(r.BenchmarkName))
	}
	// "benchmark/arm", unless the whole of it is an arm's name.
	name, bench := arm, ""
	isArm := func(a string) bool { return a == name || SubtestName(a) == name }
	if i := strings.LastIndexByte(arm, '/'); i > 0 && !slices.ContainsFunc(arms, isArm) {
		bench, name = arm[:i], arm[i+1:]
	}
	var found []*results.Result
	for i := range e.Bundle.Results {
		r := &e.Bundle.Results[i]
		if !isArm(r.ConfigName) {
			continue
		}
		if bench != "" && ShortName(r.BenchmarkName) != bench && r.BenchmarkName != bench {
			continue
		}
		found = append(found, r)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		var on []string
		for _, r := range found {
			on = append(on, ShortName(r.BenchmarkName))
		}
		return nil, fmt.Errorf("arm %s ran on %d benchmarks (%s); name one, e.g. %q", name, len(found), strings.Join(on, ", "), on[0]+"/"+name)
	case !slices.ContainsFunc(arms, isArm):
		return nil, fmt.Errorf("evaluation %s has no arm %q%s; its arms are %s", e.Name, name, suggest.Hint(name, arms), strings.Join(arms, ", "))
	default:
		return nil, fmt.Errorf("evaluation %s has no result for arm %s on benchmark %q%s; its benchmarks are %s", e.Name, name, bench, suggest.Hint(bench, benches), strings.Join(benches, ", "))
	}
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

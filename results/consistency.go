package results

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// consistencyTol is the tolerance of the consistency checks, relative to
// the magnitude of the numbers compared (at least 1).
const consistencyTol = 1e-12

// MetricRange returns the range of values metric name takes: [0, 1] for
// the ranked retrieval metrics (ndcg, recall, precision, map, hit, mrr,
// with or without @k, and r_precision), the answer metrics (exact_match,
// token_f1), the judge metrics (judge_correctness, groundedness,
// faithfulness, context_precision, context_recall) and the Vecta set
// metrics (chunk_, page_ and document_ precision, recall and f1); [-1, 1]
// for answer_relevancy (a mean cosine similarity); [0, +Inf) for
// latency_ms. ok is false for a name lasagna does not
// define, whose values are only required to be finite.
func MetricRange(name string) (lo, hi float64, ok bool) {
	base, _, _ := strings.Cut(name, "@")
	switch base {
	case "ndcg", "recall", "precision", "map", "hit", "mrr", "r_precision",
		"exact_match", "token_f1", "judge_correctness", "groundedness",
		"faithfulness", "context_precision", "context_recall":
		return 0, 1, true
	case "answer_relevancy":
		// A mean of cosine similarities: negative when the embeddings
		// point apart (Ragas does not clip it).
		return -1, 1, true
	case "latency_ms":
		return 0, math.Inf(1), true
	}
	for _, level := range []string{"chunk_", "page_", "document_"} {
		if rest, found := strings.CutPrefix(name, level); found && (rest == "precision" || rest == "recall" || rest == "f1") {
			return 0, 1, true
		}
	}
	return math.Inf(-1), math.Inf(1), false
}

// checkConsistency reports INCONSISTENT_BUNDLE wherever the numbers of the
// bundle disagree: with each other (metrics, metric_stats, per-query rows),
// with the bootstrap recomputed from the rows, or with a metric's range.
func checkConsistency(r *Report, b *Bundle) {
	o := b.StatsOptions()
	seedNote := fmt.Sprintf("seed %d from experiment.stats_seed", o.Seed)
	if b.Experiment.StatsSeed == 0 {
		seedNote = fmt.Sprintf("seed %d, as experiment.stats_seed is absent", o.Seed)
	}
	for i := range b.Results {
		checkResultConsistency(r, &b.Results[i], o, seedNote)
	}
}

func checkResultConsistency(r *Report, res *Result, o StatsOptions, seedNote string) {
	where := res.BenchmarkName + "/" + res.ConfigName
	scored := map[string][]float64{}
	for i, row := range res.PerSampleScores {
		w := where + "/" + row.QueryID
		if row.QueryID == "" {
			w = fmt.Sprintf("%s/per_sample_scores[%d]", where, i)
		}
		if len(row.Scores) == 0 && row.Error == "" && !row.Missing && row.JudgeError == "" && row.RetrievedIDs == nil && row.Retrieved == nil && row.Answer == nil {
			r.add(lasagna.InconsistentBundle, w, "the row has no scores, no error and no output (_retrieved_ids, _retrieved or answer): a query is scored, failed with its error, or shows the output that had nothing to score (a ranked list for a query without judgements), never empty")
		}
		for _, m := range slices.Sorted(maps.Keys(row.Scores)) {
			v := row.Scores[m]
			checkRange(r, w, fmt.Sprintf("scores[%q]", m), m, v)
			if row.Error == "" {
				scored[m] = append(scored[m], v)
			}
		}
		if row.LatencyMS != nil {
			checkRange(r, w, "latency_ms", "latency_ms", *row.LatencyMS)
		}
	}
	hasRows := len(res.PerSampleScores) > 0

	for _, m := range slices.Sorted(maps.Keys(res.Metrics)) {
		v := res.Metrics[m]
		field := fmt.Sprintf("metrics[%q]", m)
		checkRange(r, where, field, m, v)
		if !hasRows {
			continue
		}
		xs, ok := scored[m]
		if !ok {
			r.add(lasagna.InconsistentBundle, where, "%s is %v but no row without an error scores %s, so it is the mean of nothing", field, v, m)
			continue
		}
		// The mean alone: one resample is the cheapest bootstrap.
		mean := metrics.Summarize(xs, metrics.BootstrapOptions{Resamples: 1}).Mean
		if !near(v, mean) {
			r.add(lasagna.InconsistentBundle, where, "%s is %v but the mean of its %d scored row%s is %v", field, v, len(xs), plural(len(xs), "", "s"), mean)
		}
	}
	if hasRows {
		for _, m := range slices.Sorted(maps.Keys(scored)) {
			if _, ok := res.Metrics[m]; !ok {
				r.add(lasagna.InconsistentBundle, where, "%d row%s score %s but metrics has no %q: every scored metric has its aggregate", len(scored[m]), plural(len(scored[m]), "", "s"), m, m)
			}
		}
	}
	if len(res.MetricStats) > 0 {
		for _, m := range slices.Sorted(maps.Keys(res.Metrics)) {
			if _, ok := res.MetricStats[m]; !ok {
				r.add(lasagna.InconsistentBundle, where, "metrics has %q but metric_stats has no entry for it", m)
			}
		}
	}
	// The intervals of the rows, all drawn at once (newMetricStats).
	names := slices.Sorted(maps.Keys(res.MetricStats))
	var xss [][]float64
	for _, m := range names {
		if xs := scored[m]; len(xs) > 0 && len(xs) == res.MetricStats[m].N {
			xss = append(xss, xs)
		}
	}
	got := newMetricStats(xss, o)
	for _, m := range names {
		st := res.MetricStats[m]
		var recomputed MetricStat
		if xs := scored[m]; len(xs) > 0 && len(xs) == st.N {
			recomputed, got = got[0], got[1:]
		}
		checkStat(r, where, m, st, res.Metrics, scored, hasRows, o, recomputed, seedNote)
	}
	checkSlices(r, res, o, seedNote)
}

// checkStat checks metric_stats[m] against metrics[m], its own interval,
// its metric's range, n against the rows that score m (a result without
// rows has n 0) and the interval NewMetricStat recomputes from those rows
// under o, the bundle's StatsOptions, got (seedNote says where its seed comes
// from).
func checkStat(r *Report, where, m string, st MetricStat, aggs map[string]float64, scored map[string][]float64, hasRows bool, o StatsOptions, got MetricStat, seedNote string) {
	field := fmt.Sprintf("metric_stats[%q]", m)
	if v, ok := aggs[m]; !ok {
		r.add(lasagna.InconsistentBundle, where, "%s exists but metrics has no %q", field, m)
	} else if !near(v, st.Mean) {
		r.add(lasagna.InconsistentBundle, where, "metrics[%q] is %v but %s.mean is %v", m, v, field, st.Mean)
	}
	checkRange(r, where, field+".mean", m, st.Mean)
	checkRange(r, where, field+".ci_low", m, st.CILow)
	checkRange(r, where, field+".ci_high", m, st.CIHigh)
	if st.N > 0 && !(st.CILow <= st.Mean+tol(st.Mean) && st.Mean <= st.CIHigh+tol(st.Mean)) {
		r.add(lasagna.InconsistentBundle, where, "%s: the interval [%v, %v] does not bracket the mean %v", field, st.CILow, st.CIHigh, st.Mean)
	}
	xs := scored[m]
	if !hasRows && st.N != 0 {
		r.add(lasagna.InconsistentBundle, where, "%s.n is %d but the result has no per-query rows (per_sample_scores): an n without its rows cannot be checked", field, st.N)
		return
	}
	if st.N != len(xs) {
		r.add(lasagna.InconsistentBundle, where, "%s.n is %d but %d row%s without an error score %s", field, st.N, len(xs), plural(len(xs), "", "s"), m)
		return
	}
	if len(xs) == 0 {
		return
	}
	resamples := o.Resamples
	if resamples <= 0 {
		resamples = metrics.DefaultResamples
	}
	// An absent level is the default one, which got has.
	if !near(got.Mean, st.Mean) || !near(got.CILow, st.CILow) || !near(got.CIHigh, st.CIHigh) || (st.Level != 0 && st.Level != got.Level) {
		r.add(lasagna.InconsistentBundle, where, "%s is mean %v, interval [%v, %v] at level %v, but the %d scored rows give mean %v, interval [%v, %v] at level %v (bootstrap of %d resamples with %s)",
			field, st.Mean, st.CILow, st.CIHigh, orLevel(st.Level), len(xs), got.Mean, got.CILow, got.CIHigh, got.Level, resamples, seedNote)
	}
}

// checkRange reports v outside the range of metric m.
func checkRange(r *Report, where, field, m string, v float64) {
	lo, hi, ok := MetricRange(m)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		r.add(lasagna.InconsistentBundle, where, "%s is %v; scores are finite numbers", field, v)
	case ok && (v < lo || v > hi):
		r.add(lasagna.InconsistentBundle, where, "%s is %v, outside the range of %s, %s", field, v, m, rangeText(lo, hi))
	}
}

func rangeText(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return fmt.Sprintf("[%v, +inf)", lo)
	}
	return fmt.Sprintf("[%v, %v]", lo, hi)
}

func orLevel(l float64) float64 {
	if l == 0 {
		return metrics.DefaultLevel
	}
	return l
}

func tol(x float64) float64 { return consistencyTol * max(1, math.Abs(x)) }

// near reports whether a and b agree to consistencyTol (relative to their
// magnitude when it exceeds 1).
func near(a, b float64) bool {
	return math.Abs(a-b) <= consistencyTol*max(1, math.Abs(a), math.Abs(b))
}

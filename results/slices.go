package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// sliceEntry is the element type of Result.Slices.
type sliceEntry = struct {
	Key         string                `json:"key" jsonschema:"minLength=1"`
	Value       string                `json:"value"`
	QueryIDs    []string              `json:"query_ids"`
	MetricStats map[string]MetricStat `json:"metric_stats"`
}

// AddSlice adds to r the slice value of key: the rows whose query ids are
// ids (rows absent from r are ignored), with, per metric, the statistics
// (NewMetricStat under o) of the slice's rows without an error that score
// it, in row order. The slices stay in key then value order; adding a
// key and value r already has replaces it. Rows must be in their final
// order (SortRows) first. A slice without rows is not added.
func (r *Result) AddSlice(key, value string, ids []string, o StatsOptions) {
	member := make(map[string]bool, len(ids))
	for _, id := range ids {
		member[id] = true
	}
	s := sliceEntry{Key: key, Value: value, QueryIDs: []string{}}
	for _, row := range r.PerSampleScores {
		if member[row.QueryID] {
			s.QueryIDs = append(s.QueryIDs, row.QueryID)
		}
	}
	if len(s.QueryIDs) == 0 {
		return
	}
	s.MetricStats = sliceStats(r, s.QueryIDs, o)
	r.Slices = slices.DeleteFunc(r.Slices, func(x sliceEntry) bool { return x.Key == key && x.Value == value })
	i, _ := slices.BinarySearchFunc(r.Slices, s, compareSlices)
	r.Slices = slices.Insert(r.Slices, i, s)
}

func compareSlices(a, b sliceEntry) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

// sliceStats returns the statistics of each metric over the rows of r
// whose ids are ids, in row order, leaving out failed rows.
func sliceStats(r *Result, ids []string, o StatsOptions) map[string]MetricStat {
	return statsOf(sliceScores(r, ids), o)
}

// sliceScores returns, per metric, the scores of the rows of r whose ids
// are ids and that have no error, in row order.
func sliceScores(r *Result, ids []string) map[string][]float64 {
	member := make(map[string]bool, len(ids))
	for _, id := range ids {
		member[id] = true
	}
	scores := map[string][]float64{}
	for _, row := range r.PerSampleScores {
		if !member[row.QueryID] || row.Error != "" {
			continue
		}
		for m, v := range row.Scores {
			scores[m] = append(scores[m], v)
		}
	}
	return scores
}

func statsOf(scores map[string][]float64, o StatsOptions) map[string]MetricStat {
	out := make(map[string]MetricStat, len(scores))
	for m, xs := range scores {
		out[m] = NewMetricStat(xs, o)
	}
	return out
}

// checkSlices checks r's slices against its rows: keys and values in
// order and unique, query ids that are rows of the result, unique and in
// row order, and statistics that the listed rows give under o (n, mean,
// interval, and the same metrics).
func checkSlices(r *Report, res *Result, o StatsOptions, seedNote string) {
	if len(res.Slices) == 0 {
		return
	}
	where := res.BenchmarkName + "/" + res.ConfigName
	pos := make(map[string]int, len(res.PerSampleScores))
	for i, row := range res.PerSampleScores {
		pos[row.QueryID] = i
	}
	for i, s := range res.Slices {
		field := fmt.Sprintf("metric_slices[%d] (%s=%s)", i, s.Key, s.Value)
		if s.Key == "" {
			r.add(lasagna.InvalidBundle, where, "%s has an empty key", field)
		}
		if i > 0 && compareSlices(res.Slices[i-1], s) >= 0 {
			r.add(lasagna.InvalidBundle, where, "%s is out of order or repeated: slices are sorted by key, then value, each once", field)
		}
		if len(s.QueryIDs) == 0 {
			r.add(lasagna.InconsistentBundle, where, "%s lists no query: a slice holds at least one row", field)
			continue
		}
		last, ok := -1, true
		for _, id := range s.QueryIDs {
			p, found := pos[id]
			switch {
			case !found:
				r.add(lasagna.InconsistentBundle, where, "%s lists query %q, which has no row", field, id)
				ok = false
			case p <= last:
				r.add(lasagna.InconsistentBundle, where, "%s lists query %q out of row order or twice", field, id)
				ok = false
			}
			if !ok {
				break
			}
			last = p
		}
		if !ok {
			continue
		}
		scores := sliceScores(res, s.QueryIDs)
		for _, m := range slices.Sorted(maps.Keys(scores)) {
			if _, has := s.MetricStats[m]; !has {
				r.add(lasagna.InconsistentBundle, where, "%s has no metric_stats for %s, which %d of its rows score", field, m, len(scores[m]))
			}
		}
		for _, m := range slices.Sorted(maps.Keys(s.MetricStats)) {
			st := s.MetricStats[m]
			xs, has := scores[m]
			if !has {
				r.add(lasagna.InconsistentBundle, where, "%s has metric_stats for %s, which none of its rows without an error scores", field, m)
				continue
			}
			checkRange(r, where, field+" "+m+".mean", m, st.Mean)
			got := NewMetricStat(xs, o)
			if st.N != got.N || !near(got.Mean, st.Mean) || !near(got.CILow, st.CILow) || !near(got.CIHigh, st.CIHigh) || (st.Level != 0 && st.Level != got.Level) {
				resamples := o.Resamples
				if resamples <= 0 {
					resamples = metrics.DefaultResamples
				}
				r.add(lasagna.InconsistentBundle, where, "%s %s is n %d, mean %v, interval [%v, %v], but its %d scored rows give mean %v, interval [%v, %v] (bootstrap of %d resamples with %s)",
					field, m, st.N, st.Mean, st.CILow, st.CIHigh, got.N, got.Mean, got.CILow, got.CIHigh, resamples, seedNote)
			}
		}
	}
}

// rescoreSlices checks, against the data, that each slice of res holds
// exactly the rows whose query has that value under its key (datasets.SliceValues),
// for every key res slices by.
func rescoreSlices(r *Report, res *Result, bench *lasagna.Benchmark, where string) {
	if len(res.Slices) == 0 {
		return
	}
	recorded := map[string]map[string][]string{}
	var keys []string
	for _, s := range res.Slices {
		if recorded[s.Key] == nil {
			recorded[s.Key] = map[string][]string{}
			keys = append(keys, s.Key)
		}
		recorded[s.Key][s.Value] = s.QueryIDs
	}
	for _, key := range keys {
		want := map[string][]string{}
		for _, row := range res.PerSampleScores {
			q, ok := bench.Query(row.QueryID)
			if !ok {
				continue // reported as not in the sample
			}
			vals, err := datasets.SliceValues(&q, key)
			if err != nil {
				r.add(lasagna.InconsistentBundle, where, "slice key %s: %v", key, err)
				return
			}
			for _, v := range vals {
				want[key+"\x00"+v] = append(want[key+"\x00"+v], row.QueryID)
			}
		}
		values := map[string]bool{}
		for v := range recorded[key] {
			values[v] = true
		}
		for kv := range want {
			_, v, _ := strings.Cut(kv, "\x00")
			values[v] = true
		}
		for _, v := range slices.Sorted(maps.Keys(values)) {
			got, exp := recorded[key][v], want[key+"\x00"+v]
			switch {
			case got == nil:
				r.add(lasagna.InconsistentBundle, where, "the data puts %d row%s (%s) in slice %s=%s, which metric_slices does not have", len(exp), plural(len(exp), "", "s"), firstFew(exp), key, v)
			case exp == nil:
				r.add(lasagna.InconsistentBundle, where, "metric_slices has %s=%s, but no row's query in the data has that value", key, v)
			case !slices.Equal(got, exp):
				r.add(lasagna.InconsistentBundle, where, "slice %s=%s lists %d row%s, but the data puts %d there (%s)", key, v, len(got), plural(len(got), "", "s"), len(exp), firstFew(exp))
			}
		}
	}
}

// mergeSlices adds to merged the union of the shards' slices of the same
// benchmark and arm, recomputed over merged's rows.
func mergeSlices(merged *Result, shards []*Bundle, o StatsOptions) {
	ids := map[[2]string][]string{}
	for _, s := range shards {
		r, ok := s.Result(merged.BenchmarkName, merged.ConfigName)
		if !ok {
			continue
		}
		for _, sl := range r.Slices {
			k := [2]string{sl.Key, sl.Value}
			ids[k] = append(ids[k], sl.QueryIDs...)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(ids), func(a, b [2]string) int {
		return compareSlices(sliceEntry{Key: a[0], Value: a[1]}, sliceEntry{Key: b[0], Value: b[1]})
	}) {
		merged.AddSlice(k[0], k[1], ids[k], o)
	}
}

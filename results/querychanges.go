package results

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// QueryChange is one query whose score of one metric differs between the
// two arms of a Pair: Before is the baseline arm's score, After the arm's
// (see Pair.QueryChanges).
type QueryChange struct {
	Benchmark, Arm, Baseline, Metric string
	QueryID                          string
	// Question is the query's text; "" unless the benchmark was given.
	Question      string
	Before, After float64
	// Lost are the documents among the top K of the baseline's ranked list
	// that are not among the top K of the arm's, and Gained the other way
	// round, each in rank order; K is the metric's cutoff (10 for ndcg@10),
	// or the whole lists for a metric without one. With the benchmark they
	// are its relevant documents only (Relevant is true); without it every
	// id, since a bundle does not record which documents are relevant.
	// Both are nil for a metric that reads no ranked list, or when a row
	// records none.
	Lost, Gained []string
	Relevant     bool
	// BeforeAnswer and AfterAnswer are the arms' answers, for a metric
	// that does not read the ranked list (token_f1, a judge's metric);
	// nil when an arm recorded none.
	BeforeAnswer, AfterAnswer *string
}

// Change is After − Before.
func (q QueryChange) Change() float64 { return q.After - q.Before }

// QueryChanges lists the queries whose score of metric differs between
// p.Baseline and p.Arm, worst first: by After − Before, the largest drop
// first (the improvements last), then by query id. Queries are paired as
// Compare pairs them: by query id, error-free in both arms, with the
// metric scored in both; a difference of less than 1e-9 is no change.
// data are the benchmarks the bundles ran on, or nil: the one the arms
// ran on (matched by name, or by content as results validate --data
// matches it) gives each query's text and which documents are relevant.
// It is the one per-query diff of lasagna: results compare --queries,
// results report --baseline (and the dashboard's comparison page) and the
// regression gate's failing verdicts all render it.
func (p Pair) QueryChanges(metric string, data []*lasagna.Benchmark) []QueryChange {
	bench := dataFor(&p.Arm.Config, data)
	if bench == nil {
		bench = dataFor(&p.Baseline.Config, data)
	}
	k, ranked := metricDepth(metric)
	base := map[string]*Sample{}
	for i := range p.Baseline.Result.PerSampleScores {
		row := &p.Baseline.Result.PerSampleScores[i]
		base[row.QueryID] = row
	}
	var out []QueryChange
	for i := range p.Arm.Result.PerSampleScores {
		row := &p.Arm.Result.PerSampleScores[i]
		brow, ok := base[row.QueryID]
		if !ok || row.Error != "" || brow.Error != "" {
			continue
		}
		after, okA := row.Scores[metric]
		before, okB := brow.Scores[metric]
		if !okA || !okB || math.Abs(after-before) < 1e-9 {
			continue
		}
		c := QueryChange{Benchmark: p.Arm.Config.Benchmark, Arm: p.Arm.Label, Baseline: p.Baseline.Label, Metric: metric,
			QueryID: row.QueryID, Before: before, After: after}
		var judged map[string]int
		if bench != nil {
			if q, ok := bench.Query(row.QueryID); ok {
				c.Question = q.Text
			}
			judged, c.Relevant = bench.Qrels[row.QueryID], true
		}
		if ranked {
			lb, la := rankedIDs(brow), rankedIDs(row)
			if lb != nil && la != nil {
				c.Lost = missingFrom(top(lb, k), top(la, k), judged, c.Relevant)
				c.Gained = missingFrom(top(la, k), top(lb, k), judged, c.Relevant)
			}
		} else {
			c.BeforeAnswer, c.AfterAnswer = brow.Answer, row.Answer
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b QueryChange) int {
		return cmp.Or(cmp.Compare(a.Change(), b.Change()), strings.Compare(a.QueryID, b.QueryID))
	})
	return out
}

// metricDepth returns the cutoff of a ranked retrieval metric (0 for one
// that reads the whole list, such as ndcg or mrr) and whether metric reads
// the ranked list at all.
func metricDepth(metric string) (k int, ranked bool) {
	fam, cut, hasCut := strings.Cut(metric, "@")
	if hasCut && slices.Contains(metrics.CutoffFamilies(), fam) {
		k, err := strconv.Atoi(cut)
		return k, err == nil && k > 0
	}
	switch metric {
	case "ndcg", "mrr", "map", "r_precision":
		return 0, true
	}
	return 0, false
}

// rankedIDs returns the ranked list of row, or nil when it records none.
func rankedIDs(row *Sample) []string {
	if row.RetrievedIDs != nil || row.Retrieved == nil {
		return row.RetrievedIDs
	}
	ids := make([]string, len(row.Retrieved))
	for i, h := range row.Retrieved {
		ids[i] = h.ID
	}
	return ids
}

// top returns the first k ids of list (all of them when k is 0).
func top(list []string, k int) []string {
	if k > 0 && len(list) > k {
		return list[:k]
	}
	return list
}

// missingFrom returns the ids of a that b lacks, in order: only those
// judged relevant when relevantOnly.
func missingFrom(a, b []string, judged map[string]int, relevantOnly bool) []string {
	var out []string
	for _, id := range a {
		if !slices.Contains(b, id) && (!relevantOnly || judged[id] > 0) {
			out = append(out, id)
		}
	}
	return out
}

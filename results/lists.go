package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/sampleid"
)

// Subset marks a bundle that holds part of its sample on purpose: shard
// ShardIndex of ShardCount (LASAGNA_SHARD=i/n, `benchmark run --shard
// i/n`), whose rows are the sampled queries at positions ≡ i−1 (mod n) among
// the sorted ids, or the queries a `go test -run` pattern (Selection) left
// in. A bundle without it holds every sampled query of every arm, and
// Validate refuses one whose rows are not the sample (MISSING_RESULTS).
// Merge joins shards into a bundle without it.
type Subset struct {
	ShardIndex int `json:"shard_index,omitzero" jsonschema:"minimum=1"`
	ShardCount int `json:"shard_count,omitzero" jsonschema:"minimum=2"`
	// Selection is the go test -run and -skip patterns of a run that left
	// queries out ("test.run=TestRAG/faq/bm25/q17").
	Selection string `json:"selection,omitzero"`
}

// String describes s: "shard 2 of 4", "the queries test.run=P selected",
// or both.
func (s Subset) String() string {
	var parts []string
	if s.ShardCount > 0 {
		parts = append(parts, fmt.Sprintf("shard %d of %d", s.ShardIndex, s.ShardCount))
	}
	if s.Selection != "" {
		parts = append(parts, fmt.Sprintf("the queries %s selected", s.Selection))
	}
	return strings.Join(parts, ", ")
}

// SampleIDDigest returns what held_fixed.sample_id_digest records for the
// sampled query ids: the hex sha256 of the ids in byte order, each followed
// by "\n". ids is not modified.
func SampleIDDigest(ids []string) string {
	return sampleid.Digest(slices.Sorted(slices.Values(ids)))
}

// checkSubset checks the subset marker and that each result of a bundle
// without one holds exactly its sample: n_samples rows (when n_samples is
// set) whose sorted ids hash to sample_id_digest.
func checkSubset(r *Report, b *Bundle) {
	if s := b.Subset; s != nil {
		switch {
		case s.ShardCount == 0 && s.ShardIndex == 0 && s.Selection == "":
			r.add(lasagna.InvalidBundle, "subset", "the subset names neither a shard nor a selection; a whole run writes no subset")
		case s.ShardCount != 0 || s.ShardIndex != 0:
			if s.ShardCount < 2 || s.ShardIndex < 1 || s.ShardIndex > s.ShardCount {
				r.add(lasagna.InvalidBundle, "subset", "shard %d of %d: want shard i of n with 1 ≤ i ≤ n and n ≥ 2", s.ShardIndex, s.ShardCount)
			}
		}
	}
	for i := range b.Results {
		res := &b.Results[i]
		where := res.BenchmarkName + "/" + res.ConfigName
		c, ok := b.Config(res.BenchmarkName, res.ConfigName)
		if !ok || len(res.PerSampleScores) == 0 {
			// No rows: an empty result is MISSING_RESULTS (checkStructure),
			// and aggregates without rows are checked as far as they can be.
			continue
		}
		hf := c.HeldFixed
		ids := make([]string, len(res.PerSampleScores))
		for j, row := range res.PerSampleScores {
			ids[j] = row.QueryID
		}
		slices.Sort(ids)
		if b.Subset != nil {
			if hf.NSamples > 0 && int64(len(ids)) > hf.NSamples {
				r.add(lasagna.InconsistentBundle, where, "%s holds %d rows, more than the %d sampled queries (held_fixed.n_samples)", b.Subset, len(ids), hf.NSamples)
			}
			continue
		}
		switch {
		case hf.NSamples > 0 && int64(len(ids)) != hf.NSamples:
			r.add(lasagna.MissingResults, where, "the result holds %d rows but %d queries were sampled (held_fixed.n_samples), and the bundle is not marked as a subset (a shard or a go test -run selection): a row was removed or added", len(ids), hf.NSamples)
		case hf.SampleIDDigest != "" && sampleid.Digest(ids) != hf.SampleIDDigest:
			r.add(lasagna.MissingResults, where, "the %d rows' query ids do not hash to held_fixed.sample_id_digest, and the bundle is not marked as a subset (a shard or a go test -run selection): the rows are not the sampled queries", len(ids))
		}
	}
}

// checkLists checks what a row's ranked list and retrieval scores say
// about each other, without the benchmark: scores that never rise with
// rank (unless the bundle lists SCORES_OUT_OF_ORDER for the arm), a list
// no longer than the arm's retriever_top_k, and retrieval metrics that
// agree with each other (checkFamilies).
func checkLists(r *Report, b *Bundle, res *Result, where string) {
	topK := -1
	if c, ok := b.Config(res.BenchmarkName, res.ConfigName); ok {
		if k := c.HeldFixed.RetrieverTopK; k != nil {
			topK = *k
		} else if v, ok := c.VariedLevels["retriever_top_k"]; ok {
			if k, err := strconv.Atoi(v); err == nil {
				topK = k
			}
		}
	}
	risingListed := listed(b.Integrity.Warnings, lasagna.ScoresOutOfOrder, where)
	for i, row := range res.PerSampleScores {
		w := where + "/" + row.QueryID
		if row.QueryID == "" {
			w = fmt.Sprintf("%s/per_sample_scores[%d]", where, i)
		}
		n := len(row.RetrievedIDs)
		if row.Retrieved != nil {
			n = len(row.Retrieved)
		}
		if topK >= 0 && n > topK {
			r.add(lasagna.InconsistentBundle, w, "the ranked list holds %d ids but the arm retrieved to depth %d (retriever_top_k): lists are cut to the arm's depth before they are scored and written", n, topK)
		}
		if k := metrics.FirstRise(len(row.Retrieved), func(j int) float64 { return row.Retrieved[j].Score }); k > 0 && !risingListed {
			r.add(lasagna.InconsistentBundle, w, "_retrieved's score rises at rank %d (%v, above rank %d's %v) but integrity.warnings does not list SCORES_OUT_OF_ORDER for the arm: a ranked list's scores never rise unless the run says so",
				k, row.Retrieved[k-1].Score, k-1, row.Retrieved[k-2].Score)
		}
		if row.Error == "" && len(row.Scores) > 0 {
			checkFamilies(r, w, row.Scores, n, row.RetrievedIDs != nil || row.Retrieved != nil)
		}
	}
}

// families are the ranked retrieval metrics checkFamilies relates.
var families = metrics.CutoffFamilies()

// checkFamilies checks that a row's retrieval metrics can come from one
// ranked list of n ids (when hasList) and one set of judgements: at each
// cutoff k, hit@k is 0 or 1; ndcg, recall, precision, map, hit and mrr@k
// are all 0 (no relevant id in the top k) or all above 0; mrr@k is 1/r
// for a rank r ≤ min(k, n); precision@k × k counts relevant ids, at most
// min(k, n) and at most k − r + 1; and hit, recall, mrr, map and the
// relevant count never fall as k grows, up to the full-depth map and mrr.
func checkFamilies(r *Report, w string, scores map[string]float64, n int, hasList bool) {
	atK := map[int]map[string]float64{}
	for name, v := range scores {
		base, ks, ok := strings.Cut(name, "@")
		if !ok || !slices.Contains(families, base) {
			continue
		}
		k, err := strconv.Atoi(ks)
		if err != nil || k < 1 {
			continue
		}
		if atK[k] == nil {
			atK[k] = map[string]float64{}
		}
		atK[k][base] = v
	}
	cuts := make([]int, 0, len(atK))
	for k := range atK {
		cuts = append(cuts, k)
	}
	slices.Sort(cuts)
	depth := math.MaxInt
	if hasList {
		depth = n
	}
	fail := func(format string, args ...any) {
		r.add(lasagna.InconsistentBundle, w, "retrieval metrics disagree: "+format+"; one ranked list and one set of judgements cannot give these numbers", args...)
	}
	prev := map[string]float64{}
	prevK := 0
	for _, k := range cuts {
		m := atK[k]
		if h, ok := m["hit"]; ok && !near(h, 0) && !near(h, 1) {
			fail("hit@%d is %v; it is 0 or 1", k, h)
		}
		var zero, nonzero []string
		for _, f := range families {
			if v, ok := m[f]; ok {
				if near(v, 0) {
					zero = append(zero, fmt.Sprintf("%s@%d", f, k))
				} else {
					nonzero = append(nonzero, fmt.Sprintf("%s@%d", f, k))
				}
			}
		}
		if len(zero) > 0 && len(nonzero) > 0 {
			fail("%s %s 0 but %s %s not (either some relevant id is in the top %d or none is)", strings.Join(zero, ", "), isAre(len(zero)), strings.Join(nonzero, ", "), isAre(len(nonzero)), k)
		}
		rank := 0
		if v, ok := m["mrr"]; ok && !near(v, 0) {
			rr := math.Round(1 / v)
			switch {
			case rr < 1 || !near(v, 1/rr):
				fail("mrr@%d is %v, which is not 1/r for a whole rank r", k, v)
			case int(rr) > k || int(rr) > depth:
				fail("mrr@%d is %v, a first relevant id at rank %v, beyond the cutoff %d or the list of %d ids", k, v, rr, k, n)
			default:
				rank = int(rr)
			}
		}
		if v, ok := m["precision"]; ok {
			c := v * float64(k)
			cr := math.Round(c)
			switch {
			case !near(c, cr):
				fail("precision@%d is %v, which is not a count of relevant ids over %d", k, v, k)
			case int(cr) > min(k, depth):
				fail("precision@%d is %v: %v relevant ids in the top %d of a list of %d", k, v, cr, k, n)
			case rank > 0 && int(cr) > k-rank+1:
				fail("precision@%d is %v: %v relevant ids in the top %d, but mrr@%d puts the first at rank %d", k, v, cr, k, k, rank)
			default:
				m["count"] = cr
			}
		}
		if full, ok := scores["mrr"]; ok {
			if v, ok := m["mrr"]; ok && !near(v, 0) && !near(full, v) {
				fail("mrr@%d is %v but mrr is %v; the first relevant id is within the cutoff, so both are 1/its rank", k, v, full)
			} else if ok && near(v, 0) && !near(full, 0) && math.Round(1/full) <= float64(k) {
				fail("mrr@%d is 0 but mrr is %v, a first relevant id within the top %d", k, full, k)
			}
		}
		for _, f := range []string{"hit", "recall", "mrr", "map", "count"} {
			v, ok := m[f]
			p, had := prev[f]
			if ok && had && v < p-tol(p) {
				fail("%s falls from %v at @%d to %v at @%d; it never falls as the cutoff grows", describeFamily(f), p, prevK, v, k)
			}
			if ok {
				prev[f] = v
			}
		}
		prevK = k
	}
	for _, f := range []string{"mrr", "map"} {
		full, ok := scores[f]
		if !ok {
			continue
		}
		if p, had := prev[f]; had && full < p-tol(p) {
			fail("%s is %v but %s@%d is %v; the full-depth value is at least every cut one", f, full, f, prevK, p)
		}
	}
	if v, ok := scores["mrr"]; ok && !near(v, 0) {
		if rr := math.Round(1 / v); rr < 1 || !near(v, 1/rr) {
			fail("mrr is %v, which is not 1/r for a whole rank r", v)
		} else if int(rr) > depth {
			fail("mrr is %v, a first relevant id at rank %v of a list of %d ids", v, rr, n)
		}
	}
}

func describeFamily(f string) string {
	if f == "count" {
		return "precision@k × k (the relevant ids in the top k)"
	}
	return f + "@k"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// knownMetricsVersions are the metric definitions this reader knows.
var knownMetricsVersions = []string{MetricsVersion}

// checkSmallSample recomputes SMALL_SAMPLE from the rows: an arm that
// scored fewer queries than confidence intervals need must list it.
func checkSmallSample(r *Report, b *Bundle, res *Result, where string) {
	scored := 0
	for _, row := range res.PerSampleScores {
		if len(row.Scores) > 0 {
			scored++
		}
	}
	if f, ok := findings.SmallSample(where, scored); ok && !listed(b.Integrity.Warnings, lasagna.SmallSample, where) {
		r.add(lasagna.InconsistentBundle, where, "%s, but integrity.warnings does not list SMALL_SAMPLE for the arm", f.Detail)
	}
}

package results

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// Rescored says what ValidateAgainst re-scored.
type Rescored struct {
	// Rows is the number of rows checked against the data; Values the
	// number of row metrics recomputed from a row's ranked list or answer
	// and found equal.
	Rows, Values int
	// TakenAsWritten are the metrics the data cannot recompute (a judge's
	// verdicts, latency, the chunk, page and document metrics of hits whose
	// citations the bundle does not keep), in name order.
	TakenAsWritten []string
}

// String is the summary line results validate prints.
func (s Rescored) String() string {
	line := fmt.Sprintf("re-scored against the data: %d rows, %d metric values recomputed and equal", s.Rows, s.Values)
	if len(s.TakenAsWritten) > 0 {
		line += "; taken as written (not recomputable from the data): " + strings.Join(s.TakenAsWritten, ", ")
	}
	return line
}

// ValidateAgainst is ValidateWith(raw, checks...) followed by a re-scoring
// of the bundle against the benchmarks it ran on (data: each benchmark the
// bundle names, at the revision it names — the content hash after its
// "@"). For each arm it draws the sample again from the data (n_samples,
// sampling_seed and filters of held_fixed) and checks that it hashes to
// sample_id_digest and that the rows are exactly that sample (or the
// shard of it the bundle's subset names); for each row, that its query is
// in the data with the recorded query_digest, that its retrieval metrics
// are the ones its ranked list and the query's judgements give (the same
// scorer as the run), that its answer metrics are the ones its answer and
// the references give, that an id outside the corpus is covered by the
// UNKNOWN_DOC_ID or OUTSIDE_CORPUS_IDS the bundle lists, and that no
// metric is scored where the data says none can be. Every disagreement is
// an INCONSISTENT_BUNDLE problem naming the query and the metric (a row or
// sample that does not match, MISSING_RESULTS).
//
// What stays unprovable: that the ranked lists and answers came from the
// system the configs name, and the metrics a judge scored. The error is
// for data that cannot be used: a benchmark the bundle names with no
// benchmark of that name and revision among data. Without data it is
// ValidateWith(raw, checks...) alone.
func ValidateAgainst(raw []byte, data []*lasagna.Benchmark, checks ...func(raw []byte) []Problem) (Report, Rescored, error) {
	r, b := validate(raw, checks)
	r.bundle = b
	if b == nil || len(data) == 0 {
		return r, Rescored{}, nil // validate reported why, or nothing to re-score against
	}
	var missing []string
	for i := range b.Configs {
		if c := &b.Configs[i]; dataFor(c, data) == nil && !slices.Contains(missing, c.Benchmark) {
			missing = append(missing, c.Benchmark)
		}
	}
	if len(missing) > 0 {
		var have []string
		for _, d := range data {
			have = append(have, d.Name)
		}
		return r, Rescored{}, fmt.Errorf("the bundle ran on %s, but the data given is %s: re-scoring needs each benchmark at the revision the bundle names (the content hash after @); give that revision's files, or registry:NAME@HASH",
			strings.Join(missing, ", "), orNone(strings.Join(have, ", ")))
	}
	var s Rescored
	taken := map[string]bool{}
	for i := range b.Results {
		res := &b.Results[i]
		c, ok := b.Config(res.BenchmarkName, res.ConfigName)
		if !ok {
			continue
		}
		rescoreResult(&r, &s, taken, b, c, res, dataFor(c, data))
	}
	s.TakenAsWritten = slices.Sorted(maps.Keys(taken))
	return r, s, nil
}

// dataFor returns the benchmark of data that arm c ran on: the one of its
// name, else one with its content under another name (the same file run
// as registry:NAME, or a registry revision run from its file): the
// revision c's held_fixed.corpus_fingerprint is, or that begins with the
// hex digits after the "@" of c's benchmark name, at the same split.
func dataFor(c *Config, data []*lasagna.Benchmark) *lasagna.Benchmark {
	for _, d := range data {
		if d.Name == c.Benchmark {
			return d
		}
	}
	_, short, _ := strings.Cut(c.Benchmark, "@")
	for _, d := range data {
		if d.Split != c.HeldFixed.Split || d.Revision == "" {
			continue
		}
		if fp := c.HeldFixed.CorpusFingerprint; fp != "" && fp == d.Revision {
			return d
		}
		if c.HeldFixed.CorpusFingerprint == "" && len(short) >= 12 && strings.HasPrefix(d.Revision, short) {
			return d
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func rescoreResult(r *Report, s *Rescored, taken map[string]bool, b *Bundle, c *Config, res *Result, bench *lasagna.Benchmark) {
	where := res.BenchmarkName + "/" + res.ConfigName
	hf := c.HeldFixed
	seed := uint64(hf.SamplingSeed)
	_, info, err := datasets.Select(bench, datasets.Selection{Filters: hf.Filters, NSamples: int(hf.NSamples), Seed: &seed})
	if err != nil {
		r.add(lasagna.InconsistentBundle, where, "held_fixed's sampling (n_samples %d, seed %d, filters %v) cannot be drawn from the data: %v", hf.NSamples, hf.SamplingSeed, hf.Filters, err)
		return
	}
	if info.Digest != hf.SampleIDDigest {
		r.add(lasagna.InconsistentBundle, where, "held_fixed draws %d of the data's %d queries (n_samples %d, seed %d%s), whose ids hash to %s, but sample_id_digest is %s: the sample was not drawn as recorded",
			info.Sampled, info.Total, hf.NSamples, hf.SamplingSeed, filtersNote(hf.Filters), short(info.Digest), short(hf.SampleIDDigest))
		return
	}
	want := info.IDs
	if sub := b.Subset; sub != nil && sub.ShardCount > 1 {
		var shard []string
		for j, id := range info.IDs {
			if j%sub.ShardCount == sub.ShardIndex-1 {
				shard = append(shard, id)
			}
		}
		want = shard
	}
	have := map[string]bool{}
	for _, row := range res.PerSampleScores {
		have[row.QueryID] = true
	}
	var absent []string
	for _, id := range want {
		if !have[id] {
			absent = append(absent, id)
		}
	}
	wanted := map[string]bool{}
	for _, id := range want {
		wanted[id] = true
	}
	var extra []string
	for _, row := range res.PerSampleScores {
		if !wanted[row.QueryID] {
			extra = append(extra, row.QueryID)
		}
	}
	selection := b.Subset != nil && b.Subset.Selection != ""
	if len(absent) > 0 && !selection && len(res.PerSampleScores) > 0 {
		r.add(lasagna.MissingResults, where, "%d sampled quer%s of the data ha%s no row: %s", len(absent), plural(len(absent), "y", "ies"), plural(len(absent), "s", "ve"), firstFew(absent))
	}
	if len(extra) > 0 {
		r.add(lasagna.InconsistentBundle, where, "%d row%s %s not in the sample the data gives: %s", len(extra), plural(len(extra), "", "s"), plural(len(extra), "is", "are"), firstFew(extra))
	}

	cutoffs := cutoffsOf(res)
	sc, err := metrics.NewRetrievalScorer(cutoffs)
	if err != nil {
		r.add(lasagna.InconsistentBundle, where, "%v", err)
		return
	}
	corpus := make(map[string]bool, len(bench.Corpus))
	for _, d := range bench.Corpus {
		corpus[d.ID] = true
	}
	outsideListed := listed(b.Integrity.Blocking, lasagna.UnknownDocID, where) || listed(b.Integrity.Warnings, lasagna.OutsideCorpusIDs, where)
	norm := metrics.Normalization(hf.AnswerNormalization)
	for _, row := range res.PerSampleScores {
		w := where + "/" + row.QueryID
		q, ok := bench.Query(row.QueryID)
		if !ok {
			continue // reported above as not in the sample
		}
		s.Rows++
		if row.QueryDigest != "" {
			if d := datasets.QueryDigest(bench, &q); d != row.QueryDigest {
				r.add(lasagna.InconsistentBundle, w, "query_digest is %s but the data's query hashes to %s: the row is about another text, answers or judgements", short(row.QueryDigest), short(d))
			}
		}
		if row.Error != "" {
			continue
		}
		expect := map[string]float64{}
		if row.Missing {
			if hf.MissingPredictions != "zero" {
				r.add(lasagna.InconsistentBundle, w, "the row is marked missing (scored 0 without a prediction), but held_fixed.missing_predictions is not zero")
				continue
			}
			missingExpect(expect, sc, &q, bench, hf.ResolvedMode)
		}
		list := row.RetrievedIDs
		if list == nil && row.Retrieved != nil {
			list = make([]string, len(row.Retrieved))
			for j, h := range row.Retrieved {
				list[j] = h.ID
			}
		}
		if list != nil && firstDuplicate(list) == "" {
			if judged, ok := bench.Qrels[q.ID]; ok {
				m, err := sc.Score(list, judged)
				if err == nil {
					maps.Copy(expect, m)
				}
			}
			if len(corpus) > 0 && !outsideListed {
				for _, id := range list {
					if !corpus[id] {
						r.add(lasagna.InconsistentBundle, w, "the ranked list holds %q, which is not in the data's corpus of %d documents, and the bundle lists neither UNKNOWN_DOC_ID nor OUTSIDE_CORPUS_IDS for the arm", id, len(bench.Corpus))
						break
					}
				}
			}
		}
		if row.Answer != nil && (len(q.Answers) > 0 || q.Unanswerable) {
			a := metrics.ScoreAnswer(*row.Answer, q.Answers, metrics.AnswerOptions{Abstained: row.Abstained, Unanswerable: q.Unanswerable, Normalization: norm})
			expect["exact_match"] = a.ExactMatch
			expect["token_f1"] = a.TokenF1
		}
		for _, m := range slices.Sorted(maps.Keys(expect)) {
			v, ok := row.Scores[m]
			switch {
			case !ok:
				r.add(lasagna.InconsistentBundle, w, "the row has no %s, but its %s and the data give %v", m, outputOf(m), expect[m])
			case !near(v, expect[m]):
				r.add(lasagna.InconsistentBundle, w, "scores[%q] is %v, but the row's %s and the data give %v", m, v, outputOf(m), expect[m])
			default:
				s.Values++
			}
		}
		for _, m := range slices.Sorted(maps.Keys(row.Scores)) {
			if _, ok := expect[m]; ok {
				continue
			}
			if rescorable(m) {
				why := whyUnscored(m, row, &q, bench)
				if row.Missing {
					why = "a missing prediction scores 0 only on the metrics its query is scored on"
				}
				r.add(lasagna.InconsistentBundle, w, "scores[%q] is %v, but the data gives this row no %s: %s", m, row.Scores[m], m, why)
				continue
			}
			taken[m] = true
		}
	}
	rescoreSlices(r, res, bench, where)
}

// missingExpect sets in expect the scores of a missing prediction under
// missing_predictions zero: 0 on every metric the query is scored on in
// mode, the retrieval metrics of an empty list for a judged query and
// the answer metrics for a query with references or marked unanswerable.
func missingExpect(expect map[string]float64, sc *metrics.RetrievalScorer, q *lasagna.Query, bench *lasagna.Benchmark, mode lasagna.Mode) {
	if mode == lasagna.ModeRetrieval || mode == lasagna.ModeRAG {
		if judged, ok := bench.Qrels[q.ID]; ok {
			if m, err := sc.Score([]string{}, judged); err == nil {
				maps.Copy(expect, m) // an empty list scores 0 throughout
			}
		}
	}
	if mode != lasagna.ModeRetrieval && (len(q.Answers) > 0 || q.Unanswerable) {
		expect["exact_match"] = 0
		expect["token_f1"] = 0
	}
}

// rescorable reports whether metric m is one the data recomputes: the
// ranked retrieval metrics and the answer metrics.
func rescorable(m string) bool {
	base, _, _ := strings.Cut(m, "@")
	switch base {
	case "ndcg", "recall", "precision", "map", "hit", "mrr", "r_precision", "exact_match", "token_f1":
		return true
	}
	return false
}

func outputOf(m string) string {
	if m == "exact_match" || m == "token_f1" {
		return "answer"
	}
	return "ranked list"
}

func whyUnscored(m string, row Sample, q *lasagna.Query, bench *lasagna.Benchmark) string {
	if m == "exact_match" || m == "token_f1" {
		if row.Answer == nil {
			return "it has no answer"
		}
		return "the query has no reference answer and is not unanswerable"
	}
	switch {
	case row.RetrievedIDs == nil && row.Retrieved == nil:
		return "it has no ranked list"
	case firstDuplicate(row.RetrievedIDs) != "":
		return "its ranked list holds an id twice (DUPLICATE_RETRIEVED_ID is never scored)"
	}
	if _, ok := bench.Qrels[q.ID]; !ok {
		return "the query has no judgements"
	}
	return "the cutoff is not one the arm scored"
}

// cutoffsOf returns the cutoffs k of the @k metrics a result scores, in
// its rows and aggregates.
func cutoffsOf(res *Result) []int {
	seen := map[int]bool{}
	add := func(name string) {
		base, ks, ok := strings.Cut(name, "@")
		if !ok || !slices.Contains(families, base) {
			return
		}
		if k, err := strconv.Atoi(ks); err == nil && k >= 1 {
			seen[k] = true
		}
	}
	for m := range res.Metrics {
		add(m)
	}
	for _, row := range res.PerSampleScores {
		for m := range row.Scores {
			add(m)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func filtersNote(f map[string]any) string {
	if len(f) == 0 {
		return ", no filters"
	}
	return fmt.Sprintf(", filters %v", f)
}

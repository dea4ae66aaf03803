package results

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// forge edits the clean retrieval bundle with f and recomputes every hash,
// as a forger who knows that run_id is a plain sha256 would.
func forge(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	return edit(t, encode(t, retrievalBundle(t)), func(m map[string]any) {
		f(m)
		rehash(t, m)
	})
}

// bm25 returns the first result (arm bm25) of the generic bundle m.
func bm25(m map[string]any) map[string]any { return arr(m, "results")[0].(map[string]any) }

func row(m map[string]any, i int) map[string]any {
	return arr(bm25(m), "per_sample_scores")[i].(map[string]any)
}

// wantInconsistent checks that raw fails validation with
// INCONSISTENT_BUNDLE, a detail holding each of details, and no hash
// mismatch (the forger recomputed the hashes).
func wantInconsistent(t *testing.T, raw []byte, details ...string) {
	t.Helper()
	r := Validate(raw)
	if !r.Has(lasagna.InconsistentBundle) || r.OK(false) {
		t.Fatalf("codes %v, want blocking %s:%s", codes(r), lasagna.InconsistentBundle, problemLines(r))
	}
	if r.Has(lasagna.RunIDMismatch) || r.Has(lasagna.ComparabilityKeyMismatch) {
		t.Fatalf("the forger's hashes do not match, so this test proves nothing:%s", problemLines(r))
	}
	lines := problemLines(r)
	for _, d := range details {
		if !strings.Contains(lines, d) {
			t.Errorf("no problem says %q:%s", d, lines)
		}
	}
	for _, p := range r.Problems {
		if p.Code == lasagna.InconsistentBundle && (p.Where == "" || p.Level != lasagna.LevelBlocking) {
			t.Errorf("problem without where or not blocking: %s", p)
		}
	}
}

// The forgeries of issue 11, each after an edit and a recomputed run_id.
func TestForgedAggregate(t *testing.T) {
	// metrics says 0.42 while metric_stats.mean and the rows say 0.5095.
	wantInconsistent(t, forge(t, func(m map[string]any) {
		obj(bm25(m), "metrics")["ndcg@10"] = json.Number("0.42")
	}), `at local/faq@0123456789ab/bm25: metrics["ndcg@10"] is 0.42 but the mean of its 20 scored rows is 0.5095`,
		`metrics["ndcg@10"] is 0.42 but metric_stats["ndcg@10"].mean is 0.5095`)
}

func TestForgedAggregateAndStats(t *testing.T) {
	// Both aggregates edited together: the rows still disagree.
	wantInconsistent(t, forge(t, func(m map[string]any) {
		obj(bm25(m), "metrics")["ndcg@10"] = json.Number("0.6")
		obj(obj(bm25(m), "metric_stats"), "ndcg@10")["mean"] = json.Number("0.6")
	}), `metrics["ndcg@10"] is 0.6 but the mean of its 20 scored rows is 0.5095`,
		`metric_stats["ndcg@10"] is mean 0.6, interval`)
}

func TestForgedN(t *testing.T) {
	wantInconsistent(t, forge(t, func(m map[string]any) {
		obj(obj(bm25(m), "metric_stats"), "ndcg@10")["n"] = json.Number("1000")
	}), `metric_stats["ndcg@10"].n is 1000 but 20 rows without an error score ndcg@10`)
}

func TestForgedOutOfRange(t *testing.T) {
	for _, v := range []string{"1.5", "-0.5"} {
		t.Run(v, func(t *testing.T) {
			wantInconsistent(t, forge(t, func(m map[string]any) {
				obj(row(m, 0), "scores")["ndcg@10"] = json.Number(v)
			}), `at local/faq@0123456789ab/bm25/q01: scores["ndcg@10"] is `+v+`, outside the range of ndcg@10, [0, 1]`)
		})
	}
	// Out of range and every aggregate recomputed to match: the range
	// alone catches it.
	raw := edit(t, encode(t, retrievalBundle(t)), func(m map[string]any) {})
	b, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	b.Results[0].PerSampleScores[0].Scores["recall@10"] = 2
	if err := Aggregate(&b.Results[0], b.StatsOptions()); err != nil {
		t.Fatal(err)
	}
	wantInconsistent(t, encode(t, b), `scores["recall@10"] is 2, outside the range of recall@10, [0, 1]`)
}

func TestForgedDeletedRow(t *testing.T) {
	wantInconsistent(t, forge(t, func(m map[string]any) {
		res := bm25(m)
		rows := arr(res, "per_sample_scores")
		res["per_sample_scores"] = append(rows[:1:1], rows[2:]...) // q02 (ndcg 0.421) deleted
	}), `metric_stats["ndcg@10"].n is 20 but 19 rows without an error score ndcg@10`,
		`metrics["ndcg@10"] is 0.5095000000000001 but the mean of its 19 scored rows is`)
}

func TestForgedEmptyRow(t *testing.T) {
	// A row with no scores, no error and no output: the query vanished.
	wantInconsistent(t, forge(t, func(m map[string]any) {
		r := row(m, 1)
		delete(r, "scores")
		delete(r, "_retrieved_ids")
		delete(r, "_retrieved")
	}), `at local/faq@0123456789ab/bm25/q02: the row has no scores, no error and no output`)
}

func TestForgedInterval(t *testing.T) {
	t.Run("does not bracket", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			obj(obj(bm25(m), "metric_stats"), "ndcg@10")["ci_low"] = json.Number("0.55")
		}), `metric_stats["ndcg@10"]: the interval [0.55, 0.6099999999999999] does not bracket the mean 0.5095000000000001`)
	})
	t.Run("narrowed", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			obj(obj(bm25(m), "metric_stats"), "ndcg@10")["ci_high"] = json.Number("0.55")
		}), `the 20 scored rows give mean 0.5095000000000001, interval [0.4075475, 0.6099999999999999] at level 0.95 (bootstrap of 10000 resamples with seed 7 from experiment.stats_seed)`)
	})
	t.Run("seed edited", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			obj(m, "experiment")["stats_seed"] = json.Number("8")
		}), `metric_stats["ndcg@10"] is mean 0.5095000000000001`, `with seed 8 from experiment.stats_seed)`)
	})
	t.Run("seed removed", func(t *testing.T) {
		// No recorded seed means DefaultStatsSeed, which these
		// intervals were not drawn with.
		wantInconsistent(t, forge(t, func(m map[string]any) {
			delete(obj(m, "experiment"), "stats_seed")
		}), `(bootstrap of 10000 resamples with seed 42, as experiment.stats_seed is absent)`)
	})
	t.Run("level edited", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			obj(obj(bm25(m), "metric_stats"), "recall@10")["level"] = json.Number("0.9")
		}), `at level 0.9, but the 20 scored rows give mean 0.65, interval`, `at level 0.95 (bootstrap`)
	})
}

func TestForgedMetricNames(t *testing.T) {
	t.Run("aggregate dropped", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			delete(obj(bm25(m), "metrics"), "recall@10")
			delete(obj(bm25(m), "metric_stats"), "recall@10")
		}), `20 rows score recall@10 but metrics has no "recall@10"`)
	})
	t.Run("aggregate without rows", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			obj(bm25(m), "metrics")["mrr"] = json.Number("0.9")
		}), `metrics["mrr"] is 0.9 but no row without an error scores mrr`,
			`metrics has "mrr" but metric_stats has no entry for it`)
	})
	t.Run("rows deleted, stats kept", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			delete(bm25(m), "per_sample_scores")
		}), `metric_stats["ndcg@10"].n is 20 but the result has no per-query rows`)
	})
	t.Run("stat without aggregate", func(t *testing.T) {
		wantInconsistent(t, forge(t, func(m map[string]any) {
			delete(obj(bm25(m), "metrics"), "recall@10")
		}), `metric_stats["recall@10"] exists but metrics has no "recall@10"`)
	})
}

func TestForgedLatency(t *testing.T) {
	// latency_ms, an optional row field of later 1.y writers, is >= 0.
	wantInconsistent(t, forge(t, func(m map[string]any) {
		row(m, 0)["latency_ms"] = json.Number("-3")
	}), `at local/faq@0123456789ab/bm25/q01: latency_ms is -3, outside the range of latency_ms, [0, +inf)`)
	ok := forge(t, func(m map[string]any) { row(m, 0)["latency_ms"] = json.Number("0.25") })
	if r := Validate(ok); len(r.Problems) != 0 {
		t.Errorf("a row with latency_ms 0.25 is refused:%s", problemLines(r))
	}
}

func TestConsistentBundlesValidate(t *testing.T) {
	// Aggregates the way every writer computes them (Aggregate with the
	// bundle's StatsOptions) validate, whatever the recorded seed (absent
	// means 42); so do stats without a level (the default one) and a
	// bundle without metric_stats whose metrics are the means of its rows.
	for _, seed := range []uint64{0, defaultStatsSeed, 1} {
		b := retrievalBundle(t)
		b.Experiment.StatsSeed = seed
		for i := range b.Results {
			if err := Aggregate(&b.Results[i], b.StatsOptions()); err != nil {
				t.Fatal(err)
			}
		}
		if r := Validate(encode(t, b)); len(r.Problems) != 0 {
			t.Errorf("stats_seed %d: a bundle aggregated by Aggregate is refused:%s", seed, problemLines(r))
		}
	}
	noLevel := edit(t, encode(t, retrievalBundle(t)), func(m map[string]any) {
		for _, res := range arr(m, "results") {
			for _, st := range obj(res, "metric_stats") {
				delete(st.(map[string]any), "level")
			}
		}
		rehash(t, m)
	})
	if r := Validate(noLevel); len(r.Problems) != 0 {
		t.Errorf("stats that record no level (the default) are refused:%s", problemLines(r))
	}
	noStats := edit(t, encode(t, retrievalBundle(t)), func(m map[string]any) {
		for _, res := range arr(m, "results") {
			delete(res.(map[string]any), "metric_stats")
		}
		rehash(t, m)
	})
	if r := Validate(noStats); len(r.Problems) != 0 {
		t.Errorf("a bundle without metric_stats is refused:%s", problemLines(r))
	}
}

func TestUnrecordedBootstrapRefused(t *testing.T) {
	// A bundle records only its seed: intervals drawn with other
	// resamples or another level than the defaults cannot be recomputed
	// and are refused.
	for _, o := range []StatsOptions{{Seed: testSeed, Resamples: 50}, {Seed: testSeed, Level: 0.9}} {
		b := retrievalBundle(t)
		for i := range b.Results {
			if err := Aggregate(&b.Results[i], o); err != nil {
				t.Fatal(err)
			}
		}
		wantInconsistent(t, encode(t, b), `metric_stats["ndcg@10"] is mean 0.5095000000000001`)
	}
}

func TestNewMetricStat(t *testing.T) {
	xs := []float64{0.1, 0.9, 0.4, 0.4, 1}
	st := NewMetricStat(xs, StatsOptions{Seed: 3})
	s := metrics.Summarize(xs, metrics.BootstrapOptions{Seed: 3})
	if st.N != s.N || st.Mean != s.Mean || st.CILow != s.Lo || st.CIHigh != s.Hi || st.Level != metrics.DefaultLevel {
		t.Errorf("NewMetricStat = %+v, metrics.Summarize = %+v at level %v", st, s, metrics.DefaultLevel)
	}
	// Aggregate is NewMetricStat over the rows that score a metric.
	r := Result{PerSampleScores: []Sample{{QueryID: "a", Scores: map[string]float64{"ndcg@10": 0.1}}, {QueryID: "b", Error: "x"},
		{QueryID: "c", Scores: map[string]float64{"ndcg@10": 0.9}}, {QueryID: "d", Scores: map[string]float64{"ndcg@10": 0.4}},
		{QueryID: "e", Scores: map[string]float64{"ndcg@10": 0.4}}, {QueryID: "f", Scores: map[string]float64{"ndcg@10": 1}}}}
	if err := Aggregate(&r, StatsOptions{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if r.MetricStats["ndcg@10"] != st || r.Metrics["ndcg@10"] != st.Mean {
		t.Errorf("Aggregate gives %+v, %v; NewMetricStat %+v", r.MetricStats["ndcg@10"], r.Metrics["ndcg@10"], st)
	}
}

func TestMetricRange(t *testing.T) {
	for _, c := range []struct {
		name   string
		lo, hi float64
		known  bool
	}{
		{"ndcg@10", 0, 1, true}, {"recall@100", 0, 1, true}, {"precision@5", 0, 1, true}, {"map", 0, 1, true},
		{"r_precision", 0, 1, true}, {"hit@1", 0, 1, true}, {"mrr@10", 0, 1, true}, {"exact_match", 0, 1, true},
		{"token_f1", 0, 1, true}, {"judge_correctness", 0, 1, true}, {"groundedness", 0, 1, true},
		{"chunk_f1", 0, 1, true}, {"page_recall", 0, 1, true}, {"document_precision", 0, 1, true},
		{"latency_ms", 0, math.Inf(1), true},
		{"my_custom_score", math.Inf(-1), math.Inf(1), false}, {"chunk_count", math.Inf(-1), math.Inf(1), false},
	} {
		lo, hi, ok := MetricRange(c.name)
		if lo != c.lo || hi != c.hi || ok != c.known {
			t.Errorf("MetricRange(%q) = %v, %v, %v; want %v, %v, %v", c.name, lo, hi, ok, c.lo, c.hi, c.known)
		}
	}
}

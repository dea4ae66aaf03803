package results

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/sampleid"
)

// wholeRun is retrievalBundle as the engine writes it: rows in query id
// order, the seed recorded, the real sample_id_digest, aggregates
// bootstrapped with the recorded seed, finalized.
func wholeRun(t testing.TB) *Bundle {
	t.Helper()
	b := retrievalBundle(t)
	b.Experiment.StatsSeed = 7
	for ci := range b.Configs {
		var ids []string
		for _, row := range b.Results[ci].PerSampleScores {
			ids = append(ids, row.QueryID)
		}
		slices.Sort(ids)
		b.Configs[ci].HeldFixed.SampleIDDigest = sampleid.Digest(ids)
	}
	for ri := range b.Results {
		sortRows(b.Results[ri].PerSampleScores)
		if err := Aggregate(&b.Results[ri], b.StatsOptions()); err != nil {
			t.Fatal(err)
		}
	}
	if err := Finalize(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// shard returns the bundle a shard of b's run writes: in every result the
// rows whose index satisfies keep, aggregated as the engine does, with the
// SMALL_SAMPLE warning the engine raises for a small shard.
func shard(t testing.TB, b *Bundle, keep func(i int) bool) *Bundle {
	t.Helper()
	c := decode(t, encode(t, b))
	for ri := range c.Results {
		r := &c.Results[ri]
		var rows []Sample
		for i, row := range r.PerSampleScores {
			if keep(i) {
				rows = append(rows, row)
			}
		}
		r.PerSampleScores = rows
		r.Metrics = nil
		if err := Aggregate(r, c.StatsOptions()); err != nil {
			t.Fatal(err)
		}
		if f, ok := findings.SmallSample(r.BenchmarkName+"/"+r.ConfigName, len(rows)); ok {
			c.Integrity.Add(f)
		}
	}
	if err := Finalize(c); err != nil {
		t.Fatal(err)
	}
	return c
}

func decode(t testing.TB, data []byte) *Bundle {
	t.Helper()
	b, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// thirds cuts b into three shards as engine.Shard does (position mod 3).
func thirds(t testing.TB, b *Bundle) []*Bundle {
	return []*Bundle{
		shard(t, b, func(i int) bool { return i%3 == 0 }),
		shard(t, b, func(i int) bool { return i%3 == 1 }),
		shard(t, b, func(i int) bool { return i%3 == 2 }),
	}
}

func TestMergeRebuildsTheWholeRunByteForByte(t *testing.T) {
	whole := encode(t, wholeRun(t))
	parts := thirds(t, decode(t, whole))
	if !strings.Contains(string(encode(t, parts[0])), "SMALL_SAMPLE") {
		t.Fatal("a shard of 7 rows raises no SMALL_SAMPLE: the test does not cover its recomputation")
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		var in []*Bundle
		for _, i := range order {
			in = append(in, parts[i])
		}
		merged, err := Merge(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(t, merged); !bytes.Equal(got, whole) {
			t.Errorf("merging the shards in order %v does not give the unsharded bundle:\n%s\nwant\n%s", order, got, whole)
		}
	}
}

func TestMergeOfOneBundleReturnsItUnchanged(t *testing.T) {
	for name, b := range map[string]*Bundle{"whole run": wholeRun(t), "rag golden": ragForMerge(t)} {
		whole := encode(t, b)
		merged, err := Merge([]*Bundle{decode(t, whole)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := encode(t, merged); !bytes.Equal(got, whole) {
			t.Errorf("%s: merge of one bundle changed it:\n%s\nwant\n%s", name, got, whole)
		}
	}
}

// ragForMerge is ragBundle without its blocking lines (merge refuses them),
// with the seed it was aggregated with.
func ragForMerge(t testing.TB) *Bundle {
	b := ragBundle(t)
	b.Integrity.Blocking = nil
	b.Experiment.StatsSeed = 7
	b.Configs[0].HeldFixed.SampleIDDigest = sampleid.Digest([]string{"1", "2", "3", "4 <&> \"quoted\""})
	b.Configs[0].HeldFixed.NSamples = 4
	if err := Aggregate(&b.Results[0], b.StatsOptions()); err != nil {
		t.Fatal(err)
	}
	if f, ok := findings.SmallSample(b.Results[0].BenchmarkName+"/full", 3); ok {
		b.Integrity.Add(f)
	}
	if err := Finalize(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeRefusesOverlaps(t *testing.T) {
	full := wholeRun(t)
	a := shard(t, full, func(i int) bool { return i < 12 })
	b := shard(t, full, func(i int) bool { return i >= 10 })
	_, err := Merge([]*Bundle{a, b}, []string{"a.json", "b.json"})
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("Merge of overlapping shards: %v", err)
	}
	// q11 and q12 of both arms are in both shards.
	if len(me.Problems) != 4 || !strings.Contains(err.Error(), "overlap: local/faq@0123456789ab/bm25/q11 is in a.json and in b.json") {
		t.Errorf("error does not name every overlap:\n%v", err)
	}
}

func TestMergeRefusesGaps(t *testing.T) {
	parts := thirds(t, wholeRun(t))
	_, err := Merge(parts[:2], nil)
	if err == nil || !strings.Contains(err.Error(), "gap: the shards hold 14 of the 20 sampled queries of local/faq@0123456789ab/dense: a shard is missing") {
		t.Errorf("Merge of two of three shards: %v", err)
	}
	// n_samples 0 (every query): the sample_id_digest finds the gap.
	all := wholeRun(t)
	for i := range all.Configs {
		all.Configs[i].HeldFixed.NSamples = 0
	}
	if err := Finalize(all); err != nil {
		t.Fatal(err)
	}
	_, err = Merge(thirds(t, all)[1:], nil)
	if err == nil || !strings.Contains(err.Error(), "gap: the 13 queries the shards hold of local/faq@0123456789ab/bm25 are not the sampled ones") {
		t.Errorf("Merge of two of three shards: %v", err)
	}
	if _, err := Merge(nil, nil); err == nil {
		t.Error("Merge of nothing succeeded")
	}
}

// forgeRunID sets b's run_id from its contents as they stand, keeping every
// comparability_key as it is (a forger's recomputation).
func forgeRunID(t testing.TB, b *Bundle) {
	t.Helper()
	data, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if b.RunID, err = RunIDOf(data); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRefusesTamperedShards(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(b *Bundle)
		want   string
	}{
		{"edited score", func(b *Bundle) {
			b.Results[0].PerSampleScores[0].Scores["ndcg@10"] = 0.42
			forgeRunID(t, b)
		}, "s2.json: INCONSISTENT_BUNDLE at local/faq@0123456789ab/bm25: metrics[\"ndcg@10\"] is 0.5814285714285715 but the mean of its 7 scored rows is 0.5812857142857143"},
		{"edited aggregate", func(b *Bundle) {
			b.Results[1].Metrics["recall@10"] = 0.99
			forgeRunID(t, b)
		}, "s2.json: INCONSISTENT_BUNDLE at local/faq@0123456789ab/dense: metrics[\"recall@10\"] is 0.99 but the mean of its 7 scored rows is 0.6666666666666666"},
		{"edited interval", func(b *Bundle) {
			st := b.Results[1].MetricStats["recall@10"]
			st.CILow -= 0.01
			b.Results[1].MetricStats["recall@10"] = st
			forgeRunID(t, b)
		}, "s2.json: INCONSISTENT_BUNDLE at local/faq@0123456789ab/dense: metric_stats[\"recall@10\"] is mean 0.6666666666666666, interval [0.6566666666666666, 0.6666666666666666] at level 0.95, but the 7 scored rows give"},
		{"bad comparability_key", func(b *Bundle) {
			b.Configs[1].ComparabilityKey = strings.Repeat("0", 64)
			forgeRunID(t, b)
		}, "s2.json: config local/faq@0123456789ab/dense: comparability_key 000000000000 does not match its held_fixed"},
		{"edited held_fixed", func(b *Bundle) {
			b.Configs[0].HeldFixed.RetrieverTopK = ptr(10)
			b.Configs[0].HeldFixed.FixedStages["reranker"] = "cross-encoder"
			if err := Finalize(b); err != nil { // key and run_id recomputed
				t.Fatal(err)
			}
		}, "s2.json: held_fixed of local/faq@0123456789ab/bm25 differs from s1.json's in fixed_stages.reranker, retriever_top_k"},
		{"another corpus", func(b *Bundle) {
			b.Configs[0].CorpusDigest = strings.Repeat("ab", 32)
			if err := Finalize(b); err != nil {
				t.Fatal(err)
			}
		}, "s2.json: corpus_digest of local/faq@0123456789ab/bm25 differs from s1.json's: shards of one run search the same corpus"},
		{"schema_version 2.0", func(b *Bundle) {
			b.SchemaVersion = "2.0"
			forgeRunID(t, b)
		}, `s2.json: schema_version "2.0" is not one this release writes`},
		{"another seed", func(b *Bundle) {
			b.Experiment.StatsSeed = 8
			for ri := range b.Results {
				if err := Aggregate(&b.Results[ri], b.StatsOptions()); err != nil {
					t.Fatal(err)
				}
			}
			if err := Finalize(b); err != nil {
				t.Fatal(err)
			}
		}, "s2.json's experiment differs from s1.json's in stats_seed"},
		{"blocking line", func(b *Bundle) {
			b.Integrity.Add(lasagna.Finding{Code: lasagna.PipelineErrors, Where: "local/faq@0123456789ab/bm25", Detail: "1 of 7 queries failed"})
			if err := Finalize(b); err != nil {
				t.Fatal(err)
			}
		}, "s2.json: blocking integrity finding: PIPELINE_ERRORS at local/faq@0123456789ab/bm25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := thirds(t, wholeRun(t))
			tc.tamper(parts[1])
			_, err := Merge(parts, []string{"s1.json", "s2.json", "s3.json"})
			var me *MergeError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Merge of a shard with %s: %v\nwant a *MergeError containing %q", tc.name, err, tc.want)
			}
		})
	}
}

// TestMergeRecombinesPerQueryWarnings: OUTSIDE_CORPUS_IDS and
// UNRESOLVED_JUDGE_ALIAS count queries; the shards' lines recombine into
// the unsharded run's.
func TestMergeRecombinesPerQueryWarnings(t *testing.T) {
	where := "local/faq@0123456789ab/dense"
	// Queries 1, 2, 4, 5, 7, 8 and 13 (indexes) held outside ids.
	outside := map[int]int{1: 2, 2: 1, 4: 3, 5: 1, 7: 1, 8: 2, 13: 4}
	raise := func(b *Bundle, keep func(i int) bool) {
		var lists []findings.Outside
		answered, ranked := 0, 0
		for i := range 20 {
			if !keep(i) {
				continue
			}
			ranked++
			answered++
			if n, ok := outside[i]; ok {
				lists = append(lists, findings.Outside{QueryID: b.Results[1].PerSampleScores[0].QueryID[:1] + fmt.Sprintf("%02d", i+1), N: n})
			}
		}
		if len(lists) > 0 {
			b.Integrity.Add(findings.OutsideCorpus(where, lists, ranked, 50))
		}
		b.Integrity.Add(lasagna.Finding{Code: lasagna.UnresolvedJudgeAlias, Where: where,
			Detail: fmt.Sprintf("judge model %q is an alias; the server answered %d queries as %q; request %q to pin it", "gpt-4o", answered, "gpt-4o-2024-08-06", "gpt-4o-2024-08-06")})
		if err := Finalize(b); err != nil {
			t.Fatal(err)
		}
	}
	whole := wholeRun(t)
	raise(whole, func(int) bool { return true })
	want := encode(t, whole)
	if !strings.Contains(string(want), "7 of 20 ranked lists hold ids outside the benchmark's corpus of 50 documents (14 ids in all), scored as non-relevant: q02 (2), q03 (1), q05 (3), q06 (1), q08 (1) and 2 more") {
		t.Fatalf("the whole run's line is not the one this test expects:\n%s", want)
	}
	parts := thirds(t, decode(t, want))
	for i, p := range parts {
		p.Integrity.Warnings = slices.DeleteFunc(p.Integrity.Warnings, func(w Finding) bool {
			return w.Code == lasagna.OutsideCorpusIDs || w.Code == lasagna.UnresolvedJudgeAlias
		})
		raise(p, func(j int) bool { return j%3 == i })
	}
	merged, err := Merge(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, merged); !bytes.Equal(got, want) {
		t.Errorf("merged warnings:\n%q\nwant\n%q", merged.Integrity.Warnings, whole.Integrity.Warnings)
	}
	// A line that does not parse is refused, never passed on with a
	// shard's counts.
	parts[0].Integrity.Warnings = append(parts[0].Integrity.Warnings, parseFinding("OUTSIDE_CORPUS_IDS at "+where+": some lists"))
	if _, err := Merge(parts, nil); err == nil || !strings.Contains(err.Error(), "OUTSIDE_CORPUS_IDS at "+where+": cannot recombine the shards' lines") {
		t.Errorf("Merge with a garbled line: %v", err)
	}
}

func TestFinalizeOrdersIntegrityLines(t *testing.T) {
	a, b := wholeRun(t), wholeRun(t)
	where := "local/faq@0123456789ab/"
	fs := []lasagna.Finding{
		{Code: lasagna.SmallSample, Where: where + "bm25", Detail: "x"},
		{Code: lasagna.PooledGoldCorpus, Where: where + "dense"},
		{Code: lasagna.SingleRun, Where: where + "bm25"},
		{Code: lasagna.SyntheticBenchmark, Where: "local/faq@0123456789ab"},
		{Code: lasagna.MissingResults, Where: where + "dense"},
		{Code: lasagna.PipelineErrors, Where: where + "bm25/q03"},
	}
	for _, f := range fs {
		a.Integrity.Add(f)
	}
	for _, f := range slices.Backward(fs) {
		b.Integrity.Add(f)
	}
	for _, x := range []*Bundle{a, b} {
		if err := Finalize(x); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(encode(t, a), encode(t, b)) {
		t.Errorf("integrity order depends on the order findings were added:\n%q\n%q", a.Integrity, b.Integrity)
	}
	want := []string{"SYNTHETIC_BENCHMARK", "SINGLE_RUN", "SMALL_SAMPLE", "POOLED_GOLD_CORPUS"}
	for i, f := range a.Integrity.Warnings {
		if line := f.String(); !strings.HasPrefix(line, want[i]+" ") {
			t.Errorf("warning %d = %q, want %s", i, line, want[i])
		}
	}
}

func TestAggregateRefusesUnrecomputable(t *testing.T) {
	r := Result{BenchmarkName: "b", ConfigName: "a", Metrics: map[string]float64{"map": 0.3},
		PerSampleScores: []Sample{{QueryID: "q", Scores: map[string]float64{"ndcg@10": 1}}}}
	if err := Aggregate(&r, testStats); err == nil || !strings.Contains(err.Error(), "metric map has no per-query score") {
		t.Errorf("Aggregate: %v", err)
	}
}

package evaltest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/results"
)

// missingArm is the perfect arm with the given queries' relevant documents
// dropped (those queries score 0), always named "mine".
func missingArm(ids ...string) Arm {
	a := perfectArm("mine", func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever {
		return fixtures.Missing(b, r, ids...)
	})
	a.TopK = 10
	return a
}

func gateConfig(baseline string, a Arm) Config {
	cfg := tinyConfig(a)
	cfg.Baseline = baseline
	cfg.AttrMetrics = []string{}
	return cfg
}

func TestGate(t *testing.T) {
	baseline := filepath.Join(t.TempDir(), "testdata", "baseline.json")

	// No baseline yet: the gate asks for one.
	got, failed, _ := fakeEval(t, gateConfig(baseline, missingArm()), nil)
	if !failed || !strings.Contains(got, "ERROR: evaltest: baseline $BASELINE does not exist; record it with LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$' and commit it") {
		t.Errorf("missing baseline not reported:\n%s", got)
	}

	// Record it.
	got, failed, _ = fakeEval(t, gateConfig(baseline, missingArm()), map[string]string{EnvUpdateBaseline: "1"})
	if failed || !strings.Contains(got, "TestRAG: baseline $BASELINE rewritten from this run (LASAGNA_UPDATE_BASELINE=1); review and commit it") {
		t.Fatalf("baseline not recorded:\n%s", got)
	}
	base, err := results.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := base.Result(base.Configs[0].Benchmark, "mine"); !ok || r.Metrics["ndcg@10"] != 1 {
		t.Fatalf("baseline holds %+v", base.Results)
	}

	// A real but small drop (one query of 12 lost) is not significant.
	got, failed, _ = fakeEval(t, gateConfig(baseline, missingArm("q05")), nil)
	if failed {
		t.Errorf("a non-significant drop failed the gate:\n%s", got)
	}
	golden(t, "gate_pass", gateLines(got))

	// A large drop (8 of 12 queries lost) is significant and beyond the
	// tolerance.
	got, failed, _ = fakeEval(t, gateConfig(baseline, missingArm("q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08")), nil)
	if !failed {
		t.Errorf("a significant drop passed the gate:\n%s", got)
	}
	golden(t, "gate_fail", gateLines(got))

	// The same drop with a tolerance above it passes.
	cfg := gateConfig(baseline, missingArm("q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08"))
	cfg.Gate = Gate{Tolerance: 0.7}
	if got, failed, _ = fakeEval(t, cfg, nil); failed {
		t.Errorf("a drop within the tolerance failed:\n%s", got)
	}

	// An arm the baseline does not know fails with the fix.
	other := missingArm()
	other.Name = "other"
	got, failed, _ = fakeEval(t, gateConfig(baseline, other), nil)
	if !failed || !strings.Contains(got, "baseline gate: $BASELINE holds no result for arm other on local/tiny@") {
		t.Errorf("unknown arm not reported:\n%s", got)
	}

	// A changed arm description makes the baseline incomparable.
	changed := missingArm()
	changed.Stages = map[lasagna.Stage]string{lasagna.StageReranker: "cross-encoder v2"}
	got, failed, _ = fakeEval(t, gateConfig(baseline, changed), nil)
	if !failed || !strings.Contains(got, "STAGE_ISOLATION") || !strings.Contains(got, "record a new baseline with LASAGNA_UPDATE_BASELINE=1") {
		t.Errorf("changed stages not reported:\n%s", got)
	}

	// Updating from a shard is refused and leaves the file alone.
	got, failed, _ = fakeEval(t, gateConfig(baseline, missingArm("q05")), map[string]string{EnvUpdateBaseline: "1", EnvShard: "1/2"})
	if !failed || !strings.Contains(got, "not rewriting baseline $BASELINE (LASAGNA_UPDATE_BASELINE=1): the run is shard 1 of 2") {
		t.Errorf("sharded update not refused:\n%s", got)
	}
	if again, err := results.ReadFile(baseline); err != nil || again.RunID != base.RunID {
		t.Errorf("baseline changed by a refused update: %v", err)
	}
}

// gateLines keeps the lines of a log that concern the gate.
func gateLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "gate") || strings.Contains(l, "regression") || strings.HasPrefix(l, "--- FAIL: TestRAG") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// TestShardsMergeToWhole: LASAGNA_SHARD=1/2 and 2/2, merged, equal the
// unsharded run.
func TestShardsMergeToWhole(t *testing.T) {
	cfg := tinyConfig(missingArm("q02", "q09"), BM25())
	var bundles []*results.Bundle
	for _, shard := range []string{"", "1/2", "2/2"} {
		_, failed, out := fakeEval(t, cfg, map[string]string{EnvShard: shard})
		if failed {
			t.Fatalf("shard %q failed", shard)
		}
		s := noShard
		if shard != "" {
			s.Index, s.Count = int(shard[0]-'0'), 2
		}
		b, err := results.ReadFile(filepath.Join(out, bundleName("TestRAG", s)))
		if err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, b)
	}
	whole := bundles[0]
	for _, b := range bundles[1:] {
		if n := len(b.Results[0].PerSampleScores); n != 6 {
			t.Errorf("a shard ran %d queries, want 6", n)
		}
	}
	merged, _, err := results.Merge(bundles[1:], results.StatsOptions{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range whole.Results {
		got := merged.Results[i]
		if got.ConfigName != want.ConfigName || len(got.PerSampleScores) != len(want.PerSampleScores) {
			t.Fatalf("merged result %d: %s with %d rows, want %s with %d", i, got.ConfigName, len(got.PerSampleScores), want.ConfigName, len(want.PerSampleScores))
		}
		sorted := slices.Clone(want.PerSampleScores)
		slices.SortFunc(sorted, func(a, b results.Sample) int { return strings.Compare(a.QueryID, b.QueryID) })
		for j, row := range got.PerSampleScores {
			if row.QueryID != sorted[j].QueryID || !slices.Equal(row.RetrievedIDs, sorted[j].RetrievedIDs) || row.Scores["ndcg@10"] != sorted[j].Scores["ndcg@10"] {
				t.Errorf("%s row %d: merged %+v, whole %+v", got.ConfigName, j, row, sorted[j])
			}
		}
		for m, v := range want.Metrics {
			if d := got.Metrics[m] - v; d > 1e-12 || d < -1e-12 {
				t.Errorf("%s %s: merged %v, whole %v", got.ConfigName, m, got.Metrics[m], v)
			}
		}
	}
}

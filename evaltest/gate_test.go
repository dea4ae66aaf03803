package evaltest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

	// Record it (with LASAGNA_LATENCY=1, which the baseline ignores).
	got, failed, _ = fakeEval(t, gateConfig(baseline, missingArm()), map[string]string{EnvUpdateBaseline: "1", EnvLatency: "1"})
	if failed || !strings.Contains(got, "TestRAG: baseline $BASELINE rewritten from this run (LASAGNA_UPDATE_BASELINE=1); review and commit it") {
		t.Fatalf("baseline not recorded:\n%s", got)
	}
	base, err := results.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	// The baseline holds no latency: recording it again from a run with
	// the same scores leaves the file as it was.
	first, _ := os.ReadFile(baseline)
	if strings.Contains(string(first), "latency_ms") {
		t.Error("the baseline records latency_ms; it would change at every update")
	}
	if _, failed, _ = fakeEval(t, gateConfig(baseline, missingArm()), map[string]string{EnvUpdateBaseline: "1", EnvLatency: "1"}); failed {
		t.Fatal("second update failed")
	}
	if again, _ := os.ReadFile(baseline); !bytes.Equal(first, again) {
		t.Error("rewriting the baseline from an equal run changed it")
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
	checkDocs(t, "TestGate", got)

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

	// A baseline whose numbers were edited (every ndcg@10 halved) is
	// refused with the finding of lasagna benchmark run --baseline and
	// results validate: its run_id no longer hashes its content.
	edited := filepath.Join(t.TempDir(), "edited.json")
	os.WriteFile(edited, bytes.ReplaceAll(first, []byte(`"ndcg@10": 1`), []byte(`"ndcg@10": 0.5`)), 0o644)
	got, failed, _ = fakeEval(t, gateConfig(edited, missingArm()), nil)
	if !failed || !strings.Contains(got, "ERROR: evaltest: baseline $BASELINE is not a valid bundle (RUN_ID_MISMATCH at run_id") ||
		!strings.Contains(got, "record a new one with LASAGNA_UPDATE_BASELINE=1") {
		t.Errorf("edited baseline not refused:\n%s", got)
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

// beirFolder writes a BEIR folder dir/beir of n queries q01…, each with
// two relevant passages (dNNa, dNNb) in a corpus of 24, and returns dir.
func beirFolder(t *testing.T, dir string, n int) string {
	t.Helper()
	var corpus, queries, qrels strings.Builder
	for i := range 12 {
		for _, s := range []string{"a", "b"} {
			fmt.Fprintf(&corpus, `{"_id": "d%02d%s", "title": "", "text": "passage %s about topic %d"}`+"\n", i+1, s, s, i+1)
		}
	}
	for i := range n {
		fmt.Fprintf(&queries, `{"_id": "q%02d", "text": "what about topic %d?"}`+"\n", i+1, i%12+1)
		fmt.Fprintf(&qrels, "q%02d\td%02da\t1\nq%02d\td%02db\t1\n", i+1, i%12+1, i+1, i%12+1)
	}
	for name, body := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		p := filepath.Join(dir, "beir", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGateGrownBEIR: a baseline recorded with LASAGNA_UPDATE_BASELINE=1 on
// a BEIR folder still gates after one query is added: the unchanged arm
// passes on the 12 shared queries, a clearly worse one fails with
// "regression", each saying what was gated; a changed corpus is refused
// with the go test command that records a new baseline.
func TestGateGrownBEIR(t *testing.T) {
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	cfg := func(dir string, a Arm) Config {
		a.TopK = 10
		return Config{FS: os.DirFS(dir), Benchmarks: []string{"beir"}, Arms: []Arm{a}, Cutoffs: []int{10}, Baseline: baseline, AttrMetrics: []string{}}
	}
	got, failed, _ := fakeEval(t, cfg(beirFolder(t, t.TempDir(), 12), missingArm()), map[string]string{EnvUpdateBaseline: "1"})
	if failed {
		t.Fatalf("baseline not recorded:\n%s", got)
	}
	base, err := results.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	note := "gated on 12 shared queries (1 added, 0 changed, 0 removed since the baseline's " + base.Configs[0].Benchmark + ")"

	grown := beirFolder(t, t.TempDir(), 13)
	got, failed, _ = fakeEval(t, cfg(grown, missingArm()), nil)
	for _, want := range []string{
		"TestRAG/beir/mine: baseline gate: ndcg@10 1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes; " + note,
		"TestRAG/beir/mine: baseline gate: recall@10 1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes; " + note,
	} {
		if failed || !strings.Contains(got, want) {
			t.Errorf("unchanged arm on the grown folder: failed %v, log lacks %q:\n%s", failed, want, got)
		}
	}
	checkDocs(t, "TestGateGrownBEIR", got)

	got, failed, _ = fakeEval(t, cfg(grown, missingArm("q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08")), nil)
	if want := "regression: recall@10 fell from 1 to 0.3333 (drop 0.6667 > tolerance 0.01) and the drop is significant (Holm p = 0.016 < 0.05 over 2 comparisons, 12 paired queries); " +
		note + "; baseline $BASELINE; fix the regression, or if it is intended record a new baseline with LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$'"; !failed || !strings.Contains(got, want) {
		t.Errorf("worse arm on the grown folder: failed %v, log lacks %q:\n%s", failed, want, got)
	}

	corpus := filepath.Join(grown, "beir", "corpus.jsonl")
	data, _ := os.ReadFile(corpus)
	os.WriteFile(corpus, bytes.Replace(data, []byte("passage a about topic 1\""), []byte("passage a about topic one\""), 1), 0o644)
	got, failed, _ = fakeEval(t, cfg(grown, missingArm()), nil)
	for _, want := range []string{
		"baseline gate: $BASELINE holds arm mine on " + base.Configs[0].Benchmark + ", an earlier revision of this run's local/beir@",
		"but the corpus changed (corpus_digest " + base.Configs[0].CorpusDigest[:12] + " in the baseline, ",
		"if the corpus changed on purpose, record a new baseline with LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$'",
	} {
		if !failed || !strings.Contains(got, want) {
			t.Errorf("changed corpus: failed %v, log lacks %q:\n%s", failed, want, got)
		}
	}
}

// gateLines keeps the lines of a log that concern the gate.
func gateLines(log string) string {
	var out []string
	more := false // in the lines of a failed gate's message (its worst queries)
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.Contains(l, "gate") || strings.Contains(l, "regression") || strings.HasPrefix(l, "--- FAIL: TestRAG"):
			out = append(out, l)
			more = strings.Contains(l, "regression")
		case more && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "the ")):
			out = append(out, l)
		default:
			more = false
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// TestShardsMergeToWhole: LASAGNA_SHARD=1/3, 2/3 and 3/3 with a user arm
// and a stats seed of the user's, merged, give the unsharded bundle byte
// for byte (same run_id), though each shard alone raises SMALL_SAMPLE.
func TestShardsMergeToWhole(t *testing.T) {
	random := Arm{Name: "random", TopK: 10, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return fixtures.Random(b, 3), nil
	}}
	t.Run("tiny", func(t *testing.T) {
		cfg := tinyConfig(missingArm("q02", "q09"), BM25())
		cfg.StatsSeed = 7
		shardsMergeToWhole(t, cfg, true, lasagnaShard)
	})
	// The FAQ's ids are not in sorted order (glass-…, then coin-…), and a
	// random ranking gives varied scores, so row order and the bootstrap
	// seed both show in the bytes.
	t.Run("faq", func(t *testing.T) {
		shardsMergeToWhole(t, Config{FS: os.DirFS("../examples/data"), Benchmarks: []string{"faq.jsonl"},
			Arms: []Arm{random}, Cutoffs: []int{10}, StatsSeed: 7}, false, lasagnaShard)
	})
}

// TestShardsFromRunnersMergeToWhole: Bazel's test sharding protocol
// (TEST_TOTAL_SHARDS=3, TEST_SHARD_INDEX=0..2) splits TestRAG's queries
// exactly as LASAGNA_SHARD=1/3..3/3 does, touching TEST_SHARD_STATUS_FILE,
// and so do CI runners' parallel-job variables under LASAGNA_SHARD=ci: the
// shards merge to the unsharded bundle's bytes.
func TestShardsFromRunnersMergeToWhole(t *testing.T) {
	cfg := Config{FS: os.DirFS("../examples/data"), Benchmarks: []string{"faq.jsonl"}, Arms: []Arm{BM25()}, Cutoffs: []int{10}, StatsSeed: 7}
	t.Run("bazel", func(t *testing.T) {
		var status []string
		shardsMergeToWhole(t, cfg, false, func(t *testing.T, i int) map[string]string {
			if i == 0 {
				return nil
			}
			file := filepath.Join(t.TempDir(), "shard-status")
			status = append(status, file)
			return map[string]string{envTotalShards: "3", envShardIndex: strconv.Itoa(i - 1), envShardStatus: file}
		})
		for _, f := range status {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("TEST_SHARD_STATUS_FILE not touched: %v", err)
			}
		}
	})
	t.Run("circleci", func(t *testing.T) {
		shardsMergeToWhole(t, cfg, false, func(t *testing.T, i int) map[string]string {
			if i == 0 {
				return map[string]string{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3"} // not asked for: ignored
			}
			return map[string]string{EnvShard: "ci", "CIRCLE_NODE_INDEX": strconv.Itoa(i - 1), "CIRCLE_NODE_TOTAL": "3"}
		})
	})
	t.Run("gitlab", func(t *testing.T) {
		shardsMergeToWhole(t, cfg, false, func(t *testing.T, i int) map[string]string {
			if i == 0 {
				return nil
			}
			return map[string]string{EnvShard: " ci ", "CI_NODE_INDEX": strconv.Itoa(i), "CI_NODE_TOTAL": "3"}
		})
	})
}

// TestBazelShardsByTestFunction: under a test main that has already
// handed whole test functions to Bazel's shards (rules_go's touches the
// status file before any test runs; its wrapper sets GO_TEST_WRAP),
// TestRAG runs every query in its shard and says why, so no query is left
// unrun; the bundle is the unsharded run's.
func TestBazelShardsByTestFunction(t *testing.T) {
	cfg := tinyConfig(BM25())
	_, _, out := fakeEval(t, cfg, nil)
	whole, err := os.ReadFile(filepath.Join(out, bundleName("TestRAG", noShard)))
	if err != nil {
		t.Fatal(err)
	}
	for name, vars := range map[string]func(string) map[string]string{
		"status file touched before": func(file string) map[string]string {
			if err := os.WriteFile(file, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			return map[string]string{envTotalShards: "3", envShardIndex: "1", envShardStatus: file}
		},
		"wrapped": func(file string) map[string]string {
			return map[string]string{envTotalShards: "3", envShardIndex: "1", envShardStatus: file, envRulesGoWrapped: "0"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			log, failed, out := fakeEval(t, cfg, vars(filepath.Join(t.TempDir(), "status")))
			if failed || !strings.Contains(log, "TEST_TOTAL_SHARDS=3: this test binary's main has already given each shard whole test functions (rules_go's does), so this test runs all its queries in shard 1") {
				t.Fatalf("failed %v, log:\n%s", failed, log)
			}
			got, err := os.ReadFile(filepath.Join(out, bundleName("TestRAG", noShard)))
			if err != nil || !bytes.Equal(got, whole) {
				t.Errorf("want the unsharded bundle: %v", err)
			}
		})
	}
}

// TestShardSettingsRefused: a shard setting that cannot be read fails the
// run before anything loads, naming the variables.
func TestShardSettingsRefused(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{envTotalShards: "3", envShardIndex: "3"}, `TEST_TOTAL_SHARDS="3" and TEST_SHARD_INDEX="3" are not a shard count and a shard index from 0 below it`},
		{map[string]string{envTotalShards: "three"}, `TEST_TOTAL_SHARDS="three" and TEST_SHARD_INDEX="" are not`},
		{map[string]string{EnvShard: "ci"}, "LASAGNA_SHARD: ci: no CI runner's parallel-job variables are set (looked for CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL, BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT, CI_NODE_INDEX/CI_NODE_TOTAL); set i/n instead"},
		{map[string]string{EnvShard: "ci", "CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"}, `ci: GitLab CI's CI_NODE_INDEX="0" and CI_NODE_TOTAL="3" are not a job index (from 1) and a job count`},
		{map[string]string{EnvShard: "ci", "BUILDKITE_PARALLEL_JOB": "2"}, `ci: Buildkite's BUILDKITE_PARALLEL_JOB="2" and BUILDKITE_PARALLEL_JOB_COUNT="" are not a job index (from 0)`},
	} {
		if _, err := readSettings(env(c.vars)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.vars, err, c.want)
		}
	}
}

// lasagnaShard sets shard i of 3 (0: the unsharded run) as LASAGNA_SHARD.
func lasagnaShard(t *testing.T, i int) map[string]string {
	if i == 0 {
		return nil
	}
	return map[string]string{EnvShard: fmt.Sprintf("%d/3", i)}
}

func shardsMergeToWhole(t *testing.T, cfg Config, smallShards bool, vars func(t *testing.T, i int) map[string]string) {
	t.Helper()
	var raws [][]byte
	var shards []*results.Bundle
	for i := range 4 {
		v := vars(t, i)
		_, failed, out := fakeEval(t, cfg, v)
		if failed {
			t.Fatalf("shard %d of 3 (%v) failed", i, v)
		}
		s := noShard
		if i > 0 {
			s.Index, s.Count = i, 3
		}
		raw, err := os.ReadFile(filepath.Join(out, bundleName("TestRAG", s)))
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)
		if i > 0 {
			b, err := results.Unmarshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			shards = append(shards, b)
		}
	}
	if smallShards && (!strings.Contains(string(raws[1]), "SMALL_SAMPLE") || strings.Contains(string(raws[0]), "SMALL_SAMPLE")) {
		t.Fatal("want SMALL_SAMPLE in a shard of 4 queries and not in the run of 12")
	}
	merged, err := results.Merge([]*results.Bundle{shards[2], shards[0], shards[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raws[0]) {
		whole, _ := results.Unmarshal(raws[0])
		t.Errorf("merged shards: run_id %s, unsharded run %s: the bundles differ\nmerged:\n%s\nunsharded:\n%s", merged.RunID, whole.RunID, got, raws[0])
	}
}

// TestOwnArmBesideBM25Compares: the README's first example, an arm of
// the user's beside evaltest.BM25(), compares as written: the components
// the arms set themselves (retriever, bm25_stemming) are varied, so the
// two cells share a comparability key and results.Compare refuses nothing.
func TestOwnArmBesideBM25Compares(t *testing.T) {
	t.Setenv(EnvOut, t.TempDir())
	mine := perfectArm("mine", nil)
	mine.Stages = map[lasagna.Stage]string{lasagna.StageRetriever: "perfect"}
	ev, err := Evaluate(context.Background(), "TestRAG", tinyConfig(mine, BM25()))
	if err != nil || ev.Bundle == nil {
		t.Fatalf("%v %+v", err, ev)
	}
	arms := results.Arms(ev.Bundle, "")
	if len(arms) != 2 || arms[0].Config.ComparabilityKey != arms[1].Config.ComparabilityKey {
		t.Fatalf("arms %+v", ev.Bundle.Configs)
	}
	cmp := results.Compare([]results.Pair{{Arm: arms[0], Baseline: arms[1]}}, results.CompareOptions{Metrics: []string{"ndcg@10"}})
	if len(cmp.Refusals) > 0 || len(cmp.Comparisons) != 1 {
		t.Errorf("refusals %v, comparisons %d", cmp.Refusals, len(cmp.Comparisons))
	}
	if got := arms[0].Config.VariedDimensions; !slices.Equal(got, []string{"bm25_stemming", "retriever"}) {
		t.Errorf("varied_dimensions %v", got)
	}
}

// TestNotWorseThan: a paired threshold compares an arm with another arm
// of the same Run on the same queries, with the gate's rule: a large,
// significant drop fails on the benchmark's subtest with the gate's
// wording; a small one (one query of 12) passes; an unknown arm is a
// configuration error before anything runs.
func TestNotWorseThan(t *testing.T) {
	for _, c := range []struct {
		dropped  []string
		wantFail bool
	}{
		{[]string{"q05"}, false},
		{[]string{"q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08"}, true},
	} {
		worse := missingArm(c.dropped...)
		worse.Name = "worse"
		worse.Thresholds = []Threshold{NotWorseThan("mine", "ndcg@10")}
		cfg := tinyConfig(missingArm(), worse)
		cfg.AttrMetrics = []string{}
		got, failed, _ := fakeEval(t, cfg, nil)
		switch {
		case failed != c.wantFail:
			t.Errorf("%d dropped: failed %v, want %v:\n%s", len(c.dropped), failed, c.wantFail, got)
		case c.wantFail && !strings.Contains(got, "TestRAG/tiny: ERROR: worse: worse than mine: ndcg@10 is 0.3333 against mine's 1 (drop 0.6667 > tolerance 0.01) and the drop is significant (Holm p = "):
			t.Errorf("no paired failure:\n%s", got)
		case !c.wantFail && !strings.Contains(got, "worse: not worse than mine: ndcg@10 0.9167 vs 1 (-0.0833, Holm p = "):
			t.Errorf("no paired pass line:\n%s", got)
		}
	}
	bad := missingArm()
	bad.Name = "worse"
	bad.Thresholds = []Threshold{NotWorseThan("bm52", "ndcg@10")}
	got, failed, _ := fakeEval(t, tinyConfig(missingArm(), bad), nil)
	if !failed || !strings.Contains(got, `arm worse: threshold on ndcg@10 is not_worse_than "bm52", which is not an arm of the run; arms: mine, worse`) {
		t.Errorf("unknown arm not refused:\n%s", got)
	}
}

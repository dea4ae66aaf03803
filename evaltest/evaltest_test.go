package evaltest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	goldenfile "github.com/lasagna-go/lasagna/internal/golden"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// env returns a getenv reading vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// fakeEval runs Config through run under a recording fake test named
// TestRAG, with LASAGNA_OUT set to a fresh folder (plus vars), and returns
// the normalised log, whether the test failed and the out folder.
func fakeEval(t *testing.T, cfg Config, vars map[string]string) (string, bool, string) {
	t.Helper()
	out := t.TempDir()
	all := map[string]string{EnvOut: out}
	for k, v := range vars {
		all[k] = v
	}
	log, failed := fakeRun("TestRAG", "", func(ft tb) { run(ft, cfg, env(all), false) })
	s := strings.ReplaceAll(log.String(), out, "$OUT")
	if cfg.Baseline != "" {
		s = strings.ReplaceAll(s, cfg.Baseline, "$BASELINE")
	}
	return s, failed, out
}

// golden compares got with testdata/golden/name.txt (rewritten with
// LASAGNA_UPDATE_GOLDEN=1; see internal/golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name+".txt"), []byte(got))
}

// perfectArm is a retrieval arm that ranks each query's relevant documents
// first; wrap changes its retriever.
func perfectArm(name string, wrap func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever) Arm {
	return Arm{Name: name, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		r := fixtures.Perfect(b)
		if wrap != nil {
			r = wrap(b, r)
		}
		return r, nil
	}}
}

// tinyConfig runs arms on the tiny dataset, at depth 10 with the one
// cutoff 10 (fewer metrics keep the bootstrap of each bundle quick).
func tinyConfig(arms ...Arm) Config {
	for i := range arms {
		arms[i].TopK = 10
	}
	return Config{FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Arms: arms, Cutoffs: []int{10}}
}

func TestGoldenPass(t *testing.T) {
	a := perfectArm("mine", nil)
	a.Thresholds = []Threshold{AtLeast("ndcg@10", 0.9), PerQuery(AtLeast("recall@10", 1))}
	bm := BM25()
	bm.TopK = 10
	cfg := tinyConfig(a, bm)
	cfg.AttrMetrics = []string{"ndcg@10", "recall@10"}
	got, failed, out := fakeEval(t, cfg, nil)
	if failed {
		t.Errorf("run failed:\n%s", got)
	}
	golden(t, "pass", got)
	b, err := results.ReadFile(filepath.Join(out, bundleName("TestRAG", noShard)))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Results) != 2 || b.Results[0].Metrics["ndcg@10"] != 1 || len(b.Results[0].PerSampleScores) != 12 {
		t.Errorf("bundle results = %+v", b.Results)
	}
}

func TestGoldenFailures(t *testing.T) {
	a := perfectArm("mine", func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever {
		return fixtures.Failing(fixtures.Missing(b, r, "q05"), "q03")
	})
	a.Thresholds = []Threshold{AtLeast("ndcg@10", 0.95), PerQuery(AtLeast("recall@10", 1)), AtMost("latency_ms", 60000)}
	cfg := tinyConfig(a)
	cfg.AttrMetrics = []string{"recall@10"}
	got, failed, _ := fakeEval(t, cfg, nil)
	if !failed {
		t.Error("run passed; want failures")
	}
	golden(t, "failures", got)
	checkDocs(t, "TestGoldenFailures", got)
}

// TestGoldenIntegrity: a duplicate id and an unknown id fail their queries
// and the parent names the blocking codes.
func TestGoldenIntegrity(t *testing.T) {
	a := Arm{Name: "sloppy", Retriever: lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		switch q.ID {
		case "q01":
			return []lasagna.Hit{{ID: "d01", Score: 2}, {ID: "d01", Score: 1}}, nil
		case "q02":
			return []lasagna.Hit{{ID: "made-up", Score: 2}, {ID: "d02", Score: 1}}, nil
		}
		return []lasagna.Hit{{ID: "d" + strings.TrimPrefix(q.ID, "q"), Score: 1}}, nil
	})}
	cfg := tinyConfig(a)
	cfg.AttrMetrics = []string{}
	got, failed, _ := fakeEval(t, cfg, nil)
	if !failed {
		t.Error("run passed; want failures")
	}
	golden(t, "integrity", got)
}

// repeatArm fails recall for q02 on the repeats in bad.
func repeatArm(name string, bad ...int) Arm {
	a := perfectArm(name, func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			if slices.Contains(bad, Repeat(ctx)) {
				return fixtures.Missing(b, r, "q02").Retrieve(ctx, q, k)
			}
			return r.Retrieve(ctx, q, k)
		})
	})
	a.Samples = true
	a.TopK = 10
	a.Thresholds = []Threshold{PerQuery(AtLeast("recall@10", 1))}
	return a
}

func TestGoldenRepeats(t *testing.T) {
	cfg := tinyConfig(repeatArm("majority", 1), repeatArm("strict", 1))
	cfg.Repeats = 3
	cfg.Pass = Majority()
	cfg.AttrMetrics = []string{"recall@10"}
	// The strict arm uses the same rule but fails on two of three repeats.
	cfg.Arms[1] = repeatArm("strict", 0, 2)
	got, failed, _ := fakeEval(t, cfg, nil)
	if !failed {
		t.Error("run passed; want the strict arm's q02 to fail")
	}
	golden(t, "repeats", got)
	if strings.Contains(got, "SINGLE_RUN") {
		t.Error("SINGLE_RUN raised although every query ran 3 times")
	}
	// Run once, the sampling arm raises SINGLE_RUN.
	cfg.Repeats = 0
	cfg.Arms = cfg.Arms[:1]
	got, _, _ = fakeEval(t, cfg, nil)
	if !strings.Contains(got, "integrity warning: SINGLE_RUN at local/tiny@") {
		t.Errorf("no SINGLE_RUN warning for a sampling arm run once:\n%s", got)
	}
}

func TestPassRules(t *testing.T) {
	for _, c := range []struct {
		rule      PassRule
		passed, n int
		want      bool
		name      string
	}{
		{All(), 3, 3, true, "all"}, {All(), 2, 3, false, "all"},
		{Majority(), 2, 3, true, "majority"}, {Majority(), 2, 4, false, "majority"},
		{RateAtLeast(0.5), 2, 4, true, "rate >= 0.5"}, {RateAtLeast(0.8), 3, 4, false, "rate >= 0.8"},
		{PassRule{}, 0, 1, false, "all"},
	} {
		if got := c.rule.Passes(c.passed, c.n); got != c.want || c.rule.String() != c.name {
			t.Errorf("%s.passes(%d, %d) = %v, want %v", c.rule, c.passed, c.n, got, c.want)
		}
	}
}

func withThresholds(a Arm, ths ...Threshold) Arm {
	a.Thresholds = ths
	return a
}

func TestGoldenConfigErrors(t *testing.T) {
	var all strings.Builder
	for _, c := range []struct {
		cfg  Config
		vars map[string]string
	}{
		{Config{}, nil},
		{Config{Benchmarks: []string{"testdata/none.jsonl"}, Arms: []Arm{BM25()}}, nil},
		{tinyConfig(BM25()), map[string]string{EnvShard: "3/2", EnvConcurrency: "lots"}},
		{tinyConfig(BM25(), Arm{Name: "bm25", Retriever: fixtures.Failing(nil)}), nil},
		{tinyConfig(Arm{Name: "two", Retriever: fixtures.Failing(nil), Pipeline: lasagna.PipelineFunc(nil)}), nil},
		{tinyConfig(BM25()), map[string]string{EnvUpdateBaseline: "yes"}},
		// Metric names are checked before the first pipeline call.
		{tinyConfig(withThresholds(BM25(), AtLeast("ndgc@10", 0.5), AtLeast("ndcg@20", 0.5), AtLeast("token_f1", 0.5))), nil},
	} {
		got, failed, _ := fakeEval(t, c.cfg, c.vars)
		if !failed {
			t.Errorf("config %+v passed", c.cfg)
		}
		all.WriteString(got)
	}
	golden(t, "config_errors", all.String())
}

func TestBuildError(t *testing.T) {
	a := Arm{Name: "broken", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return nil, errors.New("index server unreachable")
	}}
	got, failed, _ := fakeEval(t, tinyConfig(a), nil)
	if !failed {
		t.Fatal("run passed")
	}
	for _, want := range []string{
		"TestRAG/tiny/broken: ERROR: arm broken could not be built for local/tiny@",
		"index server unreachable",
		"TestRAG: ERROR: integrity: MISSING_RESULTS at local/tiny@",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestRAG/tiny/broken/q01") {
		t.Errorf("query subtests ran for an arm that could not be built:\n%s", got)
	}
}

type recordingReporter struct{ got *results.Bundle }

func (r *recordingReporter) Report(ctx context.Context, b *results.Bundle) error {
	r.got = b
	return nil
}

func TestReportersAndStepSummary(t *testing.T) {
	rec := &recordingReporter{}
	cfg := tinyConfig(BM25())
	cfg.Reporters = []reporters.Reporter{rec, reporters.Func(func(context.Context, *results.Bundle) error { return errors.New("disk full") })}
	summary := filepath.Join(t.TempDir(), "summary.md")
	got, failed, _ := fakeEval(t, cfg, map[string]string{EnvStepSummary: summary})
	if !failed || !strings.Contains(got, "ERROR: evaltest: reporter 5 (reporters.Func): disk full") {
		t.Errorf("a failing reporter does not fail the test with its error:\n%s", got)
	}
	if rec.got == nil || rec.got.RunID == "" {
		t.Errorf("custom reporter got %+v, want the finished bundle", rec.got)
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "| local/tiny@") {
		t.Errorf("step summary: %v\n%s", err, md)
	}
}

// TestRunFilter: a query left out (as -run does) is not called and not in
// the bundle, and thresholds are not checked on the subset.
func TestRunFilter(t *testing.T) {
	calls := 0
	a := Arm{Name: "count", Retriever: lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		calls++
		return nil, nil
	}), Thresholds: []Threshold{AtLeast("ndcg@10", 0.9)}}
	out := t.TempDir()
	cfg := tinyConfig(a)
	log, failed := fakeRun("TestRAG", "", func(ft tb) {
		run(&filterT{fakeT: ft.(*fakeT), keep: "TestRAG/tiny/count/q07"}, cfg, env(map[string]string{EnvOut: out}), false)
	})
	if failed || calls != 1 {
		t.Errorf("failed = %v, pipeline calls = %d; want a passing run with 1 call:\n%s", failed, calls, log)
	}
	if !strings.Contains(log.String(), "thresholds and baseline gate not checked: -run selected 1 of the arm's 12 queries") {
		t.Errorf("no note on skipped thresholds:\n%s", log)
	}
	// The bundle of a subset is named after the go test -run pattern, when
	// this test runs under one.
	files, _ := filepath.Glob(filepath.Join(out, strings.TrimSuffix(bundleName("TestRAG", noShard), ".json")+"*.json"))
	if len(files) != 1 {
		t.Fatalf("bundles %q, want one", files)
	}
	b, err := results.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if rows := b.Results[0].PerSampleScores; len(rows) != 1 || rows[0].QueryID != "q07" {
		t.Errorf("bundle rows = %+v, want q07 alone", rows)
	}
}

// filterT runs only subtests on the path to keep, as -run would.
type filterT struct {
	*fakeT
	keep string
}

func (t *filterT) Run(name string, f func(tb)) bool {
	full := t.name + "/" + name
	if full != t.keep && !strings.HasPrefix(t.keep, full+"/") {
		return true
	}
	return t.fakeT.Run(name, func(c tb) { f(&filterT{fakeT: c.(*fakeT), keep: t.keep}) })
}

func TestNames(t *testing.T) {
	if got := bundleName("TestRAG/sub x", noShard); !strings.HasSuffix(got, "-TestRAG_sub_x.json") {
		t.Errorf("bundleName = %q", got)
	}
}

func TestReadSettings(t *testing.T) {
	s, err := readSettings(env(map[string]string{EnvShard: "2/3", EnvConcurrency: "32", EnvUpdateBaseline: "true"}))
	if err != nil || s.shard.Index != 2 || s.shard.Count != 3 || s.concurrency != 32 || !s.update {
		t.Errorf("readSettings = %+v, %v", s, err)
	}
	s, err = readSettings(env(nil))
	if err != nil || s.concurrency != 0 || s.shard.Count != 0 {
		t.Errorf("defaults = %+v, %v", s, err)
	}
	for _, bad := range []string{"0/2", "1", "a/b", "3/2", "1/0"} {
		if _, err := readSettings(env(map[string]string{EnvShard: bad})); err == nil {
			t.Errorf("%s=%s accepted", EnvShard, bad)
		}
	}
}

// TestNoCLIFlagInGoTestMessages reads every recorded go test log of
// testdata/golden (passing runs, failures, integrity findings, the gate,
// repeats, configuration errors): none names a flag of the lasagna
// command, which a go test user cannot pass.
func TestNoCLIFlagInGoTestMessages(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden logs: %v", err)
	}
	flag := regexp.MustCompile(`(^|[\s(])--[a-z][a-z-]*`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := flag.FindString(line); m != "" {
				t.Errorf("%s:%d names the CLI flag %q: %s", f, i+1, strings.TrimSpace(m), line)
			}
		}
	}
}

// TestDefaultBundleFolderPerModule: the default folder is named after the
// module and its checkout, so two projects (or two checkouts of one) never
// share it.
func TestDefaultBundleFolderPerModule(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/pkg", "b/pkg", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "a", "go.mod"), []byte("// a project\nmodule example.com/shop/search // the search service\n\ngo 1.25\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b", "go.mod"), []byte("module \"example.com/shop/search\"\n"), 0o644)
	folder := func(dir string) string {
		t.Chdir(filepath.Join(root, dir))
		return moduleFolder()
	}
	a, b := folder("a/pkg"), folder("b/pkg")
	if !strings.HasPrefix(a, "search-") || !strings.HasPrefix(b, "search-") || a == b {
		t.Errorf("two checkouts of example.com/shop/search: folders %q and %q, want search-<hash> each, different", a, b)
	}
	if got := folder("a"); got != a {
		t.Errorf("the module root and its package share no folder: %q vs %q", got, a)
	}
	if dir := defaultBundleDir(); filepath.Dir(dir) != filepath.Join(os.TempDir(), "lasagna-bundles") || filepath.Base(dir) != a {
		t.Errorf("defaultBundleDir = %q", dir)
	}
	if got := modulePath([]byte("go 1.25\n")); got != "module" {
		t.Errorf("modulePath of a go.mod without module = %q", got)
	}
	if s1, s2 := subsetName("lasagna-p-T.json", "test.run=T/a$"), subsetName("lasagna-p-T.json", "test.run=T/b$"); s1 == s2 || !strings.HasPrefix(s1, "lasagna-p-T-run-") || !strings.HasSuffix(s1, ".json") {
		t.Errorf("subset names %q, %q: want lasagna-p-T-run-<hash>.json, one per selection", s1, s2)
	}
}

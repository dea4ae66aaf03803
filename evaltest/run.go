package evaltest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// Run evaluates cfg's arms on cfg's benchmarks as subtests of t:
//
//	t/<benchmark>/<arm>/<query-id>
//
// The benchmark level is the benchmark's short name ("local/faq@…" →
// "faq"), the arm level the arm's Name, and the query level the query id,
// each with '/', spaces and non-printing characters replaced by '_' (and
// made unique with _2, _3, … when two ids collide), so
// `go test -run 'TestRAG/faq/mine/q17$'` runs that query alone. The
// original id is recorded as the attr lasagna.query_id.
//
// Query subtests are parallel; the pipeline calls themselves are capped by
// LASAGNA_CONCURRENCY (default 8) for the whole Run, independently of
// go test's -parallel. Each query subtest records its metrics with t.Attr
// (lasagna.<metric>, e.g. lasagna.ndcg@10 = "0.6131") and fails when the
// pipeline call failed (never scored as 0), when its ranked list holds an id
// twice or an id missing from the corpus, or when a PerQuery threshold is
// not met (by the pass rule, with Repeats). Its message gives the dataset
// file:line, the query, `metric = got, want …` and the relevant documents
// missing from the top k as a -want +got list.
//
// After its queries finish, each arm subtest checks the arm's thresholds on
// the mean over the arm's scored queries and, when Config.Baseline is set,
// the regression gate (see Gate). Both are skipped, with a log line, when
// -run selected only some of the arm's queries.
//
// Finally t writes the results bundle — to t.ArtifactDir() under
// `go test -artifacts`, else into $LASAGNA_OUT, else into
// $TMPDIR/lasagna-bundles/<module>-<hash> (one folder per module
// checkout) — named lasagna-<package folder>-<test>.json (with
// -shard-i-of-n for a shard, and -run-<hash> when -run or -skip left
// queries out, so a subset never overwrites the whole run's bundle) —
// logs its path and a summary table, runs the reporters,
// logs integrity warnings and fails on every blocking integrity finding,
// naming its code, where and the fix. With LASAGNA_UPDATE_BASELINE=1 it
// rewrites Config.Baseline from the bundle instead of gating.
//
// Problems of the configuration (unreadable data, an unknown metric in a
// threshold, bad environment values) fail t with a message naming the
// fix. Run must be called from the test's goroutine, once per test; it is
// safe with go test -count=N.
func Run(t *testing.T, cfg Config) {
	t.Helper()
	run(testingT{t}, cfg, os.Getenv, artifactsFlag())
}

// artifactsFlag reports whether go test runs with -artifacts, in which case
// t.ArtifactDir() is kept after the test.
func artifactsFlag() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}

// armPlan is one arm of a run with its thresholds.
type armPlan struct {
	arm        engine.Arm
	name       string // subtest name
	thresholds []Threshold
	attrs      []string
}

// runner is the state of one Run or Evaluate: the plan, checked before any
// pipeline call, and the cells and verdicts as they finish.
type runner struct {
	cfg      Config
	set      settings
	lim      chan struct{}
	seed     uint64
	benches  []*engine.BenchmarkRun
	plans    []armPlan
	baseline *results.Bundle
	// updateHint is how to record a new baseline, for the gate's messages:
	// "LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$'".
	updateHint string
	varied     []string // the dimensions any arm varies (see engine.CellConfig)
	// problems are configuration problems found while planning that do not
	// stop the run (a missing baseline): the root test reports them.
	problems []string

	mu       sync.Mutex
	cells    []*engine.Cell
	partial  bool
	verdicts []engine.Verdict
}

// newRunner reads the environment, loads the benchmarks, converts the arms
// and checks every threshold and gated metric against what each arm
// scores, so that a configuration problem fails before the first pipeline
// call.
func newRunner(cfg Config, getenv func(string) string, testName string) (*runner, error) {
	set, err := readSettings(getenv)
	if err != nil {
		return nil, err
	}
	benches, sweep, err := loadBenchmarks(cfg)
	if err != nil {
		return nil, err
	}
	if sweep != nil && cfg.Cutoffs == nil {
		// A sweep's cutoffs: apply unless Config.Cutoffs sets its own.
		cfg.Cutoffs = sweep.Options.Cutoffs
	}
	if sweep != nil && cfg.Slices == nil {
		// A sweep's slices: apply unless Config.Slices sets its own.
		cfg.Slices = sweep.Options.Slices
	}
	plans, err := planArms(cfg, sweep)
	if err != nil {
		return nil, err
	}
	if len(benches) == 0 {
		return nil, errors.New("no benchmark to run; set Config.Benchmarks (dataset paths), Sweep or Data")
	}
	if err := engine.CheckSlices(benches, cfg.Slices); err != nil {
		return nil, fmt.Errorf("config: Slices: %w", err)
	}
	if len(plans) == 0 {
		return nil, errors.New("no arm to run; set Config.Arms, e.g. []evaltest.Arm{{Name: \"mine\", Retriever: r}, evaltest.BM25()}")
	}
	r := &runner{cfg: cfg, set: set, lim: make(chan struct{}, set.concurrency), seed: cfg.StatsSeed,
		benches: benches, plans: plans, updateHint: fmt.Sprintf("%s=1 go test -run '^%s$'", EnvUpdateBaseline, testName)}
	if r.seed == 0 {
		r.seed = engine.DefaultSeed
	}
	for _, p := range plans {
		r.varied = append(r.varied, p.arm.Varied...)
	}
	if cfg.Baseline != "" && !set.update {
		r.baseline, err = engine.ReadBaseline(datasets.OSFS{}, filepath.ToSlash(filepath.Clean(cfg.Baseline)), EnvUpdateBaseline+"=1")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.problems = append(r.problems, fmt.Sprintf("evaltest: baseline %s does not exist; record it with %s=1 go test -run '^%s$' and commit it", cfg.Baseline, EnvUpdateBaseline, testName))
		case err != nil:
			r.problems = append(r.problems, fmt.Sprintf("evaltest: %v", err))
		}
	}
	return r, nil
}

// gateOptions are the options of the baseline gate.
func (r *runner) gateOptions() engine.GateOptions {
	return engine.GateOptions{Gate: r.cfg.Gate, Baseline: r.baseline, Path: r.cfg.Baseline, Varied: r.varied,
		Seed: r.seed, UpdateHint: r.updateHint}
}

func run(t tb, cfg Config, getenv func(string) string, artifacts bool) {
	t.Helper()
	r, err := newRunner(cfg, getenv, t.Name())
	if err != nil {
		t.Fatalf("evaltest: %v", err)
	}
	for _, p := range r.problems {
		t.Errorf("%s", p)
	}
	names := make([]string, len(r.benches))
	for i, br := range r.benches {
		names[i] = br.Benchmark.Name
	}
	for bi, name := range benchmarkNames(names) {
		br := r.benches[bi]
		t.Run(name, func(t tb) {
			t.Helper()
			for _, p := range r.plans {
				t.Run(p.name, func(t tb) {
					t.Helper()
					r.runArm(t, br, p)
				})
			}
			r.pairedChecks(br).report(t)
		})
	}
	dir := ""
	if artifacts {
		dir = t.ArtifactDir()
	}
	out := r.finish(t.Context(), t.Name(), dir, len(r.benches)*len(r.plans))
	out.report(t)
}

// loadBenchmarks loads cfg's benchmarks, in the order Benchmarks, Sweep,
// Data, and returns the sweep's plan (its built-in arms and their
// thresholds; nil without a sweep).
func loadBenchmarks(cfg Config) ([]*engine.BenchmarkRun, *engine.Plan, error) {
	var (
		out   []*engine.BenchmarkRun
		sweep *engine.Plan
		errs  []error
	)
	for _, p := range slices.Sorted(maps.Keys(cfg.Corpora)) {
		if !slices.Contains(cfg.Benchmarks, p) {
			errs = append(errs, fmt.Errorf("config: Corpora names %q, which is not in Config.Benchmarks; key Corpora by a benchmark path as written there", p))
		}
	}
	for _, p := range cfg.Benchmarks {
		fsys, name, corpus := openPair(cfg.FS, p, cfg.Corpora[p])
		runs, err := engine.LoadBenchmarks(fsys, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: name, Corpus: corpus}}})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, runs...)
	}
	if cfg.Sweep != "" {
		// Without Config.FS the sweep's paths are the operating system's:
		// absolute, or relative to the sweep file's folder (climbing with
		// ".." if need be).
		fsys, name := cfg.FS, path.Clean(filepath.ToSlash(cfg.Sweep))
		if fsys == nil {
			fsys = datasets.OSFS{}
		}
		sw, err := engine.ReadSweep(fsys, name)
		if err == nil {
			sweep, err = cfg.Deps.SweepPlan(context.Background(), sw)
		}
		if err == nil {
			sweep.Benchmarks, err = engine.LoadBenchmarks(fsys, sw)
			out = append(out, sweep.Benchmarks...)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	for i, b := range cfg.Data {
		if b == nil || len(b.Queries) == 0 {
			errs = append(errs, fmt.Errorf("benchmark Data[%d] holds no queries", i))
			continue
		}
		sel, info, err := datasets.Select(b, datasets.Selection{})
		if err != nil {
			errs = append(errs, fmt.Errorf("benchmark Data[%d] (%s): %w", i, b.Name, err))
			continue
		}
		if sel.Name == "" {
			errs = append(errs, fmt.Errorf("benchmark Data[%d] has no Name; load it with package datasets or give it one", i))
			continue
		}
		out = append(out, engine.NewBenchmarkRun(sel, info, 0))
	}
	return out, sweep, errors.Join(errs...)
}

// openPath returns the fs.FS and the path in it of a user's path p: p in
// fsys when set; else p in the package folder when it is local, else its
// base name in its own folder (so "../data/faq.jsonl" works).
func openPath(fsys fs.FS, p string) (fs.FS, string) {
	if fsys != nil {
		return fsys, path.Clean(filepath.ToSlash(p))
	}
	if filepath.IsLocal(p) {
		return os.DirFS("."), path.Clean(filepath.ToSlash(p))
	}
	return os.DirFS(filepath.Dir(p)), filepath.Base(p)
}

// openPair is openPath for a benchmark p and its corpus file (none when
// corpus is ""): one fs.FS that holds both, and their paths in it.
func openPair(fsys fs.FS, p, corpus string) (fs.FS, string, string) {
	if corpus == "" {
		f, name := openPath(fsys, p)
		return f, name, ""
	}
	if fsys != nil || (filepath.IsLocal(p) && filepath.IsLocal(corpus)) {
		f, name := openPath(fsys, p)
		return f, name, path.Clean(filepath.ToSlash(corpus))
	}
	// A path outside the package folder: root the fs.FS at the deepest
	// folder holding both files.
	ap, err1 := filepath.Abs(p)
	ac, err2 := filepath.Abs(corpus)
	if err1 != nil || err2 != nil {
		f, name := openPath(fsys, p)
		return f, name, path.Clean(filepath.ToSlash(corpus))
	}
	root := filepath.Dir(ap)
	for {
		if rel, err := filepath.Rel(root, ac); err == nil && filepath.IsLocal(rel) {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			break
		}
		root = parent
	}
	relP, _ := filepath.Rel(root, ap)
	relC, _ := filepath.Rel(root, ac)
	return os.DirFS(root), filepath.ToSlash(relP), filepath.ToSlash(relC)
}

// planArms converts cfg's arms (and the sweep's, with the sweep's
// thresholds) and checks their names.
func planArms(cfg Config, sweep *engine.Plan) ([]armPlan, error) {
	var (
		plans []armPlan
		errs  []error
	)
	for _, a := range cfg.Arms {
		a.Scorers = append(slices.Clone(cfg.Scorers), a.Scorers...)
		ea, err := a.engineArm()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range a.JudgeCalibrations {
			fsys, name := openPath(cfg.FS, p)
			rec, err := engine.ReadJudgeCalibration(fsys, name)
			if err != nil {
				errs = append(errs, fmt.Errorf("arm %s: %w", a.Name, err))
				continue
			}
			rec.File = p
			ea.JudgeCalibrations = append(ea.JudgeCalibrations, rec)
		}
		plans = append(plans, armPlan{arm: ea, thresholds: append(slices.Clone(cfg.Thresholds), a.Thresholds...)})
	}
	if sweep != nil {
		for _, ea := range sweep.Arms {
			plans = append(plans, armPlan{arm: ea, thresholds: append(slices.Clone(cfg.Thresholds), sweep.Thresholds[ea.Name]...)})
		}
	}
	// Arms of one Run that differ in their own components compare: those
	// components are varied for all of them.
	arms := make([]engine.Arm, len(plans))
	for i := range plans {
		arms[i] = plans[i].arm
	}
	engine.VaryComponents(arms)
	for i := range plans {
		plans[i].arm = arms[i]
	}
	seen, dup := map[string]string{}, false
	for i := range plans {
		p := &plans[i]
		// Config.Repeats and Pass apply to every arm that sets none of its
		// own (a sweep's arm may).
		if p.arm.Repeats == 0 {
			p.arm.Repeats, p.arm.Pass = cfg.Repeats, cfg.Pass
		}
		p.name = safeName(p.arm.Name)
		if other, ok := seen[p.name]; ok {
			errs = append(errs, fmt.Errorf("arms %q and %q have the same subtest name %q; arm names must be unique", other, p.arm.Name, p.name))
			dup = true
		}
		seen[p.name] = p.arm.Name
		gated := cfg.Gate.GatedMetrics(&p.arm)
		p.attrs = cfg.AttrMetrics
		if p.attrs == nil {
			p.attrs = []string{"ndcg@10", "recall@10", "mrr", "exact_match", "token_f1", engine.MetricLatency}
			p.attrs = append(p.attrs, metrics.VectaMetricNames()...)
			for _, sc := range p.arm.Scorers {
				p.attrs = append(p.attrs, sc.Metrics...)
			}
			for _, th := range p.thresholds {
				p.attrs = append(p.attrs, th.Metric)
			}
			if cfg.Baseline != "" {
				p.attrs = append(p.attrs, gated...)
			}
			p.attrs = dedupe(p.attrs)
		}
	}
	// The engine checks the plan's thresholds, gate metrics and paired
	// thresholds, as for the CLI (once arm names are unique: thresholds
	// are keyed by them).
	plan := engine.Plan{Thresholds: map[string][]Threshold{}, CutoffsName: "Config.Cutoffs", Options: engine.Options{Cutoffs: cfg.Cutoffs}}
	for _, p := range plans {
		plan.Arms = append(plan.Arms, p.arm)
		plan.Thresholds[p.arm.Name] = p.thresholds
	}
	if cfg.Baseline != "" {
		plan.Gate = &engine.GateOptions{Gate: cfg.Gate}
	}
	if len(plan.Arms) > 0 && !dup {
		if err := plan.Check(); err != nil {
			errs = append(errs, err)
		}
	}
	return plans, errors.Join(errs...)
}

// pairedChecks checks the paired thresholds (NotWorseThan) of every arm
// on br, once all its arms have finished, and records their verdicts.
func (r *runner) pairedChecks(br *engine.BenchmarkRun) messages {
	var msgs messages
	r.mu.Lock()
	cells, partial := slices.Clone(r.cells), r.partial
	r.mu.Unlock()
	for _, p := range r.plans {
		if !slices.ContainsFunc(p.thresholds, Threshold.Paired) {
			continue
		}
		var c *engine.Cell
		for _, oc := range cells {
			if oc.Bench == br && oc.Arm.Name == p.arm.Name && oc.BuildErr == nil {
				c = oc
			}
		}
		if c == nil {
			continue // the arm did not run: its subtest says why
		}
		if partial {
			msgs.logf("%s: not_worse_than thresholds not checked: -run selected only some of the queries", p.arm.Name)
			continue
		}
		vs := engine.PairedVerdicts(c, cells, p.thresholds, r.varied, r.seed)
		r.addVerdicts(vs)
		for _, v := range vs {
			if v.Pass {
				msgs.logf("%s: %s", p.arm.Name, v.Message)
			} else {
				msgs.errorf("%s: %s", p.arm.Name, v.Message)
			}
		}
	}
	return msgs
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// record adds a finished cell for the bundle, with its verdicts.
func (r *runner) record(c *engine.Cell, partial bool, vs []engine.Verdict) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cells = append(r.cells, c)
	r.partial = r.partial || partial
	r.verdicts = append(r.verdicts, vs...)
}

// addVerdicts records per-query verdicts (the baseline update reads them).
func (r *runner) addVerdicts(vs []engine.Verdict) {
	if len(vs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verdicts = append(r.verdicts, vs...)
}

// messages are what a test reports, in order: log lines and failures.
type messages struct {
	lines []message
}

type message struct {
	text string
	fail bool
}

func (m *messages) logf(format string, args ...any) {
	m.lines = append(m.lines, message{text: fmt.Sprintf(format, args...)})
}

func (m *messages) errorf(format string, args ...any) {
	m.lines = append(m.lines, message{text: fmt.Sprintf(format, args...), fail: true})
}

// report sends the messages to t.
func (m messages) report(t tb) {
	t.Helper()
	for _, l := range m.lines {
		if l.fail {
			t.Errorf("%s", l.text)
		} else {
			t.Logf("%s", l.text)
		}
	}
}

// finished is the outcome of a whole run: its messages and bundle.
type finished struct {
	messages
	bundle *results.Bundle
	path   string
}

// finish assembles, writes and reports the bundle, fails on blocking
// findings and rewrites the baseline when asked. artifactDir is
// t.ArtifactDir() under go test -artifacts, else "".
func (r *runner) finish(ctx context.Context, testName, artifactDir string, planned int) finished {
	var out finished
	r.mu.Lock()
	cells, partial, verdicts := r.cells, r.partial || len(r.cells) < planned, r.verdicts
	r.mu.Unlock()
	if len(cells) == 0 {
		out.logf("no query ran (-run or %s left them all out); no bundle written", EnvShard)
		return out
	}
	rep := engine.NewReport(cells, r.set.shard)
	rep.Slices = r.cfg.Slices
	opts := engine.BundleOptions{LasagnaVersion: version(), Concurrency: r.set.concurrency, StatsSeed: r.seed, Latency: r.set.latency}
	if partial {
		opts.Selection = goTestSelection()
		if opts.Selection == "" {
			opts.Selection = "(a subset)"
		}
	}
	b, err := rep.Bundle(opts)
	if err != nil {
		out.errorf("evaltest: %v", err)
		return out
	}
	out.bundle = b
	var dir string
	switch {
	case artifactDir != "":
		dir = artifactDir
	case r.set.out != "":
		dir = r.set.out
	default:
		dir = defaultBundleDir()
	}
	name := bundleName(testName, r.set.shard)
	if partial {
		// A -run subset must not overwrite the whole run's bundle.
		if sel := goTestSelection(); sel != "" {
			name = subsetName(name, sel)
		}
	}
	file := filepath.Join(dir, name)
	var table bytes.Buffer
	reps := []reporters.Reporter{reporters.JSONFile{Path: file}, reporters.Text{W: &table}}
	if r.set.stepSummary != "" {
		reps = append(reps, reporters.Markdown{Path: r.set.stepSummary, Baseline: r.baseline})
	}
	reps = append(reps, r.cfg.Reporters...)
	// Reporters may write beside the bundle (htmlreport's report.html).
	ctx = reporters.WithBundlePath(ctx, file)
	for i, rp := range reps {
		err := rp.Report(ctx, b)
		switch {
		case err != nil:
			out.errorf("evaltest: reporter %d (%T): %v", i+1, rp, err)
		case i == 0:
			out.path = file
			out.logf("lasagna bundle: %s", file)
		}
	}
	out.logf("results:\n%s", strings.TrimRight(table.String(), "\n"))
	for _, f := range rep.Findings {
		if !f.Blocking() {
			out.logf("integrity warning: %s", engine.GoTestFinding(f))
		}
	}
	for _, f := range rep.Findings {
		if f.Blocking() {
			out.errorf("integrity: %s", engine.GoTestFinding(f))
		}
	}
	if r.set.update {
		// A baseline leaves latency out: rewriting it from a run whose
		// scores did not change leaves the committed file as it was.
		opts.Latency = false
		if base, err := rep.Bundle(opts); err != nil {
			out.errorf("evaltest: %v", err)
		} else {
			r.updateBaseline(ctx, &out, base, verdicts, rep.Findings, partial)
		}
	}
	return out
}

func (r *runner) updateBaseline(ctx context.Context, out *finished, b *results.Bundle, vs []engine.Verdict, findings []lasagna.Finding, partial bool) {
	if r.cfg.Baseline == "" {
		out.logf("%s is set but Config.Baseline is empty: no baseline to rewrite", EnvUpdateBaseline)
		return
	}
	if err := engine.BaselineUpdate(vs, findings, r.set.shard, partial); err != nil {
		out.errorf("evaltest: not rewriting baseline %s (%s=1): %v", r.cfg.Baseline, EnvUpdateBaseline, err)
		return
	}
	if err := (reporters.JSONFile{Path: r.cfg.Baseline}).Report(ctx, b); err != nil {
		out.errorf("evaltest: rewriting baseline: %v", err)
		return
	}
	out.logf("baseline %s rewritten from this run (%s=1); review and commit it", r.cfg.Baseline, EnvUpdateBaseline)
}

// bundleName is the bundle's file name: lasagna-<package folder>-<test
// name>[-shard-i-of-n].json, with characters other than letters, digits,
// '.', '-' and '_' replaced by '_'.
func bundleName(test string, s engine.Shard) string {
	pkg := "pkg"
	if wd, err := os.Getwd(); err == nil {
		pkg = filepath.Base(wd)
	}
	name := "lasagna-" + pkg + "-" + test
	if s.Count > 1 {
		name += fmt.Sprintf("-shard-%d-of-%d", s.Index, s.Count)
	}
	return atomicfile.SafeName(name) + ".json"
}

// goTestSelection returns go test's -run and -skip patterns of this test
// binary ("" when neither is set); a variable so tests can set it.
var goTestSelection = func() string {
	var sel []string
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			sel = append(sel, name+"="+f.Value.String())
		}
	}
	return strings.Join(sel, " ")
}

// subsetName is the bundle file name of a run that -run (or -skip) cut
// to some of its queries: name with "-run-<8 hex digits of the
// patterns' sha256>" before ".json", so each selection has its own file
// and none overwrites the whole run's bundle.
func subsetName(name, selection string) string {
	sum := sha256.Sum256([]byte(selection))
	return strings.TrimSuffix(name, ".json") + "-run-" + hex.EncodeToString(sum[:4]) + ".json"
}

// defaultBundleDir is the folder of bundles when neither -artifacts nor
// LASAGNA_OUT says one: $TMPDIR/lasagna-bundles/<module>-<hash>, one folder per
// module (and per checkout of it), so that projects on one machine never
// overwrite each other's bundles. <module> is the last element of the
// module path in the nearest go.mod above the working folder, then '-' and
// 8 hex digits of the sha256 of that go.mod's folder; without a go.mod,
// "nomodule-" and the digits of the working folder.
func defaultBundleDir() string {
	base := filepath.Join(os.TempDir(), "lasagna-bundles")
	if st, err := os.Stat(base); err == nil && !st.IsDir() {
		// Something else took the name: use a fresh folder beside it.
		if d, err := os.MkdirTemp(os.TempDir(), "lasagna-bundles-"); err == nil {
			base = d
		}
	}
	return filepath.Join(base, moduleFolder())
}

// moduleFolder names the module of the working folder (see
// defaultBundleDir).
func moduleFolder() string {
	wd, err := os.Getwd()
	if err != nil {
		return "nomodule"
	}
	name, root := "nomodule", wd
	for dir := wd; ; {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			name, root = path.Base(modulePath(data)), dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	sum := sha256.Sum256([]byte(root))
	return atomicfile.SafeName(name) + "-" + hex.EncodeToString(sum[:4])
}

// modulePath returns the module path a go.mod declares ("module" when it
// declares none).
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[:i]
		}
		if p := strings.Trim(strings.TrimSpace(rest), `"`+"`"); p != "" {
			return p
		}
	}
	return "module"
}

// version returns the version of the lasagna module this binary was built
// with, or "dev".
func version() string {
	const mod = "github.com/lasagna-go/lasagna"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == mod {
		v = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == mod {
			v = d.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}

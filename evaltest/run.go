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
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/engine"
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
// logs its path and the results table (the default columns, then every
// metric the arms' judges and scorers produce and every metric a
// threshold or the gate checks), runs the reporters (logging the path of
// each file one of Config.Reporters writes: reporters.FileReporter, such
// as htmlreport.Reporter's lasagna-<package folder>-<test>.html),
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

// plan is one Run or Evaluate as evaltest sets it up: the engine's plan,
// checked before any pipeline call, and what the front end renders.
type plan struct {
	*engine.Plan
	cfg Config
	set settings
	// baseline is the baseline bundle the gate reads (nil without one).
	baseline *results.Bundle
	// problems are configuration problems found while planning that do
	// not stop the run (a missing baseline): the root test reports them.
	problems []string
}

// newPlan reads the environment, loads the benchmarks, converts the arms
// into the engine's plan and checks it — every threshold and gated metric
// against what each arm scores — so that a configuration problem fails
// before the first pipeline call.
func newPlan(cfg Config, getenv func(string) string, testName string) (*plan, error) {
	set, err := readSettings(getenv)
	if err != nil {
		return nil, err
	}
	if err := touchShardStatus(getenv); err != nil {
		return nil, err
	}
	benches, sweep, err := loadBenchmarks(cfg)
	if err != nil {
		return nil, err
	}
	if len(benches) == 0 {
		return nil, errors.New("no benchmark to run; set Config.Benchmarks (dataset paths), Sweep or Data")
	}
	p := &plan{cfg: cfg, set: set, Plan: &engine.Plan{Benchmarks: benches, Thresholds: map[string][]Threshold{},
		CutoffsName: "Config.Cutoffs", AttrMetrics: cfg.AttrMetrics, Latency: set.latency, Selection: goTestSelection(),
		Options: engine.Options{Cutoffs: cfg.Cutoffs, Slices: cfg.Slices, Shard: set.shard, Concurrency: set.concurrency, StatsSeed: cfg.StatsSeed,
			MaxCost: set.maxCost}}}
	gate := cfg.Gate
	if sweep != nil {
		// A sweep's cutoffs, slices and gate apply unless Config sets its own.
		if cfg.Cutoffs == nil {
			p.Options.Cutoffs = sweep.Options.Cutoffs
		}
		if cfg.Slices == nil {
			p.Options.Slices = sweep.Options.Slices
		}
		if gate.Metrics == nil && gate.Tolerance == 0 && gate.Alpha == 0 && sweep.Gate != nil {
			gate = sweep.Gate.Gate
		}
	}
	if err := p.addArms(sweep); err != nil {
		return nil, err
	}
	if len(p.Arms) == 0 {
		return nil, errors.New("no arm to run; set Config.Arms, e.g. []evaltest.Arm{{Name: \"mine\", Retriever: r}, evaltest.BM25()}")
	}
	if cfg.Baseline != "" && !set.update {
		p.Gate = &engine.GateOptions{Gate: gate, Path: cfg.Baseline,
			UpdateHint: fmt.Sprintf("%s=1 go test -run '^%s$'", EnvUpdateBaseline, testName)}
	}
	if err := engine.CheckSlices(benches, p.Options.Slices); err != nil {
		return nil, fmt.Errorf("config: Slices: %w", err)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	if p.Gate != nil {
		p.baseline, err = engine.ReadBaseline(datasets.OSFS{}, filepath.ToSlash(filepath.Clean(cfg.Baseline)), EnvUpdateBaseline+"=1")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			p.problems = append(p.problems, fmt.Sprintf("evaltest: baseline %s does not exist; record it with %s=1 go test -run '^%s$' and commit it", cfg.Baseline, EnvUpdateBaseline, testName))
		case err != nil:
			p.problems = append(p.problems, fmt.Sprintf("evaltest: %v", err))
		}
		if p.baseline == nil {
			p.Gate = nil
		} else {
			p.Gate.Baseline = p.baseline
		}
	}
	return p, nil
}

// addArms converts cfg's arms (and the sweep's, with the sweep's
// thresholds) into the plan's, with their thresholds.
func (p *plan) addArms(sweep *engine.Plan) error {
	cfg := p.cfg
	var errs []error
	for _, a := range cfg.Arms {
		a.Scorers = append(slices.Clone(cfg.Scorers), a.Scorers...)
		ea, err := a.engineArm()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, path := range a.JudgeCalibrations {
			fsys, name := openPath(cfg.FS, path)
			rec, err := engine.ReadJudgeCalibration(fsys, name)
			if err != nil {
				errs = append(errs, fmt.Errorf("arm %s: %w", a.Name, err))
				continue
			}
			rec.File = path
			ea.JudgeCalibrations = append(ea.JudgeCalibrations, rec)
		}
		// Config.Repeats and Pass are every arm's (loadBenchmarks sets
		// them on a sweep's arms too).
		ea.Repeats, ea.Pass = cfg.Repeats, cfg.Pass
		p.Arms = append(p.Arms, ea)
		p.Thresholds[ea.Name] = append(slices.Clone(cfg.Thresholds), a.Thresholds...)
	}
	if sweep != nil {
		for _, ea := range sweep.Arms {
			p.Arms = append(p.Arms, ea)
			p.Thresholds[ea.Name] = append(slices.Clone(cfg.Thresholds), sweep.Thresholds[ea.Name]...)
		}
	}
	// Arms of one Run that differ in their own components compare: those
	// components are varied for all of them.
	engine.VaryComponents(p.Arms)
	return errors.Join(errs...)
}

func run(t tb, cfg Config, getenv func(string) string, artifacts bool) {
	t.Helper()
	p, err := newPlan(cfg, getenv, t.Name())
	if err != nil {
		t.Fatalf("evaltest: %v", err)
	}
	for _, msg := range p.problems {
		t.Errorf("%s", msg)
	}
	if p.set.shardNote != "" {
		t.Logf("%s", p.set.shardNote)
	}
	if p.set.dryRun {
		t.Logf("%s", p.dryRun())
		t.Skipf("%s=1: the run's LLM calls are estimated above; nothing was called and no bundle is written", envDryRun)
	}
	out, err := engine.Execute(unit{t}, p.Plan)
	if err != nil {
		t.Fatalf("evaltest: %v", executeErr(err))
	}
	dir := ""
	if artifacts {
		dir = t.ArtifactDir()
	}
	p.render(t.Context(), t, out, t.Name(), dir)
}

// dryRun returns the plan's estimated LLM calls (engine.EstimatePlan) as
// a table.
func (p *plan) dryRun() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s=1: the LLM calls this run would make\n", envDryRun)
	_ = engine.EstimatePlan(p.Plan).Write(&b)
	return strings.TrimSuffix(b.String(), "\n")
}

// executeErr is Execute's error as the root test reports it: a run the
// cost cap stopped says how far it got and how to go on.
func executeErr(err error) error {
	var capped *engine.CostCapped
	if errors.As(err, &capped) {
		return fmt.Errorf("%v; the run is partial and wrote no bundle: rerun with a higher %s (the LLM response cache answers the calls already made at no cost)", capped, envMaxCost)
	}
	return err
}

// unit adapts a tb to the engine's Runner: each unit of the run is a
// subtest.
type unit struct{ tb }

func (u unit) Run(name string, f func(engine.Runner)) bool {
	u.tb.Helper()
	return u.tb.Run(name, func(t tb) {
		t.Helper()
		f(unit{t})
	})
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
		if err == nil && cfg.Repeats > 0 {
			// Config.Repeats and Pass override the sweep's, as the CLI's
			// --repeats and --pass do.
			sw.SetRepeats(cfg.Repeats)
			sw.SetPass(cfg.Pass.String())
		}
		if err == nil {
			sweep, err = engine.Deps(cfg.Deps).SweepPlan(context.Background(), sw)
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

// logger is where render reports: the root test, or the root of an
// Evaluation.
type logger interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

// render writes and reports the bundle of out (its path, the results
// table, the reporters), reports the integrity findings (a blocking one
// fails the test) and rewrites the baseline when asked. artifactDir is
// t.ArtifactDir() under go test -artifacts, else "".
func (p *plan) render(ctx context.Context, t logger, out *engine.Outcome, testName, artifactDir string) (b *results.Bundle, path string) {
	t.Helper()
	if out.Bundle == nil {
		t.Logf("no query ran (-run or %s left them all out); no bundle written", EnvShard)
		return nil, ""
	}
	var dir string
	switch {
	case artifactDir != "":
		dir = artifactDir
	case p.set.out != "":
		dir = p.set.out
	default:
		dir = defaultBundleDir()
	}
	name := bundleName(testName, p.set.shard)
	if out.Partial && p.Selection != "" {
		// A -run subset must not overwrite the whole run's bundle.
		name = subsetName(name, p.Selection)
	}
	file := filepath.Join(dir, name)
	var table bytes.Buffer
	// The columns: the defaults, then every metric a judge or scorer
	// produced and a threshold or the gate checks (as the CLI shows).
	cols := reporters.SummaryMetrics(out.Bundle, p.TableMetrics()...)
	reps := []reporters.Reporter{reporters.JSONFile{Path: file}, reporters.Text{W: &table, Metrics: cols}}
	if p.set.stepSummary != "" {
		reps = append(reps, reporters.Markdown{Path: p.set.stepSummary, Baseline: p.baseline})
	}
	builtin := len(reps)
	reps = append(reps, p.cfg.Reporters...)
	// Reporters may write beside the bundle (htmlreport's
	// lasagna-<pkg>-<test>.html).
	ctx = reporters.WithBundlePath(ctx, file)
	for i, rp := range reps {
		err := rp.Report(ctx, out.Bundle)
		switch {
		case err != nil:
			t.Errorf("evaltest: reporter %d (%T): %v", i+1, rp, err)
		case i == 0:
			path = file
			t.Logf("lasagna bundle: %s", file)
		case i >= builtin:
			// A user's reporter that writes a file says where.
			if fr, ok := rp.(reporters.FileReporter); ok && fr.File(ctx) != "" {
				t.Logf("lasagna report: %s", fr.File(ctx))
			}
		}
	}
	t.Logf("results:\n%s", strings.TrimRight(table.String(), "\n"))
	for _, f := range out.Report.Findings {
		if !f.Blocking() {
			t.Logf("integrity warning: %s", engine.GoTestFinding(f))
		}
	}
	for _, f := range out.Report.Findings {
		if f.Blocking() {
			t.Errorf("integrity: %s", engine.GoTestFinding(f))
		}
	}
	if p.set.update {
		p.updateBaseline(ctx, t, out)
	}
	return out.Bundle, path
}

func (p *plan) updateBaseline(ctx context.Context, t logger, out *engine.Outcome) {
	t.Helper()
	if p.cfg.Baseline == "" {
		t.Logf("%s is set but Config.Baseline is empty: no baseline to rewrite", EnvUpdateBaseline)
		return
	}
	if err := engine.BaselineUpdate(out.Verdicts, out.Report.Findings, p.set.shard, out.Partial); err != nil {
		t.Errorf("evaltest: not rewriting baseline %s (%s=1): %v", p.cfg.Baseline, EnvUpdateBaseline, err)
		return
	}
	b, err := out.BaselineBundle()
	if err == nil {
		err = (reporters.JSONFile{Path: p.cfg.Baseline}).Report(ctx, b)
	}
	if err != nil {
		t.Errorf("evaltest: rewriting baseline: %v", err)
		return
	}
	t.Logf("baseline %s rewritten from this run (%s=1); review and commit it", p.cfg.Baseline, EnvUpdateBaseline)
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

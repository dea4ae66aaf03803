package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// DefaultConcurrency returns the pipeline calls the plan of arms keeps in
// flight when its Options.Concurrency is 0 — the one default of every
// front end: GOMAXPROCS when every arm is a built-in BM25 retriever alone,
// whose queries only use the CPU (more calls in flight would only queue
// for it, and inflate each call's latency_ms), else GOMAXPROCS and at
// least 8, since a pipeline of the user's, a model or a vector database
// mostly waits on the network.
func DefaultConcurrency(arms []Arm) int {
	n := runtime.GOMAXPROCS(0)
	for i := range arms {
		if !arms[i].textFree() {
			return max(8, n)
		}
	}
	return n
}

// Outcome is what Execute returns: the report of the cells that ran, the
// verdicts in plan order (per cell: its queries in benchmark order, its
// thresholds, its paired thresholds, its gate), the bundle, and whether
// the front end left part of the plan out.
type Outcome struct {
	Report   *Report
	Verdicts []Verdict
	// Bundle is the results bundle; nil when no query ran.
	Bundle *results.Bundle
	// Partial is set when the runner left some benchmarks, arms or
	// queries out (go test -run): thresholds, paired thresholds and the
	// gate of a cell that did not run whole are not checked, and the
	// bundle records the plan's Selection as its subset.
	Partial bool
	opts    BundleOptions
}

// BaselineBundle returns the bundle to record as a baseline: o's bundle
// without latency, so that rewriting a baseline from a run whose scores
// did not change leaves the file as it was.
func (o *Outcome) BaselineBundle() (*results.Bundle, error) {
	opts := o.opts
	opts.Latency = false
	return o.Report.Bundle(opts)
}

// BundleOptions returns the options Execute builds p's bundle with:
// the lasagna version (Version), the effective concurrency, the stats
// seed, latency and, when partial, the selection.
func (p *Plan) BundleOptions(partial bool) BundleOptions {
	o := BundleOptions{LasagnaVersion: Version(), Concurrency: p.concurrency(), StatsSeed: p.Options.StatsSeed,
		Latency: p.Latency, Submitter: p.Submitter, Unhashed: p.Options.BundleUnhashed}
	if partial {
		o.Selection = p.Selection
		if o.Selection == "" {
			o.Selection = "(a subset)"
		}
	}
	return o
}

func (p *Plan) concurrency() int {
	if p.Options.Concurrency > 0 {
		return p.Options.Concurrency
	}
	return DefaultConcurrency(p.Arms)
}

// Execute checks p (Check) and runs it through r: a unit per benchmark
// (named by BenchmarkNames), per arm (SubtestName of its name) and per
// query (UniqueNames of the ids), each query's pipeline calls under one
// limiter of Options.Concurrency for the whole run, repeats sharing one
// pipeline. It reports each verdict on its unit as it is decided (a failed
// query on the query, thresholds and the gate on the arm once its queries
// are done, paired thresholds on the benchmark once its arms are done) and
// records each query's metrics as attributes (lasagna.<metric>). It then
// raises the integrity findings and assembles the bundle; the front end
// renders them (go test fails on a blocking finding, the CLI exits 1).
//
// The error is one that stops the whole run: a problem of the plan, a
// journal error, or *Interrupted when r's context ended first.
func Execute(r Runner, p *Plan) (*Outcome, error) {
	r.Helper()
	return execute(r, p, true)
}

// execute is Execute; without bundle it assembles the report alone (Run).
func execute(r Runner, p *Plan, bundle bool) (*Outcome, error) {
	r.Helper()
	if len(p.Benchmarks) == 0 {
		return nil, errors.New("the plan has no benchmarks")
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	if p.Gate != nil && p.Gate.Baseline == nil {
		return nil, errors.New("the plan is gated but has no baseline bundle; read it with ReadBaseline")
	}
	e := newExecution(p)
	e.bundle = bundle
	// A Recorder that keeps nothing (Discard) records no attribute: the
	// query units skip formatting them.
	if n, ok := r.(*Recorder); ok && !n.keep {
		e.quiet = true
	}
	var err error
	if e.budget, err = newBudget(p); err != nil {
		return nil, err
	}
	names := make([]string, len(p.Benchmarks))
	for i, br := range p.Benchmarks {
		names[i] = br.Benchmark.Name
		br.CorpusDigest = br.corpusDigest() // while the texts are there
	}
	var workers sync.WaitGroup
	for range p.concurrency() {
		workers.Go(func() {
			for job := range e.work {
				job()
			}
		})
	}
	for bi, name := range BenchmarkNames(names) {
		if e.stopped() {
			break
		}
		r.Run(name, func(r Runner) {
			r.Helper()
			e.runBenchmark(r, bi)
		})
	}
	// Every unit is done (Run returns after its children), so no job is
	// left to send.
	close(e.work)
	workers.Wait()
	return e.finish(r.Context())
}

// execution is the state of one Execute.
type execution struct {
	p *Plan
	// bundle: assemble the bundle (Execute; Run wants the report alone);
	// quiet: the runner keeps no attribute (Discard).
	bundle, quiet bool
	opts          Options
	// work feeds the run's pipeline calls to Options.Concurrency
	// workers, which keep their (grown) stacks from call to call.
	work    chan func()
	seed    uint64
	varied  []string
	cells   [][]*cellState // by benchmark, then arm
	queries [][]*lasagna.Query
	ids     []*idSet
	total   int
	done    atomic.Int64
	// textFree: see Options.ReleaseTexts.
	textFree bool
	// budget keeps the run under Options.MaxCost (nil: no cap); ran
	// counts the queries that ran whole under it.
	budget *budget
	ran    atomic.Int64

	mu   sync.Mutex
	stop error
}

// cellState is one arm on one benchmark while it runs.
type cellState struct {
	cell    *Cell
	runs    []*cellRun
	entered bool // the runner ran the arm's unit
	// recorded is set when the cell enters the report: its pipeline did
	// not build, or some of its queries ran.
	recorded bool
	partial  bool
	mu       sync.Mutex
	// started holds each query's results, one per repeat, by query index:
	// nil when the runner left the query out. The arm's cleanup reads it
	// once every query unit has finished.
	started [][]*QueryResult

	queryVerdicts              [][]Verdict
	cellVerdicts, gateVerdicts []Verdict
	pairedVerdicts             []Verdict
	journalled                 int
	// calls estimates the cell's LLM calls, for Options.MaxCost.
	calls *cellCalls
}

func newExecution(p *Plan) *execution {
	e := &execution{p: p, opts: p.Options, seed: p.Options.StatsSeed, textFree: p.Options.ReleaseTexts}
	if e.seed == 0 {
		e.seed = DefaultSeed
	}
	e.work = make(chan func())
	for i := range p.Arms {
		e.varied = append(e.varied, p.Arms[i].Varied...)
		e.textFree = e.textFree && p.Arms[i].textFree()
	}
	slices.Sort(e.varied)
	e.varied = slices.Compact(e.varied)
	for _, br := range p.Benchmarks {
		qs := p.Options.Shard.Select(br.Benchmark)
		e.queries = append(e.queries, qs)
		e.ids = append(e.ids, corpusIDs(br.Benchmark))
		row := make([]*cellState, len(p.Arms))
		for ai := range p.Arms {
			row[ai] = &cellState{cell: &Cell{Bench: br, Arm: &p.Arms[ai]}}
		}
		e.cells = append(e.cells, row)
		e.total += len(qs) * len(p.Arms)
	}
	return e
}

// ranQueries returns how many queries ran whole (for CostCapped).
func (e *execution) ranQueries() int { return int(e.ran.Load()) }

// headlineAttrs are the metrics recorded first, in this order, when a
// query records every metric it scored; the rest follow by name.
var headlineAttrs = []string{"ndcg@10", "recall@10", "mrr", "exact_match", "token_f1"}

// attrScores returns the attributes of a query's scores: those of the
// metrics in attrs, in that order, or with attrs nil every metric scored
// (headlineAttrs first, then by name). Latency is not among them, and a
// name t.Attr would refuse (one holding white space) is left out.
func attrScores(scores map[string]float64, attrs []string) [][2]string {
	names := attrs
	if names == nil {
		for _, m := range headlineAttrs {
			if _, ok := scores[m]; ok {
				names = append(names, m)
			}
		}
		var rest []string
		for m := range scores {
			if !slices.Contains(headlineAttrs, m) {
				rest = append(rest, m)
			}
		}
		slices.Sort(rest)
		names = append(names, rest...)
	}
	var out [][2]string
	for _, m := range names {
		v, ok := scores[m]
		if !ok || m == MetricLatency || strings.ContainsFunc(m, unicode.IsSpace) {
			continue
		}
		out = append(out, [2]string{"lasagna." + m, FormatValue(v)})
	}
	return out
}

func (e *execution) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stop == nil {
		e.stop = err
	}
}

func (e *execution) stopped() bool {
	if e.budget.isCapped() {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stop != nil
}

// runBenchmark runs every arm on benchmark bi, then its paired thresholds.
func (e *execution) runBenchmark(r Runner, bi int) {
	r.Helper()
	for ai := range e.p.Arms {
		if e.stopped() || r.Context().Err() != nil {
			break
		}
		r.Run(SubtestName(e.p.Arms[ai].Name), func(r Runner) {
			r.Helper()
			e.runArm(r, bi, ai)
		})
	}
	e.pairedChecks(r, bi)
}

// runArm builds arm ai on benchmark bi and runs its queries as parallel
// units; the arm's cleanup finishes it (finishArm).
func (e *execution) runArm(r Runner, bi, ai int) {
	r.Helper()
	cs := e.cells[bi][ai]
	cs.entered = true
	ctx := r.Context()
	if e.textFree && ai == len(e.p.Arms)-1 {
		ctx = context.WithValue(ctx, releaseTextsKey{}, true)
	}
	queries := e.queries[bi]
	var buildCost float64
	if e.budget != nil {
		cs.calls = cs.cell.Arm.cellCalls(cs.cell.Bench.Benchmark)
		if buildCost = costOf(cs.calls.build()); !e.budget.reserve(buildCost, e.ranQueries, e.total) {
			return
		}
	}
	runs, err := startRepeats(ctx, cs.cell, queries, e.ids[bi], e.opts)
	e.budget.release(buildCost)
	if err != nil {
		e.fail(err)
		return
	}
	cs.runs = runs
	if err := runs[0].Cell().BuildErr; err != nil {
		cs.close()
		cs.cell = &Cell{Bench: cs.cell.Bench, Arm: cs.cell.Arm, BuildErr: err, Facts: runs[0].Cell().Facts}
		cs.recorded = true
		r.Errorf("arm %s could not be built for %s, so none of its queries ran: %v", cs.cell.Arm.Name, cs.cell.Bench.Benchmark.Name, err)
		return
	}
	cs.started = make([][]*QueryResult, len(queries))
	cs.queryVerdicts = make([][]Verdict, len(queries))
	r.Cleanup(func() {
		r.Helper()
		e.finishArm(r, cs)
	})
	ids := make([]string, len(queries))
	for i, q := range queries {
		ids[i] = q.ID
	}
	for i, name := range UniqueNames(ids) {
		if e.stopped() || r.Context().Err() != nil {
			break
		}
		r.Run(name, func(qr Runner) {
			qr.Helper()
			e.runQuery(qr, ctx, cs, i)
		})
	}
}

// runQuery starts query i's repeats under the run's limiter, lets the
// unit go on in parallel, and reports the query's attributes and verdicts
// once they are done.
func (e *execution) runQuery(r Runner, ctx context.Context, cs *cellState, i int) {
	r.Helper()
	res := make([]*QueryResult, len(cs.runs))
	cs.mu.Lock()
	cs.started[i] = res
	cs.mu.Unlock()
	q := cs.runs[0].Cell().Queries[i].Query
	var cost float64
	if e.budget != nil {
		cost = costOf(cs.calls.query(q))
	}
	var (
		wg     sync.WaitGroup
		capped atomic.Bool
	)
	for rep, cr := range cs.runs {
		wg.Add(1)
		job := func() {
			defer wg.Done()
			if !e.budget.reserve(cost, e.ranQueries, e.total) {
				capped.Store(true)
				res[rep] = &QueryResult{Query: q, Err: fmt.Errorf("not run: the run's cost cap of $%.4f was reached", e.budget.max)}
				return
			}
			defer e.budget.release(cost)
			cr.run(ctx, i)
			res[rep] = &cr.cell.Queries[i]
		}
		select {
		case e.work <- job:
		case <-ctx.Done():
			res[rep] = &QueryResult{Query: q, Err: ctx.Err()}
			wg.Done()
		}
	}
	r.Parallel()
	wg.Wait()
	if !capped.Load() {
		e.ran.Add(1)
	}
	n := e.done.Add(1)
	if e.opts.Progress != nil {
		e.opts.Progress(int(n), e.total)
	}
	e.reportQuery(r, cs, i, res)
}

// reportQuery records query i's attributes and reports its verdicts.
func (e *execution) reportQuery(r Runner, cs *cellState, i int, reps []*QueryResult) {
	r.Helper()
	arm := cs.cell.Arm
	// The metrics recorded as attributes; nil: every metric scored.
	attrs := e.p.AttrMetrics
	q := reps[0].Query
	r.Attr("lasagna.query_id", q.ID)
	// Latency is recorded for failed calls too: a timeout is worth seeing.
	if !e.quiet && (attrs == nil || slices.Contains(attrs, MetricLatency)) {
		merged := MergeRepeats(reps)
		if ms, ok := merged.LatencyMS(); ok {
			r.Attr("lasagna."+MetricLatency, FormatValue(ms))
		}
	}
	ths := e.p.Thresholds[arm.Name]
	vs := QueryVerdicts(cs.runs[0].Cell(), reps, ths, arm.Pass)
	cs.queryVerdicts[i] = vs
	failed := slices.ContainsFunc(vs, func(v Verdict) bool { return v.Kind == VerdictQuery })
	if !failed && !e.quiet {
		for _, kv := range attrScores(MeanScores(reps), attrs) {
			r.Attr(kv[0], kv[1])
		}
		if n := len(reps); n > 1 {
			passed := 0
			for _, res := range reps {
				if len(QueryVerdicts(cs.runs[0].Cell(), []*QueryResult{res}, ths, All())) == 0 {
					passed++
				}
			}
			r.Attr("lasagna.repeats", strconv.Itoa(n))
			r.Attr("lasagna.pass_rate", FormatValue(float64(passed)/float64(n)))
		}
	}
	for _, v := range vs {
		r.Errorf("%s", v.Message)
	}
}

// close closes the cell's runs; the first error stops the run.
func (cs *cellState) close() error {
	var first error
	for _, cr := range cs.runs {
		if err := cr.Close(); err != nil && first == nil {
			first = fmt.Errorf("arm %s: %w", cs.cell.Arm.Name, err)
		}
	}
	return first
}

// finishArm runs once every query unit of the arm is done: it closes the
// cell's runs, merges its repeats, and checks the arm's thresholds and the
// gate when every query ran.
func (e *execution) finishArm(r Runner, cs *cellState) {
	r.Helper()
	journalled := -1
	for _, cr := range cs.runs {
		if j := cr.journalled(); journalled < 0 || j < journalled {
			journalled = j
		}
	}
	cs.journalled = max(0, journalled)
	if err := cs.close(); err != nil {
		e.fail(err)
	}
	ran := 0
	for _, reps := range cs.started {
		if reps != nil {
			ran++
		}
	}
	if ran == 0 {
		return
	}
	mergeRuns(cs.cell, cs.runs)
	cs.recorded = true
	if ran < len(cs.started) {
		cs.partial = true
		kept := make([]QueryResult, 0, ran)
		for i, reps := range cs.started {
			if reps != nil {
				kept = append(kept, cs.cell.Queries[i])
			}
		}
		cs.cell.Queries = kept
		if len(e.p.Thresholds[cs.cell.Arm.Name]) > 0 || e.p.Gate != nil {
			r.Logf("thresholds and baseline gate not checked: -run selected %d of the arm's %d queries", ran, len(cs.started))
		}
		return
	}
	cs.cellVerdicts = CellVerdicts(cs.cell, e.p.Thresholds[cs.cell.Arm.Name], e.seed)
	if e.p.Gate != nil {
		cs.gateVerdicts = GateVerdicts(cs.cell, e.gateOptions())
	}
	for _, v := range slices.Concat(cs.cellVerdicts, cs.gateVerdicts) {
		switch {
		case !v.Pass:
			r.Errorf("%s", v.Message)
		case v.Kind == VerdictGate:
			r.Logf("%s", v.Message)
		}
	}
}

func (e *execution) gateOptions() GateOptions {
	o := *e.p.Gate
	if o.Seed == 0 {
		o.Seed = e.seed
	}
	if o.Varied == nil {
		o.Varied = e.varied
	}
	return o
}

// pairedChecks checks the paired thresholds (NotWorseThan) of every arm
// on benchmark bi once its arms are done, and reports them on r.
func (e *execution) pairedChecks(r Runner, bi int) {
	r.Helper()
	var cells []*Cell
	partial := false
	for _, cs := range e.cells[bi] {
		if cs.recorded {
			cells = append(cells, cs.cell)
		}
		partial = partial || cs.partial || !cs.entered
	}
	for _, cs := range e.cells[bi] {
		arm := cs.cell.Arm
		ths := e.p.Thresholds[arm.Name]
		if !slices.ContainsFunc(ths, Threshold.Paired) || !cs.recorded || cs.cell.BuildErr != nil {
			continue
		}
		if partial {
			r.Logf("%s: not_worse_than thresholds not checked: -run selected only some of the queries", arm.Name)
			continue
		}
		cs.pairedVerdicts = PairedVerdicts(cs.cell, cells, ths, e.varied, e.seed)
		for _, v := range cs.pairedVerdicts {
			if v.Pass {
				r.Logf("%s: %s", arm.Name, v.Message)
			} else {
				r.Errorf("%s: %s", arm.Name, v.Message)
			}
		}
	}
}

// finish assembles the outcome once every unit is done.
func (e *execution) finish(ctx context.Context) (*Outcome, error) {
	e.mu.Lock()
	stop := e.stop
	e.mu.Unlock()
	if capped := e.budget.cappedErr(); capped != nil && stop == nil {
		capped.Ran = e.ranQueries()
		stop = capped
	}
	if _, capped := stop.(*CostCapped); ctx.Err() != nil || capped {
		journalled := 0
		for _, row := range e.cells {
			for _, cs := range row {
				journalled += cs.journalled
			}
		}
		err := stop
		if err == nil {
			err = ctx.Err()
		}
		return nil, &Interrupted{Journalled: journalled, Total: e.total, Err: err}
	}
	if stop != nil {
		return nil, stop
	}
	out := &Outcome{}
	var cells []*Cell
	for _, row := range e.cells {
		for _, cs := range row {
			if !cs.recorded {
				out.Partial = true
				continue
			}
			out.Partial = out.Partial || cs.partial
			cells = append(cells, cs.cell)
			for _, vs := range cs.queryVerdicts {
				out.Verdicts = append(out.Verdicts, vs...)
			}
			out.Verdicts = slices.Concat(out.Verdicts, cs.cellVerdicts, cs.pairedVerdicts, cs.gateVerdicts)
		}
	}
	out.Report = NewReport(cells, e.opts.Shard)
	out.Report.Slices = e.opts.Slices
	out.opts = e.p.BundleOptions(out.Partial)
	if len(cells) == 0 || !e.bundle {
		return out, nil
	}
	b, err := out.Report.Bundle(out.opts)
	if err != nil {
		return nil, err
	}
	out.Bundle = b
	return out, nil
}

// Version returns the version of the lasagna module this binary was built
// with ("v1.2.0"), or "dev" for a build of the module's own checkout
// (whatever version control stamps on it: go build's pseudo-version and
// go test's "(devel)" alike). Every front end records it in the bundle's
// environment, so go test and the lasagna CLI built from one version of
// the module write the same bundle.
func Version() string {
	const mod = "github.com/lasagna-go/lasagna"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == mod {
		v = bi.Main.Version
		// The time and revision of a pseudo-version
		// (v0.0.0-20261206183604-65d285a95685).
		pseudo := regexp.MustCompile(`-(0\.)?\d{14}-[0-9a-f]{12}`)
		if strings.Contains(v, "+dirty") || pseudo.MatchString(v) {
			v = ""
		}
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

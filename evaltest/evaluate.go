package evaltest

import (
	"context"
	"os"
	"strings"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// Evaluation is the outcome of Evaluate as plain values, for test
// frameworks that cannot host Go subtests (ginkgo, testify suites) and for
// assertions: the tree of tests Run would have made, each with its
// outcome, messages and attrs, and the bundle.
type Evaluation struct {
	// Name is the root test's name, as given to Evaluate.
	Name string
	// Tests holds every test of the tree in start order: the root
	// (Level 0), then benchmarks (1), arms (2) and queries (3).
	Tests []*TestResult
	// Verdicts are the engine's verdicts on the run: failed queries,
	// thresholds and the baseline gate (failed ones, and the gate's
	// passing ones with the reason they passed).
	Verdicts []Verdict
	// Bundle is the results bundle (nil when no query ran), and
	// BundlePath the file it was written to.
	Bundle     *results.Bundle
	BundlePath string
	// Columns are the metrics of the results table Run logs
	// (reporters.SummaryMetrics with every metric the arms' judges and
	// scorers produce and the thresholds and the gate check), for
	// reporters.Table(ev.Bundle, ev.Columns).
	Columns []string
}

// TestResult is one test of an Evaluation.
type TestResult struct {
	// Name is the full name, e.g. "TestRAG/faq/mine/q17", and Level its
	// depth (0 root, 1 benchmark, 2 arm, 3 query).
	Name  string
	Level int
	// Benchmark, Arm and Query say what the test evaluates, without
	// parsing Name: the benchmark's registered name (e.g.
	// "local/faq@ea3e86b12545") from level 1 down, the arm's name from
	// level 2 down, and the query's id at level 3.
	Benchmark, Arm, Query string
	// Failed and Skipped are the test's outcome; a failed subtest fails
	// its parents too, as in go test.
	Failed, Skipped bool
	// Errors are the failure messages (what t.Error would print), Logs
	// the other messages, in order.
	Errors, Logs []string
	// Attrs are the t.Attr pairs, in order (lasagna.query_id,
	// lasagna.ndcg@10, …).
	Attrs []Attr
}

// Attr is one recorded attribute.
type Attr struct{ Key, Value string }

// Attr returns the value of the attribute key and whether it was recorded.
func (r *TestResult) Attr(key string) (string, bool) {
	for _, a := range r.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Failure returns the test's error messages joined by newlines ("" when
// it passed).
func (r *TestResult) Failure() string { return strings.Join(r.Errors, "\n") }

// Failed reports whether the evaluation failed: a query, threshold, gate,
// integrity or configuration failure anywhere.
func (e *Evaluation) Failed() bool { return len(e.Tests) > 0 && e.Tests[0].Failed }

// Test returns the test with the given full name.
func (e *Evaluation) Test(name string) (*TestResult, bool) {
	for _, t := range e.Tests {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Level returns the tests of one level: 1 benchmarks, 2 arms, 3 queries.
func (e *Evaluation) Level(level int) []*TestResult {
	var out []*TestResult
	for _, t := range e.Tests {
		if t.Level == level {
			out = append(out, t)
		}
	}
	return out
}

// Evaluate runs cfg as Run does — same plan, checks, verdicts,
// environment variables, bundle and reporters — without a *testing.T, and
// returns the outcome as values: the tree of tests Run would have made
// (each with its outcome, messages and attrs), the engine's verdicts, and
// the bundle. name is the root test's name (it names the bundle file).
// Queries run concurrently (LASAGNA_CONCURRENCY), and nothing is printed.
// The bundle is written to $LASAGNA_OUT or the temp folder (Evaluate
// knows no -artifacts). The error is non-nil only when ctx was cancelled;
// failures are in the Evaluation.
func Evaluate(ctx context.Context, name string, cfg Config) (*Evaluation, error) {
	ev := &Evaluation{Name: name}
	rec := engine.NewRecorder(ctx, name)
	p, err := newPlan(cfg, os.Getenv, name)
	if err != nil {
		rec.Errorf("evaltest: %v", err)
		ev.Tests = testsOf(rec, nil)
		return ev, ctx.Err()
	}
	for _, msg := range p.problems {
		rec.Errorf("%s", msg)
	}
	if p.set.dryRun {
		rec.Logf("%s", p.dryRun())
		rec.Finish()
		ev.Tests = testsOf(rec, p)
		return ev, ctx.Err()
	}
	out, err := engine.Execute(rec, p.Plan)
	if err != nil {
		rec.Errorf("evaltest: %v", executeErr(err))
	} else {
		ev.Bundle, ev.BundlePath = p.render(ctx, rec, out, name, "")
		ev.Verdicts = out.Verdicts
		if ev.Bundle != nil {
			ev.Columns = reporters.SummaryMetrics(ev.Bundle, p.TableMetrics()...)
		}
	}
	rec.Finish()
	ev.Tests = testsOf(rec, p)
	return ev, ctx.Err()
}

// testsOf returns the units rec recorded as tests, each labelled with the
// benchmark, arm and query it evaluates.
func testsOf(rec *engine.Recorder, p *plan) []*TestResult {
	benches, arms := map[string]string{}, map[string]string{}
	if p != nil {
		names := make([]string, len(p.Benchmarks))
		for i, br := range p.Benchmarks {
			names[i] = br.Benchmark.Name
		}
		for i, n := range engine.BenchmarkNames(names) {
			benches[n] = names[i]
		}
		for _, a := range p.Arms {
			arms[engine.SubtestName(a.Name)] = a.Name
		}
	}
	var out []*TestResult
	for _, u := range rec.Units() {
		t := &TestResult{Name: u.Name, Level: u.Level, Failed: u.Failed, Errors: u.Errors, Logs: u.Logs}
		for _, a := range u.Attrs {
			t.Attrs = append(t.Attrs, Attr{a[0], a[1]})
		}
		parts := strings.Split(u.Name, "/")
		if n := len(parts) - u.Level; n >= 0 && u.Level > 0 {
			parts = parts[n:] // the root's name may hold '/'
			t.Benchmark = benches[parts[0]]
			if u.Level > 1 {
				t.Arm = arms[parts[1]]
			}
			if u.Level > 2 {
				t.Query, _ = t.Attr("lasagna.query_id")
			}
		}
		out = append(out, t)
	}
	return out
}

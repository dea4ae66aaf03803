package evaltest

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/lasagna-go/lasagna/internal/engine"
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
	root := ev.add(name, 0)
	r, err := newRunner(cfg, os.Getenv, name)
	if err != nil {
		root.apply(messagesOf(fmt.Sprintf("evaltest: %v", err)))
		return ev, ctx.Err()
	}
	for _, p := range r.problems {
		root.apply(messagesOf(p))
	}
	names := make([]string, len(r.benches))
	for i, br := range r.benches {
		names[i] = br.Benchmark.Name
	}
	for bi, bname := range benchmarkNames(names) {
		if ctx.Err() != nil {
			break
		}
		br := r.benches[bi]
		bt := ev.add(name+"/"+bname, 1)
		bt.Benchmark = br.Benchmark.Name
		for _, p := range r.plans {
			if ctx.Err() != nil {
				break
			}
			at := ev.add(bt.Name+"/"+p.name, 2)
			at.Benchmark, at.Arm = bt.Benchmark, p.arm.Name
			ev.runArm(ctx, r, br, p, at)
			bt.Failed = bt.Failed || at.Failed
		}
		bt.apply(r.pairedChecks(br))
		root.Failed = root.Failed || bt.Failed
	}
	out := r.finish(ctx, name, "", len(r.benches)*len(r.plans))
	root.apply(out.messages)
	ev.Bundle, ev.BundlePath = out.bundle, out.path
	r.mu.Lock()
	ev.Verdicts = r.verdicts
	r.mu.Unlock()
	return ev, ctx.Err()
}

// runArm runs one arm's queries (concurrently, under the run's limiter)
// and records the arm's test and its queries' tests.
func (ev *Evaluation) runArm(ctx context.Context, r *runner, br *engine.BenchmarkRun, p armPlan, at *TestResult) {
	ar, buildErr, err := r.startArm(ctx, br, p)
	switch {
	case err != nil:
		at.apply(messagesOf(err.Error()))
		return
	case buildErr != nil:
		at.apply(messagesOf(buildErr.Error()))
		return
	}
	ids := make([]string, len(ar.queries))
	for i, q := range ar.queries {
		ids[i] = q.ID
	}
	outs := make([]*outcome, len(ar.queries))
	for i := range ar.queries {
		outs[i] = ar.dispatch(i)
	}
	for i, qname := range uniqueNames(ids) {
		<-outs[i].done
		qt := ev.add(at.Name+"/"+qname, 3)
		qt.Benchmark, qt.Arm, qt.Query = at.Benchmark, at.Arm, ids[i]
		attrs, msgs := ar.check(i, outs[i])
		qt.Attrs = attrs
		qt.apply(msgs)
		at.Failed = at.Failed || qt.Failed
	}
	at.apply(ar.finish())
}

// add appends a test to the tree.
func (ev *Evaluation) add(name string, level int) *TestResult {
	t := &TestResult{Name: name, Level: level}
	ev.Tests = append(ev.Tests, t)
	return t
}

// apply records messages on t.
func (t *TestResult) apply(m messages) {
	for _, l := range m.lines {
		if l.fail {
			t.Failed = true
			t.Errors = append(t.Errors, l.text)
		} else {
			t.Logs = append(t.Logs, l.text)
		}
	}
}

func messagesOf(failure string) messages {
	var m messages
	m.errorf("%s", failure)
	return m
}

package evaltest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

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

// Evaluate runs cfg exactly as Run does — same subtest tree, checks,
// environment variables, bundle and reporters — without a *testing.T, and
// returns the outcome as values. name is the root test's name (it names
// the bundle file). Queries run concurrently (LASAGNA_CONCURRENCY), and
// nothing is printed. The bundle is written to $LASAGNA_OUT or the temp
// folder (Evaluate knows no -artifacts). The error is non-nil only when
// ctx was cancelled; failures are in the Evaluation.
func Evaluate(ctx context.Context, name string, cfg Config) (*Evaluation, error) {
	ev := &Evaluation{Name: name}
	cfg.Reporters = append(slices.Clone(cfg.Reporters), reporters.Func(func(_ context.Context, b *results.Bundle) error {
		ev.Bundle = b
		return nil
	}))
	root := newNode(ctx, name, 0, &shared{ev: ev})
	<-root.runBody(func(t tb) {
		run(t, cfg, os.Getenv, false)
	})
	for _, l := range ev.Tests[0].Logs {
		if p, ok := strings.CutPrefix(l, "lasagna bundle: "); ok {
			ev.BundlePath = p
		}
	}
	return ev, ctx.Err()
}

// node is a headless tb: it keeps go test's semantics — a failed subtest
// fails its parents, Fatalf and Skipf end the test's goroutine, a parallel
// subtest waits for its parent's function to return, cleanups run after
// every subtest has finished — and records everything in an Evaluation.
type node struct {
	sh     *shared
	res    *TestResult
	parent *node
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	cleanups []func()
	parallel chan struct{} // closed when the test calls Parallel
	bodyDone chan struct{} // closed when the test's function returns
	children sync.WaitGroup
}

// shared is the state the nodes of one Evaluate share.
type shared struct {
	mu sync.Mutex
	ev *Evaluation
}

func newNode(ctx context.Context, name string, level int, sh *shared) *node {
	ctx, cancel := context.WithCancel(ctx)
	n := &node{sh: sh, res: &TestResult{Name: name, Level: level}, ctx: ctx, cancel: cancel,
		parallel: make(chan struct{}), bodyDone: make(chan struct{})}
	sh.mu.Lock()
	sh.ev.Tests = append(sh.ev.Tests, n.res)
	sh.mu.Unlock()
	return n
}

// runBody runs f as n's function on a new goroutine and waits for it,
// its subtests and its cleanups (or only until it calls Parallel).
func (n *node) runBody(f func(tb)) (finished chan struct{}) {
	finished = make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			close(n.bodyDone)
			n.children.Wait()
			n.cancel()
			for i := len(n.cleanups) - 1; i >= 0; i-- {
				n.cleanups[i]()
			}
			if n.failed() && n.parent != nil {
				n.parent.fail()
			}
		}()
		f(n)
	}()
	select {
	case <-finished:
	case <-n.parallel:
	}
	return finished
}

func (n *node) fail() {
	n.mu.Lock()
	n.res.Failed = true
	n.mu.Unlock()
}

func (n *node) failed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.res.Failed
}

func (n *node) Helper()      {}
func (n *node) Name() string { return n.res.Name }
func (n *node) Log(args ...any) {
	n.logf("%s", strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}
func (n *node) Logf(format string, args ...any) { n.logf(format, args...) }
func (n *node) logf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.res.Logs = append(n.res.Logs, fmt.Sprintf(format, args...))
}
func (n *node) Errorf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.res.Failed = true
	n.res.Errors = append(n.res.Errors, fmt.Sprintf(format, args...))
}
func (n *node) Fatalf(format string, args ...any) {
	n.Errorf(format, args...)
	runtime.Goexit()
}
func (n *node) Skipf(format string, args ...any) {
	n.mu.Lock()
	n.res.Skipped = true
	n.res.Logs = append(n.res.Logs, fmt.Sprintf(format, args...))
	n.mu.Unlock()
	runtime.Goexit()
}
func (n *node) Failed() bool { return n.failed() }
func (n *node) Attr(key, value string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.res.Attrs = append(n.res.Attrs, Attr{key, value})
}
func (n *node) Cleanup(f func())         { n.mu.Lock(); n.cleanups = append(n.cleanups, f); n.mu.Unlock() }
func (n *node) Context() context.Context { return n.ctx }
func (n *node) ArtifactDir() string {
	n.Fatalf("evaltest: ArtifactDir is not available outside go test")
	return ""
}

// Parallel lets the parent's function go on and waits until it returns.
func (n *node) Parallel() {
	if n.parent == nil {
		return
	}
	close(n.parallel)
	<-n.parent.bodyDone
}

func (n *node) Run(name string, f func(tb)) bool {
	if n.ctx.Err() != nil {
		// A cancelled evaluation starts no more tests.
		return false
	}
	c := newNode(n.ctx, n.res.Name+"/"+name, n.res.Level+1, n.sh)
	c.parent = n
	n.children.Add(1)
	finished := c.runBody(f)
	go func() {
		<-finished
		n.children.Done()
	}()
	select {
	case <-finished:
		return !c.failed()
	default:
		return true // running in parallel
	}
}

package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// Runner is what Execute walks a plan through: one unit of a run — the
// whole run, a benchmark, an arm on a benchmark, or one query — in the
// shape of testing.T (and of testscript's T), so that evaltest passes one
// backed by *testing.T, where every unit is a (sub)test, and the other
// front ends pass a Recorder. Execute calls Run for each benchmark, arm
// and query, reports each verdict on the unit it belongs to (Errorf for a
// failed one, Logf for a gate that passed and why), records each query's
// metrics with Attr, and finishes an arm in a Cleanup of its unit, once
// its queries are done.
//
// A Runner must behave as testing.T does: Run returns once f and the
// cleanups of the unit have returned and, when f called Parallel, as soon
// as it did; a unit waits for its parallel children before its cleanups
// run; a front end may leave a child out (go test -run), never calling f.
type Runner interface {
	// Context is cancelled when the unit is done or the run is stopped.
	Context() context.Context
	// Run runs f as the child unit name and reports whether it passed.
	Run(name string, f func(Runner)) bool
	// Parallel lets the unit go on beside its siblings.
	Parallel()
	// Cleanup registers f to run when the unit and its children are done.
	Cleanup(f func())
	// Attr records a key and value of the unit (go test's t.Attr).
	Attr(key, value string)
	// Logf records a message; Errorf records a failure of the unit.
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	// Helper marks the calling function as a helper (testing.T.Helper):
	// under go test, failures are reported at the user's call.
	Helper()
}

// Unit is one unit of a run as a Recorder kept it.
type Unit struct {
	// Name is the full name ("root/faq/bm25/q17") and Level the depth
	// (0 the run, 1 a benchmark, 2 an arm, 3 a query).
	Name  string
	Level int
	// Failed is set when the unit or one of its children failed.
	Failed bool
	// Errors are the failure messages and Logs the other messages, in
	// order; Attrs the recorded attributes, in order.
	Errors, Logs []string
	Attrs        [][2]string
}

// Recorder is the Runner of the front ends that are not go test: its
// units run in goroutines with testing.T's order (Parallel, Cleanup), and
// it keeps the tree of units with their messages and attributes when made
// by NewRecorder (evaltest.Evaluate reads it), nothing when made by
// Discard (the lasagna CLI and the dashboard render the returned report).
type Recorder struct {
	*node
	mu    sync.Mutex
	keep  bool
	units []*Unit
}

// NewRecorder returns a Recorder whose root unit is called name and
// whose contexts derive from ctx; it keeps every unit (Units).
func NewRecorder(ctx context.Context, name string) *Recorder {
	rec := &Recorder{keep: true}
	rec.node = rec.newNode(ctx, nil, name)
	return rec
}

// Discard returns a Recorder that keeps no unit, for front ends that
// render what Execute returns.
func Discard(ctx context.Context) *Recorder {
	rec := &Recorder{}
	rec.node = rec.newNode(ctx, nil, "")
	return rec
}

// Units returns the units recorded so far, in start order, the root first
// (none for a Recorder made by Discard).
func (rec *Recorder) Units() []*Unit {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.units
}

// Finish runs the root's cleanups, after waiting for its parallel
// children; call it once, when the front end is done with the root.
func (rec *Recorder) Finish() { rec.node.finish() }

// node is one unit of a Recorder.
type node struct {
	rec    *Recorder
	parent *node
	unit   *Unit // nil when the Recorder keeps nothing
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	failed   bool
	cleanups []func()
	parallel chan struct{} // closed by Parallel
	isPar    bool
	children sync.WaitGroup // parallel children still running
}

func (rec *Recorder) newNode(ctx context.Context, parent *node, name string) *node {
	n := &node{rec: rec, parent: parent, parallel: make(chan struct{})}
	if parent == nil || !rec.keep {
		// The root's context is the caller's; a Recorder that keeps
		// nothing (Discard) gives its units their parent's: nothing reads
		// a finished unit's context, and a query unit makes no cancel
		// context of its own.
		n.ctx, n.cancel = ctx, func() {}
	} else {
		n.ctx, n.cancel = context.WithCancel(ctx)
	}
	if rec.keep {
		level := 0
		if parent != nil {
			level = parent.unit.Level + 1
			name = parent.unit.Name + "/" + name
		}
		n.unit = &Unit{Name: name, Level: level}
		rec.mu.Lock()
		rec.units = append(rec.units, n.unit)
		rec.mu.Unlock()
	}
	return n
}

func (n *node) Context() context.Context { return n.ctx }
func (n *node) Helper()                  {}

func (n *node) Run(name string, f func(Runner)) bool {
	c := n.rec.newNode(n.ctx, n, name)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(c)
		c.finish()
	}()
	select {
	case <-done:
	case <-c.parallel:
		return true
	}
	return !c.hasFailed()
}

// finish waits for the parallel children, runs the cleanups (last
// registered first), and passes a failure on to the parent.
func (n *node) finish() {
	n.children.Wait()
	n.cancel()
	n.mu.Lock()
	cleanups := n.cleanups
	n.cleanups = nil
	n.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	if n.parent != nil {
		if n.hasFailed() {
			n.parent.fail()
		}
		n.mu.Lock()
		par := n.isPar
		n.mu.Unlock()
		if par {
			n.parent.children.Done()
		}
	}
}

func (n *node) Parallel() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.isPar || n.parent == nil {
		return
	}
	n.isPar = true
	n.parent.children.Add(1)
	close(n.parallel)
}

func (n *node) Cleanup(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cleanups = append(n.cleanups, f)
}

func (n *node) Attr(key, value string) {
	if n.unit == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unit.Attrs = append(n.unit.Attrs, [2]string{key, value})
}

func (n *node) Logf(format string, args ...any) {
	if n.unit == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unit.Logs = append(n.unit.Logs, fmt.Sprintf(format, args...))
}

func (n *node) Errorf(format string, args ...any) {
	n.fail()
	if n.unit == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unit.Errors = append(n.unit.Errors, fmt.Sprintf(format, args...))
}

func (n *node) fail() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failed = true
	if n.unit != nil {
		n.unit.Failed = true
	}
}

func (n *node) hasFailed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.failed
}

// SubtestName returns s as a unit name that go test's -run can select
// exactly: every '/', space and non-printing character becomes '_'.
func SubtestName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '_'
		}
		return r
	}, s)
}

// ShortName returns the unit name of a benchmark registered as name: the
// name without the "local/" prefix and the "@<hash>" suffix
// ("local/faq@0123456789ab" → "faq"), made -run-safe.
func ShortName(name string) string {
	s := strings.TrimPrefix(name, "local/")
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		s = s[:at]
	}
	return SubtestName(s)
}

// UniqueNames returns SubtestName of each of ids, made unique in order: a
// name already taken gets the suffix _2, _3, … (the first free one).
func UniqueNames(ids []string) []string {
	out := make([]string, len(ids))
	taken := make(map[string]bool, len(ids))
	for _, id := range ids {
		taken[SubtestName(id)] = false
	}
	for i, id := range ids {
		n := SubtestName(id)
		if taken[n] {
			for k := 2; ; k++ {
				c := fmt.Sprintf("%s_%d", n, k)
				if _, ok := taken[c]; !ok {
					n = c
					break
				}
			}
		}
		taken[n] = true
		out[i] = n
	}
	return out
}

// BenchmarkNames returns the unit names of benchmarks registered as
// names: ShortName of each, except that when two would share one, both
// keep their "@<hash>".
func BenchmarkNames(names []string) []string {
	short := make([]string, len(names))
	count := map[string]int{}
	for i, n := range names {
		short[i] = ShortName(n)
		count[short[i]]++
	}
	for i, n := range names {
		if count[short[i]] > 1 {
			short[i] = SubtestName(strings.TrimPrefix(n, "local/"))
		}
	}
	return UniqueNames(short)
}

package evaltest

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// fakeT is a recording tb: it runs subtests synchronously (Parallel is a
// no-op, which keeps the record in a fixed order) and writes every event
// to a shared log.
type fakeT struct {
	name     string
	log      *fakeLog
	ctx      context.Context
	cancel   context.CancelFunc
	artifact string

	mu       sync.Mutex
	failed   bool
	skipped  bool
	cleanups []func()
}

type fakeLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *fakeLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	l.lines = append(l.lines, strings.ReplaceAll(s, "\n", "\n    "))
}

func (l *fakeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n"
}

// fakeRun runs f as a top-level test called name and returns the log and
// whether the test failed.
func fakeRun(name, artifactDir string, f func(tb)) (*fakeLog, bool) {
	log := &fakeLog{}
	t := newFake(name, log, artifactDir)
	t.run(f)
	return log, t.failed
}

func newFake(name string, log *fakeLog, artifact string) *fakeT {
	ctx, cancel := context.WithCancel(context.Background())
	return &fakeT{name: name, log: log, ctx: ctx, cancel: cancel, artifact: artifact}
}

func (t *fakeT) run(f func(tb)) {
	t.log.add("=== RUN   %s", t.name)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			t.cancel()
			for i := len(t.cleanups) - 1; i >= 0; i-- {
				t.cleanups[i]()
			}
		}()
		f(t)
	}()
	<-done
	switch {
	case t.failed:
		t.log.add("--- FAIL: %s", t.name)
	case t.skipped:
		t.log.add("--- SKIP: %s", t.name)
	default:
		t.log.add("--- PASS: %s", t.name)
	}
}

func (t *fakeT) Helper()      {}
func (t *fakeT) Name() string { return t.name }
func (t *fakeT) Log(args ...any) {
	t.log.add("%s: %s", t.name, strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}
func (t *fakeT) Logf(format string, args ...any) {
	t.log.add("%s: %s", t.name, fmt.Sprintf(format, args...))
}
func (t *fakeT) Errorf(format string, args ...any) {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	t.log.add("%s: ERROR: %s", t.name, fmt.Sprintf(format, args...))
}
func (t *fakeT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}
func (t *fakeT) Skipf(format string, args ...any) {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	t.log.add("%s: SKIP: %s", t.name, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (t *fakeT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
func (t *fakeT) Attr(key, value string) {
	if strings.ContainsAny(key, " \t\n") || strings.Contains(value, "\n") {
		t.Errorf("bad attr %q=%q", key, value)
	}
	if key == "lasagna.latency_ms" {
		// Wall time varies from run to run: the log keeps that it was
		// recorded, as a number of milliseconds.
		if v, err := strconv.ParseFloat(value, 64); err != nil || v < 0 {
			t.Errorf("bad latency attr %q", value)
		}
		value = "(ms)"
	}
	t.log.add("%s: ATTR %s %s", t.name, key, value)
}
func (t *fakeT) Cleanup(f func())         { t.cleanups = append(t.cleanups, f) }
func (t *fakeT) Context() context.Context { return t.ctx }
func (t *fakeT) Parallel()                {}
func (t *fakeT) ArtifactDir() string      { return t.artifact }
func (t *fakeT) Run(name string, f func(tb)) bool {
	c := newFake(t.name+"/"+name, t.log, t.artifact)
	c.run(f)
	if c.failed {
		t.mu.Lock()
		t.failed = true
		t.mu.Unlock()
	}
	return !c.failed
}

var noShard = engineShardZero()

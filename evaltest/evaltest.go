package evaltest

import (
	"context"
	"testing"
)

// tb is the part of *testing.T that Run uses. Run adapts *testing.T to it;
// the package's tests drive run with a recording fake.
type tb interface {
	Helper()
	Name() string
	Log(args ...any)
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Failed() bool
	Attr(key, value string)
	Cleanup(f func())
	Context() context.Context
	Parallel()
	ArtifactDir() string
	Run(name string, f func(tb)) bool
}

// testingT adapts *testing.T to tb.
//
// Every function between the user's evaltest.Run call and a t.Errorf —
// this adapter, run, the benchmark, arm and query subtest bodies and the
// arm's cleanup — calls t.Helper() on its test, so go test reports each
// failure, in any subtest, at the file:line of the user's evaltest.Run
// call (go test follows helper frames up through each subtest's t.Run
// call into its parent).
type testingT struct{ *testing.T }

func (t testingT) Run(name string, f func(tb)) bool {
	t.T.Helper()
	return t.T.Run(name, func(t *testing.T) {
		t.Helper()
		f(testingT{t})
	})
}

package servertest

import (
	"fmt"
	"testing"
)

type fakeTB struct{ skipped, fatal string }

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func TestSkipOrFail(t *testing.T) {
	t.Setenv(RequireEnv, "")
	var tb fakeTB
	SkipOrFail(&tb, "no server; make server")
	if tb.skipped != "no server; make server" || tb.fatal != "" {
		t.Errorf("unset: skip %q, fatal %q: want the skip", tb.skipped, tb.fatal)
	}
	t.Setenv(RequireEnv, "1")
	tb = fakeTB{}
	SkipOrFail(&tb, "no server; make server")
	if tb.fatal != "LASAGNA_REQUIRE_BACKENDS=1 but no server; make server" || tb.skipped != "" {
		t.Errorf("required: skip %q, fatal %q: want the failure", tb.skipped, tb.fatal)
	}
}

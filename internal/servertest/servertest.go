// Package servertest holds what the helpers that start throwaway servers
// for tests (pgtest, pglitetest, weaviatetest) share: the part of
// testing.TB they use, so that they link no testing package of their own,
// and the rule that a missing prerequisite skips a test unless
// LASAGNA_REQUIRE_BACKENDS=1, where it fails it.
package servertest

import (
	"flag"
	"os"

	"github.com/lasagna-go/lasagna/internal/buildtag"
)

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatalf(format string, args ...any)
}

// CleanupTB is a TB with Cleanup, for helpers that stop their server when
// the test ends.
type CleanupTB interface {
	TB
	Cleanup(func())
}

// RequireEnv is the environment variable that, set to 1 (CI sets it),
// turns a skip for a missing server prerequisite into a failure.
const RequireEnv = "LASAGNA_REQUIRE_BACKENDS"

// Required reports whether backend tests must run (RequireEnv=1) instead
// of skipping.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// SkipOrFail skips tb with why, a prerequisite that is missing and the
// command that provides it, or fails it when Required.
func SkipOrFail(tb TB, why string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s=1 but %s", RequireEnv, why)
	} else {
		tb.Skip(why)
	}
}

// Heavy skips tb under go test -short (make check, the fast tier) unless
// Required: what names the heavy prerequisite (a Chromium, a PostgreSQL
// server, a child go test). Every helper that starts one calls it, so one
// rule decides: -short skips them, make test runs them, and
// LASAGNA_REQUIRE_BACKENDS=1 runs them even under -short.
func Heavy(tb TB, what string) {
	tb.Helper()
	if short() && !Required() {
		tb.Skip("-short: skipping a test that needs " + what + "; make test runs it")
	}
}

// short reports go test's -short flag, read from the flag set the testing
// package registers, so that this package need not import testing.
func short() bool {
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}

// NeedTag skips tb, or fails it when Required, unless this test binary
// was built with the build tag tag (built is the tag's constant in
// package buildtag).
func NeedTag(tb TB, tag string, built bool) {
	tb.Helper()
	if !built {
		SkipOrFail(tb, "this test needs the build tag "+tag+": go test -tags "+buildtag.All+" (make test builds with it)")
	}
}

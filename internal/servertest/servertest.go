// Package servertest holds what the helpers that start throwaway servers
// for tests (pgtest, pglitetest, weaviatetest) share: the part of
// testing.TB they use, so that they link no testing package of their own,
// and the rule that a missing prerequisite skips a test unless
// LASAGNA_REQUIRE_BACKENDS=1, where it fails it.
package servertest

import "os"

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

// Package engine runs a plan — benchmarks × arms × queries — with bounded
// concurrency, scores every query, and returns the outcome as values: a
// Report that assembles into a results bundle with its integrity findings.
//
// It never touches a *testing.T, reads no environment variable and no flag:
// the CLI (cmd/lasagna) and the test adapter (evaltest) turn a Report into
// exit codes or test outcomes. A failed query is an error in the report and
// the bundle, never a score of zero.
package engine

// Package tools pins the developer tools of lasagna in a module of their
// own, so that they never enter the dependency graph of lasagna's users:
// gotestsum (run it as `go tool -modfile=tools/go.mod gotestsum` from the
// repository root) and checkjunit, which `make junit` (and so `make test`)
// runs on the JUnit file gotestsum writes and on the Ginkgo example's own
// JUnit report.
package tools

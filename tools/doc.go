// Package tools pins the developer tools of lasagna in a module of their
// own, so that they never enter the dependency graph of lasagna's users:
// gotestsum (run it as `go tool -modfile=tools/go.mod gotestsum` from the
// repository root) and checkjunit, which `make junit` runs on the JUnit
// file gotestsum writes.
package tools

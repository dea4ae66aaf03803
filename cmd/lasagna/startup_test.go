package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestStartupInitIsLazy runs `lasagna --version` with GODEBUG=inittrace=1
// and checks that the packages every command links but few commands use
// do no heavy work at package init: the dashboard's and the HTML report's
// templates are parsed, and results' regexps compiled, on first use
// (sync.OnceValue), so `metrics trec` and `--version` do not pay for them.
// Allocation counts, not times, so the check does not depend on load.
func TestStartupInitIsLazy(t *testing.T) {
	cmd := cliChild(t, nil, "--version")
	// The runtime reads the first GODEBUG in the environment: drop any
	// inherited one (go test may pass GODEBUG, even empty).
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lasagna --version: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "lasagna version ") {
		t.Fatalf("stdout = %q, want the version", stdout.String())
	}
	// Before the change: dashboard 2650, reporters/htmlreport 1204,
	// results 598 allocations at init; internal/jsonschema (upstream's
	// init compiling the drafts' meta-schemas) 21,285, and 159 left (its
	// tables of formats and media types).
	const module = "github.com/lasagna-go/lasagna/"
	budgets := map[string]int{"internal/dashboard": 100, "reporters/htmlreport": 100, "results": 100, "internal/jsonschema": 1000}
	parsed := 0 // the module's packages with an inittrace line
	trace := stderr.String()
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || !strings.HasPrefix(f[1], module) {
			continue
		}
		allocs, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("cannot read the allocations of %q: %v", sc.Text(), err)
		}
		parsed++
		if pkg := strings.TrimPrefix(f[1], module); budgets[pkg] > 0 && allocs > budgets[pkg] {
			t.Errorf("package %s allocates %d times at init (budget %d): make its package-level templates, regexps, schemas or tables lazy (sync.OnceValue)", pkg, allocs, budgets[pkg])
		}
	}
	// A package without init work has no line; the module's packages with
	// some (metrics' tables, for one) show the trace was read.
	if parsed == 0 {
		t.Fatalf("no inittrace line for a package of %s in:\n%s", module, trace)
	}
}

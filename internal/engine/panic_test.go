package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine"
)

// This file is a package of its own (engine_test), as a user's code is:
// the engine keeps the user's frames of a panic and leaves its own out.

func tinyRun(t *testing.T) *engine.BenchmarkRun {
	t.Helper()
	runs, err := engine.LoadBenchmarks(fixtures.Data, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: fixtures.TinyJSONL}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// writeNilMap panics with "assignment to entry in nil map" (the panic of
// the issue), two frames below the retriever.
func writeNilMap(id string) {
	var m map[string]int
	//lint:ignore SA5000 the panic under test
	m[id]++
}

func lookup(id string) { writeNilMap(id) }

// recurse panics at the bottom of a deep recursion.
func recurse(n int) int {
	if n == 0 {
		panic("bottom")
	}
	return recurse(n-1) + 1
}

func panicArm(name string, f func(id string)) engine.Arm {
	return engine.Arm{Name: name, TopK: 10, Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			if q.ID == "q03" {
				f(q.ID)
			}
			return []lasagna.Hit{{ID: "d01", Score: 1}}, nil
		}), nil
	}}
}

func TestPanicKeepsUserStack(t *testing.T) {
	br := tinyRun(t)
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, []engine.Arm{
		panicArm("nilmap", lookup),
		panicArm("deep", func(string) { recurse(500) }),
	}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errOf := func(c *engine.Cell) error {
		for _, q := range c.Queries {
			if q.Query.ID == "q03" {
				return q.Err
			}
		}
		t.Fatalf("no q03 in %s", c.Where())
		return nil
	}
	err = errOf(rep.Cells[0])
	var pe *engine.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("q03 error %T %v, want a *engine.PanicError", err, err)
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		"pipeline panicked: assignment to entry in nil map",
		"github.com/lasagna-go/lasagna/internal/engine_test.writeNilMap",
		"\tengine/panic_test.go:",
		"github.com/lasagna-go/lasagna/internal/engine_test.lookup",
	}
	if len(lines) < len(want) {
		t.Fatalf("error has %d lines, want the stack:\n%s", len(lines), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q; error:\n%s", i+1, lines[i], w, err)
		}
	}
	for _, l := range lines {
		for _, bad := range []string{"runtime.", "engine.callPipeline", "engine.(*cellRun)", "lasagna.RetrieverFunc", "/tmp/", "/home/"} {
			if strings.Contains(l, bad) {
				t.Errorf("stack holds %q:\n%s", bad, err)
			}
		}
	}

	// The bundle's row holds the stack; the finding stays one line.
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range b.Results[0].PerSampleScores {
		if row.QueryID == "q03" && !strings.Contains(row.Error, "engine_test.writeNilMap\n\tengine/panic_test.go:") {
			t.Errorf("bundle row error lacks the stack: %q", row.Error)
		}
	}
	for _, line := range b.Integrity.Blocking {
		if strings.Contains(line.String(), "\n") {
			t.Errorf("integrity line holds a newline: %q", line)
		}
	}

	// A deep stack is bounded.
	deep := errOf(rep.Cells[1]).Error()
	if len(deep) > 2300 || !strings.Contains(deep, "more frames") || !strings.Contains(deep, "engine_test.recurse") {
		t.Errorf("deep panic: %d bytes, want ≤ 2300 ending in \"… N more frames\":\n%s", len(deep), deep)
	}
}

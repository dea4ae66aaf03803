package treceval

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/metrics"
)

// TestTrecHeldCap: a streamed run holds at most as many hits as its file
// can have lines while the qrels are parsed, so `metrics trec` on a small
// run does not allocate (and fault in) the 24 MB a 5M-line run may use.
func TestTrecHeldCap(t *testing.T) {
	line := "q1 Q0 d1 1 1.0 r\n"
	for _, tc := range []struct{ bytes, min, max int }{
		{len(line), 1, 2},
		{1000 * len(line), 1000, 2000},
		{219_000_000, trecPendingHits, trecPendingHits},
	} {
		if got := trecHeldCap(tc.bytes); got < tc.min || got > tc.max {
			t.Errorf("trecHeldCap(%d) = %d, want %d to %d", tc.bytes, got, tc.min, tc.max)
		}
	}
	// The shortest line the parser takes is 10 bytes: never fewer slots
	// than lines.
	if got, lines := trecHeldCap(100*len("q Q0 d 1 1\n")), 100; got < lines {
		t.Errorf("trecHeldCap of %d short lines = %d, want at least %d", lines, got, lines)
	}
}

// TestEvaluateFS evaluates a run from an fs.FS (read, not mapped), for the
// per-query and summary blocks, and returns a qrels query missing from the
// run as a *metrics.MissingQueriesError wrapped with both paths.
func TestEvaluateFS(t *testing.T) {
	fsys := fstest.MapFS{
		"qrels": {Data: []byte("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")},
		"run":   {Data: []byte("q1 Q0 d2 1 2.0 tag\nq1 Q0 d1 2 1.0 tag\n")},
	}
	sel, err := ParseMeasures([]string{"num_q", "map", "P.1"})
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) File { return File{FS: fsys, Name: name, Path: "data/" + name} }
	cfg := Config{Selection: sel, Options: sel.Options(1), Average: metrics.AverageRun, PerQuery: true, Summary: true}
	var out strings.Builder
	if err := Evaluate(&out, file("qrels"), file("run"), cfg); err != nil {
		t.Fatal(err)
	}
	want := "map                   \tq1\t0.5000\n" +
		"P_1                   \tq1\t0.0000\n" +
		"num_q                 \tall\t1\n" +
		"map                   \tall\t0.5000\n" +
		"P_1                   \tall\t0.0000\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}

	cfg.Average = metrics.AverageTrecEval
	err = Evaluate(io.Discard, file("qrels"), file("run"), cfg)
	var me *metrics.MissingQueriesError
	if !errors.As(err, &me) || !slices.Equal(me.IDs, []string{"q2"}) || !strings.HasPrefix(err.Error(), "data/qrels and data/run: ") {
		t.Errorf("missing query: err = %v", err)
	}
}

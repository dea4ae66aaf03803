package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
)

// updateHint is how the CLI records a new baseline, for the engine's
// messages.
const updateHint = "--update-baseline"

// readBaseline reads the baseline bundle of --baseline. A missing file is
// a usage error that names the fix; a bundle whose hashes or structure do
// not check out is refused, since its numbers cannot be trusted.
func readBaseline(path string) (*results.Bundle, error) {
	fsys, name := cliPath(path)
	b, err := engine.ReadBaseline(fsys, name, updateHint)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usageError("--baseline %s does not exist; record it from a passing run with --baseline %s --update-baseline, and commit it", path, path)
	case err != nil:
		return nil, problems(fmt.Errorf("--%w", err))
	}
	return b, nil
}

// maxQueryVerdicts is how many failed per-query verdicts of one cell are
// printed before the rest are counted.
const maxQueryVerdicts = 10

// printVerdicts prints every failed verdict and the baseline gate's
// passing lines, with the engine's messages (the wording evaltest
// reports): "fail: <benchmark>/<arm>[/<query>]: <message>" or "pass: …".
// Continuation lines of a message are indented. Per-query failures beyond
// maxQueryVerdicts per cell are counted, not printed. It returns the
// number of failed verdicts.
func printVerdicts(w io.Writer, vs []engine.Verdict) int {
	failed := 0
	cell, hidden := "", 0
	flush := func() {
		if hidden > 0 {
			fmt.Fprintf(w, "fail: %s: … and %d more failed queries (each is a row of the bundle, with its scores or its error)\n", cell, hidden)
		}
		hidden = 0
	}
	shown := 0
	for _, v := range vs {
		if c := v.Benchmark + "/" + v.Arm; c != cell {
			flush()
			cell, shown = c, 0
		}
		switch {
		case !v.Pass && v.Query != "":
			failed++
			if shown == maxQueryVerdicts {
				hidden++
				continue
			}
			shown++
			printVerdict(w, "fail", v)
		case !v.Pass:
			failed++
			flush()
			printVerdict(w, "fail", v)
		case v.Kind == engine.VerdictGate:
			flush()
			printVerdict(w, "pass", v)
		}
	}
	flush()
	return failed
}

func printVerdict(w io.Writer, label string, v engine.Verdict) {
	msg := strings.ReplaceAll(strings.TrimRight(v.Message, "\n"), "\n", "\n      ")
	fmt.Fprintf(w, "%s: %s: %s\n", label, v.Path(), msg)
}

// writeBundleFile writes b to path atomically (results.WriteFile), creating
// the folder when needed, so a reader or an interrupted run never sees half
// a bundle.
func writeBundleFile(path string, b *results.Bundle) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return results.WriteFile(path, b)
}

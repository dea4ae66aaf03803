package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsTrecNegativeLevel: a negative -l is a usage error naming the
// flag (exit 2), before any file is read; -l 0 is a level.
func TestMetricsTrecNegativeLevel(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	os.WriteFile(qrels, []byte("1 0 d1 1\n1 0 d2 0\n"), 0o644)
	os.WriteFile(run, []byte("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n"), 0o644)
	for _, args := range [][]string{{"-l", "-1"}, {"-l-2"}, {"--level", "-1"}} {
		_, errOut := mustCLI(t, 2, append(append([]string{"metrics", "trec"}, args...), qrels, run)...)
		if !strings.Contains(errOut, "metrics trec: -l (--level) -") || !strings.Contains(errOut, "is negative; give a relevance level of 0 or more") {
			t.Errorf("%v: %s", args, errOut)
		}
	}
	_, errOut := mustCLI(t, 2, "metrics", "trec", "-l", "-1", filepath.Join(dir, "missing"), run)
	if strings.Contains(errOut, "missing") {
		t.Errorf("the flag is checked before the files: %s", errOut)
	}
	mustCLI(t, 0, "metrics", "trec", "-l", "0", qrels, run)
}

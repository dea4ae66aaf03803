package bench

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestBenchmarkHarnessCount runs BenchmarkBM25 in a child test binary, as
// `go test -bench BM25 -count 3` does, on a small corpus: every phase must
// run three times (the bleve build used to fail on runs 2 and 3 with "path
// already exists" and the search phases vanished while the run said ok).
func TestBenchmarkHarnessCount(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark harness in a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$", "-test.bench", "^BenchmarkBM25$",
		"-test.benchtime", "1x", "-test.count", "3")
	cmd.Env = append(os.Environ(), "LASAGNA_BENCH_PASSAGES=500")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchmark harness failed: %v\n%s", err, out)
	}
	for _, phase := range []string{"index/lasagna", "index/bleve", "search/lasagna", "search/bleve"} {
		re := regexp.MustCompile(`(?m)^BenchmarkBM25/` + regexp.QuoteMeta(phase) + `-\d+\s+1\s`)
		if got := len(re.FindAllIndex(out, -1)); got != 3 {
			t.Errorf("phase %s ran %d times, want 3\n%s", phase, got, out)
		}
	}
	if strings.Contains(string(out), "FAIL") {
		t.Errorf("output reports a failure:\n%s", out)
	}
}

// TestBenchmarkHarnessFailsLoudly makes the bleve phase fail (its corpus
// size is invalid) and requires the child run to fail, not print ok.
func TestBenchmarkHarnessFailsLoudly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark harness in a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$", "-test.bench", "^BenchmarkBM25$",
		"-test.benchtime", "1x")
	cmd.Env = append(os.Environ(), "LASAGNA_BENCH_PASSAGES=500", "LASAGNA_BENCH_BREAK_BLEVE=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a failed index phase still exits 0:\n%s", out)
	}
	if !strings.Contains(string(out), "cannot run") {
		t.Errorf("the failure does not say the search phases cannot run:\n%s", out)
	}
}

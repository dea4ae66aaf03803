package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// TestMetricsTrecStreamMatchesWhole checks that a run grouped by query,
// which `metrics trec` evaluates query by query as it parses it (on
// several workers, above trecparse.ParallelMin), prints exactly what the
// same lines shuffled print, which it partitions by query first
// (trecparse.PartitionRun; trec_eval ranks by score, so line order does
// not matter): for the default
// measures, -m all_trec, -q, -c, --average run and -l 2, with qrels
// queries missing from the run and run queries missing from the qrels.
func TestMetricsTrecStreamMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var lines []string
	var qrels strings.Builder
	for q := range 300 {
		qid := fmt.Sprintf("%d", 1000+q)
		for r := range 200 {
			doc := fmt.Sprintf("d%d-%d", q, rng.IntN(1<<20)<<8|r)
			score := fmt.Sprintf("%.3f", 20-float64(r)*0.07+float64(rng.IntN(3))*0.05)
			lines = append(lines, fmt.Sprintf("%s Q0 %s %d %s tag\n", qid, doc, r+1, score))
			if q%50 != 7 && rng.IntN(6) == 0 { // query 1007 and others have no judgements
				fmt.Fprintf(&qrels, "%s 0 %s %d\n", qid, doc, rng.IntN(5)-1)
			}
		}
		if q%60 != 0 {
			fmt.Fprintf(&qrels, "%s 0 unretrieved-%d 2\n", qid, q)
		}
	}
	for q := range 3 { // judged, never retrieved
		fmt.Fprintf(&qrels, "9%03d 0 x 1\n", q)
	}
	grouped := strings.Join(lines, "")
	if len(grouped) < 2*trecparse.ParallelMin {
		t.Fatalf("generated run of %d bytes; want at least %d to use several workers", len(grouped), 2*trecparse.ParallelMin)
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := strings.Join(lines, "")
	dir := t.TempDir()
	write := func(name, s string) string { return writeTestFile(t, dir, name, s) }
	qp, gp, sp := write("qrels", qrels.String()), write("grouped", grouped), write("shuffled", shuffled)
	if _, _, _, ok := trecparse.StreamRun([]byte(shuffled), 2, func(int, string, []trecparse.Hit) {}); ok {
		t.Fatal("the shuffled run streams; the test would not compare the two paths")
	}
	for _, args := range [][]string{{"-c"}, {"-c", "-q"}, {"-c", "-m", "all_trec", "-q"}, {"--average", "run", "-m", "all_trec"}, {"-c", "-l", "2", "-q", "-m", "all_trec"}, {}} {
		want, _, werr := runTrec(t, append(args, qp, sp)...)
		got, _, gerr := runTrec(t, append(args, qp, gp)...)
		if strings.ReplaceAll(fmt.Sprint(gerr), gp, sp) != fmt.Sprint(werr) || got != want {
			t.Errorf("%v: streamed run printed %d bytes (%v), shuffled %d bytes (%v); first lines:\n%.300s\n---\n%.300s", args, len(got), gerr, len(want), werr, got, want)
		}
		if len(args) > 0 && (werr != nil || !strings.Contains(want, "\tall\t")) {
			t.Errorf("%v: no summary (%v)", args, werr)
		}
		if len(args) == 0 && (werr == nil || !strings.Contains(werr.Error(), `qrels query "9000" has no results`)) {
			t.Errorf("without -c: %v; want the missing query named", werr)
		}
	}
}

// writeTestFile writes s to dir/name and returns its path.
func writeTestFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

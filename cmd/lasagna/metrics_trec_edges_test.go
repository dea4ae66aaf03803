package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// trecEdgeCase is one line of testdata/trec_eval/cases.txt: the file
// holding trec_eval's stdout, its exit status and its arguments.
type trecEdgeCase struct {
	out  string
	exit int
	args []string
}

func readTrecEdgeCases(t *testing.T, dir string) []trecEdgeCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []trecEdgeCase
	for l := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		name, args, ok := strings.Cut(l, ": ")
		if !ok {
			t.Fatalf("cases.txt line %q has no ': '", l)
		}
		c := trecEdgeCase{out: name, args: strings.Fields(args)}
		if out, status, ok := strings.Cut(name, " (exit "); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(status, ")"))
			if err != nil {
				t.Fatalf("cases.txt line %q: bad exit status", l)
			}
			c.out, c.exit = out, n
		}
		cases = append(cases, c)
	}
	return cases
}

// TestMetricsTrecEvalEdgeCases runs `metrics trec` on the edge cases whose
// trec_eval outputs testdata/trec_eval holds (README.md there names the
// trec_eval commit and each command line) and requires trec_eval's stdout
// byte for byte: num_rel under -c -l N, Rndcg's -nan at -l 0, a document
// retrieved twice in a query without judgements, queries whose judgements
// are all negative, gm_map and gm_bpref at a %.4f midpoint (with -c, -q
// and -Z; their z-score file is a .zscores argument). Where trec_eval failed, lasagna must fail with nothing
// on stdout, except for the query with only negative grades that trec_eval
// happens to evaluate first (TestMetricsTrecAllNegativeFirst).
func TestMetricsTrecEvalEdgeCases(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval")
	cases := readTrecEdgeCases(t, dir)
	if len(cases) < 14 {
		t.Fatalf("%d cases in cases.txt", len(cases))
	}
	for _, c := range cases {
		if c.out == "negfirst-q-all_trec.out" {
			continue
		}
		t.Run(c.out, func(t *testing.T) { checkStoredTrecCase(t, dir, c, 0) })
	}
}

// checkStoredTrecCase runs `metrics trec` with the arguments of c, a line
// of dir's cases.txt (an argument naming a file of dir is that file), and
// requires trec_eval's stdout byte for byte. Where trec_eval exited with
// another status than 0, lasagna must fail with nothing on stdout, with
// exit status refusal unless that is 0 (any error then).
func checkStoredTrecCase(t *testing.T, dir string, c trecEdgeCase, refusal int) {
	t.Helper()
	args := slices.Clone(c.args)
	for i, a := range args {
		if st, err := os.Stat(filepath.Join(dir, a)); err == nil && st.Mode().IsRegular() {
			args[i] = filepath.Join(dir, a)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, c.out))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runTrec(t, args...)
	if c.exit != 0 {
		var ee *exitError
		if err == nil || got != "" || (refusal != 0 && (!errors.As(err, &ee) || ee.code != refusal)) {
			t.Fatalf("trec_eval %s exits %d; lasagna: error %v (want exit status %d), stdout:\n%s", strings.Join(c.args, " "), c.exit, err, refusal, got)
		}
		if len(want) != 0 {
			t.Fatalf("%s: trec_eval printed %d bytes before failing", c.out, len(want))
		}
		return
	}
	if err != nil {
		t.Fatalf("lasagna metrics trec %s: %v", strings.Join(c.args, " "), err)
	}
	if len(want) == 0 {
		t.Fatalf("%s is empty", c.out)
	}
	if got != string(want) {
		t.Errorf("lasagna metrics trec %s differs from trec_eval's %s:\n%s", strings.Join(c.args, " "), c.out, lineDiff(got, string(want)))
	}
}

// lineDiff names the first line where got and want differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, a, b)
		}
	}
	return "(same lines)"
}

// TestMetricsTrecAllNegativeFirst: a query whose judgements are all
// negative is evaluated wherever its id sorts. trec_eval 10 stops when it
// is the first query it evaluates (testdata/trec_eval/README.md); lasagna
// prints what trec_eval prints for the same query sorted later: the
// negfirst files are the neg files with q2 renamed q0.
func TestMetricsTrecAllNegativeFirst(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval")
	raw, err := os.ReadFile(filepath.Join(dir, "neg-q-all_trec.out"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for l := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if f[1] == "q2" {
			f[1] = "q0"
		}
		blocks[f[1]] += strings.Join(f, "\t") + "\n"
	}
	want := blocks["q0"] + blocks["q1"] + blocks["all"]
	got, _, err := runTrec(t, "-q", "-m", "all_trec", filepath.Join(dir, "negfirst.qrels"), filepath.Join(dir, "negfirst.run"))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("differs from trec_eval's output for the query sorted second:\n%s", lineDiff(got, want))
	}
}

// TestMetricsTrecDuplicateUnjudgedStreams: a run grouped by query and large
// enough to be evaluated as it is parsed, on several workers, with a
// document retrieved twice in a query without judgements, prints what the
// same run prints without that query (trec_eval never evaluates it), and
// so does the same run shuffled (parsed whole); with the query judged, the
// duplicate is refused on either path.
func TestMetricsTrecDuplicateUnjudgedStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var lines []string
	var qrels strings.Builder
	for q := range 300 {
		qid := strconv.Itoa(1000 + q)
		for r := range 250 {
			doc := fmt.Sprintf("d%d-%d", q, rng.IntN(1<<20)<<8|r)
			lines = append(lines, fmt.Sprintf("%s Q0 %s %d %.3f tag\n", qid, doc, r+1, 30-float64(r)*0.1))
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&qrels, "%s 0 %s %d\n", qid, doc, rng.IntN(4)-1)
			}
		}
		fmt.Fprintf(&qrels, "%s 0 unretrieved-%d 1\n", qid, q)
	}
	clean := strings.Join(lines, "")
	at := len(lines) / 2
	at -= at % 250 // the start of a query
	dupQuery := []string{"5000 Q0 x 1 3 tag\n", "5000 Q0 y 2 2 tag\n", "5000 Q0 x 3 1 tag\n"}
	withDup := slices.Concat(lines[:at], dupQuery, lines[at:])
	grouped := strings.Join(withDup, "")
	if len(grouped) < 2*trecparse.ParallelMin {
		t.Fatalf("generated run of %d bytes; want at least %d to use several workers", len(grouped), 2*trecparse.ParallelMin)
	}
	if _, _, dups, ok := trecparse.StreamRun([]byte(grouped), 2, func(int, string, []trecparse.Hit) {}); !ok || !slices.Equal(dups, []string{"5000"}) {
		t.Fatalf("StreamRun: ok %v, duplicates in %q; the test would not take the streaming path", ok, dups)
	}
	rng.Shuffle(len(withDup), func(i, j int) { withDup[i], withDup[j] = withDup[j], withDup[i] })
	shuffled := strings.Join(withDup, "")
	dir := t.TempDir()
	write := func(name, s string) string { return writeTestFile(t, dir, name, s) }
	qp := write("qrels", qrels.String())
	cp, gp, sp := write("clean", clean), write("grouped", grouped), write("shuffled", shuffled)
	for _, args := range [][]string{{}, {"-q", "-m", "all_trec"}, {"-c", "-l", "2", "-m", "all_trec"}, {"--average", "run", "-q"}} {
		want, _, err := runTrec(t, append(slices.Clone(args), qp, cp)...)
		if err != nil {
			t.Fatalf("%v, run without the query: %v", args, err)
		}
		for _, run := range []string{gp, sp} {
			got, _, err := runTrec(t, append(slices.Clone(args), qp, run)...)
			if err != nil || got != want {
				t.Errorf("%v, %s: error %v; output differs from the run without the query:\n%s", args, filepath.Base(run), err, lineDiff(got, want))
			}
		}
	}
	judged := write("judged", qrels.String()+"5000 0 y 1\n")
	for _, run := range []string{gp, sp} {
		out, _, err := runTrec(t, judged, run)
		if err == nil || out != "" || !strings.Contains(err.Error(), `document "x" is retrieved twice for query "5000"`) {
			t.Errorf("%s with the query judged: error %v, output %.200q; want the duplicate refused", filepath.Base(run), err, out)
		}
	}
}

// shuffleRunLines returns the lines of a run file in a random order, the
// last result line kept last (it names the run: runid).
func shuffleRunLines(rng *rand.Rand, data string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(data, "\n")+"\n", "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	last := len(lines) - 1
	for last > 0 && (strings.TrimSpace(lines[last]) == "" || strings.HasPrefix(strings.TrimSpace(lines[last]), "#")) {
		last--
	}
	body := slices.Concat(lines[:last], lines[last+1:])
	rng.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
	return strings.Join(body, "") + lines[last]
}

// TestMetricsTrecShuffledMatchesTrecEval: trec_eval ranks by score, so the
// order of a run's lines changes nothing it prints. Each run of the edge
// cases (testdata/trec_eval) and of trec_eval's own tests (testdata/trec_eval/test)
// is shuffled, which takes `metrics trec` off its grouped-by-query path
// onto the partitioned one, and must print trec_eval's bytes: the edge
// cases' recorded outputs, and for trec_eval's test files every measure
// (-m all_trec) with -q, with and without -c (always with it for results.trunc, which misses
// queries), byte for byte as the
// grouped file prints (which TestMetricsTrecEvalConformance compares with
// trec_eval's expected files).
func TestMetricsTrecShuffledMatchesTrecEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	tmp := t.TempDir()
	shuffled := func(path string) string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := shuffleRunLines(rng, string(raw))
		if s == string(raw) {
			t.Fatalf("%s: shuffling left the lines in place", path)
		}
		return writeTestFile(t, tmp, "shuffled-"+filepath.Base(path), s)
	}
	for _, dir := range []string{filepath.Join("testdata", "trec_eval"), filepath.Join("testdata", "trec_eval", "params")} {
		shuffledEdgeCases(t, dir, shuffled)
	}
	ref := trecEvalTestFiles(t, "qrels.test", "qrels.rel_level", "qrels.comment.test", "results.test", "results.trunc", "results.comment.test")
	for _, c := range []struct{ qrels, run string }{{"qrels.test", "results.test"}, {"qrels.test", "results.trunc"}, {"qrels.rel_level", "results.test"}, {"qrels.comment.test", "results.comment.test"}} {
		qp, rp := filepath.Join(ref, c.qrels), filepath.Join(ref, c.run)
		sp := shuffled(rp)
		for _, flags := range [][]string{{}, {"-q", "-m", "all_trec"}, {"-q", "-c", "-m", "all_trec"}, {"-q", "-l", "2", "-m", "all_trec"}} {
			if c.run == "results.trunc" { // misses qrels queries
				flags = append(flags, "-c")
			}
			want, _, werr := runTrec(t, slices.Concat(flags, []string{qp, rp})...)
			got, _, gerr := runTrec(t, slices.Concat(flags, []string{qp, sp})...)
			if werr != nil || gerr != nil || got != want || !strings.Contains(got, "\tall\t") {
				t.Errorf("%s shuffled, %v: %v / %v\n%s", c.run, flags, werr, gerr, lineDiff(got, want))
			}
		}
	}
}

// shuffledEdgeCases runs the recorded cases of dir (cases.txt) on their
// runs shuffled and requires trec_eval's recorded output.
func shuffledEdgeCases(t *testing.T, dir string, shuffled func(string) string) {
	for _, c := range readTrecEdgeCases(t, dir) {
		if c.exit != 0 || c.out == "negfirst-q-all_trec.out" {
			continue
		}
		args := slices.Clone(c.args)
		for i, a := range args {
			switch {
			case strings.HasSuffix(a, ".qrels") || strings.HasSuffix(a, ".zscores"):
				args[i] = filepath.Join(dir, a)
			case strings.HasSuffix(a, ".run"):
				args[i] = shuffled(filepath.Join(dir, a))
			}
		}
		want, err := os.ReadFile(filepath.Join(dir, c.out))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := runTrec(t, args...)
		if err != nil || got != string(want) {
			t.Errorf("shuffled run, %s: %v\n%s", strings.Join(c.args, " "), err, lineDiff(got, string(want)))
		}
	}
}

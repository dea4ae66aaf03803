package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trecEvalTestDir holds trec_eval's own test files: its qrels, runs and
// expected outputs (testdata/trec_eval/test/README.md names the source
// commit and keeps NIST's notice).
var trecEvalTestDir = filepath.Join("testdata", "trec_eval", "test")

// trecEvalTestFiles returns trecEvalTestDir after checking that each named
// file is there: a missing reference file fails the test, never skips it.
func trecEvalTestFiles(t testing.TB, names ...string) string {
	t.Helper()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(trecEvalTestDir, n)); err != nil {
			t.Fatalf("trec_eval reference file %s is missing (testdata/trec_eval/test/README.md says where it comes from): %v", filepath.Join(trecEvalTestDir, n), err)
		}
	}
	return trecEvalTestDir
}

// supportedTrecLine reports whether a trec_eval output line is of a measure
// lasagna implements: all but those named after parameters lasagna does not
// take (gain remapping "ndcg_1=3,…", utility and 11pt_avg coefficients).
func supportedTrecLine(line string) bool {
	name := strings.TrimSpace(strings.SplitN(line, "\t", 2)[0])
	return !strings.ContainsAny(name, "=,") && !strings.HasPrefix(name, "11pt_avg_")
}

func runTrec(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(context.Background(), append([]string{"metrics", "trec"}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

// TestMetricsTrecEvalConformance compares our output with trec_eval 10's expected
// outputs shipped in its test folder: the expected file must equal our output
// line for line (every value to 4 decimals, in trec_eval's order, nothing
// trec_eval would not print). Only out.test.meas_params has measures with
// parameters lasagna does not take; their lines are left out of it.
func TestMetricsTrecEvalConformance(t *testing.T) {
	cases := []struct {
		expected string
		args     []string
	}{
		{"out.test", []string{"qrels.test", "results.test"}},
		{"out.comment.test", []string{"qrels.comment.test", "results.comment.test"}},
		{"out.test.a", []string{"-m", "all_trec", "qrels.test", "results.test"}},
		{"out.test.aq", []string{"-m", "all_trec", "-q", "qrels.test", "results.test"}},
		{"out.test.aqc", []string{"-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"}},
		{"out.test.aql", []string{"-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"}},
		// The Makefile's -R lines (docs/metrics.md, "trec_eval's flags").
		{"out.test.prefs", []string{"-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"}},
		{"out.test.prefs", []string{"-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"}},
		{"out.test.qrels_prefs", []string{"-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"}},
		{"out.test.qrels_jg", []string{"-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"}},
		{"out.test.qrels_jg", []string{"-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"}},
		// out.test.meas_params without -mutility.2,-1,0,0, -m 11pt_avg..25,.5,.75
		// and -mndcg.1=3,2=9,4=4.5.
		{"out.test.meas_params", []string{"-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"}},
	}
	for _, c := range cases {
		t.Run(c.expected, func(t *testing.T) {
			n := len(c.args)
			ref := trecEvalTestFiles(t, c.expected, c.args[n-2], c.args[n-1])
			args := slices.Clone(c.args)
			args[n-2] = filepath.Join(ref, args[n-2])
			args[n-1] = filepath.Join(ref, args[n-1])
			got, _, err := runTrec(t, args...)
			if err != nil {
				t.Fatalf("lasagna metrics trec %s: %v", strings.Join(c.args, " "), err)
			}
			raw, err := os.ReadFile(filepath.Join(ref, c.expected))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for l := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\n"), "\n") {
				if supportedTrecLine(l) {
					want = append(want, l)
				}
			}
			gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if c.expected != "out.test.meas_params" && len(want) != strings.Count(string(raw), "\n") {
				t.Fatalf("%s has lines of measures lasagna lacks", c.expected)
			}
			for i := 0; i < max(len(want), len(gotLines)); i++ {
				var w, g string
				if i < len(want) {
					w = want[i]
				}
				if i < len(gotLines) {
					g = gotLines[i]
				}
				if w != g {
					t.Fatalf("line %d differs from trec_eval's %s (supported lines only):\n got: %q\nwant: %q", i+1, c.expected, g, w)
				}
			}
		})
	}
}

// TestMetricsTrecEvalToys runs hand-made cases of a few lines each, written
// here, and checks the outputs trec_eval printed for them (the build of
// testdata/trec_eval/test/README.md).
func TestMetricsTrecEvalToys(t *testing.T) {
	write := tempWriter(t)
	line := func(m, q, v string) string { return padTrec(m) + "\t" + q + "\t" + v + "\n" }
	cases := []struct {
		name, qrels, run string
		args             []string
		want             string
	}{
		{"1 score tie broken by docno descending", "q1 0 d1 1\nq1 0 d2 0\n", "q1 Q0 d2 1 1.0 r\nq1 Q0 d1 2 1.0 r\n",
			[]string{"-m", "map", "-m", "recip_rank", "-m", "P.1", "-m", "ndcg_cut.10"},
			line("map", "all", "0.5000") + line("recip_rank", "all", "0.5000") + line("P_1", "all", "0.0000") + line("ndcg_cut_10", "all", "0.6309")},
		{"1 same, other line order", "q1 0 d1 1\nq1 0 d2 0\n", "q1 Q0 d1 2 1.0 r\nq1 Q0 d2 1 1.0 r\n",
			[]string{"-m", "map", "-m", "recip_rank", "-m", "P.1", "-m", "ndcg_cut.10"},
			line("map", "all", "0.5000") + line("recip_rank", "all", "0.5000") + line("P_1", "all", "0.0000") + line("ndcg_cut_10", "all", "0.6309")},
		{"2 byte-wise docno comparison", "q1 0 d10 1\n", "q1 Q0 d10 1 5.0 r\nq1 Q0 d9 2 5.0 r\n",
			[]string{"-m", "map", "-m", "recip_rank", "-m", "P.1", "-m", "ndcg_cut.10"},
			line("map", "all", "0.5000") + line("recip_rank", "all", "0.5000") + line("P_1", "all", "0.0000") + line("ndcg_cut_10", "all", "0.6309")},
		{"3 rank column ignored", "q1 0 d10 1\n", "q1 Q0 d10 2 5.0 r\nq1 Q0 d9 1 4.999999 r\n",
			[]string{"-m", "map", "-m", "recip_rank", "-m", "P.1", "-m", "ndcg_cut.10"},
			line("map", "all", "1.0000") + line("recip_rank", "all", "1.0000") + line("P_1", "all", "1.0000") + line("ndcg_cut_10", "all", "1.0000")},
		{"5 -c scores the missing query 0", "q1 0 d1 1\nq2 0 d5 1\nq3 0 d9 1\n", "q1 Q0 d1 1 3.0 r\nq3 Q0 d8 1 2.0 r\nq3 Q0 d9 2 1.0 r\n",
			[]string{"-c", "-q", "-m", "map", "-m", "recip_rank", "-m", "num_q", "-m", "num_ret"},
			line("num_ret", "q1", "1") + line("map", "q1", "1.0000") + line("recip_rank", "q1", "1.0000") +
				line("num_ret", "q2", "0") + line("map", "q2", "0.0000") + line("recip_rank", "q2", "0.0000") +
				line("num_ret", "q3", "2") + line("map", "q3", "0.5000") + line("recip_rank", "q3", "0.5000") +
				line("num_q", "all", "3") + line("num_ret", "all", "3") + line("map", "all", "0.5000") + line("recip_rank", "all", "0.5000")},
		{"5 --average run skips the missing query", "q1 0 d1 1\nq2 0 d5 1\nq3 0 d9 1\n", "q1 Q0 d1 1 3.0 r\nq3 Q0 d8 1 2.0 r\nq3 Q0 d9 2 1.0 r\n",
			[]string{"--average", "run", "-m", "map", "-m", "num_q"},
			line("num_q", "all", "2") + line("map", "all", "0.7500")},
		{"6 no relevant docs count 0, run-only query ignored", "q1 0 d1 1\nq2 0 d5 0\n", "q1 Q0 d1 1 3.0 r\nq2 Q0 d5 1 2.0 r\nq9 Q0 d1 1 1.0 r\n",
			[]string{"-q", "-m", "map", "-m", "recip_rank", "-m", "num_q", "-m", "num_rel", "-m", "P.1", "-m", "recall.10", "-m", "ndcg_cut.10"},
			line("num_rel", "q1", "1") + line("map", "q1", "1.0000") + line("recip_rank", "q1", "1.0000") + line("P_1", "q1", "1.0000") + line("recall_10", "q1", "1.0000") + line("ndcg_cut_10", "q1", "1.0000") +
				line("num_rel", "q2", "0") + line("map", "q2", "0.0000") + line("recip_rank", "q2", "0.0000") + line("P_1", "q2", "0.0000") + line("recall_10", "q2", "0.0000") + line("ndcg_cut_10", "q2", "0.0000") +
				line("num_q", "all", "2") + line("num_rel", "all", "1") + line("map", "all", "0.5000") + line("recip_rank", "all", "0.5000") + line("P_1", "all", "0.5000") + line("recall_10", "all", "0.5000") + line("ndcg_cut_10", "all", "0.5000")},
		{"8 per-query order is byte-wise", "q2 0 a 1\nq10 0 a 1\nq1 0 a 1\n", "q10 Q0 a 1 1 r\nq2 Q0 a 1 1 r\nq1 Q0 a 1 1 r\n",
			[]string{"-q", "-m", "num_ret"},
			line("num_ret", "q1", "1") + line("num_ret", "q10", "1") + line("num_ret", "q2", "1") + line("num_ret", "all", "3")},
		{"9 negative grade is pooled but unjudged", "q1 0 d1 1\nq1 0 d2 -1\nq1 0 d3 2\n", "q1 Q0 d2 1 3 r\nq1 Q0 d3 2 2 r\nq1 Q0 d1 3 1 r\n",
			[]string{"-m", "num_rel", "-m", "map", "-m", "recip_rank", "-m", "ndcg_cut.10"},
			line("num_rel", "all", "2") + line("map", "all", "0.5833") + line("recip_rank", "all", "0.5000") + line("ndcg_cut_10", "all", "0.6697")},
		{"runid is the last line's, comments and blank lines skipped", "# judged\nq1 0 d1 1\n", "q1 Q0 d1 1 3 first\n\n  # a comment\nq1 Q0 d2 2 2 last extra words\n",
			[]string{"-m", "runid", "-m", "num_ret"},
			line("runid", "all", "last") + line("num_ret", "all", "2")},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := write(filepathSafe(i, "qrels"), c.qrels)
			r := write(filepathSafe(i, "run"), c.run)
			got, _, err := runTrec(t, append(slices.Clone(c.args), q, r)...)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("output differs from trec_eval's:\n got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func padTrec(name string) string { return name + strings.Repeat(" ", max(0, 22-len(name))) }

func filepathSafe(i int, kind string) string { return kind + "-" + string(rune('a'+i)) + ".txt" }

// TestMetricsTrecEvalReadmeValues checks the summary lines trec_eval prints
// for a selection of measures on its own test files: the extra reference
// values of testdata/trec_eval/test/README.md (sections A, B and C).
func TestMetricsTrecEvalReadmeValues(t *testing.T) {
	ref := trecEvalTestFiles(t, "qrels.test", "qrels.rel_level", "qrels.comment.test", "results.test", "results.comment.test")
	args := []string{"-m", "num_q", "-m", "num_rel", "-m", "map", "-m", "Rprec", "-m", "recip_rank", "-m", "P.1,5,10", "-m", "recall.10,100,1000", "-m", "ndcg", "-m", "ndcg_cut.1,5,10,100", "-m", "success.1,5,10"}
	want := map[string]string{
		// A) qrels.test results.test
		"qrels.test": "num_q 3|num_rel 561|map 0.1785|Rprec 0.2174|recip_rank 0.4064|P_1 0.3333|P_5 0.2667|P_10 0.3000|recall_10 0.0317|recall_100 0.4980|recall_1000 0.5997|ndcg 0.4021|ndcg_cut_1 0.3333|ndcg_cut_5 0.2768|ndcg_cut_10 0.3016|ndcg_cut_100 0.3916|success_1 0.3333|success_5 0.3333|success_10 0.6667",
		// B) qrels.rel_level results.test
		"qrels.rel_level": "num_q 3|num_rel 559|map 0.1774|Rprec 0.2174|recip_rank 0.4064|P_1 0.3333|P_5 0.2667|P_10 0.3000|recall_10 0.0317|recall_100 0.4897|recall_1000 0.5997|ndcg 0.3894|ndcg_cut_1 0.3333|ndcg_cut_5 0.2768|ndcg_cut_10 0.2656|ndcg_cut_100 0.3577|success_1 0.3333|success_5 0.3333|success_10 0.6667",
		// B) with -l2: ndcg unchanged
		"-l2 qrels.rel_level": "num_q 3|num_rel 97|map 0.1667|Rprec 0.1688|recip_rank 0.3520|P_1 0.3333|P_5 0.2667|P_10 0.2333|recall_10 0.0303|recall_100 0.4735|recall_1000 0.5776|ndcg 0.3894|ndcg_cut_1 0.3333|ndcg_cut_5 0.2768|ndcg_cut_10 0.2656|ndcg_cut_100 0.3577|success_1 0.3333|success_5 0.3333|success_10 0.3333",
		// C) qrels.comment.test results.comment.test
		"qrels.comment.test": "num_q 31|num_rel 4463|map 0.2689|Rprec 0.3230|recip_rank 0.8595|P_1 0.8065|P_5 0.8000|P_10 0.7710|recall_10 0.0827|recall_100 0.3938|recall_1000 0.3938|ndcg 0.4395|ndcg_cut_1 0.6183|ndcg_cut_5 0.6015|ndcg_cut_10 0.5977|ndcg_cut_100 0.5316|success_1 0.8065|success_5 0.9355|success_10 0.9677",
	}
	for key, values := range want {
		t.Run(key, func(t *testing.T) {
			a := slices.Clone(args)
			qrels := key
			if rest, ok := strings.CutPrefix(key, "-l2 "); ok {
				a = append(a, "-l2")
				qrels = rest
			}
			runFile := "results.test"
			if qrels == "qrels.comment.test" {
				runFile = "results.comment.test"
			}
			got, _, err := runTrec(t, append(a, filepath.Join(ref, qrels), filepath.Join(ref, runFile))...)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			for kv := range strings.SplitSeq(values, "|") {
				name, v, _ := strings.Cut(kv, " ")
				want.WriteString(padTrec(name) + "\tall\t" + v + "\n")
			}
			if got != want.String() {
				t.Errorf("got:\n%s\nwant:\n%s", got, want.String())
			}
		})
	}
}

func TestMetricsTrecErrors(t *testing.T) {
	write := tempWriter(t)
	qrels := write("qrels", "q1 0 d1 1\nq2 0 d5 1\n")
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of the error
	}{
		{"duplicate docno in the run", []string{write("qrels1", "q1 0 d10 1\n"), write("dup", "q1 Q0 d10 1 5.0 r\nq1 Q0 d10 2 4.0 r\n")}, exitProblem,
			[]string{"dup:2:", `document "d10" is retrieved twice for query "q1" (first at line 1)`}},
		{"duplicate judgement in the qrels", []string{write("dupq", "q1 0 d1 1\nq1 0 d1 0\n"), write("r1", "q1 Q0 d1 1 1.0 r\n")}, exitProblem,
			[]string{"dupq:2:", `document "d1" is judged twice for query "q1" (first at line 1)`}},
		{"qrels query missing from the run", []string{qrels, write("r2", "q1 Q0 d1 1 3.0 r\n")}, exitProblem,
			[]string{`qrels query "q2" has no results in the run`, "-c"}},
		{"short run line", []string{qrels, write("short", "q1 Q0 d1 1 3.0 r\nq2 Q0 d5 1 2.0\n")}, exitProblem,
			[]string{"short:2:", "want 6 whitespace-separated fields", "got 5"}},
		{"score not a number", []string{qrels, write("nan", "q1 Q0 d1 1 high r\n")}, exitProblem,
			[]string{"nan:1:", `field 5 (score) "high" is not a number`}},
		{"qrels with 5 fields", []string{write("q5", "q1 0 d1 1 extra\n"), write("r3", "q1 Q0 d1 1 3.0 r\n")}, exitProblem,
			[]string{"q5:1:", "want 4 whitespace-separated fields"}},
		{"grade too large for gain parameters", []string{"-m", "ndcg.1=2", write("qbig", "q1 0 d2 1\nq1 0 d1 2000000000\n"), write("rbig", "q1 Q0 d1 1 3.0 r\n")}, exitProblem,
			[]string{"qbig:2:", "grade 2000000000 is above 65536", "leave the gain parameters out"}},
		{"grade not an integer", []string{write("qg", "q1 0 d1 yes\n"), write("r4", "q1 Q0 d1 1 3.0 r\n")}, exitProblem,
			[]string{"qg:1:", `field 4 (rel) "yes" is not an integer grade`}},
		{"no common query", []string{qrels, write("r5", "q7 Q0 d1 1 3.0 r\n")}, exitProblem,
			[]string{`qrels query "q1" has no results`}},
		{"unknown measure", []string{"-m", "ndgc", qrels, qrels}, exitUsage, []string{`unknown trec_eval measure "ndgc"`, `did you mean "ndcg"?`}},
		{"lasagna name ndcg@10", []string{"-m", "ndcg@10", qrels, qrels}, exitUsage, []string{`"ndcg@10" is lasagna's name; did you mean trec_eval's ndcg_cut.10? (write -m ndcg_cut.10)`}},
		{"lasagna name hit@5", []string{"-m", "hit@5", qrels, qrels}, exitUsage, []string{"trec_eval's success.5?"}},
		{"lasagna name mrr@10", []string{"-m", "mrr@10", qrels, qrels}, exitUsage, []string{"reciprocal rank has no cutoff: write -m recip_rank"}},
		{"empty run without -c", []string{qrels, write("empty0", "")}, exitProblem, []string{"empty0: no results", "with -c every qrels query scores 0"}},
		{"unknown measure", []string{"-m", "yap", qrels, qrels}, exitUsage, []string{`unknown trec_eval measure "yap"`, "yaap"}},
		{"preference measure with qrels", []string{"-m", "prefs_simp", qrels, qrels}, exitUsage, []string{"measure prefs_simp is a preference measure: it needs -R prefs or -R qrels_prefs"}},
		{"fractional parameter", []string{"-m", "iprec_at_recall.x", qrels, qrels}, exitUsage, []string{`parameter "x" is not a number`}},
		{"duplicate cutoff", []string{"-m", "P.5,5", qrels, qrels}, exitUsage, []string{"cutoff 5 is given twice"}},
		{"zero cutoff", []string{"-m", "P.0", qrels, qrels}, exitUsage, []string{"cutoff 0 is not positive"}},
		{"malformed gain pair", []string{"-m", "ndcg.1=3,2", qrels, qrels}, exitUsage, []string{`measure ndcg: parameter "2" is not rel_level=gain`, "ndcg.1=0.5,2=2,3=4"}},
		{"gain level not an integer", []string{"-m", "G.x=3", qrels, qrels}, exitUsage, []string{`measure G: "x" in "x=3" is not a relevance level`}},
		{"gain not a number", []string{"-m", "rbp.p=high", qrels, qrels}, exitUsage, []string{`measure rbp: "high" in "p=high" is not a number`, "rbp.p=0.8"}},
		{"utility with 3 coefficients", []string{"-m", "utility.1,-1,0", qrels, qrels}, exitUsage, []string{"measure utility takes 4 coefficients", "not 3", "utility.1,-1,0,0"}},
		{"set_F not a number", []string{"-m", "set_F.x", qrels, qrels}, exitUsage, []string{`measure set_F: parameter "x" is not a number`, "set_F.0.5"}},
		{"ndcg and dcg with gains", []string{"-m", "ndcg.1=3", "-m", "dcg", qrels, qrels}, exitUsage, []string{"measures dcg, ndcg:", "crashes"}},
		{"parameters of a plain measure", []string{"-m", "map.5", qrels, qrels}, exitUsage, []string{`measure "map.5" takes no parameters`}},
		{"bad average", []string{"--average", "beir", qrels, qrels}, exitUsage, []string{`--average "beir"`}},
		{"missing file", []string{qrels, filepath.Join(filepath.Dir(qrels), "nope")}, exitProblem, []string{"nope"}},
		{"one argument", []string{qrels}, exitUsage, []string{"want 2 argument(s)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runTrec(t, c.args...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != "" {
				t.Errorf("printed output despite the error:\n%s", out)
			}
			var ee *exitError
			code := exitProblem
			if errors.As(err, &ee) {
				code = ee.code
			}
			if code != c.code {
				t.Errorf("exit code %d, want %d (%v)", code, c.code, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestMetricsTrecEvalAllTrecIsComplete: -m all_trec prints every line of
// trec_eval's out.test.a, byte for byte.
func TestMetricsTrecEvalAllTrecIsComplete(t *testing.T) {
	ref := trecEvalTestFiles(t, "qrels.test", "results.test", "out.test.a")
	out, stderr, err := runTrec(t, "-m", "all_trec", filepath.Join(ref, "qrels.test"), filepath.Join(ref, "results.test"))
	if err != nil {
		t.Fatal(err)
	}
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	raw, err := os.ReadFile(filepath.Join(ref, "out.test.a"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(raw) {
		t.Errorf("-m all_trec output differs from trec_eval's out.test.a:\n%s", out)
	}
}

// TestMetricsTrecEmptyRunComplete: with -c, a run file without a result
// line scores every qrels query 0 (each is missing from the run).
func TestMetricsTrecEmptyRunComplete(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "qrels")
	os.WriteFile(qrels, []byte("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"), 0o644)
	for _, body := range []string{"", "\n\n", "# nothing retrieved\n"} {
		run := filepath.Join(dir, "run")
		os.WriteFile(run, []byte(body), 0o644)
		out, _, err := runTrec(t, "-c", "-q", "-m", "num_q", "-m", "num_rel", "-m", "map", "-m", "ndcg_cut.10", qrels, run)
		if err != nil {
			t.Fatalf("run %q: %v", body, err)
		}
		var want strings.Builder
		for _, q := range []string{"q1", "q2"} {
			fmt.Fprintf(&want, "%s\t%s\t1\n%s\t%s\t0.0000\n%s\t%s\t0.0000\n", padTrec("num_rel"), q, padTrec("map"), q, padTrec("ndcg_cut_10"), q)
		}
		fmt.Fprintf(&want, "%s\tall\t2\n%s\tall\t2\n%s\tall\t0.0000\n%s\tall\t0.0000\n", padTrec("num_q"), padTrec("num_rel"), padTrec("map"), padTrec("ndcg_cut_10"))
		if out != want.String() {
			t.Errorf("run %q:\n%s\nwant:\n%s", body, out, want.String())
		}
	}
}

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsTrecEvalRelFormats runs `metrics trec -R prefs|qrels_prefs|
// qrels_jg` on the command lines of testdata/trec_eval/rel/cases.txt
// (trec_eval's own preference and judgement-group test files, and random
// ones its README says how to make) and requires trec_eval's stdout byte
// for byte (the README names the trec_eval build and each command).
func TestMetricsTrecEvalRelFormats(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval", "rel")
	cases := readTrecEdgeCases(t, dir)
	if len(cases) < 36 {
		t.Fatalf("%d cases in cases.txt", len(cases))
	}
	formats := map[string]int{}
	for _, c := range cases {
		for _, a := range c.args {
			for _, f := range []string{"qrels_prefs", "qrels_jg", "prefs"} {
				if strings.HasSuffix(a, f) && !strings.HasSuffix(a, "_"+f) {
					formats[f]++
					break
				}
			}
		}
		if c.exit != 0 {
			t.Fatalf("%s: every case here is one trec_eval runs", c.out)
		}
		t.Run(c.out, func(t *testing.T) { checkStoredTrecCase(t, dir, c, 0) })
	}
	for _, f := range []string{"prefs", "qrels_prefs", "qrels_jg"} {
		if formats[f] < 5 {
			t.Errorf("only %d cases of -R %s", formats[f], f)
		}
	}
}

// TestMetricsTrecRelErrors: malformed preference and judgement-group
// files are refused naming the file, line and field; preferences a group
// contradicts, and the corner where trec_eval's prefs_avgjg_Rnonrel reads
// past the ranks it stored, are errors too (docs/metrics.md).
func TestMetricsTrecRelErrors(t *testing.T) {
	write := tempWriter(t)
	run := write("run", "q0 Q0 d1 1 3 r\nq0 Q0 d4 2 2 r\nq0 Q0 d6 3 1 r\n")
	cases := []struct {
		name, format, rel string
		measures          []string
		msg               string
	}{
		{"prefs: four fields", "prefs", "q0 u0 d1 1\n", nil, "rel:1: want 5 whitespace-separated fields (qid jg jsg docno rel_level), got 4"},
		{"prefs: level not a number", "prefs", "# comment\nq0 u0 s0 d1 1\n\nq0 u0 s0 d2 high\n", nil, `rel:4: field 5 (rel_level) "high" is not a number`},
		{"prefs: NaN level", "prefs", "q0 u0 s0 d1 NaN\n", nil, `rel:1: field 5 (rel_level) "NaN" is not a number`},
		{"qrels_prefs: five fields", "qrels_prefs", "q0 u0 s0 d1 1\n", nil, "rel:1: want 4 whitespace-separated fields (qid jg docno rel_level), got 5"},
		{"qrels_jg: grade not an integer", "qrels_jg", "q0 u0 d1 1\nq0 u0 d2 0.5\n", []string{"qrels_jg"}, `rel:2: field 4 (rel) "0.5" is not an integer grade`},
		{"qrels_jg: duplicate in a group", "qrels_jg", "q0 u0 d1 1\nq0 u1 d1 0\nq0 u0 d1 0\n", []string{"qrels_jg"}, `rel:3: document "d1" is judged twice for query "q0" in judgement group "u0" (first at line 1)`},
		{"empty", "prefs", "# nothing\n", nil, "no judgements: the file has no qid jg jsg docno rel_level line"},
		{"two levels in one sub-group", "qrels_prefs", "q0 u0 d1 1\nq0 u0 d1 2\nq0 u0 d2 0\n", nil, `query "q0", judgement group "u0": document "d1" is judged at two levels (2 and 1) in one sub-group`},
		{"0 and relevant in one group", "prefs", "q0 u0 s0 d1 1\nq0 u0 s0 d2 0\nq0 u0 s1 d2 2\nq0 u0 s1 d3 1\n", nil, `document "d2" is judged non-relevant (0) in one sub-group and relevant in another`},
		{"contradiction in a group", "prefs", "q0 u0 s0 d1 2\nq0 u0 s0 d2 1\nq0 u0 s1 d2 2\nq0 u0 s1 d1 1\n", nil, `documents "d1" and "d2" are each preferred to the other`},
		{"prefs query missing from the run", "prefs", "q0 u0 s0 d1 1\nq0 u0 s0 d4 0\nq1 u0 s0 d1 1\nq1 u0 s0 d2 0\n", nil, `run: prefs query "q1" has no results in the run; use -c`},
		{"qrels_prefs queries missing from the run", "qrels_prefs", "q0 u0 d1 1\nq0 u0 d4 0\nq1 u0 d1 1\nq2 u0 d2 0\n", nil, `run: qrels_prefs query "q1" has no results in the run (nor do 1 more qrels_prefs queries)`},
		{"qrels_jg query missing from the run", "qrels_jg", "q0 u0 d1 1\nq0 u0 d4 0\nq1 u0 d1 1\n", []string{"qrels_jg"}, `run: qrels_jg query "q1" has no results in the run`},
		{"Rnonrel reads past its ranks", "qrels_prefs", "q0 u0 d1 1\nq0 u0 d2 1\nq0 u0 d3 1\nq0 u0 d4 0\nq0 u0 d5 0\nq0 u0 d6 -1\nq0 u0 d7 0\n", []string{"prefs_avgjg_Rnonrel"}, "prefs_avgjg_Rnonrel is undefined here"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := write("rel", c.rel)
			args := []string{"-R", c.format}
			ms := c.measures
			if ms == nil {
				ms = []string{"all_prefs"}
			}
			for _, m := range ms {
				args = append(args, "-m", m)
			}
			out, _, err := runTrec(t, append(args, rel, run)...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != "" {
				t.Errorf("printed output despite the error:\n%s", out)
			}
			var ee *exitError
			if errors.As(err, &ee) && ee.code != exitProblem {
				t.Errorf("exit %d, want %d", ee.code, exitProblem)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q\nwant it to contain %q", err, c.msg)
			}
		})
	}
	// The same file without prefs_avgjg_Rnonrel evaluates: only the
	// measure trec_eval cannot compute is refused.
	rel := write("rel", cases[len(cases)-1].rel)
	if out, _, err := runTrec(t, "-R", "qrels_prefs", "-m", "prefs_simp", "-q", rel, run); err != nil || !strings.Contains(out, "prefs_simp            \tq0\t0.3333\n") {
		t.Errorf("prefs_simp alone: %v\n%s", err, out)
	}
}

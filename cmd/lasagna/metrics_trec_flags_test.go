package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsTrecEvalFlags runs `metrics trec` with trec_eval's other flags
// (-M, -J, -N, -D, -R, -T, -Z, -o, combined short flags, long forms and
// their prefixes) on the command lines of testdata/trec_eval/flags/cases.txt
// and requires trec_eval's stdout byte for byte (README.md there names the
// trec_eval commit and how each file was made).
func TestMetricsTrecEvalFlags(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval", "flags")
	cases := readTrecEdgeCases(t, dir)
	if len(cases) < 28 {
		t.Fatalf("%d cases in cases.txt", len(cases))
	}
	for _, c := range cases {
		if c.exit != 0 {
			t.Fatalf("%s: every case here is one trec_eval runs", c.out)
		}
		t.Run(c.out, func(t *testing.T) { checkStoredTrecCase(t, dir, c, 0) })
	}
}

// TestMetricsTrecFlagErrors: what trec_eval refuses, crashes on, or reads
// in a format lasagna does not implement is a usage error naming the flag.
func TestMetricsTrecFlagErrors(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval", "test")
	qrels, run := filepath.Join(dir, "qrels.test"), filepath.Join(dir, "results.test")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"negative -M", []string{"-M", "-1"}, exitUsage, "-M (--max-retrieved) -1 is negative"},
		{"prefs with official measures", []string{"-R", "prefs"}, exitUsage, "measure num_ret needs -R qrels (a qrels file); with -R prefs, trec_eval computes only runid, num_q and the preference measures prefs_*: give -m prefs (or all_prefs)"},
		{"qrels_jg with all_trec", []string{"--Rel_info_format", "qrels_jg", "-m", "all_trec"}, exitUsage, "measure num_ret needs -R qrels (a qrels file); with -R qrels_jg, trec_eval computes only runid, num_q and map_avgjg, P_avgjg and Rprec_mult_avgjg: give -m qrels_jg"},
		{"prefs measure with qrels", []string{"-m", "prefs_simp"}, exitUsage, "measure prefs_simp is a preference measure: it needs -R prefs or -R qrels_prefs"},
		{"avgjg measure with qrels_prefs", []string{"-R", "qrels_prefs", "-m", "P_avgjg.5"}, exitUsage, "measure P_avgjg averages over judgement groups: it needs -R qrels_jg, not -R qrels_prefs"},
		{"unknown -R", []string{"-R", "trec"}, exitUsage, `-R (--rel-format) "trec" is not a rel_info_file format`},
		{"unknown -T", []string{"-T", "tsv"}, exitUsage, `-T (--results-format) "tsv" is not a results format`},
		{"bad -D", []string{"-D", "x.301"}, exitUsage, `-D (--debug) "x.301" is not level[.qid]`},
		{"ambiguous prefix", []string{"--Re=qrels"}, exitUsage, "unknown flag: --Re"},
		{"-D query not judged", []string{"-D", "0.999"}, exitProblem, `query "999" only`},
		{"missing z-score file", []string{"-Z", filepath.Join(dir, "nope")}, exitProblem, "nope"},
		{"malformed z-score file", []string{"-Z", run}, exitProblem, "malformed z-score line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runTrec(t, append(c.args, qrels, run)...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != "" {
				t.Errorf("printed output despite the error:\n%s", out)
			}
			code := exitProblem
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			}
			if code != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("exit %d, error %q; want exit %d and %q", code, err, c.code, c.msg)
			}
		})
	}
}

package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMetricsTrecEvalParams runs `metrics trec` on the command lines of
// testdata/trec_eval/params/cases.txt (the parameters of ndcg, dcg,
// ideal_dcg, ndcg_rel, Rndcg, G, rbp, rbp_resid, utility, 11pt_avg and
// set_F, and yaap, with -q, -c, -l, -n, -J, -M, -N and -Z) and requires
// trec_eval's stdout byte for byte (README.md there names the trec_eval
// commit). Where trec_eval refused the parameters or crashed on them,
// lasagna must refuse them as a usage error, with nothing on stdout.
func TestMetricsTrecEvalParams(t *testing.T) {
	dir := filepath.Join("testdata", "trec_eval", "params")
	cases := readTrecEdgeCases(t, dir)
	if len(cases) < 30 {
		t.Fatalf("%d cases in cases.txt", len(cases))
	}
	for _, c := range cases {
		t.Run(c.out, func(t *testing.T) {
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
				if err == nil || got != "" || !errors.As(err, &ee) || ee.code != exitUsage {
					t.Fatalf("trec_eval %s exits %d; lasagna: error %v (want a usage error), stdout:\n%s", strings.Join(c.args, " "), c.exit, err, got)
				}
				if len(want) != 0 {
					t.Fatalf("%s: trec_eval printed %d bytes before failing", c.out, len(want))
				}
				return
			}
			if err != nil {
				t.Fatalf("lasagna metrics trec %s: %v", strings.Join(c.args, " "), err)
			}
			if got != string(want) {
				t.Errorf("lasagna metrics trec %s differs from trec_eval's %s:\n%s", strings.Join(c.args, " "), c.out, lineDiff(got, string(want)))
			}
		})
	}
}

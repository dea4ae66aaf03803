package main

import (
	"path/filepath"
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
		t.Run(c.out, func(t *testing.T) { checkStoredTrecCase(t, dir, c, exitUsage) })
	}
}

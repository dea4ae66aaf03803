package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvaluateIsMetricsTrec checks that the floor does the work of
// `lasagna metrics trec` on bench-startup.sh's one-line files: its output
// is what that command (and trec_eval 10) prints for them.
func TestEvaluateIsMetricsTrec(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
	if err := os.WriteFile(qrels, []byte("1 0 d1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("1 Q0 d1 1 1.0 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := evaluate(&out, qrels, run); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("startfloor printed\n%s\nwant (lasagna metrics trec's output)\n%s", out.String(), want)
	}
}

const want = `runid                 	all	r
num_q                 	all	1
num_ret               	all	1
num_rel               	all	1
num_rel_ret           	all	1
map                   	all	1.0000
gm_map                	all	1.0000
Rprec                 	all	1.0000
bpref                 	all	1.0000
recip_rank            	all	1.0000
iprec_at_recall_0.00  	all	1.0000
iprec_at_recall_0.10  	all	1.0000
iprec_at_recall_0.20  	all	1.0000
iprec_at_recall_0.30  	all	1.0000
iprec_at_recall_0.40  	all	1.0000
iprec_at_recall_0.50  	all	1.0000
iprec_at_recall_0.60  	all	1.0000
iprec_at_recall_0.70  	all	1.0000
iprec_at_recall_0.80  	all	1.0000
iprec_at_recall_0.90  	all	1.0000
iprec_at_recall_1.00  	all	1.0000
P_5                   	all	0.2000
P_10                  	all	0.1000
P_15                  	all	0.0667
P_20                  	all	0.0500
P_30                  	all	0.0333
P_100                 	all	0.0100
P_200                 	all	0.0050
P_500                 	all	0.0020
P_1000                	all	0.0010
`

// Command trecdiff is a random differential test of `lasagna metrics trec`
// against trec_eval: it writes small random qrels and runs (ties, unjudged
// and negative grades, queries missing from the run or from the qrels),
// picks random trec_eval flags (-q -c -n -l -M -J -N -D -Z -R -T -m, short,
// attached or long forms), runs both and compares their stdout byte for
// byte. Run it from the repository's root:
//
//	go run ./scripts/trecdiff -n 500 -seed 1
//
// trec_eval is taken from PATH (or -trec-eval); without it trecdiff says so
// and exits 0. Where trec_eval fails (a qrels query missing from the run
// without -c) lasagna must fail too; their stdout is not compared. -keep
// keeps the files of the first difference. Exit status 1 when any case
// differs.
//
// Known differences are left out: every judged query has a grade >= 0
// (trec_eval stops when the first query it evaluates has none), and the
// z-score files have a line for every value of every query (trec_eval
// reads past its table otherwise); docs/metrics.md lists them.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 200, "number of random cases")
	seed := flag.Uint64("seed", 1, "random seed")
	trecEval := flag.String("trec-eval", "", "trec_eval binary (default: trec_eval on PATH)")
	lasagna := flag.String("lasagna", "", "lasagna binary (default: built from ./cmd/lasagna)")
	keep := flag.Bool("keep", false, "keep the files of the first differing case and print their directory")
	flag.Parse()
	te := *trecEval
	if te == "" {
		p, err := exec.LookPath("trec_eval")
		if err != nil {
			fmt.Println("trecdiff: no trec_eval on PATH (nor -trec-eval): skipped")
			return
		}
		te = p
	}
	dir, err := os.MkdirTemp("", "trecdiff")
	if err != nil {
		fail(err)
	}
	las := *lasagna
	if las == "" {
		las = filepath.Join(dir, "lasagna")
		if out, err := exec.Command("go", "build", "-o", las, "./cmd/lasagna").CombinedOutput(); err != nil {
			fail(fmt.Errorf("go build ./cmd/lasagna: %v\n%s", err, out))
		}
	}
	rng := rand.New(rand.NewPCG(*seed, 39))
	diffs := 0
	for i := range *n {
		c := newCase(rng, dir, te)
		args := c.flags(rng)
		full := append(args, c.qrels, c.run)
		want, wantErr := exec.Command(te, full...).Output()
		got, gotErr := exec.Command(las, append([]string{"metrics", "trec"}, full...)...).Output()
		switch {
		case wantErr != nil && gotErr != nil:
			continue
		case wantErr == nil && gotErr == nil && bytes.Equal(want, got):
			continue
		}
		diffs++
		fmt.Printf("case %d differs: trec_eval %s (trec_eval: %v, lasagna: %v)\n%s", i, strings.Join(full, " "), wantErr, gotErr, firstDiff(got, want))
		if *keep {
			fmt.Println("files kept in", dir)
			os.Exit(1)
		}
	}
	os.RemoveAll(dir)
	fmt.Printf("trecdiff: %d cases, %d differ (seed %d)\n", *n, diffs, *seed)
	if diffs > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "trecdiff:", err)
	os.Exit(1)
}

// trecCase is one random qrels and run pair.
type trecCase struct {
	qrels, run, dir, te string
	qids                []string // the qrels queries
}

// newCase writes a random qrels and run: 1-6 queries, 0-25 judgements each
// (grades -1..3), 1-30 retrieved documents per query from a pool of 40
// (scores from 8 values, so ties are common), some queries missing from
// the run or only in it.
func newCase(rng *rand.Rand, dir, te string) *trecCase {
	c := &trecCase{qrels: filepath.Join(dir, "qrels"), run: filepath.Join(dir, "run"), dir: dir, te: te}
	var qb, rb strings.Builder
	nq := 1 + rng.IntN(6)
	for q := range nq {
		qid := "q" + strconv.Itoa(q)
		judged := 0
		if q == 0 || rng.IntN(6) > 0 {
			judged = 1 + rng.IntN(25)
			c.qids = append(c.qids, qid)
		}
		docs := rng.Perm(40)
		for j, d := range docs[:judged] {
			g := rng.IntN(5) - 1
			if j == 0 {
				g = rng.IntN(4) // one grade >= 0: see "known differences" above
			}
			fmt.Fprintf(&qb, "%s 0 d%d %d\n", qid, d, g)
		}
		if q > 0 && rng.IntN(5) == 0 {
			continue // missing from the run
		}
		for _, d := range rng.Perm(40)[:1+rng.IntN(30)] {
			fmt.Fprintf(&rb, "%s Q0 d%d 0 %.1f run%d\n", qid, d, float64(rng.IntN(8))/2, nq)
		}
	}
	if rb.Len() == 0 {
		fmt.Fprintf(&rb, "q0 Q0 d1 0 1 run\n")
	}
	write(c.qrels, qb.String())
	write(c.run, rb.String())
	return c
}

func write(p, s string) {
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		fail(err)
	}
}

// flags returns random trec_eval flags, in random spellings.
func (c *trecCase) flags(rng *rand.Rand) []string {
	var args []string
	opt := func(short, long, val string) {
		switch {
		case val == "" && rng.IntN(3) == 0:
			args = append(args, "--"+long)
		case val == "":
			args = append(args, "-"+short)
		case rng.IntN(3) == 0:
			args = append(args, "--"+long+"="+val)
		case rng.IntN(2) == 0:
			args = append(args, "-"+short+val)
		default:
			args = append(args, "-"+short, val)
		}
	}
	if rng.IntN(2) == 0 {
		opt("q", "query_eval_wanted", "")
	}
	if rng.IntN(3) == 0 {
		opt("c", "complete_rel_info_wanted", "")
	}
	if rng.IntN(8) == 0 {
		opt("n", "nosummary", "")
	}
	if rng.IntN(3) == 0 {
		opt("l", "level_for_rel", strconv.Itoa(rng.IntN(3)))
	}
	if rng.IntN(2) == 0 {
		opt("M", "Max_retrieved_per_topic", strconv.Itoa(rng.IntN(25)))
	}
	if rng.IntN(3) == 0 {
		opt("J", "Judged_docs_only", "")
	}
	if rng.IntN(6) == 0 {
		opt("N", "Number_docs_in_coll", strconv.Itoa(rng.IntN(1000)))
	}
	if rng.IntN(6) == 0 {
		d := "0"
		if rng.IntN(2) == 0 {
			d += "." + c.qids[rng.IntN(len(c.qids))]
		}
		opt("D", "Debug_level", d)
	}
	if rng.IntN(10) == 0 {
		opt("R", "Rel_info_format", "qrels")
		opt("T", "Results_format", "trec_results")
	}
	sets := [][]string{nil, {"official"}, {"all_trec"}, {"set"}, {"P.1,3,7", "map", "ndcg_cut.2,5"},
		{"iprec_at_recall.0,0.25,0.5", "11pt_avg", "Rprec_mult.0.5,1"}, {"bpref", "infAP", "gm_bpref", "gm_map"},
		{"relstring.5", "success.1,2", "recip_rank", "num_ret", "num_rel"}}
	ms := sets[rng.IntN(len(sets))]
	for _, m := range ms {
		opt("m", "measure", m)
	}
	if rng.IntN(4) == 0 {
		opt("Z", "Zscore", c.zscores(rng, ms))
	}
	return args
}

// zscores writes a z-score file with a line for every value trec_eval
// prints for every qrels query (and num_q, gm_map, gm_bpref, which it
// also looks up), so that its binary search never reads past its table.
func (c *trecCase) zscores(rng *rand.Rand, ms []string) string {
	var margs []string
	for _, m := range ms {
		margs = append(margs, "-m", m)
	}
	out, _ := exec.Command(c.te, append(append(margs, "-q", "-c"), c.qrels, c.run)...).Output()
	names := map[string]bool{"num_q": true, "gm_map": true, "gm_bpref": true}
	for l := range strings.SplitSeq(string(out), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 && f[1] != "all" {
			names[strings.TrimSpace(f[0])] = true
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, q := range c.qids {
		for _, n := range sorted {
			sd := float64(rng.IntN(4)) / 4
			fmt.Fprintf(&b, "%s %s %g %g\n", q, n, float64(rng.IntN(5))/4, sd)
		}
	}
	p := filepath.Join(c.dir, "zscores")
	write(p, b.String())
	return p
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("  line %d\n    lasagna:   %q\n    trec_eval: %q\n", i+1, a, b)
		}
	}
	return ""
}

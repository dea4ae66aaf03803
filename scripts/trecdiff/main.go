// Command trecdiff is a random differential test of `lasagna metrics trec`
// against trec_eval: it writes small random qrels and runs (ties, unjudged
// and negative grades, queries missing from the run or from the qrels),
// picks random trec_eval flags (-q -c -n -l -M -J -N -D -Z -R -T -m, short,
// attached or long forms), runs both and compares their stdout byte for
// byte. A third of the qrels cases give random parameters to the measures
// that take rel_level=gain pairs, persistence or numbers (paramMeasures),
// with yaap. Half the cases, by default, read the rel_info file in another -R
// format instead: prefs (judgement groups of one or several sub-groups,
// most consistent, some not), qrels_prefs or qrels_jg, with that format's
// measures. Run it from the repository's root:
//
//	go run ./scripts/trecdiff -n 500 -seed 1
//	go run ./scripts/trecdiff -n 500 -formats prefs,qrels_prefs,qrels_jg
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
// reads past its table otherwise); docs/metrics.md lists them. Where
// lasagna refuses a preference file on which trec_eval's
// prefs_avgjg_Rnonrel reads past the ranks it stored (negative levels), the
// case is counted as such, not as a difference.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
	verbose := flag.Bool("v", false, "print how often each trec_eval error (first line) made both refuse a case")
	formats := flag.String("formats", "qrels,prefs,qrels_prefs,qrels_jg", "comma-separated -R formats to draw cases from (qrels half the time when listed with others)")
	emit := flag.String("emit", "", "only write the first -n cases' rel_info and run files of the first of -formats into this `folder` (FORMAT-I.rel, FORMAT-I.run) and exit")
	flag.Parse()
	var relFormats []string
	withQrels := false
	for f := range strings.SplitSeq(*formats, ",") {
		switch f {
		case "qrels":
			withQrels = true
		case "prefs", "qrels_prefs", "qrels_jg":
			relFormats = append(relFormats, f)
		default:
			fail(fmt.Errorf("-formats: %q is not qrels, prefs, qrels_prefs or qrels_jg", f))
		}
	}
	if *emit != "" {
		emitCases(*emit, strings.Split(*formats, ",")[0], *n, *seed)
		return
	}
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
	diffs, undefined, failed := 0, 0, 0
	reasons := map[string]int{}
	for i := range *n {
		var c *trecCase
		var args []string
		if len(relFormats) > 0 && (!withQrels || rng.IntN(2) == 0) {
			format := relFormats[rng.IntN(len(relFormats))]
			c = newRelCase(rng, dir, te, format)
			args = c.relFlags(rng, format)
		} else {
			c = newCase(rng, dir, te)
			args = c.flags(rng)
		}
		full := append(args, c.qrels, c.run)
		tcmd := exec.Command(te, full...)
		var tstderr bytes.Buffer
		tcmd.Stderr = &tstderr
		want, wantErr := tcmd.Output()
		cmd := exec.Command(las, append([]string{"metrics", "trec"}, full...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, gotErr := cmd.Output()
		switch {
		case wantErr != nil && gotErr != nil:
			failed++
			first, _, _ := strings.Cut(tstderr.String(), "\n")
			reasons[quoted.ReplaceAllString(first, "'…'")]++
			continue
		case wantErr == nil && gotErr == nil && bytes.Equal(want, got):
			continue
		case gotErr != nil && strings.Contains(stderr.String(), "reads past the ranks it stored"):
			undefined++
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
	if *verbose {
		for r, k := range reasons {
			fmt.Printf("%5d  %s\n", k, r)
		}
	}
	fmt.Printf("trecdiff: %d cases, %d differ (%d refused by both, %d where trec_eval reads past what it stored; seed %d)\n", *n, diffs, failed, undefined, *seed)
	if diffs > 0 {
		os.Exit(1)
	}
}

// quoted matches the names trec_eval quotes in its messages.
var quoted = regexp.MustCompile(`'[^']*'`)

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
// (grades -1..4), 1-30 retrieved documents per query from a pool of 40
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
			g := rng.IntN(6) - 1
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
	if rng.IntN(3) == 0 {
		ms = paramMeasures(rng)
	}
	for _, m := range ms {
		opt("m", "measure", m)
	}
	if rng.IntN(4) == 0 {
		if z, ok := c.zscores(rng, ms, nil); ok {
			opt("Z", "Zscore", z)
		}
	}
	return args
}

// paramMeasures returns random -m values of the measures that take
// parameters other than cutoffs (gain pairs, rbp's persistence, utility's
// coefficients, 11pt_avg's recall levels, set_F's beta), with yaap, now
// and then official or a second spelling of a measure (the first
// parameters given win).
func paramMeasures(rng *rand.Rand) []string {
	num := func() string {
		vals := []string{"0", "1", "2", "3", "-1", "0.5", "1.5", "0.3", "1.7", "2.25", "-0.4", "4", "10", "0.9"}
		return vals[rng.IntN(len(vals))]
	}
	gains := func() string {
		var ps []string
		for range 1 + rng.IntN(4) {
			levels := []string{"-2", "-1", "0", "1", "2", "3", "4", "5", "+2", "01"}
			ps = append(ps, levels[rng.IntN(len(levels))]+"="+num())
		}
		return strings.Join(ps, ",")
	}
	prob := func() string { return strconv.FormatFloat(float64(rng.IntN(20))/20, 'g', -1, 64) }
	var ms []string
	if rng.IntN(2) == 0 {
		ms = append(ms, "yaap")
	}
	ndcg := []string{"ndcg", "dcg", "ideal_dcg"}[rng.IntN(3)]
	for _, m := range []string{ndcg, "ndcg_rel", "Rndcg", "G", "rbp", "rbp_resid", "utility", "11pt_avg", "set_F"} {
		if rng.IntN(3) > 0 {
			continue
		}
		var p string
		switch m {
		case "rbp":
			p = gains()
			if rng.IntN(2) == 0 {
				p = "p=" + prob() + "," + p
			}
		case "rbp_resid":
			p = "p=" + prob()
		case "utility":
			p = strings.Join([]string{num(), num(), num(), num()}, ",")
		case "11pt_avg":
			var ls []string
			for range 1 + rng.IntN(5) {
				ls = append(ls, prob())
			}
			p = strings.Join(ls, ",")
		case "set_F":
			p = []string{"0.5", "2", "1", "0.25", "3", "0"}[rng.IntN(6)]
		default:
			p = gains()
		}
		ms = append(ms, m+"."+p)
		switch rng.IntN(5) {
		case 0:
			ms = append(ms, m) // the parameters stay
		case 1:
			ms = append(ms, m+"."+p+"0") // the first parameters win
		}
	}
	if slices.ContainsFunc(ms, func(m string) bool { return strings.HasPrefix(m, "rbp.") }) {
		// trec_eval's rbp reads two uninitialised variables, which hold
		// what an earlier calculation left on the stack (ndcg, G,
		// 11pt_avg, yaap…): see docs/metrics.md. rbp goes with rbp_resid
		// only, which leaves them as lasagna takes them, 0.
		ms = slices.DeleteFunc(ms, func(m string) bool {
			name, _, _ := strings.Cut(m, ".")
			return name != "rbp" && name != "rbp_resid"
		})
	} else if rng.IntN(4) == 0 {
		ms = append(ms, "official") // no rbp: see above
	}
	if len(ms) == 0 {
		ms = append(ms, "yaap")
	}
	rng.Shuffle(len(ms), func(i, j int) {
		if !strings.HasPrefix(ms[i], strings.Split(ms[j], ".")[0]) {
			ms[i], ms[j] = ms[j], ms[i]
		}
	})
	return ms
}

// zscores writes a z-score file with a line for every value trec_eval
// prints for every qrels query (and num_q, gm_map, gm_bpref, which it
// also looks up), so that its binary search never reads past its table.
// ok is false, and no file is written, when trec_eval cannot evaluate
// every query (its values are then unknown).
func (c *trecCase) zscores(rng *rand.Rand, ms, extra []string) (path string, ok bool) {
	margs := slices.Clone(extra)
	for _, m := range ms {
		margs = append(margs, "-m", m)
	}
	out, err := exec.Command(c.te, append(append(margs, "-q", "-c"), c.qrels, c.run)...).Output()
	if err != nil {
		return "", false
	}
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
	return p, true
}

// newRelCase writes a random rel_info file of format prefs, qrels_prefs
// or qrels_jg, and a run: 1-5 queries, each with 1-3 judgement groups (of
// 1-3 sub-groups under prefs) judging up to 12 documents of a pool of 30
// at levels 0-3 (now and then -1 or 0.5); the sub-groups of a group
// follow one hidden order of its documents, except now and then, so that
// most groups are consistent. Queries may be missing from the run.
func newRelCase(rng *rand.Rand, dir, te, format string) *trecCase {
	c := &trecCase{qrels: filepath.Join(dir, "rel"), run: filepath.Join(dir, "run"), dir: dir, te: te}
	var qb, rb strings.Builder
	nq := 1 + rng.IntN(5)
	level := func() string {
		switch rng.IntN(12) {
		case 0:
			if format == "prefs" {
				return "0.5"
			}
			return "-1"
		case 1:
			return "-1"
		}
		return strconv.Itoa(rng.IntN(4))
	}
	for q := range nq {
		qid := "q" + strconv.Itoa(q)
		c.qids = append(c.qids, qid)
		for g := range 1 + rng.IntN(3) {
			jg := "u" + strconv.Itoa(g)
			docs := rng.Perm(30)[:1+rng.IntN(12)]
			truth := map[int]string{}
			for _, d := range docs {
				truth[d] = level()
			}
			switch format {
			case "prefs":
				for s := range 1 + rng.IntN(3) {
					sub := docs
					if s > 0 || rng.IntN(2) == 0 {
						sub = docs[:1+rng.IntN(len(docs))]
						rng.Shuffle(len(sub), func(i, j int) { sub[i], sub[j] = sub[j], sub[i] })
					}
					for _, d := range sub {
						lv := truth[d]
						if rng.IntN(80) == 0 {
							lv = level() // an inconsistency now and then
						}
						fmt.Fprintf(&qb, "%s %s s%d d%d %s\n", qid, jg, s, d, lv)
					}
				}
			default:
				for _, d := range docs {
					fmt.Fprintf(&qb, "%s %s d%d %s\n", qid, jg, d, truth[d])
				}
			}
		}
		if q > 0 && rng.IntN(10) == 0 {
			continue // missing from the run
		}
		for _, d := range rng.Perm(30)[:1+rng.IntN(20)] {
			fmt.Fprintf(&rb, "%s Q0 d%d 0 %.1f run%d\n", qid, d, float64(rng.IntN(6))/2, nq)
		}
	}
	if rb.Len() == 0 {
		fmt.Fprintf(&rb, "q0 Q0 d1 0 1 run\n")
	}
	write(c.qrels, qb.String())
	write(c.run, rb.String())
	return c
}

// emitCases writes the rel_info and run files of n random cases of format
// into folder, as trecdiff would draw them with -formats format.
func emitCases(folder, format string, n int, seed uint64) {
	if err := os.MkdirAll(folder, 0o755); err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "trecdiff")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	rng := rand.New(rand.NewPCG(seed, 39))
	for i := range n {
		var c *trecCase
		if format == "qrels" {
			c = newCase(rng, dir, "")
		} else {
			c = newRelCase(rng, dir, "", format)
		}
		for from, ext := range map[string]string{c.qrels: ".rel", c.run: ".run"} {
			b, err := os.ReadFile(from)
			if err != nil {
				fail(err)
			}
			write(filepath.Join(folder, format+"-"+strconv.Itoa(i)+ext), string(b))
		}
	}
}

// relFlags returns random trec_eval flags for a rel_info file of format
// (prefs, qrels_prefs, qrels_jg) and measures of that format, now and
// then with a z-score file (-Z).
func (c *trecCase) relFlags(rng *rand.Rand, format string) []string {
	args := []string{"-R", format}
	switch rng.IntN(3) {
	case 0:
		args = []string{"--Rel_info_format=" + format}
	case 1:
		args = []string{"-R" + format}
	}
	opt := func(short, val string) {
		if rng.IntN(2) == 0 {
			args = append(args, "-"+short+val)
		} else {
			args = append(args, "-"+short)
			if val != "" {
				args = append(args, val)
			}
		}
	}
	if rng.IntN(2) == 0 {
		opt("q", "")
	}
	if rng.IntN(3) == 0 {
		opt("c", "")
	}
	if rng.IntN(8) == 0 {
		opt("n", "")
	}
	if rng.IntN(3) == 0 {
		opt("l", strconv.Itoa(rng.IntN(3)))
	}
	if rng.IntN(2) == 0 {
		opt("M", strconv.Itoa(rng.IntN(15)))
	}
	if rng.IntN(3) == 0 {
		opt("J", "")
	}
	if rng.IntN(6) == 0 {
		opt("N", strconv.Itoa(rng.IntN(1000)))
	}
	if rng.IntN(6) == 0 {
		opt("D", "0."+c.qids[rng.IntN(len(c.qids))])
	}
	sets := [][]string{{"all_prefs"}, {"prefs"}, {"prefs_pair", "prefs_avgjg_Rnonrel", "num_q"},
		{"prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "runid"}, {"prefs_num_prefs_ful_ret", "prefs_pair_ret", "prefs_avgjg_imp"}}
	if format == "qrels_jg" {
		sets = [][]string{{"qrels_jg"}, {"map_avgjg"}, {"P_avgjg.1,3,7", "Rprec_mult_avgjg.0.5,1,1.5"}, {"num_q", "P_avgjg"}}
	}
	ms := sets[rng.IntN(len(sets))]
	for _, m := range ms {
		opt("m", m)
	}
	if rng.IntN(4) == 0 {
		if z, ok := c.zscores(rng, ms, []string{"-R", format}); ok {
			opt("Z", z)
		}
	}
	return args
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

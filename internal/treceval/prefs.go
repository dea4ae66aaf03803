package treceval

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// The preference measures of trec_eval's -R prefs and -R qrels_prefs, in
// its output order; the first three are counts (printed as integers and
// summed, not averaged, in the summary).
var prefsMeasureNames = [...]string{
	"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
	"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
	"prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
	"prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
}

const (
	pNumPoss = iota
	pNumFul
	pNumFulRet
	pSimp
	pPair
	pAvgjg
	pAvgjgRnonrel
	pSimpRet
	pPairRet
	pAvgjgRet
	pAvgjgRnonrelRet
	pSimpImp
	pPairImp
	pAvgjgImp
	numPrefsMeasures
)

// prefsCounts is the number of preference measures printed as counts.
const prefsCounts = 3

type prefsValues [numPrefsMeasures]float64

// prefsEC is an equivalence class of a judgement group with one
// sub-group: the documents judged at one level, as their docid ranks
// pool[start:start+n] (ascending).
type prefsEC struct {
	level    float64
	start, n int
}

// prefsJG is one judgement group of a query as trec_eval 10's
// form_prefs_counts.c represents it: equivalence classes when it has one
// sub-group, else a preference array (the transitive closure of its
// sub-groups' preferences) and each document's level (-1 if the group
// does not judge it).
type prefsJG struct {
	ecs  []prefsEC // nil: a preference array
	pa   [][]uint64
	rel  []float64
	name string

	fulRet, possRet, fulImp, possImp, possNotoccur int
	numRel, numRelRet, numNonrel, numNonrelRet     int
}

// prefsQuery is a query's preferences against a ranking. A judged
// document's docid rank is its rank among the judged documents retrieved
// (0 … numJudgedRet-1), or numJudgedRet and up, in docno order, for those
// not retrieved.
type prefsQuery struct {
	qid                     string
	numJudged, numJudgedRet int
	jgs                     []prefsJG
	// counts[i*numJudged+j] is the number of groups preferring docid rank
	// i to j (trec_eval's 16-bit counts array).
	counts []uint16
	// pool holds the equivalence classes' ranks, group after group (only
	// groups with one sub-group), as trec_eval's rank pool does.
	pool []int
	// shared is the rank pool as earlier queries left it, past pool.
	shared *rankPool
	docs   []string // the docno of each docid rank
}

// prefsRanking orders a query's retrieved documents as form_prefs_counts.c
// does: score descending, equal scores by docno ascending (the opposite
// of the other measures' tie order), keeping only the first max when
// limit.
func prefsRanking(hits []trecparse.Hit, limit bool, max int) []trecparse.Hit {
	r := slices.Clone(hits)
	slices.SortFunc(r, func(a, b trecparse.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if limit && len(r) > max {
		r = r[:max]
	}
	return r
}

// maxPrefsJudged is the most documents a query may judge under -R prefs
// or qrels_prefs: the counts array takes 2 bytes a pair (2 GiB here).
const maxPrefsJudged = 1 << 15

type rankedPref struct {
	trecparse.Pref
	rank int
}

// formPrefs builds query qid's judgement groups from its preferences and
// its ranking (prefsRanking). Queries are formed in trec_eval's order
// with one pool, which keeps what their ranks leave for later ones.
func formPrefs(qid string, prefs []trecparse.Pref, ranked []trecparse.Hit, pool *rankPool) (*prefsQuery, error) {
	q, err := formPrefsQuery(qid, prefs, ranked)
	if err != nil {
		return nil, err
	}
	pool.begin(len(prefs))
	q.shared = pool
	return q, nil
}

// storeRanks leaves the query's ranks in the shared pool, once its
// measures are computed (the ranks past its own are earlier queries').
func (q *prefsQuery) storeRanks() { q.shared.store(q.pool) }

func formPrefsQuery(qid string, prefs []trecparse.Pref, ranked []trecparse.Hit) (*prefsQuery, error) {
	q := &prefsQuery{qid: qid}
	judged := make(map[string]int, len(prefs))
	for _, p := range prefs {
		judged[p.Doc] = -1
	}
	seen := make(map[string]bool, len(ranked))
	for _, h := range ranked {
		if seen[h.ID] {
			return nil, fmt.Errorf("query %q: document %q is retrieved twice; keep one line (trec_eval rejects duplicates)", qid, h.ID)
		}
		seen[h.ID] = true
		if r, ok := judged[h.ID]; ok && r < 0 {
			judged[h.ID] = len(q.docs)
			q.docs = append(q.docs, h.ID)
		}
	}
	q.numJudgedRet = len(q.docs)
	var rest []string
	for d, r := range judged {
		if r < 0 {
			rest = append(rest, d)
		}
	}
	slices.Sort(rest)
	for _, d := range rest {
		judged[d] = len(q.docs)
		q.docs = append(q.docs, d)
	}
	q.numJudged = len(q.docs)
	if q.numJudged > maxPrefsJudged {
		return nil, fmt.Errorf("query %q judges %d documents; the preference measures count every pair of them (%d² pairs, as trec_eval does) and lasagna takes at most %d a query: split the query's judgements or evaluate it with -R qrels", qid, q.numJudged, q.numJudged, maxPrefsJudged)
	}
	ps := make([]rankedPref, len(prefs))
	for i, p := range prefs {
		ps[i] = rankedPref{p, judged[p.Doc]}
	}
	slices.SortFunc(ps, func(a, b rankedPref) int {
		if c := strings.Compare(a.JG, b.JG); c != 0 {
			return c
		}
		if c := strings.Compare(a.JSG, b.JSG); c != 0 {
			return c
		}
		if a.Level != b.Level {
			if a.Level > b.Level {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.rank, b.rank)
	})
	q.counts = make([]uint16, q.numJudged*q.numJudged)
	for start := 0; start < len(ps); {
		end, subs := start+1, 1
		for end < len(ps) && ps[end].JG == ps[start].JG {
			if ps[end].JSG != ps[end-1].JSG {
				subs++
			}
			end++
		}
		jg := prefsJG{name: ps[start].JG}
		var err error
		if subs > 1 {
			err = q.formPA(&jg, ps[start:end])
		} else {
			err = q.formEC(&jg, ps[start:end])
		}
		if err != nil {
			return nil, err
		}
		q.jgs = append(q.jgs, jg)
		start = end
	}
	return q, nil
}

// formEC builds a group with one sub-group (its preferences sorted by
// level descending, then rank) and counts its preferences
// (form_jg_ec, add_ec_pref_to_jg).
func (q *prefsQuery) formEC(jg *prefsJG, ps []rankedPref) error {
	for i, p := range ps {
		if i == 0 || p.Level != jg.ecs[len(jg.ecs)-1].level {
			jg.ecs = append(jg.ecs, prefsEC{level: p.Level, start: len(q.pool)})
		}
		q.pool = append(q.pool, p.rank)
		jg.ecs[len(jg.ecs)-1].n++
	}
	njr, nj := q.numJudgedRet, q.numJudged
	for e1, ec1 := range jg.ecs {
		r1s := q.pool[ec1.start : ec1.start+ec1.n]
		ret := 0
		for ret < len(r1s) && r1s[ret] < njr {
			ret++
		}
		if ec1.level > 0 {
			jg.numRelRet += ret
			jg.numRel += ec1.n
		} else {
			jg.numNonrelRet += ret
			jg.numNonrel += ec1.n
		}
		for _, ec2 := range jg.ecs[e1+1:] {
			for _, r1 := range r1s {
				for _, r2 := range q.pool[ec2.start : ec2.start+ec2.n] {
					q.counts[r1*nj+r2]++
					if r1 == r2 {
						return fmt.Errorf("query %q, judgement group %q: document %q is judged at two levels (%g and %g) in one sub-group; keep one line (trec_eval stops here too)", q.qid, jg.name, q.docs[r1], ec1.level, ec2.level)
					}
					switch {
					case r1 < r2 && r2 < njr:
						jg.fulRet++
					case r1 < r2 && r1 < njr:
						jg.fulImp++
					case r1 < r2:
						jg.possNotoccur++
					case r1 < njr:
						jg.possRet++
					case r2 < njr:
						jg.possImp++
					default:
						jg.possNotoccur++
					}
				}
			}
		}
	}
	jg.possRet += jg.fulRet
	jg.possImp += jg.fulImp
	return nil
}

// bitRows is an n×n matrix of bits, a row a []uint64.
func bitRows(n int) [][]uint64 {
	w := (n + 63) / 64
	all := make([]uint64, n*w)
	rows := make([][]uint64, n)
	for i := range rows {
		rows[i] = all[i*w : (i+1)*w : (i+1)*w]
	}
	return rows
}

func bit(row []uint64, j int) bool { return row[j>>6]&(1<<(j&63)) != 0 }
func setBit(row []uint64, j int)   { row[j>>6] |= 1 << (j & 63) }
func clearBit(row []uint64, j int) { row[j>>6] &^= 1 << (j & 63) }

// formPA builds a group with several sub-groups (its preferences sorted by
// sub-group, level descending, rank): the preference array, closed under
// transitivity, and its counts (form_jg_pa, add_transitives,
// add_pa_pref_to_jg).
func (q *prefsQuery) formPA(jg *prefsJG, ps []rankedPref) error {
	nj, njr := q.numJudged, q.numJudgedRet
	jg.pa = bitRows(nj)
	jg.rel = make([]float64, nj)
	for i := range jg.rel {
		jg.rel[i] = -1
	}
	for i, p := range ps {
		if cur := jg.rel[p.rank]; (cur > 0 && p.Level == 0) || (cur == 0 && p.Level > 0) {
			return fmt.Errorf("query %q, judgement group %q: document %q is judged non-relevant (0) in one sub-group and relevant in another; a group must agree (trec_eval stops here too)", q.qid, jg.name, p.Doc)
		}
		jg.rel[p.rank] = p.Level
		j := i + 1
		for j < len(ps) && ps[j].JSG == p.JSG && ps[j].Level == p.Level {
			j++
		}
		for ; j < len(ps) && ps[j].JSG == p.JSG; j++ {
			setBit(jg.pa[p.rank], ps[j].rank)
		}
	}
	// Transitive closure (Warshall), with trec_eval's diagonal: set while
	// closing, cleared after.
	for i := range nj {
		setBit(jg.pa[i], i)
	}
	for k := range nj {
		rk := jg.pa[k]
		for i := range nj {
			if ri := jg.pa[i]; bit(ri, k) {
				for w := range ri {
					ri[w] |= rk[w]
				}
			}
		}
	}
	for i := range nj {
		clearBit(jg.pa[i], i)
	}
	for i := range nj {
		for w, x := range jg.pa[i] {
			for x != 0 {
				j := w*64 + bits.TrailingZeros64(x)
				x &= x - 1
				if bit(jg.pa[j], i) {
					return fmt.Errorf("query %q, judgement group %q: documents %q and %q are each preferred to the other (directly or through other documents); a group's preferences must be consistent (trec_eval aborts here)", q.qid, jg.name, q.docs[i], q.docs[j])
				}
			}
		}
	}
	for i, r := range jg.rel {
		switch {
		case r > 0:
			jg.numRel++
			if i < njr {
				jg.numRelRet++
			}
		case r == 0:
			jg.numNonrel++
			if i < njr {
				jg.numNonrelRet++
			}
		}
	}
	for i := range nj {
		row := jg.pa[i]
		for w, x := range row {
			for x != 0 {
				j := w*64 + bits.TrailingZeros64(x)
				x &= x - 1
				q.counts[i*nj+j]++
				switch {
				case i < njr && j < i:
					jg.possRet++
				case i < njr && j < njr:
					jg.fulRet++
				case i < njr:
					jg.fulImp++
				case j < njr:
					jg.possImp++
				default:
					jg.possNotoccur++
				}
			}
		}
	}
	jg.possRet += jg.fulRet
	jg.possImp += jg.fulImp
	return nil
}

// errPoolOverrun is reported where trec_eval's prefs_avgjg_Rnonrel reads
// past the ranks it stored, where nothing defined is: past its block, or
// into a part of a fresh block no query has written.
func (q *prefsQuery) errPoolOverrun(jg *prefsJG, measure string) error {
	return fmt.Errorf("query %q, judgement group %q: %s is undefined here: the group has more non-relevant than relevant documents but fewer in its lowest level than relevant ones, and trec_eval reads past the ranks it stored, into memory it does not own or never wrote (docs/metrics.md, \"trec_eval's flags\"); leave the measure out, or use levels of 0 and above with 0 as the only non-relevant level", q.qid, jg.name, measure)
}

// poolAt returns the rank at pool index i as trec_eval reads it: the
// query's own ranks, then what earlier queries left in its rank pool
// (rankPool); false where that memory holds nothing defined.
func (q *prefsQuery) poolAt(i int) (int, bool) {
	if i < len(q.pool) {
		return q.pool[i], true
	}
	if q.shared == nil {
		return 0, false
	}
	return q.shared.at(i)
}

// rankPool is trec_eval's rank pool as form_prefs_counts.c keeps it from
// query to query: a block of at least the current query's number of
// preferences, replaced by a fresh (uninitialised) one of the old size
// plus that number when a query needs more (te_chk_and_malloc). Each
// query writes its equivalence classes' ranks from the start; what lies
// past them is what earlier queries wrote into the same block, which
// prefs_avgjg_Rnonrel reads in one corner (recalcRnonrel).
type rankPool struct {
	ranks   []int
	written []bool
}

// begin makes room for a query of n preferences.
func (p *rankPool) begin(n int) {
	if n > len(p.ranks) {
		size := len(p.ranks) + n
		p.ranks, p.written = make([]int, size), make([]bool, size)
	}
}

// store records the query's ranks at the start of the block.
func (p *rankPool) store(ranks []int) {
	copy(p.ranks, ranks)
	for i := range ranks {
		p.written[i] = true
	}
}

// at returns the rank at index i, or false past the block or where
// nothing was written since it was allocated.
func (p *rankPool) at(i int) (int, bool) {
	if i >= len(p.ranks) || !p.written[i] {
		return 0, false
	}
	return p.ranks[i], true
}

// recalcRnonrel is m_prefs_avgjg_Rnonrel.c's recalculate: a group's
// preferences counted again with only its first numRel non-relevant
// documents (ret: m_prefs_avgjg_Rnonrel_ret.c's, among retrieved
// documents only, with numRelRet). Its reads follow trec_eval's, which
// take the lowest class's first ranks even past its end.
func (q *prefsQuery) recalcRnonrel(jg *prefsJG, ret bool) (ful, poss int, err error) {
	njr := q.numJudgedRet
	if jg.ecs != nil {
		last := jg.ecs[len(jg.ecs)-1]
		keep := jg.numRel
		if ret {
			keep = jg.numRelRet
		}
		pair := func(r1, r2 int) {
			if r1 < r2 && (ret || r1 < njr) {
				ful++
			} else {
				poss++
			}
		}
		for e1, ec1 := range jg.ecs {
			for _, ec2 := range jg.ecs[e1+1 : max(e1+1, len(jg.ecs)-1)] {
				for _, r1 := range q.pool[ec1.start : ec1.start+ec1.n] {
					if ret && r1 >= njr {
						break
					}
					for _, r2 := range q.pool[ec2.start : ec2.start+ec2.n] {
						if ret && r2 >= njr {
							break
						}
						pair(r1, r2)
					}
				}
			}
		}
		for _, ec1 := range jg.ecs {
			for _, r1 := range q.pool[ec1.start : ec1.start+ec1.n] {
				if ret && r1 >= njr {
					break
				}
				for k := range keep {
					r2, ok := q.poolAt(last.start + k)
					if !ok {
						return 0, 0, q.errPoolOverrun(jg, map[bool]string{false: "prefs_avgjg_Rnonrel", true: "prefs_avgjg_Rnonrel_ret"}[ret])
					}
					if ret && r2 >= njr {
						break
					}
					pair(r1, r2)
				}
			}
		}
		return ful, poss + ful, nil
	}
	nj := q.numJudged
	scan := nj
	if ret {
		scan = njr
	}
	first, seenNonrel := 0, 0
	for first = 0; first < scan; first++ {
		if jg.rel[first] == 0 {
			seenNonrel++
			if seenNonrel == jg.numRel+1 {
				break
			}
		}
	}
	skip := func(i int) bool { return i >= first && jg.rel[i] == 0 }
	for i := range nj {
		if (ret && i >= njr) || skip(i) {
			continue
		}
		for j := range nj {
			if j == i || (ret && j >= njr) || skip(j) || !bit(jg.pa[i], j) {
				continue
			}
			switch {
			case i < njr && j < i:
				poss++
			case i < njr && j < njr:
				ful++
			case i < njr:
				ful++
			default:
				poss++
			}
		}
	}
	return ful, poss + ful, nil
}

// ratio is C's (double) a / (double) b: 0/0 is NaN.
func ratio(a, b int) float64 { return float64(a) / float64(b) }

// measures computes the query's preference measures (m_prefs_*.c);
// prefs_avgjg_Rnonrel and prefs_avgjg_Rnonrel_ret only when rnonrel and
// rnonrelRet (they can be undefined, see recalcRnonrel).
func (q *prefsQuery) measures(rnonrel, rnonrelRet bool) (prefsValues, error) {
	var v prefsValues
	var poss, ful, fulRet, possRet, fulImp, possImp int
	var avg, avgRet, avgImp float64
	for i := range q.jgs {
		jg := &q.jgs[i]
		p := jg.possRet + jg.possImp + jg.possNotoccur
		f := jg.fulRet + jg.fulImp
		poss += p
		ful += f
		fulRet += jg.fulRet
		possRet += jg.possRet
		fulImp += f
		possImp += jg.possRet + jg.possImp
		if p != 0 {
			avg += ratio(f, p)
		}
		if jg.possRet != 0 {
			avgRet += ratio(jg.fulRet, jg.possRet)
		}
		if pi := jg.possRet + jg.possImp; pi != 0 {
			avgImp += ratio(f, pi)
		}
	}
	v[pNumPoss], v[pNumFul], v[pNumFulRet] = float64(poss), float64(ful), float64(fulRet)
	if poss != 0 {
		v[pSimp] = ratio(ful, poss)
	}
	if possRet != 0 {
		v[pSimpRet] = ratio(fulRet, possRet)
	}
	if possImp != 0 {
		v[pSimpImp] = ratio(fulImp, possImp)
	}
	n := float64(len(q.jgs))
	if avg > 0 {
		v[pAvgjg] = avg / n
	}
	if avgRet > 0 {
		v[pAvgjgRet] = avgRet / n
	}
	if avgImp > 0 {
		v[pAvgjgImp] = avgImp / n
	}
	v[pPair], v[pPairRet], v[pPairImp] = q.pairs()
	var err error
	if rnonrel {
		if v[pAvgjgRnonrel], err = q.rnonrel(false); err != nil {
			return v, err
		}
	}
	if rnonrelRet {
		if v[pAvgjgRnonrelRet], err = q.rnonrel(true); err != nil {
			return v, err
		}
	}
	return v, nil
}

// pairs computes prefs_pair, prefs_pair_ret and prefs_pair_imp from the
// counts array.
func (q *prefsQuery) pairs() (pair, ret, imp float64) {
	nj, njr := q.numJudged, q.numJudgedRet
	c := q.counts
	sumRet, sumImp := 0.0, 0.0
	nRet, nImp, nNot := 0, 0, 0
	for i := range njr {
		for j := i + 1; j < njr; j++ {
			if a, b := c[i*nj+j], c[j*nj+i]; a != 0 || b != 0 {
				nRet++
				sumRet += float64(a) / float64(int(a)+int(b))
			}
		}
	}
	sumImp = sumRet
	for i := range njr {
		for j := njr; j < nj; j++ {
			if a, b := c[i*nj+j], c[j*nj+i]; a != 0 || b != 0 {
				nImp++
				sumImp += float64(a) / float64(int(a)+int(b))
			}
		}
	}
	for i := njr; i < nj; i++ {
		for j := i + 1; j < nj; j++ {
			if c[i*nj+j] != 0 || c[j*nj+i] != 0 {
				nNot++
			}
		}
	}
	if n := nRet + nImp + nNot; n != 0 {
		pair = sumImp / float64(n)
	}
	if nRet != 0 {
		ret = sumRet / float64(nRet)
	}
	if n := nRet + nImp; n != 0 {
		imp = sumImp / float64(n)
	}
	return pair, ret, imp
}

// rnonrel computes prefs_avgjg_Rnonrel (ret: prefs_avgjg_Rnonrel_ret).
func (q *prefsQuery) rnonrel(ret bool) (float64, error) {
	sum := 0.0
	for i := range q.jgs {
		jg := &q.jgs[i]
		r, n := jg.numRel, jg.numNonrel
		if ret {
			r, n = jg.numRelRet, jg.numNonrelRet
		}
		if r >= n {
			var f, p int
			if ret {
				f, p = jg.fulRet, jg.possRet
			} else {
				f = jg.fulRet + jg.fulImp
				p = jg.possRet + jg.possImp + jg.possNotoccur
			}
			f += jg.numRelRet * (r - n)
			p += jg.numRel * (r - n)
			sum += ratio(f, p)
			continue
		}
		f, p, err := q.recalcRnonrel(jg, ret)
		if err != nil {
			return 0, err
		}
		sum += ratio(f, p)
	}
	if sum > 0 {
		return sum / float64(len(q.jgs)), nil
	}
	return 0, nil
}

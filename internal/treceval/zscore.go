package treceval

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/crmath"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// missingZScore is what trec_eval -Z prints for a value whose mean and
// standard deviation it does not find (MISSING_ZSCORE_VALUE).
const missingZScore = -1000000

// gmMin is the floor trec_eval's gm_map and gm_bpref put under a query's
// value before taking its logarithm (MIN_GEO_MEAN).
const gmMin = 0.00001

// zEntry is one line of a z-score file: query, value name, mean and
// standard deviation.
type zEntry struct {
	qid, meas    string
	mean, stddev float64
}

// zScores is a z-score file as trec_eval's get_zscores.c holds it: the
// lines sorted by query then value name, and each query's stretch of them.
type zScores struct {
	lines []zEntry
	qids  []zQuery
}

type zQuery struct {
	qid      string
	from, to int // its lines are lines[from:to]
}

// readZScores reads a z-score file of "qid measure mean stddev" lines
// (fields separated by white space), as trec_eval -Z does: mean and
// standard deviation are read as C's atof reads them.
func readZScores(f File) (*zScores, error) {
	data, err := datasets.ReadFile(f.FS, f.Name)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty z-score file (trec_eval cannot read it either)", f.Path)
	}
	z := &zScores{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		fs := strings.Fields(string(line))
		if len(fs) != 4 {
			return nil, fmt.Errorf("%s:%d: malformed z-score line %q: want qid, measure, mean and standard deviation", f.Path, i+1, line)
		}
		z.lines = append(z.lines, zEntry{fs[0], fs[1], atof(fs[2]), atof(fs[3])})
	}
	slices.SortStableFunc(z.lines, func(a, b zEntry) int {
		if c := strings.Compare(a.qid, b.qid); c != 0 {
			return c
		}
		return strings.Compare(a.meas, b.meas)
	})
	for i, l := range z.lines {
		if i == 0 || l.qid != z.lines[i-1].qid {
			z.qids = append(z.qids, zQuery{qid: l.qid, from: i})
		}
		z.qids[len(z.qids)-1].to = i + 1
	}
	return z, nil
}

// atof reads the longest prefix of s that is a number, as C's atof does
// (0 when none is).
func atof(s string) float64 {
	for n := len(s); n > 0; n-- {
		if x, err := strconv.ParseFloat(s[:n], 64); err == nil || isRange(err) {
			return x
		}
	}
	return 0
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// find returns the mean and standard deviation of value meas of query qid,
// searching as convert_zscores.c does. Its binary searches include one
// entry past the end of the range searched: past a query's lines that is
// the next query's first line, which trec_eval then uses; past the end of
// the file trec_eval reads unallocated memory (and usually crashes), where
// lasagna finds nothing (docs/metrics.md, "trec_eval's flags").
func (z *zScores) find(qid, meas string) (zEntry, bool) {
	start, end := 0, len(z.qids)
	q := -1
	for start <= end {
		cur := (start + end) / 2
		if cur >= len(z.qids) {
			break
		}
		switch c := strings.Compare(qid, z.qids[cur].qid); {
		case c < 0:
			end = cur - 1
		case c > 0:
			start = cur + 1
		default:
			q = cur
		}
		if q >= 0 {
			break
		}
	}
	if q < 0 {
		return zEntry{}, false
	}
	base := z.qids[q].from
	start, end = 0, z.qids[q].to-base
	for start <= end {
		cur := (start + end) / 2
		if base+cur >= len(z.lines) {
			break
		}
		switch c := strings.Compare(meas, z.lines[base+cur].meas); {
		case c < 0:
			end = cur - 1
		case c > 0:
			start = cur + 1
		default:
			return z.lines[base+cur], true
		}
	}
	return zEntry{qid: qid}, false
}

// convert is te_convert_to_zscore for one value.
func (z *zScores) convert(qid, name string, v float64) float64 {
	e, ok := z.find(qid, name)
	switch {
	case !ok:
		return missingZScore
	case e.stddev != 0:
		return (v - e.mean) / e.stddev
	case v == e.mean:
		return 0
	}
	return missingZScore
}

// zValue is one value of a measure, as trec_eval names it (P_5,
// iprec_at_recall_0.10).
type zValue struct {
	name string
	v    float64
}

// measureValues lists the values of measure name for one query, in
// trec_eval's order: what -Z converts. runid, num_q and relstring are not
// converted (printed as they are) and have none.
func measureValues(name string, m *metrics.TrecMeasures, sel *Selection, opts *metrics.TrecOptions) []zValue {
	one := func(v float64) []zValue { return []zValue{{sel.printName(name), v}} }
	cuts := func(ks []int, vs []float64) []zValue {
		out := make([]zValue, len(ks))
		for j, k := range ks {
			out[j] = zValue{name + "_" + strconv.Itoa(k), vs[j]}
		}
		return out
	}
	fcuts := func(ks, vs []float64) []zValue {
		out := make([]zValue, len(ks))
		for j, k := range ks {
			out[j] = zValue{name + "_" + strconv.FormatFloat(k, 'f', 2, 64), vs[j]}
		}
		return out
	}
	switch name {
	case "num_ret":
		return one(float64(m.NumRet))
	case "num_rel":
		return one(float64(m.NumRel))
	case "num_rel_ret":
		return one(float64(m.NumRelRet))
	case "num_nonrel_judged_ret":
		return one(float64(m.NumNonrelJudgedRet))
	case "gm_map": // a query's value is the logarithm (m_gm_map.c)
		return one(crmath.Log(max(m.MAP, gmMin)))
	case "gm_bpref":
		return one(crmath.Log(max(m.Bpref, gmMin)))
	case "iprec_at_recall":
		return fcuts(opts.IPrecAtRecall, m.IPrecAtRecall)
	case "Rprec_mult":
		return fcuts(opts.RPrecMult, m.RPrecMult)
	case "P":
		return cuts(opts.P, m.P)
	case "recall":
		return cuts(opts.Recall, m.Recall)
	case "ndcg_cut":
		return cuts(opts.NDCGCut, m.NDCGCut)
	case "map_cut":
		return cuts(opts.MAPCut, m.MAPCut)
	case "relative_P":
		return cuts(opts.RelativeP, m.RelativeP)
	case "success":
		return cuts(opts.Success, m.Success)
	case "unj":
		return cuts(opts.Unj, m.Unj)
	}
	f, ok := scalarMeasures[name]
	if !ok {
		return nil
	}
	return one(f(m))
}

// writeZScores writes trec_eval -Z's output: each query's values converted
// to z-scores against z (printed "Z" then the name padded to 22, %6.4f),
// and the summary of the converted values (sums for the counts, means for
// the rest; gm_map and gm_bpref convert each query's logarithm, then take
// the exponential of their mean), as trec_eval accumulates them. runid and relstring are printed as usual.
func writeZScores(out io.Writer, ev *metrics.TrecRun, tag string, sel *Selection, opts *metrics.TrecOptions, z *zScores, perQuery, summary bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	var o trecLine
	zline := func(qid, name string, v float64) {
		o.b = append(append(o.b[:0], 'Z'), padName(name)...) // "Z%-22s"
		o.float(w, qid, v)
	}
	acc := map[string]float64{}
	for i := range ev.Queries {
		q := &ev.Queries[i]
		for _, tm := range trecMeasures {
			if !sel.on[tm.name] {
				continue
			}
			if tm.name == "relstring" && perQuery {
				writeTrecBlock(w, q.ID, relstringQuery(q, sel, opts), &Selection{on: map[string]bool{"relstring": true}, relstringParam: sel.relstringParam}, opts, tag, 0, false)
			}
			for _, v := range measureValues(tm.name, &q.TrecMeasures, sel, opts) {
				zv := z.convert(q.ID, v.name, v.v)
				acc[v.name] += zv
				if perQuery && !tm.summaryOnly {
					zline(q.ID, v.name, zv)
				}
			}
		}
	}
	if !summary {
		return w.Flush()
	}
	n := float64(ev.NumQ)
	for _, tm := range trecMeasures {
		if !sel.on[tm.name] || tm.perQueryOnly {
			continue
		}
		switch tm.name {
		case "runid":
			o.name("runid", "", 0)
			o.str(w, "all", tag)
			continue
		case "num_q":
			zline("all", "num_q", n)
			continue
		case "num_rel":
			if ev.Averaging == metrics.AverageComplete {
				zline("all", "num_rel", float64(ev.Summary.NumRel)) // m_num_rel.c recounts the qrels
				continue
			}
		}
		for _, v := range measureValues(tm.name, &ev.Summary, sel, opts) {
			s := acc[v.name]
			switch {
			case tm.summaryOnly: // gm_map, gm_bpref: missing queries add the floor
				s = crmath.Exp((s + (n-float64(len(ev.Queries)))*crmath.Log(gmMin)) / n)
			case tm.name == "num_ret" || tm.name == "num_rel" || tm.name == "num_rel_ret" || tm.name == "num_nonrel_judged_ret":
			default:
				s /= n
			}
			zline("all", v.name, s)
		}
	}
	return w.Flush()
}

// padName is name padded with spaces to 22 bytes, as %-22s does.
func padName(name string) string {
	if len(name) >= 22 {
		return name
	}
	return name + strings.Repeat(" ", 22-len(name))
}

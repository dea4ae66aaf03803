package treceval

import (
	"bufio"
	"math"
	"strconv"

	"github.com/lasagna-go/lasagna/internal/metrics"
)

// trecLine formats one line of trec_eval's output, as its printf formats
// "%-22s\t%s\t%6.4f\n" (or %d, %s) do: strconv rounds a float's exact
// value to the nearest with ties to even, as C's printf does. NaN and the
// infinities are spelt as glibc spells them: trec_eval's only NaN is a 0/0
// (Rndcg at -l 0, docs/metrics.md), which x86-64 makes a negative NaN,
// printed "-nan"; infinities are "inf" and "-inf".
type trecLine struct{ b []byte }

// name starts the line with name, then sep and k when sep is not empty
// ("P" "_" 10: P_10); the caller may append more before the value.
func (o *trecLine) name(name, sep string, k int) {
	o.b = append(o.b[:0], name...)
	if sep != "" {
		o.b = append(o.b, sep...)
		if k > 0 {
			o.b = strconv.AppendInt(o.b, int64(k), 10)
		}
	}
}

// pad pads the name to 22 bytes and adds the query id.
func (o *trecLine) pad(qid string) {
	for len(o.b) < 22 {
		o.b = append(o.b, ' ')
	}
	o.b = append(o.b, '\t')
	o.b = append(o.b, qid...)
	o.b = append(o.b, '\t')
}

func (o *trecLine) float(w *bufio.Writer, qid string, v float64) {
	o.pad(qid)
	at := len(o.b)
	switch {
	case math.IsNaN(v):
		o.b = append(o.b, "-nan"...)
	case math.IsInf(v, 1):
		o.b = append(o.b, "inf"...)
	case math.IsInf(v, -1):
		o.b = append(o.b, "-inf"...)
	default:
		o.b = strconv.AppendFloat(o.b, v, 'f', 4, 64)
	}
	if n := len(o.b) - at; n < 6 { // %6.4f: right-aligned in 6 (-nan, inf)
		o.b = append(o.b, "      "[:6-n]...)
		copy(o.b[at+6-n:], o.b[at:at+n])
		copy(o.b[at:], "      "[:6-n])
	}
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

func (o *trecLine) int(w *bufio.Writer, qid string, v int) {
	o.pad(qid)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

func (o *trecLine) str(w *bufio.Writer, qid, v string) {
	o.pad(qid)
	o.b = append(o.b, v...)
	o.b = append(o.b, '\n')
	_, _ = w.Write(o.b)
}

// writeTrecBlock prints one query's (or the summary's) selected measures in
// trec_eval's order and format.
func writeTrecBlock(w *bufio.Writer, qid string, m *metrics.TrecMeasures, sel *Selection, opts *metrics.TrecOptions, tag string, numQ int, isSummary bool) {
	var o trecLine
	long := func(name string, v int) { o.name(name, "", 0); o.int(w, qid, v) }
	float := func(name string, v float64) { o.name(name, "", 0); o.float(w, qid, v) }
	cuts := func(name string, ks []int, vs []float64) {
		for j, k := range ks {
			o.name(name, "_", k)
			o.float(w, qid, vs[j])
		}
	}
	fcuts := func(name string, ks []float64, vs []float64) {
		for j, k := range ks {
			o.name(name, "_", 0)
			o.b = strconv.AppendFloat(o.b, k, 'f', 2, 64) // %3.2f: always 4 bytes or more
			o.float(w, qid, vs[j])
		}
	}
	for _, tm := range trecMeasures {
		if !sel.on[tm.name] || (tm.summaryOnly && !isSummary) || (tm.perQueryOnly && isSummary) {
			continue
		}
		switch tm.name {
		case "runid":
			o.name("runid", "", 0)
			o.str(w, qid, tag)
		case "num_q":
			long("num_q", numQ)
		case "num_ret":
			long("num_ret", m.NumRet)
		case "num_rel":
			long("num_rel", m.NumRel)
		case "num_rel_ret":
			long("num_rel_ret", m.NumRelRet)
		case "gm_map":
			float("gm_map", m.GMMAP)
		case "iprec_at_recall":
			fcuts("iprec_at_recall", opts.IPrecAtRecall, m.IPrecAtRecall)
		case "P":
			cuts("P", opts.P, m.P)
		case "recall":
			cuts("recall", opts.Recall, m.Recall)
		case "gm_bpref":
			float("gm_bpref", m.GMBpref)
		case "Rprec_mult":
			fcuts("Rprec_mult", opts.RPrecMult, m.RPrecMult)
		case "ndcg_cut":
			cuts("ndcg_cut", opts.NDCGCut, m.NDCGCut)
		case "map_cut":
			cuts("map_cut", opts.MAPCut, m.MAPCut)
		case "relative_P":
			cuts("relative_P", opts.RelativeP, m.RelativeP)
		case "success":
			cuts("success", opts.Success, m.Success)
		case "relstring":
			name := "relstring"
			if sel.relstringParam != "" {
				name += "_" + sel.relstringParam
			}
			o.name(name, "", 0)
			o.str(w, qid, "'"+m.RelString+"'")
		case "num_nonrel_judged_ret":
			long("num_nonrel_judged_ret", m.NumNonrelJudgedRet)
		case "unj":
			cuts("unj", opts.Unj, m.Unj)
		default:
			if f, ok := scalarMeasures[tm.name]; ok {
				float(sel.printName(tm.name), f(m))
			}
		}
	}
}

// scalarMeasures are the measures that are one number a query, read the
// same way for printing and for -Z (measureValues).
var scalarMeasures = map[string]func(*metrics.TrecMeasures) float64{
	"map":            func(m *metrics.TrecMeasures) float64 { return m.MAP },
	"Rprec":          func(m *metrics.TrecMeasures) float64 { return m.RPrec },
	"bpref":          func(m *metrics.TrecMeasures) float64 { return m.Bpref },
	"recip_rank":     func(m *metrics.TrecMeasures) float64 { return m.RecipRank },
	"utility":        func(m *metrics.TrecMeasures) float64 { return m.Utility },
	"11pt_avg":       func(m *metrics.TrecMeasures) float64 { return m.Avg11pt },
	"dcg":            func(m *metrics.TrecMeasures) float64 { return m.DCG },
	"ideal_dcg":      func(m *metrics.TrecMeasures) float64 { return m.IdealDCG },
	"ndcg":           func(m *metrics.TrecMeasures) float64 { return m.NDCG },
	"infAP":          func(m *metrics.TrecMeasures) float64 { return m.InfAP },
	"rbp":            func(m *metrics.TrecMeasures) float64 { return m.RBP },
	"rbp_resid":      func(m *metrics.TrecMeasures) float64 { return m.RBPResid },
	"binG":           func(m *metrics.TrecMeasures) float64 { return m.BinG },
	"G":              func(m *metrics.TrecMeasures) float64 { return m.G },
	"ndcg_rel":       func(m *metrics.TrecMeasures) float64 { return m.NDCGRel },
	"Rndcg":          func(m *metrics.TrecMeasures) float64 { return m.RNDCG },
	"set_P":          func(m *metrics.TrecMeasures) float64 { return m.SetP },
	"set_relative_P": func(m *metrics.TrecMeasures) float64 { return m.SetRelativeP },
	"set_recall":     func(m *metrics.TrecMeasures) float64 { return m.SetRecall },
	"set_map":        func(m *metrics.TrecMeasures) float64 { return m.SetMAP },
	"set_F":          func(m *metrics.TrecMeasures) float64 { return m.SetF },
	"yaap":           func(m *metrics.TrecMeasures) float64 { return m.Yaap },
}

// Package htmlreport writes a results bundle as one self-contained HTML
// file: the benchmark's identity and provenance, the integrity findings,
// each arm's mean with its confidence interval and its per-query
// distribution as plots, paired comparisons (within the bundle or against
// a baseline bundle) with the per-query differences, and a sortable,
// filterable per-query table.
//
// The file makes no request to any other host (a Content-Security-Policy
// forbids it), so it opens offline from a CI artifact. The plots are
// inline SVG written by this package itself (no plotting library, no
// script): each has a title and a description for screen readers,
// labelled axes with ticks, and a tooltip on every mark, and the same
// bundle gives the same bytes. A bounded metric's axis spans its range
// (results.MetricRange: [0, 1] for recall, nDCG, …). The package links no
// third-party module beyond what evaltest links, only the standard
// library's html/template besides, so adding the reporter to a test costs
// little compile time (BENCHMARKS.md, "HTML report: cold compile with and
// without htmlreport").
package htmlreport

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// Input is one bundle to report, under a label (the arms of several
// bundles are told apart by it; "" for a single bundle).
type Input struct {
	Label  string
	Bundle *results.Bundle
}

// Options tune a report. The zero value reports the bundle alone.
type Options struct {
	// Baseline, when set, is compared with the reported bundle arm by arm
	// (arms paired by benchmark and name), as `results compare` does.
	Baseline *results.Bundle
	// Data are the benchmarks the bundle ran on: with them the per-query
	// table shows each question and its reference answers, and marks the
	// relevant documents of each ranked list.
	Data []*lasagna.Benchmark
	// Metrics are the metrics plotted and compared; nil means
	// reporters.SummaryMetrics, then every other metric scored that is not
	// a ranked retrieval metric or latency (the judge's, rubrics', scorers'
	// and answer metrics, in sorted order), so that a judge metric shows
	// its calibration and a scorer's metric its plot. The comparisons
	// test the metrics given, or with nil each pair's gate metrics
	// (results.GateMetrics), as results compare and the regression gate
	// do, so the report prints the p-values they print.
	Metrics []string
	// Title heads the page; "" means "lasagna report".
	Title string
	// Links are shown above the title (lasagna serve's way back to its
	// pages); nil for a report file.
	Links []Link
}

// Link is a link shown above a report's title.
type Link struct {
	Text, URL string
}

// Reporter writes the HTML report of each bundle it is given, as a
// reporters.Reporter: add it to evaltest.Config.Reporters to get the
// report beside the bundle, named after it (lasagna-pkg-TestRAG.html
// beside lasagna-pkg-TestRAG.json), so that the reports of two tests, or
// of the shards of one, never overwrite each other. It is a
// reporters.FileReporter: evaltest logs the report's path.
type Reporter struct {
	// Path is the file to write; "" means the bundle's own path
	// (reporters.BundlePath) with ".html" for its extension, or an error
	// when that is unknown.
	Path string
	Options
}

// File returns the path Report writes under ctx: r.Path, else the
// bundle's path (reporters.BundlePath) with ".html" for its extension,
// else "".
func (r Reporter) File(ctx context.Context) string {
	if r.Path != "" {
		return r.Path
	}
	bp := reporters.BundlePath(ctx)
	if bp == "" {
		return ""
	}
	return strings.TrimSuffix(bp, filepath.Ext(bp)) + ".html"
}

// Report writes b's report to r.File(ctx).
func (r Reporter) Report(ctx context.Context, b *results.Bundle) error {
	path := r.File(ctx)
	if path == "" {
		return errors.New("htmlreport: no Path, and the bundle's own path is unknown: set Reporter.Path")
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		return Write(w, []Input{{Bundle: b}}, r.Options)
	})
}

//go:embed report.html.tmpl
var pageSource string

// page parses the report template on first use, not at package init: every
// lasagna command links this package, and few write a report.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"num": func(x float64) string { return reporters.FormatNumber(x, 4) },
		"signed": func(x float64) string {
			return reporters.FormatSigned(x, 4)
		},
		"p": reporters.FormatP,
	}).Parse(pageSource))
})

// Write renders the report of ins to w.
func Write(w io.Writer, ins []Input, o Options) error {
	if len(ins) == 0 {
		return errors.New("htmlreport: no bundle to report")
	}
	v, err := build(ins, o)
	if err != nil {
		return err
	}
	return page().Execute(w, v)
}

// view is what the template renders.
type view struct {
	Title       string
	Links       []Link
	Bundles     []bundleView
	Findings    []finding
	Metrics     []metricView
	Slices      []sliceView
	Comparisons []comparisonView
	Changes     []changeGroup
	Refusals    []string
	Columns     []string
	Rows        []rowView
	// MultiBench is set when the arms ran on several benchmarks: the
	// per-query table gets a benchmark column.
	MultiBench bool
	HasData    bool
	HasAnswers bool
	PageSize   int
}

type bundleView struct {
	Label, RunID, Schema, Version string
	Configs                       []configView
}

type configView struct {
	Arm, Benchmark, Key, Mode, Provenance string
	Varied                                string
}

type finding struct {
	Blocking          bool
	Code, Where, Text string
}

type metricView struct {
	Name         string
	MeanSVG      template.HTML
	DistSVG      template.HTML
	NotAvailable []string // arms without this metric
	Marks        int      // dots drawn in MeanSVG
	// Calibrations are the judge calibration records of the arms whose
	// judge scores this metric; Uncalibrated the arms whose judge has none.
	Calibrations []calibView
	Uncalibrated []string
}

// sliceView is one row of the slices table: one metric over the queries
// of one value of a sliced query property (a result's metric_slices).
type sliceView struct {
	Arm, Benchmark, Slice, Metric string
	N                             int
	Mean, CILow, CIHigh           float64
}

type comparisonView struct {
	Benchmark, Arm, Baseline, Metric string
	MDE                              string // "0.061 at n=44", or ""
	// Bench is the benchmark's short name when the report has several
	// benchmarks ("" with one): it heads the comparison's verdict.
	Bench                    string
	Mean, BaselineMean, Diff float64
	Dz                       string
	HolmP                    float64
	Family                   int // comparisons in HolmP's family
	N                        int
	Significant              bool
	Verdict                  string
	DiffSVG                  template.HTML
}

// changeGroup is the per-query changes of one benchmark's comparisons
// against the baseline bundle (results.Pair.QueryChanges).
type changeGroup struct {
	Benchmark string
	Rows      []changeView
	// Hidden counts the changed queries left out (changesShown per
	// comparison).
	Hidden int
}

type changeView struct {
	Benchmark, Arm, Baseline, Metric, Query, Question string
	Before, After, Change                             float64
	// Lost and Gained are space-separated ids; Answers says the row shows
	// the two answers instead (an answer metric).
	Lost, Gained              string
	Answers                   bool
	BeforeAnswer, AfterAnswer string
}

// changesShown is how many changed queries of each comparison the report
// lists, worst first.
const changesShown = 100

type rowView struct {
	Bench, Arm, Query, Question, Answer, Gold, Error string
	Scores                                           []cell
	Ranked                                           []hit
	More                                             int
}

type cell struct {
	Text  string
	Value string // for sorting; "" when absent
}

type hit struct {
	ID       string
	Relevant bool
}

// pageSize is how many rows of the per-query table show at a time.
const pageSize = 200

// rankedShown is how many hits of each ranked list the table shows.
const rankedShown = 10

func build(ins []Input, o Options) (*view, error) {
	v := &view{Title: o.Title, Links: o.Links, PageSize: pageSize}
	if v.Title == "" {
		v.Title = "lasagna report"
	}
	var arms []results.ArmResult
	for _, in := range ins {
		b := in.Bundle
		prefix := ""
		if in.Label != "" {
			prefix = in.Label + ": "
		}
		bv := bundleView{Label: in.Label, RunID: b.RunID, Schema: b.SchemaVersion, Version: b.Experiment.Environment.LasagnaVersion}
		for _, c := range b.Configs {
			prov := string(c.HeldFixed.CorpusProvenance)
			if prov == "" {
				prov = string(lasagna.ProvenanceNative)
			}
			bv.Configs = append(bv.Configs, configView{
				Arm: prefix + c.Name, Benchmark: c.Benchmark, Key: c.ComparabilityKey,
				Mode: string(c.HeldFixed.ResolvedMode), Provenance: prov, Varied: strings.Join(c.VariedDimensions, ", "),
			})
		}
		v.Bundles = append(v.Bundles, bv)
		v.Findings = append(v.Findings, findings(b)...)
		arms = append(arms, results.Arms(b, prefix)...)
	}
	slices.SortStableFunc(v.Findings, func(a, b finding) int {
		switch {
		case a.Blocking == b.Blocking:
			return 0
		case a.Blocking:
			return -1
		}
		return 1
	})

	mets := o.Metrics
	if mets == nil {
		mets = defaultMetrics(ins)
	}
	var baseArms []results.ArmResult
	if o.Baseline != nil {
		baseArms = results.Arms(o.Baseline, "baseline: ")
	}
	plotted := append(slices.Clone(arms), baseArms...)
	// With several benchmarks, every row that names an arm names its
	// benchmark too.
	benchOf := benchLabels(plotted)
	v.MultiBench = benchOf != nil
	for _, m := range mets {
		v.Metrics = append(v.Metrics, withCalibration(metricPlots(m, plotted, benchOf), plotted))
	}
	for _, a := range arms {
		for _, sl := range a.Result.Slices {
			for _, m := range mets {
				if st, ok := sl.MetricStats[m]; ok {
					v.Slices = append(v.Slices, sliceView{Arm: a.Label, Benchmark: a.Config.Benchmark, Slice: sl.Key + "=" + sl.Value, Metric: m,
						N: st.N, Mean: st.Mean, CILow: st.CILow, CIHigh: st.CIHigh})
				}
			}
		}
	}

	// Comparisons: against the baseline bundle, or the first arm of each
	// benchmark.
	var pairs []results.Pair
	if o.Baseline != nil {
		pairs, _ = results.PairAcross(arms, results.Arms(o.Baseline, "baseline: "))
	} else if len(arms) > 1 {
		ps, err := results.PairWithin(arms, "")
		if err == nil {
			pairs = ps
		}
	}
	if len(pairs) > 0 {
		// The metrics chosen, or each pair's gate metrics: the families
		// results compare and the gate use (results.Compare), so the
		// report prints their p-values.
		co := results.CompareOptions{Metrics: o.Metrics}
		if o.Metrics == nil {
			co.PairMetrics = results.GateMetrics
		}
		cs := results.Compare(pairs, co)
		for i, c := range cs.Comparisons {
			cv := comparisonView{
				Benchmark: c.Benchmark, Arm: c.Arm, Baseline: c.Baseline, Metric: c.Metric,
				Mean: c.Mean, BaselineMean: c.BaselineMean, Diff: c.Stats.MeanDiff, HolmP: c.HolmP, Family: c.FamilySize,
				N: c.Stats.N, Significant: c.Significant, Verdict: c.Verdict(), Dz: "n/a", MDE: c.MDEText(), Bench: benchOf[c.Benchmark],
			}
			if !c.Stats.DzUndefined {
				cv.Dz = reporters.FormatNumber(c.Stats.Dz, 2)
			}
			title := c.Arm + " − " + c.Baseline + ": " + c.Metric
			if cv.Bench != "" {
				title = cv.Bench + ": " + title
			}
			cv.DiffSVG = template.HTML(diffPlot(title, c.Metric, pairDiffs(pairs, c), i+1))
			v.Comparisons = append(v.Comparisons, cv)
		}
		for _, r := range cs.Refusals {
			v.Refusals = append(v.Refusals, r.String())
		}
		if o.Baseline != nil {
			v.Changes = changeGroups(pairs, cs.Comparisons, o.Data)
		}
	}

	v.Columns = mets
	data := map[string]*lasagna.Benchmark{}
	for _, b := range o.Data {
		data[b.Name] = b
	}
	v.HasData = len(data) > 0
	for _, a := range arms {
		bench := data[a.Config.Benchmark]
		if bench == nil { // the same bytes under another name
			_, digest, _ := strings.Cut(a.Config.Benchmark, "@")
			for _, b := range o.Data {
				if digest != "" && strings.HasPrefix(b.Revision, digest) {
					bench = b
				}
			}
		}
		for _, s := range a.Result.PerSampleScores {
			r := rowView{Bench: benchOf[a.Config.Benchmark], Arm: a.Label, Query: s.QueryID, Error: s.Error}
			if s.Answer != nil {
				r.Answer = *s.Answer
				v.HasAnswers = true
			}
			var judged map[string]int
			if bench != nil {
				if q, ok := bench.Query(s.QueryID); ok {
					r.Question = q.Text
					r.Gold = strings.Join(q.Answers, " | ")
				}
				judged = bench.Qrels[s.QueryID]
			}
			for _, m := range mets {
				if x, ok := s.Scores[m]; ok {
					r.Scores = append(r.Scores, cell{Text: reporters.FormatNumber(x, 4), Value: fmt.Sprint(x)})
				} else {
					r.Scores = append(r.Scores, cell{Text: "—"})
				}
			}
			for i, id := range s.RetrievedIDs {
				if i == rankedShown {
					r.More = len(s.RetrievedIDs) - rankedShown
					break
				}
				r.Ranked = append(r.Ranked, hit{ID: id, Relevant: judged[id] > 0})
			}
			v.Rows = append(v.Rows, r)
		}
	}
	return v, nil
}

// changeGroups lists, benchmark by benchmark, the queries whose score
// changed in each comparison of cs (results.Pair.QueryChanges, with data
// for the questions and the relevant documents), worst first.
func changeGroups(pairs []results.Pair, cs []results.Comparison, data []*lasagna.Benchmark) []changeGroup {
	var out []changeGroup
	for _, c := range cs {
		i := slices.IndexFunc(pairs, func(p results.Pair) bool {
			return p.Arm.Label == c.Arm && p.Baseline.Label == c.Baseline && p.Arm.Config.Benchmark == c.Benchmark
		})
		if i < 0 {
			continue
		}
		g := slices.IndexFunc(out, func(g changeGroup) bool { return g.Benchmark == c.Benchmark })
		if g < 0 {
			g = len(out)
			out = append(out, changeGroup{Benchmark: c.Benchmark})
		}
		qs := pairs[i].QueryChanges(c.Metric, data)
		if len(qs) > changesShown {
			out[g].Hidden += len(qs) - changesShown
			qs = qs[:changesShown]
		}
		for _, q := range qs {
			r := changeView{Benchmark: q.Benchmark, Arm: q.Arm, Baseline: q.Baseline, Metric: q.Metric, Query: q.QueryID, Question: q.Question,
				Before: q.Before, After: q.After, Change: q.Change(), Lost: strings.Join(q.Lost, " "), Gained: strings.Join(q.Gained, " ")}
			if q.BeforeAnswer != nil || q.AfterAnswer != nil {
				r.Answers = true
				if q.BeforeAnswer != nil {
					r.BeforeAnswer = *q.BeforeAnswer
				}
				if q.AfterAnswer != nil {
					r.AfterAnswer = *q.AfterAnswer
				}
			}
			out[g].Rows = append(out[g].Rows, r)
		}
	}
	return out
}

// benchLabels returns, when arms ran on several benchmarks, each
// benchmark's label in the report: its short name ("local/faq@ea3e86b12545"
// → "faq"), or its whole name when two benchmarks share a short name; nil
// when the arms ran on one benchmark.
func benchLabels(arms []results.ArmResult) map[string]string {
	var names []string
	for _, a := range arms {
		if !slices.Contains(names, a.Config.Benchmark) {
			names = append(names, a.Config.Benchmark)
		}
	}
	if len(names) < 2 {
		return nil
	}
	short := func(n string) string {
		n, _, _ = strings.Cut(n, "@")
		if i := strings.LastIndex(n, "/"); i >= 0 {
			n = n[i+1:]
		}
		return n
	}
	count := map[string]int{}
	for _, n := range names {
		count[short(n)]++
	}
	out := map[string]string{}
	for _, n := range names {
		out[n] = short(n)
		if count[short(n)] > 1 || short(n) == "" {
			out[n] = n
		}
	}
	return out
}

// findings lists a bundle's integrity findings as code, where and text.
func findings(b *results.Bundle) []finding {
	var out []finding
	add := func(fs []results.Finding, blocking bool) {
		for _, f := range fs {
			if f.Code == "" {
				out = append(out, finding{Blocking: blocking, Text: f.String()})
				continue
			}
			out = append(out, finding{Blocking: blocking, Code: string(f.Code), Where: f.Where, Text: f.Detail})
		}
	}
	add(b.Integrity.Blocking, true)
	add(b.Integrity.Warnings, false)
	return out
}

// metricPlots draws metric m's mean plot and distribution plot over arms,
// each row labelled with its benchmark's benchOf label when the arms ran
// on several (benchOf nil: one).
func metricPlots(m string, arms []results.ArmResult, benchOf map[string]string) metricView {
	mv := metricView{Name: m}
	var ivs []interval
	var ds []distribution
	for i, a := range arms {
		st, ok := a.Result.MetricStats[m]
		mean, hasMean := a.Result.Metrics[m]
		if !hasMean {
			mv.NotAvailable = append(mv.NotAvailable, a.Label)
			continue
		}
		iv := interval{label: a.Label, bench: benchOf[a.Config.Benchmark], mean: mean, lo: mean, hi: mean, series: i}
		if ok && !math.IsNaN(st.CILow) && !math.IsNaN(st.CIHigh) {
			iv.lo, iv.hi, iv.n = st.CILow, st.CIHigh, st.N
		}
		ivs = append(ivs, iv)
		mv.Marks++
		var vals []float64
		for _, s := range a.Result.PerSampleScores {
			if x, ok := s.Scores[m]; ok && s.Error == "" {
				vals = append(vals, x)
			}
		}
		ds = append(ds, distribution{label: a.Label, bench: benchOf[a.Config.Benchmark], values: vals, series: i})
	}
	mv.MeanSVG = template.HTML(meanPlot(m, ivs))
	mv.DistSVG = template.HTML(distPlot(m, ds))
	return mv
}

// pairDiffs returns the per-query differences (arm − baseline) of c's
// metric over the queries both arms scored without error.
func pairDiffs(pairs []results.Pair, c results.Comparison) []float64 {
	for _, p := range pairs {
		if p.Arm.Label != c.Arm || p.Baseline.Label != c.Baseline || p.Arm.Config.Benchmark != c.Benchmark {
			continue
		}
		base := map[string]float64{}
		for _, s := range p.Baseline.Result.PerSampleScores {
			if x, ok := s.Scores[c.Metric]; ok && s.Error == "" {
				base[s.QueryID] = x
			}
		}
		var out []float64
		for _, s := range p.Arm.Result.PerSampleScores {
			if x, ok := s.Scores[c.Metric]; ok && s.Error == "" {
				if y, ok := base[s.QueryID]; ok {
					out = append(out, x-y)
				}
			}
		}
		return out
	}
	return nil
}

// defaultMetrics is the metrics a report shows when Options.Metrics is
// nil: reporters.SummaryMetrics of each bundle, then, in sorted order,
// every other metric a result scores except the ranked retrieval metrics
// (ndcg, recall, precision, map, hit, mrr, r_precision at any cutoff) and
// latency_ms.
func defaultMetrics(ins []Input) []string {
	var mets, rest []string
	for _, in := range ins {
		for _, m := range reporters.SummaryMetrics(in.Bundle) {
			if !slices.Contains(mets, m) {
				mets = append(mets, m)
			}
		}
	}
	for _, in := range ins {
		for _, r := range in.Bundle.Results {
			for m := range r.Metrics {
				base, _, _ := strings.Cut(m, "@")
				switch base {
				case "ndcg", "recall", "precision", "map", "hit", "mrr", "r_precision", "latency_ms":
					continue
				}
				if !slices.Contains(mets, m) && !slices.Contains(rest, m) {
					rest = append(rest, m)
				}
			}
		}
	}
	slices.Sort(rest)
	return append(mets, rest...)
}

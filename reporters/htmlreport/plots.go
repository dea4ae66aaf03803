package htmlreport

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// The three plots of the report (each arm's mean with its confidence
// interval, each arm's per-query distribution as a box plot, and the
// histogram of a comparison's per-query differences) are SVG written by
// the few functions below and inlined in the page: no plotting library
// (gonum/plot and its fonts were most of what a test with an HTML report
// compiled, see BENCHMARKS.md), no JavaScript and no request to any other
// host, so they hold under the page's Content-Security-Policy and the
// dashboard's. Each plot has a title and a description (role="img"),
// labelled axes with ticks, and a tooltip on every mark; text is escaped;
// the output is a pure function of the data. Colours are the Okabe–Ito
// palette, which stays distinguishable with the common colour-vision
// deficiencies.
var palette = []string{
	"#0072B2", // blue
	"#E69F00", // orange
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#D55E00", // vermillion
	"#F0E442", // yellow
	"#000000", // black
}

// hexColour is the fill of the i-th series.
func hexColour(i int) string { return palette[i%len(palette)] }

// The plots' geometry, in SVG user units (CSS pixels at scale 1).
const (
	plotWidth   = 560.0
	plotTop     = 32.0 // below the title
	plotRight   = 20.0
	plotBottom  = 46.0 // tick labels and the x-axis label
	rowHeight   = 28.0 // one arm in the mean and distribution plots
	charWidth   = 6.6  // an estimate of one character at font-size 12
	labelRunes  = 32   // longer arm labels are cut, their full text in a tooltip
	histLeft    = 56.0
	histHeight  = 200.0
	tickLength  = 5.0
	fontFamily  = "system-ui, -apple-system, 'Segoe UI', sans-serif"
	gridColour  = "#e6e6e6"
	axisColour  = "#444444"
	inkColour   = "#1a1a1a"
	mutedColour = "#666666"
)

// interval is one arm's mean and confidence interval.
type interval struct {
	label        string
	bench        string // the arm's benchmark, when the plot has several
	mean, lo, hi float64
	series       int // palette index
	n            int
}

// distribution is one arm's per-query values of a metric.
type distribution struct {
	label  string
	bench  string // the arm's benchmark, when the plot has several
	values []float64
	series int
}

// axis is a linear axis: its range, its ticks and how many decimals their
// labels show.
type axis struct {
	lo, hi   float64
	ticks    []float64
	decimals int
}

// niceAxis returns the axis over [lo, hi] widened to whole multiples of a
// "nice" step (1, 2, 2.5 or 5 times a power of ten) giving about five
// intervals; so [0, 1] stays [0, 1] with ticks every 0.2. An empty range is
// widened around its value first. minStep bounds the step from below (1
// for counts); 0 means none.
func niceAxis(lo, hi, minStep float64) axis {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		pad := math.Max(math.Abs(lo)*0.1, 0.5)
		lo, hi = lo-pad, hi+pad
	}
	raw := (hi - lo) / 5
	step := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*step >= raw*(1-1e-9) {
			step *= m
			break
		}
	}
	step = math.Max(step, minStep)
	var a axis
	for a.decimals < 10 {
		x := step * math.Pow10(a.decimals)
		if math.Abs(x-math.Round(x)) < 1e-6 {
			break
		}
		a.decimals++
	}
	// Ticks are rounded to the decimals they show, so 3 × 0.2 is 0.6.
	unit := math.Pow10(a.decimals)
	at := func(i float64) float64 { return math.Round(i*step*unit) / unit }
	const eps = 1e-9
	first, last := math.Floor(lo/step+eps), math.Ceil(hi/step-eps)
	a.lo, a.hi = at(first), at(last)
	for i := first; i <= last; i++ {
		a.ticks = append(a.ticks, at(i))
	}
	return a
}

// metricAxis is the axis of metric over vals: the metric's whole range
// when it is bounded (results.MetricRange: [0, 1] for recall, nDCG, …, so
// the axis of a recall plot ends at 1) and the values lie in it; otherwise
// a nice axis over the values (from 0 for a metric that cannot be
// negative).
func metricAxis(metric string, vals []float64) axis {
	lo, hi := slices.Min(vals), slices.Max(vals)
	rlo, rhi, ok := results.MetricRange(metric)
	if !ok || lo < rlo || hi > rhi {
		return niceAxis(lo, hi, 0)
	}
	if math.IsInf(rhi, 1) {
		return niceAxis(rlo, math.Max(hi, rlo), 0)
	}
	return niceAxis(rlo, rhi, 0)
}

// scale maps [lo, hi] onto the pixels [p0, p1] (p1 < p0 for a y axis).
type scale struct{ lo, hi, p0, p1 float64 }

func (s scale) at(v float64) float64 { return s.p0 + (v-s.lo)/(s.hi-s.lo)*(s.p1-s.p0) }

// svg is a plot being written.
type svg struct {
	b    strings.Builder
	w, h float64
}

// newSVG opens a w×h plot with its title (also drawn at the top) and its
// description, which says in words what the plot shows.
func newSVG(w, h float64, title, desc string) *svg {
	s := &svg{w: w, h: h}
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="12" fill="%s">`,
		px(w), px(h), px(w), px(h), esc(fontFamily), inkColour)
	s.printf("<title>%s</title><desc>%s</desc>", esc(title), esc(desc))
	s.text(w/2, 18, "middle", "plot-title", title, `font-size="13" font-weight="bold"`)
	return s
}

func (s *svg) printf(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a text element; extra is more attributes, already escaped.
func (s *svg) text(x, y float64, anchor, class, text, extra string) {
	s.printf(`<text class="%s" x="%s" y="%s" text-anchor="%s"`, class, px(x), px(y), anchor)
	if extra != "" {
		s.printf(" %s", extra)
	}
	s.printf(">%s</text>", esc(text))
}

func (s *svg) line(class string, x1, y1, x2, y2 float64, stroke string, width float64, extra string) {
	s.printf(`<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"`, class, px(x1), px(y1), px(x2), px(y2), stroke, px(width))
	if extra != "" {
		s.printf(" %s", extra)
	}
	s.printf("/>")
}

// xAxis draws the axis line along the bottom of the plot area, its ticks,
// their labels, light vertical grid lines, and the axis label.
func (s *svg) xAxis(a axis, sc scale, top, bottom float64, label string) {
	for _, t := range a.ticks {
		x := sc.at(t)
		s.line("grid", x, top, x, bottom, gridColour, 1, "")
	}
	s.line("axis x", sc.p0, bottom, sc.p1, bottom, axisColour, 1, "")
	for _, t := range a.ticks {
		x := sc.at(t)
		s.line("tick x", x, bottom, x, bottom+tickLength, axisColour, 1, "")
		s.text(x, bottom+tickLength+12, "middle", "tick-label x", tickLabel(t, a.decimals), "")
	}
	s.text((sc.p0+sc.p1)/2, bottom+tickLength+30, "middle", "axis-label x", label, "")
}

// yLabel draws the y-axis label, rotated, at the left edge.
func (s *svg) yLabel(top, bottom float64, label string) {
	y := (top + bottom) / 2
	s.text(12, y, "middle", "axis-label y", label, fmt.Sprintf(`transform="rotate(-90 12 %s)"`, px(y)))
}

// rowLabels draws one arm label per row, right-aligned before the plot
// area, cut to labelRunes with the full label as a tooltip, and the y-axis
// label "arm". With benches (one per row; nil when the rows are of one
// benchmark) each row's benchmark is drawn in a column of its own at the
// left, and the axis label is "benchmark · arm".
func (s *svg) rowLabels(labels, benches []string, left, top float64) {
	for i, l := range labels {
		y := top + (float64(i)+0.5)*rowHeight
		s.printf(`<text class="row-label" x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s<title>%s</title></text>`,
			px(left-8), px(y), esc(cut(l)), esc(l))
		if benches != nil {
			s.printf(`<text class="row-bench" x="%s" y="%s" text-anchor="start" dominant-baseline="middle" fill="%s">%s<title>%s</title></text>`,
				px(32), px(y), mutedColour, esc(cut(benches[i])), esc(benches[i]))
		}
	}
	axisLabel := "arm"
	if benches != nil {
		axisLabel = "benchmark · arm"
	}
	s.yLabel(top, top+float64(len(labels))*rowHeight, axisLabel)
}

// cut shortens a label to labelRunes, ending it with "…".
func cut(l string) string {
	if r := []rune(l); len(r) > labelRunes {
		return string(r[:labelRunes-1]) + "…"
	}
	return l
}

// rowName is a row's name in a tooltip or description: "bench · arm"
// when the plot has several benchmarks, else the arm's label.
func rowName(label, bench string) string {
	if bench == "" {
		return label
	}
	return bench + " · " + label
}

// done closes the plot and returns it.
func (s *svg) done() string {
	s.printf("</svg>")
	return s.b.String()
}

// rowPlot starts a plot with one row per label (and, with benches, a
// column of the rows' benchmarks) under an x axis for metric over vals,
// and returns it with the axis's scale.
func rowPlot(metric, title, desc string, labels, benches []string, vals []float64) (*svg, scale) {
	left := rowsLeft(labels, benches)
	bottom := plotTop + float64(len(labels))*rowHeight
	s := newSVG(plotWidth, bottom+plotBottom, title, desc)
	a := metricAxis(metric, vals)
	sc := scale{a.lo, a.hi, left, plotWidth - plotRight}
	s.xAxis(a, sc, plotTop, bottom, metric)
	s.rowLabels(labels, benches, left, plotTop)
	return s, sc
}

// rowsLeft is the left edge of the plot area of a plot with one row per
// label: room for the longest (cut) label, the benchmark column when
// there is one, and the y-axis label.
func rowsLeft(labels, benches []string) float64 {
	width := func(ls []string) float64 {
		n := 0
		for _, l := range ls {
			n = max(n, min(len([]rune(l)), labelRunes))
		}
		return float64(n) * charWidth
	}
	left := 32 + width(labels)
	if benches != nil {
		left += width(benches) + 16
	}
	return left
}

// rowBenches returns the benchmark of each row, or nil when no row names
// one (the plot is of one benchmark).
func rowBenches[T any](rows []T, bench func(T) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, bench(r))
	}
	if !slices.ContainsFunc(out, func(b string) bool { return b != "" }) {
		return nil
	}
	return out
}

// meanPlot draws each arm's mean as a dot with its confidence interval as
// a whisker, one row per arm. Arms without the metric are not drawn (the
// page lists them as not available).
func meanPlot(metric string, drawn []interval) string {
	if len(drawn) == 0 {
		return ""
	}
	var vals []float64
	labels := make([]string, len(drawn))
	var parts []string
	for i, r := range drawn {
		vals = append(vals, r.mean, r.lo, r.hi)
		labels[i] = r.label
		parts = append(parts, rowName(r.label, r.bench)+": "+intervalText(r))
	}
	title := metric + ": mean and 95% confidence interval per arm"
	desc := "One row per arm: the dot is the arm's mean " + metric + " over its queries, the whisker its 95% confidence interval. " + strings.Join(parts, "; ") + "."
	s, sc := rowPlot(metric, title, desc, labels, rowBenches(drawn, func(r interval) string { return r.bench }), vals)
	for i, r := range drawn {
		y := plotTop + (float64(i)+0.5)*rowHeight
		c := hexColour(r.series)
		x0, x1 := sc.at(r.lo), sc.at(r.hi)
		s.printf(`<g class="arm"><title>%s</title>`, esc(rowName(r.label, r.bench)+": "+intervalText(r)))
		s.line("ci", x0, y, x1, y, c, 1.5, "")
		s.line("ci-cap", x0, y-5, x0, y+5, c, 1.5, "")
		s.line("ci-cap", x1, y-5, x1, y+5, c, 1.5, "")
		s.printf(`<circle class="mean" cx="%s" cy="%s" r="4.5" fill="%s"/></g>`, px(sc.at(r.mean)), px(y), c)
	}
	return s.done()
}

// intervalText is an arm's mean, interval and n in words.
func intervalText(r interval) string {
	t := "mean " + num(r.mean)
	if r.lo != r.hi {
		t += ", 95% CI [" + num(r.lo) + ", " + num(r.hi) + "]"
	} else {
		t += ", no confidence interval"
	}
	if r.n > 0 {
		t += fmt.Sprintf(", n = %d", r.n)
	}
	return t
}

// boxStats are the parts of a box plot: the quartiles, the whiskers (the
// most extreme values within 1.5 interquartile ranges of the box) and the
// values beyond them.
type boxStats struct {
	q1, median, q3 float64
	lo, hi         float64
	outliers       []float64
}

func boxOf(values []float64) boxStats {
	v := slices.Sorted(slices.Values(values))
	b := boxStats{q1: metrics.Quantile(v, 0.25), median: metrics.Quantile(v, 0.5), q3: metrics.Quantile(v, 0.75)}
	iqr := b.q3 - b.q1
	b.lo, b.hi = b.q1, b.q3
	for _, x := range v {
		switch {
		case x < b.q1-1.5*iqr || x > b.q3+1.5*iqr:
			b.outliers = append(b.outliers, x)
		default:
			b.lo, b.hi = math.Min(b.lo, x), math.Max(b.hi, x)
		}
	}
	b.outliers = slices.Compact(b.outliers) // one mark per distinct value
	return b
}

// distPlot draws a box plot of each arm's per-query values (median,
// quartiles, whiskers to 1.5 IQR, outliers as points).
func distPlot(metric string, ds []distribution) string {
	var drawn []distribution
	var vals, labels []string
	var all []float64
	for _, d := range ds {
		if len(d.values) > 0 {
			drawn = append(drawn, d)
			all = append(all, d.values...)
			labels = append(labels, d.label)
		}
	}
	if len(drawn) == 0 {
		return ""
	}
	boxes := make([]boxStats, len(drawn))
	for i, d := range drawn {
		boxes[i] = boxOf(d.values)
		vals = append(vals, rowName(d.label, d.bench)+": "+boxText(boxes[i], len(d.values)))
	}
	title := metric + ": per-query distribution per arm"
	desc := "One box per arm over its queries' " + metric + ": the box spans the quartiles, the bar inside is the median, the whiskers reach the most extreme values within 1.5 interquartile ranges, and points beyond them are drawn alone. " + strings.Join(vals, "; ") + "."
	s, sc := rowPlot(metric, title, desc, labels, rowBenches(drawn, func(d distribution) string { return d.bench }), all)
	for i, d := range drawn {
		b := boxes[i]
		y := plotTop + (float64(i)+0.5)*rowHeight
		c := hexColour(d.series)
		s.printf(`<g class="arm"><title>%s</title>`, esc(rowName(d.label, d.bench)+": "+boxText(b, len(d.values))))
		s.line("whisker", sc.at(b.lo), y, sc.at(b.q1), y, inkColour, 1, "")
		s.line("whisker", sc.at(b.q3), y, sc.at(b.hi), y, inkColour, 1, "")
		s.line("whisker-cap", sc.at(b.lo), y-5, sc.at(b.lo), y+5, inkColour, 1, "")
		s.line("whisker-cap", sc.at(b.hi), y-5, sc.at(b.hi), y+5, inkColour, 1, "")
		s.printf(`<rect class="box" x="%s" y="%s" width="%s" height="14" fill="%s" stroke="%s"/>`,
			px(sc.at(b.q1)), px(y-7), px(sc.at(b.q3)-sc.at(b.q1)), c, inkColour)
		s.line("median", sc.at(b.median), y-7, sc.at(b.median), y+7, inkColour, 2.5, "")
		for _, x := range b.outliers {
			s.printf(`<circle class="outlier" cx="%s" cy="%s" r="2.5" fill="none" stroke="%s"/>`, px(sc.at(x)), px(y), c)
		}
		s.printf("</g>")
	}
	return s.done()
}

// boxText is a box plot's numbers in words.
func boxText(b boxStats, n int) string {
	return fmt.Sprintf("median %s, quartiles %s and %s, whiskers %s to %s, %d outlying values, n = %d",
		num(b.median), num(b.q1), num(b.q3), num(b.lo), num(b.hi), len(b.outliers), n)
}

// bin is one bar of a histogram: [lo, hi) (the last bin includes hi).
type bin struct {
	lo, hi float64
	count  int
}

// histogram bins diffs into between 5 and 30 equal bins (√n) over their
// range. When every difference is the same value v there is no range to
// split: one bin centred on v, 0.1 wide (a tenth of |v| when that is
// larger), so an all-zero comparison draws one bar around 0.
func histogram(diffs []float64) []bin {
	lo, hi := slices.Min(diffs), slices.Max(diffs)
	if lo == hi {
		w := math.Max(0.1, math.Abs(lo)/10)
		return []bin{{lo: lo - w/2, hi: lo + w/2, count: len(diffs)}}
	}
	k := max(5, min(30, int(math.Sqrt(float64(len(diffs))))))
	w := (hi - lo) / float64(k)
	bins := make([]bin, k)
	for i := range bins {
		bins[i] = bin{lo: lo + float64(i)*w, hi: lo + float64(i+1)*w}
	}
	bins[k-1].hi = hi
	for _, d := range diffs {
		i := min(k-1, int((d-lo)/w))
		bins[i].count++
	}
	return bins
}

// diffPlot draws the histogram of per-query paired differences (arm −
// baseline) of one comparison, with a dashed line at 0 (no difference).
func diffPlot(title, metric string, diffs []float64, series int) string {
	if len(diffs) == 0 {
		return ""
	}
	bins := histogram(diffs)
	lo, hi := bins[0].lo, bins[len(bins)-1].hi
	if len(bins) == 1 {
		w := hi - lo // room on both sides of the one bar
		lo, hi = lo-w/2, hi+w/2
	}
	xa := niceAxis(math.Min(lo, 0), math.Max(hi, 0), 0)
	top := 0
	var parts []string
	for _, b := range bins {
		top = max(top, b.count)
		if b.count > 0 {
			parts = append(parts, binText(b))
		}
	}
	desc := fmt.Sprintf("Histogram of the %d per-query differences in %s (arm − baseline); a dashed line marks 0, no difference. ", len(diffs), metric)
	if mn, mx := slices.Min(diffs), slices.Max(diffs); mn == mx {
		desc += fmt.Sprintf("All %d differences are %s.", len(diffs), num(mn))
	} else {
		desc += "Bars: " + strings.Join(parts, "; ") + "."
	}
	ya := niceAxis(0, float64(top), 1)
	bottom := plotTop + histHeight
	s := newSVG(plotWidth, bottom+plotBottom, title, desc)
	sx := scale{xa.lo, xa.hi, histLeft, plotWidth - plotRight}
	sy := scale{ya.lo, ya.hi, bottom, plotTop}
	for _, t := range ya.ticks {
		y := sy.at(t)
		s.line("grid", histLeft, y, plotWidth-plotRight, y, gridColour, 1, "")
		s.line("tick y", histLeft-tickLength, y, histLeft, y, axisColour, 1, "")
		s.text(histLeft-tickLength-3, y, "end", "tick-label y", tickLabel(t, ya.decimals), `dominant-baseline="middle"`)
	}
	s.line("axis y", histLeft, bottom, histLeft, plotTop, axisColour, 1, "")
	s.yLabel(plotTop, bottom, "queries")
	s.xAxis(xa, sx, plotTop, bottom, "per-query difference in "+metric)
	c := hexColour(series)
	for _, b := range bins {
		if b.count == 0 {
			continue
		}
		x0, x1, y := sx.at(b.lo), sx.at(b.hi), sy.at(float64(b.count))
		s.printf(`<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff" stroke-width="0.5"><title>%s</title></rect>`,
			px(x0), px(y), px(x1-x0), px(bottom-y), c, esc(binText(b)))
	}
	z := sx.at(0)
	s.line("zero", z, plotTop, z, bottom, inkColour, 1, `stroke-dasharray="4 3"`)
	return s.done()
}

// binText is a bar in words.
func binText(b bin) string {
	q := "queries"
	if b.count == 1 {
		q = "query"
	}
	return fmt.Sprintf("%s to %s: %d %s", num(b.lo), num(b.hi), b.count, q)
}

// px formats a coordinate: two decimals at most, the same bytes for the
// same value.
func px(x float64) string {
	x = math.Round(x*100) / 100
	if x == 0 {
		x = 0 // no "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// tickLabel formats an axis value with the axis's decimals, never "-0".
func tickLabel(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// num formats a value in a title or description as the page's tables do.
func num(x float64) string { return reporters.FormatNumber(x, 4) }

// esc escapes text for SVG inlined in HTML (element content and quoted
// attribute values).
func esc(s string) string { return html.EscapeString(s) }

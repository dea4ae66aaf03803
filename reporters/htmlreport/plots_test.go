package htmlreport

import (
	"encoding/xml"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// node is one element of a parsed plot.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n node) num(t *testing.T, name string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return x
}

// all returns the elements under n (n included) named tag with class
// class ("" for any).
func (n node) all(tag, class string) []node {
	var out []node
	if n.XMLName.Local == tag && (class == "" || n.attr("class") == class) {
		out = append(out, n)
	}
	for _, c := range n.Nodes {
		out = append(out, c.all(tag, class)...)
	}
	return out
}

// parsePlot parses an SVG plot (it must be well-formed XML) and checks
// what every plot has: role="img", a title and a description first, a
// drawn title, labelled axes.
func parsePlot(t *testing.T, s string) node {
	t.Helper()
	var n node
	if err := xml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("the plot is not well-formed XML: %v\n%s", err, s)
	}
	if n.XMLName.Local != "svg" || n.XMLName.Space != "http://www.w3.org/2000/svg" || n.attr("role") != "img" {
		t.Errorf("root <%s xmlns=%q role=%q>, want an SVG with role img", n.XMLName.Local, n.XMLName.Space, n.attr("role"))
	}
	if len(n.Nodes) < 2 || n.Nodes[0].XMLName.Local != "title" || n.Nodes[1].XMLName.Local != "desc" || n.Nodes[0].Text == "" || n.Nodes[1].Text == "" {
		t.Error("the plot does not open with a non-empty <title> and <desc>")
	}
	if len(n.all("text", "plot-title")) != 1 {
		t.Error("the plot does not draw its title")
	}
	for _, l := range n.all("text", "axis-label x") {
		if l.Text == "" {
			t.Error("empty x-axis label")
		}
	}
	if len(n.all("text", "axis-label x")) != 1 || len(n.all("text", "axis-label y")) != 1 {
		t.Error("the plot does not label both axes")
	}
	return n
}

// xTicks returns the x axis's ticks as (pixel, value) pairs from the tick
// labels, and checks that the axis line runs from the first tick to the
// last.
func xTicks(t *testing.T, n node) (px, val []float64) {
	t.Helper()
	for _, l := range n.all("text", "tick-label x") {
		v, err := strconv.ParseFloat(l.Text, 64)
		if err != nil {
			t.Fatalf("tick label %q: %v", l.Text, err)
		}
		px, val = append(px, l.num(t, "x")), append(val, v)
	}
	if len(px) < 2 {
		t.Fatalf("%d x ticks, want at least 2", len(px))
	}
	ax := n.all("line", "axis x")
	if len(ax) != 1 || ax[0].num(t, "x1") != px[0] || ax[0].num(t, "x2") != px[len(px)-1] {
		t.Errorf("the x-axis line %v does not run from the first tick to the last (%v, %v)", ax, px[0], px[len(px)-1])
	}
	return px, val
}

// dataX maps a pixel back to a value through the ticks.
func dataX(px, val []float64, x float64) float64 {
	return val[0] + (x-px[0])/(px[len(px)-1]-px[0])*(val[len(val)-1]-val[0])
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.01 }

// TestRecallAxisEndsAtOne: the x axis of a [0, 1] metric ends at 1, even
// with dots, whiskers and boxes at 1 (gonum/plot's axis ran to 1.1), and
// the marks sit at their values.
func TestRecallAxisEndsAtOne(t *testing.T) {
	ivs := []interval{
		{label: "bm25", mean: 0.93, lo: 0.87, hi: 1, series: 0, n: 47},
		{label: "dense", mean: 1, lo: 1, hi: 1, series: 1},
	}
	ds := []distribution{
		{label: "bm25", values: []float64{1, 1, 1, 0.5, 1, 0, 1, 1}, series: 0},
		{label: "dense", values: []float64{1, 1, 1}, series: 1},
	}
	for name, s := range map[string]string{"mean": meanPlot("recall@10", ivs), "distribution": distPlot("recall@10", ds)} {
		t.Run(name, func(t *testing.T) {
			n := parsePlot(t, s)
			px, val := xTicks(t, n)
			if val[0] != 0 || val[len(val)-1] != 1 {
				t.Errorf("recall@10 axis runs from %v to %v, want 0 to 1", val[0], val[len(val)-1])
			}
			if !slices.IsSorted(val) || !slices.IsSorted(px) {
				t.Errorf("ticks not increasing: %v at %v", val, px)
			}
			if name == "mean" {
				dots := n.all("circle", "mean")
				if len(dots) != 2 {
					t.Fatalf("%d dots, want 2", len(dots))
				}
				for i, d := range dots {
					if x := dataX(px, val, d.num(t, "cx")); !near(x, ivs[i].mean) {
						t.Errorf("dot %d at %v, want %v", i, x, ivs[i].mean)
					}
					if d.attr("fill") != hexColour(i) {
						t.Errorf("dot %d fill %s, want %s", i, d.attr("fill"), hexColour(i))
					}
				}
				ci := n.all("line", "ci")[0]
				if lo, hi := dataX(px, val, ci.num(t, "x1")), dataX(px, val, ci.num(t, "x2")); !near(lo, 0.87) || !near(hi, 1) {
					t.Errorf("whisker from %v to %v, want 0.87 to 1", lo, hi)
				}
			} else {
				// bm25's values sorted: 0 0.5 1 1 1 1 1 1; quartiles
				// (type 7) 0.875, 1, 1; whiskers within 1.5 IQR of the
				// box: 0.875-0.1875 … 1, so 0 and 0.5 are outliers.
				box := n.all("rect", "box")[0]
				x0 := dataX(px, val, box.num(t, "x"))
				x1 := dataX(px, val, box.num(t, "x")+box.num(t, "width"))
				if !near(x0, 0.875) || !near(x1, 1) {
					t.Errorf("bm25's box from %v to %v, want 0.875 to 1", x0, x1)
				}
				var outs []float64
				for _, c := range n.all("g", "arm")[0].all("circle", "outlier") {
					outs = append(outs, math.Round(dataX(px, val, c.num(t, "cx"))*100)/100)
				}
				if !slices.Equal(outs, []float64{0, 0.5}) {
					t.Errorf("bm25's outliers at %v, want [0 0.5]", outs)
				}
			}
		})
	}
}

// TestMetricAxis: bounded metrics span their range, others a nice range
// over their values.
func TestMetricAxis(t *testing.T) {
	for _, c := range []struct {
		metric  string
		vals    []float64
		lo, hi  float64
		nTicks  int
		labels0 string
	}{
		{"ndcg@10", []float64{0.4, 0.6}, 0, 1, 6, "0.0"},
		{"recall@100", []float64{1, 1}, 0, 1, 6, "0.0"},
		{"latency_ms", []float64{12, 180}, 0, 200, 5, "0"},
		{"my_score", []float64{-3.2, 7.1}, -5, 7.5, 6, "-5.0"}, // steps of 2.5
		{"my_score", []float64{2, 2}, 1.4, 2.6, 7, "1.4"},      // widened by 0.5 each side
		{"recall@10", []float64{0.5, 1.2}, 0.4, 1.2, 5, "0.4"}, // out of range: the values decide
	} {
		a := metricAxis(c.metric, c.vals)
		if a.lo != c.lo || a.hi != c.hi || len(a.ticks) != c.nTicks || tickLabel(a.ticks[0], a.decimals) != c.labels0 {
			t.Errorf("metricAxis(%s, %v) = [%v, %v] with ticks %v (first %q), want [%v, %v] with %d ticks (first %q)",
				c.metric, c.vals, a.lo, a.hi, a.ticks, tickLabel(a.ticks[0], a.decimals), c.lo, c.hi, c.nTicks, c.labels0)
		}
	}
	if got := tickLabel(-1e-17, 2); got != "0.00" {
		t.Errorf("tickLabel(-1e-17) = %q, want 0.00", got)
	}
}

// bars returns a histogram's bars as value ranges and counts, read back
// through the axes' tick labels.
func bars(t *testing.T, n node) (los, his []float64, counts []int) {
	t.Helper()
	px, val := xTicks(t, n)
	var ypx, yval []float64
	for _, l := range n.all("text", "tick-label y") {
		v, err := strconv.ParseFloat(l.Text, 64)
		if err != nil {
			t.Fatal(err)
		}
		ypx, yval = append(ypx, l.num(t, "y")), append(yval, v)
	}
	for _, b := range n.all("rect", "bar") {
		x, w := b.num(t, "x"), b.num(t, "width")
		los, his = append(los, dataX(px, val, x)), append(his, dataX(px, val, x+w))
		top := dataX(ypx, yval, b.num(t, "y"))
		bottom := dataX(ypx, yval, b.num(t, "y")+b.num(t, "height"))
		if !near(bottom, 0) {
			t.Errorf("a bar starts at %v queries, want 0", bottom)
		}
		counts = append(counts, int(math.Round(top)))
	}
	return los, his, counts
}

// TestAllZeroDiffHistogram: when every per-query difference is 0, the
// histogram is one bar centred on 0 over a small symmetric range, on an
// axis symmetric around 0 (gonum/plot drew one bar across 0–1), and the
// description says all differences are 0.
func TestAllZeroDiffHistogram(t *testing.T) {
	s := diffPlot("b − a: ndcg@10", "ndcg@10", make([]float64, 44), 1)
	n := parsePlot(t, s)
	los, his, counts := bars(t, n)
	if len(counts) != 1 || counts[0] != 44 {
		t.Fatalf("bars of %v queries, want one of 44", counts)
	}
	if !near(los[0], -his[0]) || his[0] <= 0 || his[0] > 0.1 {
		t.Errorf("the bar spans %v to %v, want a small range centred on 0", los[0], his[0])
	}
	_, val := xTicks(t, n)
	if !near(val[0], -val[len(val)-1]) || !slices.Contains(val, 0) {
		t.Errorf("x ticks %v: want a range symmetric around 0 with a tick at 0", val)
	}
	if desc := n.Nodes[1].Text; !strings.Contains(desc, "All 44 differences are 0.") {
		t.Errorf("description %q does not say all differences are 0", desc)
	}
	if title := n.all("rect", "bar")[0].Nodes[0].Text; title != "-0.0500 to 0.0500: 44 queries" {
		t.Errorf("bar tooltip %q", title)
	}
	// Another constant difference: one bar centred on it.
	n = parsePlot(t, diffPlot("b − a: mrr", "mrr", []float64{0.5, 0.5, 0.5}, 1))
	los, his, counts = bars(t, n)
	if len(counts) != 1 || counts[0] != 3 || !near((los[0]+his[0])/2, 0.5) || his[0]-los[0] <= 0 {
		t.Errorf("all 0.5: bars %v over [%v, %v], want one of 3 centred on 0.5", counts, los, his)
	}
}

// TestDiffHistogram: the bars cover the differences' range in equal bins,
// count every difference once, and the dashed zero line sits at 0.
func TestDiffHistogram(t *testing.T) {
	var diffs []float64
	for i := range 50 {
		diffs = append(diffs, float64(i%11-3)/10) // -0.3 … 0.7
	}
	n := parsePlot(t, diffPlot("b − a: ndcg@10", "ndcg@10", diffs, 2))
	los, his, counts := bars(t, n)
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != len(diffs) {
		t.Errorf("the bars count %d queries, want %d", total, len(diffs))
	}
	if !near(slices.Min(los), -0.3) || !near(slices.Max(his), 0.7) {
		t.Errorf("the bars span %v to %v, want -0.3 to 0.7", slices.Min(los), slices.Max(his))
	}
	// √50 = 7 bins of 1/7 (empty ones are not drawn).
	for i := range los {
		if w := his[i] - los[i]; !near(w, 1.0/7) {
			t.Errorf("bar %d is %v wide, want 1/7", i, w)
		}
	}
	for _, b := range n.all("rect", "bar") {
		if b.attr("fill") != hexColour(2) {
			t.Errorf("bar fill %s, want %s", b.attr("fill"), hexColour(2))
		}
	}
	px, val := xTicks(t, n)
	if z := n.all("line", "zero"); len(z) != 1 || !near(dataX(px, val, z[0].num(t, "x1")), 0) {
		t.Errorf("zero line %v, want one at 0", z)
	}
	if _, val := xTicks(t, n); val[0] > -0.3 || val[len(val)-1] < 0.7 {
		t.Errorf("x axis %v does not cover the differences", val)
	}
}

// TestPlotTextEscaped: an arm label with markup is text in every plot,
// and a long label is cut with the full text in its tooltip.
func TestPlotTextEscaped(t *testing.T) {
	hostile := `<script>alert("x")</script>&`
	long := strings.Repeat("very-long-arm-name-", 4)
	plots := []string{
		meanPlot("ndcg@10", []interval{{label: hostile, mean: 0.5, lo: 0.4, hi: 0.6}, {label: long, mean: 0.7, lo: 0.6, hi: 0.8, series: 1}}),
		distPlot("ndcg@10", []distribution{{label: hostile, values: []float64{0.1, 0.9}}, {label: long, values: []float64{0.5}, series: 1}}),
		diffPlot(hostile+" − base: ndcg@10", "ndcg@10", []float64{0.1, -0.2, 0.3}, 0),
	}
	for i, s := range plots {
		if strings.Contains(s, "<script") {
			t.Errorf("plot %d holds the label unescaped", i)
		}
		n := parsePlot(t, s)
		if i == 2 {
			if got := n.Nodes[0].Text; got != hostile+" − base: ndcg@10" {
				t.Errorf("diff plot title %q", got)
			}
			continue
		}
		labels := n.all("text", "row-label")
		if len(labels) != 2 || strings.TrimSpace(labels[0].Text) != hostile {
			t.Fatalf("row labels %v, want the hostile label as text", labels)
		}
		if got := strings.TrimSpace(labels[1].Text); len([]rune(got)) != labelRunes || !strings.HasSuffix(got, "…") || labels[1].Nodes[0].Text != long {
			t.Errorf("long label shown as %q (tooltip %q), want %d runes ending in … and the full label", got, labels[1].Nodes[0].Text, labelRunes)
		}
	}
}

// TestPlotsDeterministic: the same data give the same bytes, so reports of
// the same bundle can be diffed.
func TestPlotsDeterministic(t *testing.T) {
	b, _ := faqRun(t, "")
	first := render(t, []Input{{Bundle: b}}, Options{Baseline: b})
	for range 3 {
		if render(t, []Input{{Bundle: b}}, Options{Baseline: b}) != first {
			t.Fatal("two reports of one bundle differ")
		}
	}
}

package htmlreport

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"image/color"
)

// The plots are drawn by gonum.org/v1/plot and written as SVG into the page:
// a maintained Go plotting library, so the report needs no JavaScript
// charting code, no build step and no request to any other host, and the
// same code draws the dashboard's pages. Colours are the Okabe–Ito palette,
// which stays distinguishable with the common colour-vision deficiencies.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x00, 0x00, 0x00, 0xff}, // black
}

// colour returns the palette colour of the i-th series.
func colour(i int) color.RGBA { return palette[i%len(palette)] }

// hexColour is the SVG fill of the i-th series, as vgsvg writes it.
func hexColour(i int) string {
	c := colour(i)
	return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)
}

// interval is one arm's mean and confidence interval.
type interval struct {
	label        string
	mean, lo, hi float64
	series       int // palette index
	n            int
}

// svgOf renders p at w×h and returns the SVG element without the XML
// declaration (it is inlined in HTML).
func svgOf(p *plot.Plot, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

// meanPlot draws each arm's mean as a dot with its confidence interval as
// a whisker, one row per arm. Arms without the metric are not drawn (the
// page lists them as not available).
func meanPlot(metric string, drawn []interval) (string, error) {
	if len(drawn) == 0 {
		return "", nil
	}
	p := newPlot(metric+": mean and 95% confidence interval per arm", metric, "arm")
	names := make([]string, len(drawn))
	for i, r := range drawn {
		names[i] = r.label
		pts := plotter.XYs{{X: r.mean, Y: float64(i)}}
		eb, err := plotter.NewXErrorBars(xErr{pts, [][2]float64{{r.mean - r.lo, r.hi - r.mean}}})
		if err != nil {
			return "", err
		}
		eb.LineStyle.Color = colour(r.series)
		eb.LineStyle.Width = vg.Points(1.5)
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return "", err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(4)
		s.GlyphStyle.Color = colour(r.series)
		p.Add(eb, s)
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(drawn))-0.5
	padX(p)
	return svgOf(p, 6*vg.Inch, vg.Length(1.0+0.45*float64(len(drawn)))*vg.Inch)
}

// newPlot returns a plot with its title and axis labels: every plot of the
// report has all three.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	return p
}

// padX widens the x range a little so dots at the edges stay visible.
func padX(p *plot.Plot) {
	span := p.X.Max - p.X.Min
	if span == 0 {
		span = math.Max(math.Abs(p.X.Max), 1)
	}
	p.X.Min -= span * 0.05
	p.X.Max += span * 0.05
}

type xErr struct {
	plotter.XYs
	e [][2]float64
}

func (e xErr) XError(i int) (float64, float64) { return e.e[i][0], e.e[i][1] }

// distribution is one arm's per-query values of a metric.
type distribution struct {
	label  string
	values []float64
	series int
}

// distPlot draws a box plot of each arm's per-query values (median,
// quartiles, whiskers to 1.5 IQR, outliers as points).
func distPlot(metric string, ds []distribution) (string, error) {
	var drawn []distribution
	for _, d := range ds {
		if len(d.values) > 0 {
			drawn = append(drawn, d)
		}
	}
	if len(drawn) == 0 {
		return "", nil
	}
	p := newPlot(metric+": per-query distribution per arm", metric, "arm")
	names := make([]string, len(drawn))
	for i, d := range drawn {
		names[i] = d.label
		b, err := plotter.NewBoxPlot(vg.Points(14), float64(i), plotter.Values(d.values))
		if err != nil {
			return "", err
		}
		b.FillColor = colour(d.series)
		b.Horizontal = true
		p.Add(b)
	}
	p.NominalY(names...)
	padX(p)
	return svgOf(p, 6*vg.Inch, vg.Length(1.0+0.45*float64(len(drawn)))*vg.Inch)
}

// diffPlot draws the histogram of per-query paired differences (arm −
// baseline) of one comparison.
func diffPlot(title, metric string, diffs []float64, series int) (string, error) {
	if len(diffs) == 0 {
		return "", nil
	}
	p := newPlot(title, "per-query difference in "+metric, "queries")
	bins := max(5, min(30, int(math.Sqrt(float64(len(diffs))))))
	lo, hi := diffs[0], diffs[0]
	for _, d := range diffs {
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	if lo == hi {
		bins = 1
	}
	h, err := plotter.NewHist(plotter.Values(diffs), bins)
	if err != nil {
		return "", err
	}
	h.FillColor = colour(series)
	p.Add(h)
	padX(p)
	return svgOf(p, 6*vg.Inch, 2.4*vg.Inch)
}

package htmlreport

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/browsertest"
)

// browser starts the headless Chromium of the tests (browsertest.Start).
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, 1200, 900)
}

// pageEvents records what a page did wrong: console errors, uncaught
// exceptions, failed loads, and any request that is not for the file
// itself or inline data.
type pageEvents struct{ browsertest.Problems }

func (p *pageEvents) listen(t *testing.T, ctx context.Context, self string) {
	t.Helper()
	if err := p.Listen(ctx, func(u string) bool { return u == self }, false); err != nil {
		t.Fatal(err)
	}
}

// artifactDir is where screenshots go: the test's artifact folder (go
// test -artifacts keeps it), else a temporary folder.
func artifactDir(t *testing.T) string {
	return t.ArtifactDir()
}

// TestReportInBrowser opens a report of a two-arm run in headless Chromium:
// no console error, no failed or outside request; each mean plot shows one
// dot per arm; clicking a metric's column header sorts the per-query table
// by it, ascending then descending; the filter hides rows. It saves a
// screenshot to the test's artifact folder.
func TestReportInBrowser(t *testing.T) {
	ctx := browser(t)
	b, bench := faqRun(t, "")
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(render(t, []Input{{Bundle: b}}, Options{Data: []*lasagna.Benchmark{bench}, Metrics: []string{"ndcg@10", "recall@10"}})), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(path)
	var ev pageEvents
	// Start the browser (chromedp enables the log, network and runtime
	// domains of the tab) before listening to it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	ev.listen(t, ctx, url)

	var colours []string
	for i := range 2 {
		colours = append(colours, hexColour(i))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("queries"))); err != nil {
		t.Fatal(err)
	}
	// Dots drawn in each mean plot: circles filled with an arm's colour
	// that the browser lays out with a size.
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`Array.from(document.querySelectorAll("figure.means")).map(f =>
		Array.from(f.querySelectorAll("circle")).filter(c => `+jsList(colours)+`.includes(c.getAttribute("fill")) && c.getBBox().width > 0).length)`))
	if err != nil {
		t.Fatal(err)
	}
	// Every plot's text (titles, arm labels, ticks, axis labels) lies
	// inside its plot: nothing cut off at the edges.
	outside, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("svg.plot")).flatMap(s => {
		const v = s.viewBox.baseVal;
		return Array.from(s.querySelectorAll("text")).filter(e => {
			const b = e.getBBox(), m = e.getCTM(), r = s.getCTM().inverse().multiply(m);
			const p = new DOMPoint(b.x, b.y).matrixTransform(r), q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(r);
			return b.width === 0 || Math.min(p.x, q.x) < v.x || Math.min(p.y, q.y) < v.y || Math.max(p.x, q.x) > v.x + v.width || Math.max(p.y, q.y) > v.y + v.height;
		}).map(e => s.querySelector("title").textContent + ": " + JSON.stringify(e.textContent));
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(outside) > 0 {
		t.Errorf("text empty or outside its plot:\n%s", strings.Join(outside, "\n"))
	}
	screenshot, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 2}; !slices.Equal(marks, want) {
		t.Errorf("dots per mean plot = %v, want %v (one per arm)", marks, want)
	}

	// Sorting: the ndcg@10 column is the third (arm, query, question, …).
	col := 3
	if !strings.Contains(render(t, []Input{{Bundle: b}}, Options{Data: []*lasagna.Benchmark{bench}, Metrics: []string{"ndcg@10"}}), "<th data-type=\"text\">question</th>") {
		t.Fatal("the table has no question column")
	}
	values := func() []float64 {
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#queries tbody tr")).map(r => r.cells[`+strconv.Itoa(col)+`].getAttribute("data-value") || "")`))
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, s := range raw {
			if s == "" {
				continue // absent values sort last
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("cell value %q: %v", s, err)
			}
			out = append(out, x)
		}
		return out
	}
	click := chromedp.Click(chromedp.CSS(`#queries thead th:nth-child(` + strconv.Itoa(col+1) + `)`))
	if err := chromedp.Do(ctx, click); err != nil {
		t.Fatal(err)
	}
	asc := values()
	if len(asc) < 10 || !slices.IsSorted(asc) || asc[0] == asc[len(asc)-1] {
		t.Errorf("after one click the ndcg@10 column is not ascending: %v", asc)
	}
	if err := chromedp.Do(ctx, click); err != nil {
		t.Fatal(err)
	}
	desc := values()
	slices.Reverse(desc)
	if !slices.Equal(desc, asc) {
		t.Errorf("after two clicks the column is not descending")
	}

	// Filtering on one query id leaves that query's rows (one per arm).
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("filter"), bench.Queries[0].ID)); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll("#queries tbody tr")).filter(r => !r.hidden).length`))
	if err != nil {
		t.Fatal(err)
	}
	if shown != 2 {
		t.Errorf("filtering on %s shows %d rows, want 2", bench.Queries[0].ID, shown)
	}

	if problems := ev.List(); len(problems) > 0 {
		t.Errorf("the page had problems:\n%s", strings.Join(problems, "\n"))
	}
	shot := filepath.Join(artifactDir(t), "report.png")
	if err := os.WriteFile(shot, screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
}

// jsList writes ss as a JavaScript array of strings.
func jsList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// BenchmarkReport10k writes the report of a two-arm run of 10,000 queries
// (100 hits each, every retrieval metric) and opens it in headless
// Chromium: report-MB is the file size, write-ms the time to render the
// HTML in Go, and load-ms Chromium's loadEventEnd (parse, layout, the
// table script) for the file.
func BenchmarkReport10k(b *testing.B) {
	bundle := bigBundle(b, 10_000)
	dir := b.TempDir()
	path := filepath.Join(dir, "report.html")
	var size int
	start := time.Now()
	for b.Loop() {
		var buf strings.Builder
		if err := Write(&buf, []Input{{Bundle: bundle}}, Options{}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
		if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "write-ms")
	b.ReportMetric(float64(size)/1e6, "report-MB")

	bin, ok := browsertest.Find()
	if !ok {
		b.Log("no Chromium: load time not measured")
		return
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(bin), chromedp.UserDataDir(b.TempDir()), chromedp.NoSandbox)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	var loads []float64
	for range 3 {
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate("file://"+filepath.ToSlash(path)), chromedp.WaitVisible(chromedp.ID("queries"))); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { const f = () => { const n = performance.getEntriesByType("navigation")[0]; if (n && n.loadEventEnd > 0) r(n.loadEventEnd); else setTimeout(f, 50); }; f(); })`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		loads = append(loads, ms)
	}
	slices.Sort(loads)
	b.ReportMetric(loads[len(loads)/2], "load-ms")
}

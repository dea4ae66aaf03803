package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// faqRun runs two BM25 arms (stemming on and off) over the shipped FAQ
// benchmark and returns the bundle and the benchmark. hostile, when set,
// replaces the first question's text, to check escaping.
func faqRun(t testing.TB, hostile string) (*results.Bundle, *lasagna.Benchmark) {
	t.Helper()
	fsys := os.DirFS(filepath.Join("..", "..", "examples"))
	s, err := engine.ParseSweep([]byte(`benchmarks:
  - {path: data/faq.jsonl}
arms:
  - {name: bm25, retriever: bm25}
  - name: bm25-nostem
    retriever: bm25
    bm25: {stemming: false}
    varied: [bm25_stemming]
`), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := engine.LoadBenchmarks(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	if hostile != "" {
		runs[0].Benchmark.Queries[0].Text = hostile
	}
	arms, err := engine.BuiltinArms(s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(context.Background(), runs, arms, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b, runs[0].Benchmark
}

func render(t testing.TB, ins []Input, o Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, ins, o); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestReportContents checks each part of the page on a real two-arm run:
// identity, integrity, one dot per arm in each mean plot, the comparison
// with its verdict line, the per-query table with relevant ids marked, and
// "not available" for a metric no arm scored.
func TestReportContents(t *testing.T) {
	b, bench := faqRun(t, "")
	page := render(t, []Input{{Bundle: b}}, Options{Data: []*lasagna.Benchmark{bench}, Metrics: []string{"ndcg@10", "recall@10", "exact_match"}})

	for _, want := range []string{
		b.RunID, b.Configs[0].ComparabilityKey[:12], bench.Name, "POOLED_GOLD_CORPUS",
		"ndcg@10: mean and 95% confidence interval per arm", "ndcg@10: per-query distribution per arm",
		"exact_match: not available for any arm",
		`class="rel"`, bench.Queries[0].Text,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// One dot per arm, in the arm's palette colour.
	means := regexp.MustCompile(`(?s)<figure class="means" data-marks="(\d+)">(.*?)</figure>`).FindAllStringSubmatch(page, -1)
	if len(means) != 2 {
		t.Fatalf("%d mean plots, want 2 (ndcg@10, recall@10)", len(means))
	}
	for _, m := range means {
		if m[1] != "2" {
			t.Errorf("mean plot has %s marks, want 2", m[1])
		}
		if n := strings.Count(m[2], `<circle class="mean" `); n != 2 {
			t.Errorf("mean plot has %d dots, want 2", n)
		}
		for i := range 2 {
			if n := len(regexp.MustCompile(`<circle class="mean" [^>]*fill="`+hexColour(i)+`"`).FindAllString(m[2], -1)); n != 1 {
				t.Errorf("mean plot has %d dots of arm %d's colour %s, want 1", n, i, hexColour(i))
			}
		}
	}
	if !regexp.MustCompile(`(no significant difference|beats)[^<]*ndcg@10`).MatchString(page) {
		t.Error("the report lacks the ndcg@10 verdict line")
	}
	rows := strings.Count(page[strings.Index(page, `<table id="queries">`):], "<tr>") - 1
	if want := 2 * len(bench.Queries); rows != want {
		t.Errorf("per-query table has %d rows, want %d", rows, want)
	}
}

// TestReportSelfContained: no element loads anything, and the policy
// forbids every request.
func TestReportSelfContained(t *testing.T) {
	b, _ := faqRun(t, "")
	page := render(t, []Input{{Bundle: b}}, Options{})
	if !strings.Contains(page, `content="default-src 'none';`) {
		t.Error("no Content-Security-Policy forbidding requests")
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"[^"#]`).FindString(page); m != "" {
		t.Errorf("the report loads something: %s", m)
	}
}

// TestReportEscapes shows a hostile question as text.
func TestReportEscapes(t *testing.T) {
	hostile := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	b, bench := faqRun(t, hostile)
	page := render(t, []Input{{Bundle: b}}, Options{Data: []*lasagna.Benchmark{bench}})
	if strings.Contains(page, hostile) || strings.Contains(page, "<img") {
		t.Fatal("hostile text reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("hostile text is not shown as text")
	}
}

// TestReportBaseline compares a bundle with a baseline bundle: each arm is
// paired with the baseline's arm of the same name.
func TestReportBaseline(t *testing.T) {
	b, _ := faqRun(t, "")
	page := render(t, []Input{{Bundle: b}}, Options{Baseline: b, Metrics: []string{"ndcg@10"}})
	if !strings.Contains(page, "baseline: bm25") {
		t.Error("the baseline's arms are not in the report")
	}
	if !strings.Contains(page, "no significant difference: bm25 vs baseline: bm25 on ndcg@10") {
		t.Error("no verdict line against the baseline")
	}
}

// TestReporterBesideBundle writes the report beside the bundle, named
// after it, and says where (File).
func TestReporterBesideBundle(t *testing.T) {
	b, _ := faqRun(t, "")
	dir := t.TempDir()
	ctx := contextWithBundle(filepath.Join(dir, "run.json"))
	var r reporters.FileReporter = Reporter{}
	if got, want := r.File(ctx), filepath.Join(dir, "run.html"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
	if err := r.Report(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.html")); err != nil {
		t.Fatal(err)
	}
	if got := (Reporter{Path: "x/r.html"}).File(ctx); got != "x/r.html" {
		t.Errorf("File with a Path = %q", got)
	}
	if err := (Reporter{}).Report(context.Background(), b); err == nil || !strings.Contains(err.Error(), "Reporter.Path") {
		t.Errorf("no path anywhere: error %v, want one naming Reporter.Path", err)
	}
	// Two tests, or the shards of one, in one folder each get a report
	// named after their bundle.
	for _, name := range []string{"lasagna-x-TestRAG", "lasagna-x-TestOther", "lasagna-x-TestRAG-shard-2-of-2"} {
		if err := (Reporter{}).Report(contextWithBundle(filepath.Join(dir, name+".json")), b); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".html")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestEvaltestWritesReportBesideBundle: a user adds the HTML reporter to
// evaltest's Config.Reporters, gets lasagna-<pkg>-<test>.html beside the
// bundle, and the root test logs its path.
func TestEvaltestWritesReportBesideBundle(t *testing.T) {
	out := t.TempDir()
	t.Setenv("LASAGNA_OUT", out)
	ev, err := evaltest.Evaluate(context.Background(), "TestFAQ", evaltest.Config{
		Sweep:     filepath.Join("..", "..", "examples", "sweep.yaml"),
		Reporters: []reporters.Reporter{Reporter{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ev.BundlePath == "" {
		t.Fatalf("no bundle written: %+v", ev.Tests[0])
	}
	report := strings.TrimSuffix(ev.BundlePath, ".json") + ".html"
	if filepath.Base(report) != "lasagna-htmlreport-TestFAQ.html" {
		t.Errorf("report %s, want lasagna-htmlreport-TestFAQ.html", report)
	}
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), ev.Bundle.RunID) {
		t.Error("the report is not the report of this run's bundle")
	}
	if !slices.Contains(ev.Tests[0].Logs, "lasagna report: "+report) {
		t.Errorf("the root test does not log the report's path; logs:\n%s", strings.Join(ev.Tests[0].Logs, "\n"))
	}
}

// TestTwoBenchmarks: where the rows of two benchmarks meet — the plots,
// the comparisons and the per-query table — each row names its
// benchmark, and no comparison's heading appears twice.
func TestTwoBenchmarks(t *testing.T) {
	fsys := os.DirFS(filepath.Join("..", "..", "examples"))
	s, err := engine.ParseSweep([]byte(`benchmarks:
  - {path: data/faq.jsonl, n_samples: 20}
  - {path: data/glasscoins}
arms:
  - {name: bm25, retriever: bm25}
  - name: bm25-nostem
    retriever: bm25
    bm25: {stemming: false}
    varied: [bm25_stemming]
`), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := engine.LoadBenchmarks(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	arms, err := engine.BuiltinArms(s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(context.Background(), runs, arms, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, []Input{{Bundle: b}}, Options{})
	if !strings.Contains(page, `<thead><tr><th data-type="text">benchmark</th><th data-type="text">arm</th>`) {
		t.Error("the per-query table has no benchmark column")
	}
	for _, bench := range []string{"faq", "glasscoins"} {
		if !strings.Contains(page, `<td>`+bench+`</td><td>bm25</td>`) {
			t.Errorf("no per-query row of %s names its benchmark", bench)
		}
		if !strings.Contains(page, `class="row-bench"`) || !strings.Contains(page, ">"+bench+"<title>"+bench+"</title></text>") {
			t.Errorf("the plots' rows do not name %s", bench)
		}
		if !strings.Contains(page, `<p class="verdict">`+bench+`: `) {
			t.Errorf("no verdict of %s names its benchmark", bench)
		}
	}
	titles := regexp.MustCompile(`<title>([^<]* − [^<]*)</title>`).FindAllStringSubmatch(page, -1)
	seen := map[string]bool{}
	for _, m := range titles {
		if seen[m[1]] {
			t.Errorf("comparison heading %q appears twice", m[1])
		}
		seen[m[1]] = true
	}
	if len(seen) == 0 {
		t.Error("no comparison plot")
	}
	// One benchmark: no benchmark column.
	one, _ := faqRun(t, "")
	if page := render(t, []Input{{Bundle: one}}, Options{}); strings.Contains(page, `<th data-type="text">benchmark</th><th data-type="text">arm</th>`) || strings.Contains(page, "row-bench") {
		t.Error("a report of one benchmark has a benchmark column")
	}
}

// TestReportQueryChanges: against a baseline, the report lists the
// queries whose score changed, grouped by benchmark with a benchmark
// column, worst first, with the question and the relevant documents lost
// when the benchmark is given; the comparison table gives the smallest
// detectable difference.
func TestReportQueryChanges(t *testing.T) {
	base, bench := faqRun(t, "")
	raw, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	var b results.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	r := &b.Results[0]
	var worst, next string
	for i := range r.PerSampleScores {
		row := &r.PerSampleScores[i]
		if row.Scores["ndcg@10"] < 0.99 || worst != "" && next != "" {
			continue
		}
		if worst == "" {
			worst = row.QueryID
			row.Scores["ndcg@10"], row.RetrievedIDs, row.Retrieved = 0, []string{}, []results.Retrieved{}
		} else {
			next = row.QueryID
			row.Scores["ndcg@10"] = 0.5
		}
	}
	q, _ := bench.Query(worst)
	page := render(t, []Input{{Bundle: &b}}, Options{Baseline: base, Metrics: []string{"ndcg@10"}, Data: []*lasagna.Benchmark{bench}})
	i := strings.Index(page, `<table id="changes">`)
	if i < 0 {
		t.Fatal("no table of query changes")
	}
	table := page[i:]
	table = table[:strings.Index(table, "</table>")]
	row := regexp.MustCompile(`<tbody data-benchmark="` + regexp.QuoteMeta(r.BenchmarkName) + `">\n<tr><td>` + regexp.QuoteMeta(r.BenchmarkName) + `</td><td>` + r.ConfigName +
		`</td><td>baseline: ` + r.ConfigName + `</td><td>ndcg@10</td><td class="id">` + worst + `</td><td>([^<]*)</td><td class="num">1.0000</td><td class="num">0.0000</td><td class="num">-1.0000</td><td class="id">([^<]*)</td>`)
	m := row.FindStringSubmatch(table)
	if m == nil {
		t.Fatalf("the first row is not %s falling from 1 to 0:\n%s", worst, table)
	}
	if want := strings.Join(bench.Qrels.Relevant(worst), " "); m[1] != template.HTMLEscapeString(q.Text) || m[2] != want {
		t.Errorf("question %q, lost %q; want %q, %q", m[1], m[2], q.Text, want)
	}
	if !strings.Contains(table, `<td class="id">`+next+`</td>`) || strings.Index(table, next) < strings.Index(table, worst) {
		t.Errorf("%s (1 → 0.5) not listed after %s", next, worst)
	}
	if !regexp.MustCompile(`<td class="num mde" [^>]*>0\.\d+ at n=\d+</td>`).MatchString(page) {
		t.Error("no smallest detectable difference in the comparison table")
	}
}

package reporters_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

func TestJSONFileRoundTrip(t *testing.T) {
	b := exampleBundle()
	path := filepath.Join(t.TempDir(), "sub", "bundle.json")
	if err := (reporters.JSONFile{Path: path}).Report(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID == "" || got.RunID != b.RunID {
		t.Errorf("run_id read back = %q, want the written bundle's %q", got.RunID, b.RunID)
	}
	if len(got.Results) != 2 || got.Results[1].PerSampleScores[1].Error != "timeout" {
		t.Errorf("results read back = %+v", got.Results)
	}
}

func TestMarkdownAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := reporters.Markdown{Path: path}
	for range 2 {
		if err := r.Report(t.Context(), exampleBundle()); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.HasPrefix(s, "before\n### lasagna results") || strings.Count(s, "### lasagna results") != 2 {
		t.Errorf("summary file does not hold the old text then two appended summaries:\n%s", s)
	}
}

func TestMarkdownEscapesPipes(t *testing.T) {
	b := exampleBundle()
	b.Results[0].ConfigName = "a|b"
	got := reporters.MarkdownSummary(b, nil)
	if !strings.Contains(got, `| a\|b |`) {
		t.Errorf("arm name with | not escaped:\n%s", got)
	}
}

func TestSummaryMetricsFallback(t *testing.T) {
	b := &results.Bundle{Results: []results.Result{{Metrics: map[string]float64{"z": 1, "a": 1, "m": 1, "b": 1, "c": 1}}}}
	got := strings.Join(reporters.SummaryMetrics(b), ",")
	if got != "a,b,c,m" {
		t.Errorf("SummaryMetrics = %s, want a,b,c,m", got)
	}
}

func TestReporterErrors(t *testing.T) {
	ctx := context.Background()
	b := exampleBundle()
	for name, r := range map[string]reporters.Reporter{
		"json without path":            reporters.JSONFile{},
		"markdown without path":        reporters.Markdown{},
		"text without writer":          reporters.Text{},
		"markdown in a missing folder": reporters.Markdown{Path: filepath.Join(t.TempDir(), "no", "such", "f.md")},
	} {
		if err := r.Report(ctx, b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	want := errors.New("boom")
	if err := reporters.Func(func(context.Context, *results.Bundle) error { return want }).Report(ctx, b); err != want {
		t.Errorf("Func returned %v, want %v", err, want)
	}
}

// armBundle is a one-arm bundle of n queries whose ndcg@10 is base+i%3/10.
func armBundle(t *testing.T, n int, base float64) *results.Bundle {
	t.Helper()
	b := &results.Bundle{SchemaVersion: results.SchemaVersion, MetricsVersion: results.MetricsVersion,
		Configs: []results.Config{{Name: "bm25", Benchmark: "local/faq@0123456789ab", HeldFixed: results.HeldFixed{MetricsVersion: results.MetricsVersion, Benchmark: "local/faq@0123456789ab"}, VariedDimensions: []string{}, VariedLevels: map[string]string{}}}}
	r := results.Result{BenchmarkName: "local/faq@0123456789ab", ConfigName: "bm25", Metrics: map[string]float64{}}
	sum := 0.0
	for i := range n {
		x := base + float64(i%3)/10
		sum += x
		r.PerSampleScores = append(r.PerSampleScores, results.Sample{QueryID: "q" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Scores: map[string]float64{"ndcg@10": x}})
	}
	r.Metrics["ndcg@10"] = sum / float64(n)
	b.Results = []results.Result{r}
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMarkdownBaseline: the summary gains the paired deltas against the
// baseline and the verdict line results compare prints.
func TestMarkdownBaseline(t *testing.T) {
	now, base := armBundle(t, 30, 0.5), armBundle(t, 30, 0.3)
	got := reporters.MarkdownBaseline(now, base, []string{"ndcg@10"})
	for _, want := range []string{
		"#### against the baseline",
		"| local/faq@0123456789ab | bm25 | ndcg@10 | 0.4000 | 0.6000 | +0.2000 |",
		"- bm25 beats baseline bm25 by +0.200 ndcg@10",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("baseline section lacks %q:\n%s", want, got)
		}
	}
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := (reporters.Markdown{Path: path, Baseline: base}).Report(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "### lasagna results") || !strings.Contains(string(data), "beats baseline bm25") {
		t.Errorf("the Markdown reporter with a baseline wrote:\n%s", data)
	}
}

// TestSummaryMetricsChecked: the checked metrics follow the default
// columns, each once, when some result scores them; the others (a
// threshold on a metric no row has, latency_ms) get no column.
func TestSummaryMetricsChecked(t *testing.T) {
	b := &results.Bundle{Results: []results.Result{
		{Metrics: map[string]float64{"ndcg@10": 1, "mrr": 1, "ndcg@5": 1}},
		{Metrics: map[string]float64{"token_f1": 1, "judge_correctness": 1, "cites_source": 1}},
	}}
	got := strings.Join(reporters.SummaryMetrics(b, "judge_correctness", "groundedness", "mrr", "cites_source", "latency_ms", "ndcg@5", "cites_source"), ",")
	if want := "ndcg@10,mrr,token_f1,judge_correctness,cites_source,ndcg@5"; got != want {
		t.Errorf("SummaryMetrics = %s, want %s", got, want)
	}
	if table := reporters.Table(b, reporters.SummaryMetrics(b, "cites_source")); !strings.Contains(table, "cites_source") {
		t.Errorf("the table has no cites_source column:\n%s", table)
	}
}

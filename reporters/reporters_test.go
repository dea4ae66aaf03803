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

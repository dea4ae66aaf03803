package htmlreport

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/reporters"
)

// TestReportSlices: a run sliced by question_type shows one row per arm,
// slice and shown metric, with the bundle's n, mean and interval; a run
// without slices has no Slices section.
func TestReportSlices(t *testing.T) {
	fsys := os.DirFS(filepath.Join("..", "..", "examples"))
	s, err := engine.ParseSweep([]byte("benchmarks:\n  - {path: data/faq.jsonl}\narms:\n  - {name: bm25, retriever: bm25}\nslices: [question_type]\n"), "sweep.yaml")
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
	rep, err := engine.Run(context.Background(), runs, arms, engine.Options{Slices: s.Slices})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, []Input{{Bundle: b}}, Options{Metrics: []string{"ndcg@10"}})
	if !strings.Contains(page, `<h2 id="slices">Slices</h2>`) {
		t.Fatal("the report has no Slices section")
	}
	rows := regexp.MustCompile(`<tr><td>bm25</td><td>[^<]*</td><td>(question_type=[a-z]+)</td><td>ndcg@10</td><td class="num">(\d+)</td><td class="num">([0-9.]+)</td>`).FindAllStringSubmatch(page, -1)
	// The unanswerable questions have no judgements: their slice has no
	// ndcg@10, and no row.
	var scored []int
	for i, sl := range b.Results[0].Slices {
		if _, ok := sl.MetricStats["ndcg@10"]; ok {
			scored = append(scored, i)
		}
	}
	if len(rows) != len(scored) || len(scored) != 2 {
		t.Fatalf("%d slice rows, want %d (factoid, multihop)", len(rows), len(scored))
	}
	for i, j := range scored {
		sl := b.Results[0].Slices[j]
		st := sl.MetricStats["ndcg@10"]
		if rows[i][1] != sl.Key+"="+sl.Value || rows[i][3] != reporters.FormatNumber(st.Mean, 4) {
			t.Errorf("row %d: %v, bundle %s=%s mean %v", i, rows[i][1:], sl.Key, sl.Value, st.Mean)
		}
	}

	plain, _ := faqRun(t, "")
	if page := render(t, []Input{{Bundle: plain}}, Options{}); strings.Contains(page, `id="slices"`) {
		t.Error("a report of an unsliced retrieval run has a Slices section")
	}
}

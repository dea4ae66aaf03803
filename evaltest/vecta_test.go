package evaltest_test

import (
	"context"
	"os"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/results"
)

// A user's retriever over its own chunk store reports each hit's chunk id,
// page and source document; on a Vecta benchmark CSV each query test
// records the chunk-, page- and document-level precision, recall and F1
// it scores as attrs, thresholds can name them, and the bundle holds them.
// A level the entry has no ground truth for is absent, not 0.
func TestVectaMetricsInEvaltest(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	fsys := fstest.MapFS{"data/drugs.csv": {Data: []byte(`id,question,answer,chunk_ids,page_nums,source_paths
e1,What is the maximum dosage of ibuprofen?,1200mg,chunk_42|chunk_87,3|4,drug_guide.pdf
e2,Who regulates OTC drugs?,The FDA,chunk_9,,drug_guide.pdf
`)}}
	type chunk struct {
		id, source string
		page       int
	}
	store := map[string][]chunk{
		"e1": {{"chunk_42", "drug_guide.pdf", 3}, {"chunk_7", "faq.pdf", 1}},
		"e2": {{"chunk_9", "drug_guide.pdf", 7}, {"chunk_3", "drug_guide.pdf", 8}},
	}
	arm := evaltest.Arm{Name: "mine", TopK: 10, OwnIndex: true, Retriever: lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		var hits []lasagna.Hit
		for i, c := range store[q.ID] {
			hits = append(hits, lasagna.Hit{ID: c.id, Score: float64(10 - i), Cite: &lasagna.Citation{ChunkID: c.id, PageNum: &c.page, SourcePath: c.source}})
		}
		return hits, nil
	})}
	ev, err := evaltest.Evaluate(t.Context(), "TestVecta", evaltest.Config{
		FS: fsys, Benchmarks: []string{"data/drugs.csv"}, Arms: []evaltest.Arm{arm},
		Thresholds: []evaltest.Threshold{evaltest.AtLeast("document_recall", 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"e1": {"chunk_precision": "0.5", "chunk_recall": "0.5", "chunk_f1": "0.5", "page_precision": "0.5", "page_recall": "0.5", "page_f1": "0.5",
			"document_precision": "0.5", "document_recall": "1", "document_f1": "0.6667"},
		"e2": {"chunk_precision": "0.5", "chunk_recall": "1", "chunk_f1": "0.6667", "page_precision": "", "page_recall": "", "page_f1": "",
			"document_precision": "1", "document_recall": "1", "document_f1": "1"},
	}
	for id, ms := range want {
		qt, ok := ev.Test("TestVecta/drugs/mine/" + id)
		if !ok {
			t.Fatalf("no test for %s", id)
		}
		for m, v := range ms {
			got, ok := qt.Attr("lasagna." + m)
			if v == "" {
				if ok {
					t.Errorf("%s: lasagna.%s = %s, want it absent (no page_nums)", id, m, got)
				}
				continue
			}
			if !ok || got != v {
				t.Errorf("%s: lasagna.%s = %q (recorded %v), want %s", id, m, got, ok, v)
			}
		}
	}
	// The ranked metrics judge the same ids against chunk_ids.
	if qt, _ := ev.Test("TestVecta/drugs/mine/e2"); qt != nil {
		if v, _ := qt.Attr("lasagna.mrr"); v != "1" {
			t.Errorf("e2: lasagna.mrr = %q, want 1", v)
		}
	}
	if ev.Failed() {
		for _, tr := range ev.Tests {
			if tr.Failed {
				t.Errorf("%s failed: %s", tr.Name, tr.Failure())
			}
		}
	}
	res := ev.Bundle.Results[0]
	if st := res.MetricStats["page_f1"]; st.N != 1 {
		t.Errorf("page_f1 over n = %d, want 1 (e2 has no pages)", st.N)
	}
	if res.Metrics["chunk_recall"] != 0.75 || res.MetricStats["chunk_recall"].N != 2 {
		t.Errorf("chunk_recall = %v over %d", res.Metrics["chunk_recall"], res.MetricStats["chunk_recall"].N)
	}
	raw, err := os.ReadFile(ev.BundlePath)
	if err != nil {
		t.Fatal(err)
	}
	if r := results.Validate(raw); r.Blocking() > 0 {
		t.Errorf("the bundle fails validation: %v", r.Problems)
	}
}

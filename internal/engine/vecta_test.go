package engine

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

const vectaCSV = `id,question,answer,chunk_ids,page_nums,source_paths
q1,What is A?,A,c1|c2,1|2,a.pdf
q2,What is B?,B,c3,,b.pdf
q3,What is C?,C,,,
`

func page(n int) *int { return &n }

// hitsArm returns an own-index arm whose retriever answers each query id
// with the hits given.
func hitsArm(name string, hits map[string][]lasagna.Hit) Arm {
	return Arm{Name: name, TopK: 10, OwnIndex: true, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			return hits[q.ID], nil
		}), nil
	}}
}

// The Vecta set metrics reach each query's scores and the bundle (rows,
// means, stats) when the benchmark has chunk_ids, page_nums or
// source_paths and the hits carry chunk ids, pages or source paths; a
// level without ground truth or without the hits' field is absent, not 0.
func TestVectaMetricsInRuns(t *testing.T) {
	fsys := fstest.MapFS{"v.csv": {Data: []byte(vectaCSV)}}
	brs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "v.csv"}}, Arms: []ArmSpec{{Name: "x", Retriever: "bm25"}}})
	if err != nil {
		t.Fatal(err)
	}
	meta := hitsArm("meta", map[string][]lasagna.Hit{
		"q1": {{ID: "x1", Score: 2, Cite: &lasagna.Citation{ChunkID: "c1", PageNum: page(1), SourcePath: "a.pdf"}}, {ID: "x9", Score: 1, Cite: &lasagna.Citation{ChunkID: "c9", PageNum: page(5), SourcePath: "z.pdf"}}},
		"q2": {{ID: "x3", Score: 1, Cite: &lasagna.Citation{ChunkID: "c3", SourcePath: "b.pdf"}}},
		"q3": {{ID: "x4", Score: 1, Cite: &lasagna.Citation{ChunkID: "c4", PageNum: page(4), SourcePath: "c.pdf"}}},
	})
	// Ids only: on a Vecta CSV the ids are chunk ids; pages and documents
	// are not reported.
	ids := hitsArm("ids", map[string][]lasagna.Hit{
		"q1": {{ID: "c2", Score: 1}},
		"q2": {},
	})
	rep, err := Run(t.Context(), brs, []Arm{meta, ids}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]map[string]float64{
		"meta": {
			"q1": {"chunk_precision": 0.5, "chunk_recall": 0.5, "chunk_f1": 0.5, "page_precision": 0.5, "page_recall": 0.5, "page_f1": 0.5,
				"document_precision": 0.5, "document_recall": 1, "document_f1": 2.0 / 3},
			"q2": {"chunk_precision": 1, "chunk_recall": 1, "chunk_f1": 1, "document_precision": 1, "document_recall": 1, "document_f1": 1},
			"q3": nil,
		},
		"ids": {
			"q1": {"chunk_precision": 1, "chunk_recall": 0.5, "chunk_f1": 2.0 / 3},
			"q2": {"chunk_precision": 0, "chunk_recall": 0, "chunk_f1": 0},
			"q3": nil,
		},
	}
	for _, c := range rep.Cells {
		for _, r := range c.Queries {
			got := map[string]float64{}
			for k, v := range r.Scores {
				if isVectaName(k) {
					got[k] = v
				}
			}
			w := want[c.Arm.Name][r.Query.ID]
			if len(got) != len(w) {
				t.Errorf("%s/%s: Vecta scores %v, want %v", c.Arm.Name, r.Query.ID, got, w)
				continue
			}
			for k, v := range w {
				if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-12 {
					t.Errorf("%s/%s: %s = %v (present %v), want %v", c.Arm.Name, r.Query.ID, k, g, ok, v)
				}
			}
		}
	}
	b, _ := validBundle(t, rep)
	for _, res := range b.Results {
		switch res.ConfigName {
		case "meta":
			if st := res.MetricStats["page_f1"]; st.N != 1 || res.Metrics["page_f1"] != 0.5 {
				t.Errorf("meta page_f1 = %v over n = %d, want 0.5 over 1", res.Metrics["page_f1"], st.N)
			}
			if st := res.MetricStats["chunk_f1"]; st.N != 2 || res.Metrics["chunk_f1"] != 0.75 {
				t.Errorf("meta chunk_f1 = %v over n = %d, want 0.75 over 2", res.Metrics["chunk_f1"], st.N)
			}
		case "ids":
			for _, m := range []string{"page_f1", "document_f1", "document_recall"} {
				if _, ok := res.Metrics[m]; ok {
					t.Errorf("ids arm reports %s, whose hits carry no %s", m, m)
				}
			}
			if st := res.MetricStats["chunk_recall"]; st.N != 2 || res.Metrics["chunk_recall"] != 0.25 {
				t.Errorf("ids chunk_recall = %v over n = %d", res.Metrics["chunk_recall"], st.N)
			}
		}
		for _, row := range res.PerSampleScores {
			if row.QueryID == "q3" {
				for k := range row.Scores {
					if isVectaName(k) {
						t.Errorf("%s/q3 (no citations) has %s", res.ConfigName, k)
					}
				}
			}
		}
	}
}

// A JSONL benchmark's metadata (JSON numbers and strings) is ground truth
// too; an arm whose hits carry none of the fields scores no Vecta metric.
func TestVectaMetricsFromJSONLMetadata(t *testing.T) {
	data := `{"id": "q1", "question": "What is A?", "answer": "A", "contexts": ["A is a letter."], "expected_docs": ["d1"], "metadata": {"page_nums": [3, 4], "source_paths": ["guide.pdf"]}}
{"id": "q2", "question": "What is B?", "answer": "B", "contexts": ["B is a letter."], "expected_docs": ["d2"]}
`
	fsys := fstest.MapFS{"m.jsonl": {Data: []byte(data)}}
	brs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "m.jsonl"}}, Arms: []ArmSpec{{Name: "x", Retriever: "bm25"}}})
	if err != nil {
		t.Fatal(err)
	}
	withPages := hitsArm("pages", map[string][]lasagna.Hit{
		"q1": {{ID: "d1", Score: 2, Cite: &lasagna.Citation{PageNum: page(3), SourcePath: "guide.pdf"}}, {ID: "d2", Score: 1, Cite: &lasagna.Citation{PageNum: page(9), SourcePath: "guide.pdf"}}},
		"q2": {{ID: "d2", Score: 1, Cite: &lasagna.Citation{PageNum: page(1)}}},
	})
	plain := hitsArm("plain", map[string][]lasagna.Hit{"q1": {{ID: "d1", Score: 1}}, "q2": {{ID: "d2", Score: 1}}})
	rep, err := Run(t.Context(), brs, []Arm{withPages, plain}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q1 := rep.Cells[0].Queries[0]
	if q1.Query.ID != "q1" || q1.Scores["page_precision"] != 0.5 || q1.Scores["page_recall"] != 0.5 || q1.Scores["document_precision"] != 1 || q1.Scores["document_recall"] != 1 {
		t.Errorf("pages/q1 scores %v", q1.Scores)
	}
	if _, ok := q1.Scores["chunk_f1"]; ok {
		t.Errorf("pages/q1 has chunk_f1 without chunk_ids: %v", q1.Scores)
	}
	for _, c := range rep.Cells {
		for _, r := range c.Queries {
			if c.Arm.Name == "pages" && r.Query.ID == "q1" {
				continue
			}
			for k := range r.Scores {
				if isVectaName(k) {
					t.Errorf("%s/%s scores %s", c.Arm.Name, r.Query.ID, k)
				}
			}
		}
	}
	// The journal keeps hits as JSON: their metadata survives it, so a
	// resumed query scores the same.
	h := lasagna.Hit{ID: "d1", Score: 2, Cite: &lasagna.Citation{ChunkID: "c", PageNum: page(0), SourcePath: "guide.pdf"}}
	raw, err := json.Marshal(h)
	var back lasagna.Hit
	if err != nil || json.Unmarshal(raw, &back) != nil || back.Cite == nil || back.Cite.ChunkID != "c" || back.Cite.PageNum == nil || *back.Cite.PageNum != 0 || back.Cite.SourcePath != "guide.pdf" {
		t.Errorf("hit JSON %s decodes to %+v (%v)", raw, back, err)
	}
	if raw, _ := json.Marshal(lasagna.Hit{ID: "d1", Score: 1}); string(raw) != `{"id":"d1","score":1}` {
		t.Errorf("a hit without metadata marshals to %s (journal bytes changed)", raw)
	}
}

func isVectaName(k string) bool {
	for _, n := range []string{"chunk_", "page_", "document_"} {
		if len(k) > len(n) && k[:len(n)] == n {
			return true
		}
	}
	return false
}

func TestMetaLists(t *testing.T) {
	var md map[string]any
	if err := json.Unmarshal([]byte(`{"a": [1, 2.0, 3], "b": [1.5], "c": ["x", 2], "d": ["x", "y"], "e": "x"}`), &md); err != nil {
		t.Fatal(err)
	}
	if got := metaInts(md["a"]); len(got) != 3 || got[1] != 2 {
		t.Errorf("metaInts(a) = %v", got)
	}
	for _, k := range []string{"b", "c", "e"} {
		if got := metaInts(md[k]); got != nil {
			t.Errorf("metaInts(%s) = %v, want nil", k, got)
		}
	}
	if got := metaStrings(md["d"]); len(got) != 2 {
		t.Errorf("metaStrings(d) = %v", got)
	}
	if got := metaStrings(md["c"]); got != nil {
		t.Errorf("metaStrings(c) = %v, want nil", got)
	}
}

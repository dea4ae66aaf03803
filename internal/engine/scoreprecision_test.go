package engine

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// TestBundleScorePrecision checks the scores in a written bundle and in
// its canonical form: a BM25 score is written with float32's shortest
// digits and reads back as the float32 the index computed; a user
// retriever's float64 score is written as given, with all its digits. The
// bundle validates (run_id recomputed).
func TestBundleScorePrecision(t *testing.T) {
	br := tinyBench(t)
	ix, err := bm25.Build(br.Benchmark.Corpus, bm25.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	bm25Arm, err := BuiltinArm(ArmSpec{Name: "bm25", Retriever: RetrieverBM25}, 10)
	if err != nil {
		t.Fatal(err)
	}
	const third = 1.0 / 3 // 0.3333333333333333, 16 digits
	user := Arm{Name: "user", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			return []lasagna.Hit{{ID: b.Corpus[0].ID, Score: third}}, nil
		}), nil
	}}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{bm25Arm, user}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, raw := validBundle(t, rep)
	canon, err := results.Canonical(raw)
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{}
	for _, q := range br.Benchmark.Queries {
		queries[q.ID] = q.Text
	}
	for form, data := range map[string][]byte{"bundle": raw, "canonical form": canon} {
		var doc struct {
			Results []struct {
				ConfigName      string `json:"config_name"`
				PerSampleScores []struct {
					QueryID   string `json:"query_id"`
					Retrieved []struct {
						ID    string      `json:"id"`
						Score json.Number `json:"score"`
					} `json:"_retrieved"`
				} `json:"per_sample_scores"`
			} `json:"results"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		checked := map[string]int{}
		for _, res := range doc.Results {
			for _, row := range res.PerSampleScores {
				var want []lasagna.Hit
				if res.ConfigName == "bm25" {
					want = ix.Search(queries[row.QueryID], 10)
				}
				for i, h := range row.Retrieved {
					text := string(h.Score)
					switch res.ConfigName {
					case "user":
						if text != "0.3333333333333333" {
							t.Errorf("%s: user score %s, want 0.3333333333333333 as given", form, text)
						}
					case "bm25":
						f32, err := strconv.ParseFloat(text, 32)
						if err != nil {
							t.Fatal(err)
						}
						if short := strconv.FormatFloat(f32, 'g', -1, 32); text != short {
							t.Errorf("%s %s %s: score written %s, want float32's shortest %s", form, row.QueryID, h.ID, text, short)
						}
						if i >= len(want) || want[i].ID != h.ID || float32(f32) != float32(want[i].Score) {
							t.Errorf("%s %s rank %d: %s %s, the index computed %v", form, row.QueryID, i+1, h.ID, text, want)
						}
					}
					checked[res.ConfigName]++
				}
			}
		}
		if checked["bm25"] < 10 || checked["user"] == 0 {
			t.Fatalf("%s: scores checked %v; want BM25 and user rows", form, checked)
		}
	}
}

package evaltest

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// TestSweepAndData: benchmarks from a sweep file (with its built-in arm and
// n_samples) and from memory run side by side.
func TestSweepAndData(t *testing.T) {
	tiny, err := fs.ReadFile(fixtures.Data, fixtures.TinyJSONL)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"evals/sweep.yaml": {Data: []byte("benchmarks:\n  - path: ../data/tiny.jsonl\n    n_samples: 4\narms:\n  - name: bm25\n    retriever: bm25\n    top_k: 10\n")},
		"data/tiny.jsonl":  {Data: tiny},
	}
	mem, err := datasets.Load(fixtures.Data, fixtures.TinyJSONL, datasets.Options{Name: "inmem"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{FS: fsys, Sweep: "evals/sweep.yaml", Data: []*lasagna.Benchmark{mem}, Cutoffs: []int{10}, AttrMetrics: []string{}}
	got, failed, _ := fakeEval(t, cfg, nil)
	if failed {
		t.Fatalf("run failed:\n%s", got)
	}
	if n := strings.Count(got, "--- PASS: TestRAG/tiny/bm25/q"); n != 4 {
		t.Errorf("the sweep's benchmark ran %d queries, want n_samples 4:\n%s", n, got)
	}
	if n := strings.Count(got, "--- PASS: TestRAG/inmem/bm25/q"); n != 12 {
		t.Errorf("the in-memory benchmark ran %d queries, want 12", n)
	}
}

// TestAnswerArms: a generator alone (gold passages) and a RAG arm; a wrong
// answer fails a per-query exact-match threshold with a -want +got answer.
func TestAnswerArms(t *testing.T) {
	gen := Arm{Name: "gen", Generator: fixtures.Echo("q04"), Thresholds: []Threshold{PerQuery(AtLeast("exact_match", 1))}}
	rag := perfectArm("rag", nil)
	rag.Generator = fixtures.Echo()
	rag.Thresholds = []Threshold{AtLeast("token_f1", 1), AtLeast("ndcg@10", 1)}
	cfg := tinyConfig(gen, rag)
	cfg.AttrMetrics = []string{"exact_match"}
	got, failed, _ := fakeEval(t, cfg, nil)
	if !failed {
		t.Fatalf("run passed; want q04 of gen to fail:\n%s", got)
	}
	want := `TestRAG/tiny/gen/q04: ERROR: data/tiny.jsonl:4: query q04 "Where was glassblowing invented?"
    exact_match = 0, want >= 1
    answer (-want +got):
      -"the Syrian coast"
      +"no idea"`
	if !strings.Contains(got, want) {
		t.Errorf("log lacks\n%s\ngot:\n%s", want, got)
	}
	if strings.Count(got, "ERROR") != 1 {
		t.Errorf("want exactly one failure:\n%s", got)
	}
	if !strings.Contains(got, "TestRAG/tiny/rag/q04: ATTR lasagna.exact_match 1") {
		t.Errorf("the RAG arm's answers were not scored:\n%s", got)
	}
}

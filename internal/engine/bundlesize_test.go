package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/results"
)

// TestBundleBytesPerKeptHit bounds the written bundle of a generated BM25
// run at depth 1,000 (issue 12's shape, smaller: 4,000 passages, 100
// queries) to 60 bytes per kept hit, and checks that it validates. The
// size is deterministic: the same run writes the same bytes.
func TestBundleBytesPerKeptHit(t *testing.T) {
	docs, queries, sources := corpusgen.ZipfJudged(4000, 100)
	var corpus, qs, qrels strings.Builder
	for _, d := range docs {
		line, _ := json.Marshal(map[string]string{"_id": d.ID, "title": "", "text": d.Text})
		corpus.Write(append(line, '\n'))
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, text := range queries {
		line, _ := json.Marshal(map[string]string{"_id": fmt.Sprintf("q%05d", i), "text": text})
		qs.Write(append(line, '\n'))
		fmt.Fprintf(&qrels, "q%05d\t%s\t1\n", i, sources[i])
	}
	fsys := fstest.MapFS{
		"zipf/corpus.jsonl":   {Data: []byte(corpus.String())},
		"zipf/queries.jsonl":  {Data: []byte(qs.String())},
		"zipf/qrels/test.tsv": {Data: []byte(qrels.String())},
	}
	runs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "zipf"}}, Arms: []ArmSpec{{Name: "bm25", Retriever: RetrieverBM25}}})
	if err != nil {
		t.Fatal(err)
	}
	arm, err := BuiltinArm(ArmSpec{Name: "bm25", Retriever: RetrieverBM25}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), runs, []Arm{arm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "run.json")
	if err := results.WriteFile(name, b); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if r := results.Validate(raw); r.Blocking() > 0 {
		t.Fatalf("the bundle fails validation: %v", r.Problems)
	}
	hits := 0
	for _, row := range b.Results[0].PerSampleScores {
		hits += len(row.Retrieved)
	}
	if hits < 100*len(queries) {
		t.Fatalf("%d kept hits for %d queries; the test wants deep lists", hits, len(queries))
	}
	if per := float64(len(raw)) / float64(hits); per > 60 {
		t.Errorf("%d bytes for %d kept hits: %.1f bytes per hit, want ≤ 60", len(raw), hits, per)
	} else {
		t.Logf("%d bytes for %d kept hits: %.1f bytes per hit", len(raw), hits, per)
	}
}

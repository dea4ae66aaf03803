package evaltest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// TestOwnIndex: a retriever over a production index returns, after the
// relevant documents, one the benchmark's corpus (a corpus file beside the
// JSONL, given with Corpora) does not hold. Marked OwnIndex the arm passes
// with an OUTSIDE_CORPUS_IDS warning; unmarked it fails with UNKNOWN_DOC_ID.
func TestOwnIndex(t *testing.T) {
	fsys := fstest.MapFS{
		"data/faq.jsonl": {Data: []byte(`{"id": "q1", "question": "What is glass made of?", "answer": "sand", "expected_docs": ["glass"]}
{"id": "q2", "question": "Who minted the solidus?", "answer": "Constantine", "expected_docs": ["solidus"]}
`)},
		"data/corpus.jsonl": {Data: []byte(`{"_id": "glass", "title": "Glass", "text": "Glass is made of sand."}
{"_id": "solidus", "title": "Solidus", "text": "Constantine minted the solidus."}
`)},
	}
	production := func(name string, own bool) Arm {
		return Arm{Name: name, OwnIndex: own, TopK: 10, Retriever: lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			relevant := map[string]string{"q1": "glass", "q2": "solidus"}[q.ID]
			return []lasagna.Hit{{ID: relevant, Score: 2}, {ID: "prod-4711", Score: 1}}, nil
		})}
	}
	cfg := func(a Arm) Config {
		return Config{FS: fsys, Benchmarks: []string{"data/faq.jsonl"}, Corpora: map[string]string{"data/faq.jsonl": "data/corpus.jsonl"},
			Arms: []Arm{a}, Cutoffs: []int{10}, AttrMetrics: []string{}, Thresholds: []Threshold{AtLeast("ndcg@10", 1)}}
	}

	got, failed, out := fakeEval(t, cfg(production("prod", true)), nil)
	if failed {
		t.Errorf("own-index arm failed:\n%s", got)
	}
	if !strings.Contains(got, "OUTSIDE_CORPUS_IDS") || !strings.Contains(got, "2 of 2 ranked lists hold ids outside the benchmark's corpus of 2 documents (2 ids in all)") {
		t.Errorf("log has no OUTSIDE_CORPUS_IDS warning with the counts:\n%s", got)
	}
	b, err := results.ReadFile(filepath.Join(out, bundleName("TestRAG", noShard)))
	if err != nil {
		t.Fatal(err)
	}
	if hf := b.Configs[0].HeldFixed; hf.CorpusProvenance != lasagna.ProvenanceOwnIndex || !strings.HasPrefix(hf.Benchmark, "local/faq@") {
		t.Errorf("held_fixed benchmark, corpus_provenance = %q, %q; want local/faq@…, own_index", hf.Benchmark, hf.CorpusProvenance)
	}

	got, failed, _ = fakeEval(t, cfg(production("prod", false)), nil)
	if !failed || !strings.Contains(got, `the ranked list holds "prod-4711", which is not in the corpus of 2 documents (UNKNOWN_DOC_ID)`) {
		t.Errorf("benchmark-corpus arm: failed = %v, want an UNKNOWN_DOC_ID failure:\n%s", failed, got)
	}

	bad := cfg(production("prod", true))
	bad.Corpora = map[string]string{"data/faq.json": "data/corpus.jsonl"}
	if got, failed, _ := fakeEval(t, bad, nil); !failed || !strings.Contains(got, `Corpora names "data/faq.json", which is not in Config.Benchmarks`) {
		t.Errorf("a Corpora key missing from Benchmarks: failed = %v:\n%s", failed, got)
	}
}

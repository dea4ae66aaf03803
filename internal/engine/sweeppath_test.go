package engine

import (
	"testing"
)

// TestSweepPathResolution: absolute paths stay as written; relative ones,
// which may climb with "..", join the sweep file's folder.
func TestSweepPathResolution(t *testing.T) {
	data := []byte("benchmarks:\n" +
		"  - {path: /data/faq.jsonl, corpus: /data/corpus.jsonl}\n" +
		"  - {path: ../data/faq.jsonl, corpus: ../../c.jsonl}\n" +
		"  - {path: faq.jsonl}\n" +
		"arms:\n  - {name: bm25, retriever: bm25}\n")
	for file, want := range map[string][][2]string{
		"evals/sweep.yaml":  {{"/data/faq.jsonl", "/data/corpus.jsonl"}, {"data/faq.jsonl", "../c.jsonl"}, {"evals/faq.jsonl", ""}},
		"/srv/evals/s.yaml": {{"/data/faq.jsonl", "/data/corpus.jsonl"}, {"/srv/data/faq.jsonl", "/c.jsonl"}, {"/srv/evals/faq.jsonl", ""}},
		"../up/s.yaml":      {{"/data/faq.jsonl", "/data/corpus.jsonl"}, {"../data/faq.jsonl", "../../c.jsonl"}, {"../up/faq.jsonl", ""}},
	} {
		s, err := ParseSweep(data, file)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range s.Benchmarks {
			if got := [2]string{e.Path, e.Corpus}; got != want[i] {
				t.Errorf("%s entry %d: path, corpus = %q, want %q", file, i, got, want[i])
			}
		}
	}
}

package datasets

import (
	"testing"

	"github.com/lasagna-go/lasagna"
)

func digestBench() *lasagna.Benchmark {
	return &lasagna.Benchmark{
		Provenance: lasagna.ProvenanceNative,
		Corpus:     []lasagna.Document{{ID: "d1", Title: "T", Text: "one"}, {ID: "d2", Text: "two"}},
		Queries:    []lasagna.Query{{ID: "q1", Text: "what?", Answers: []string{"a"}, Contexts: []string{"c"}, Metadata: map[string]any{"k": 1}}},
		Qrels:      lasagna.Qrels{"q1": {"d1": 1, "d2": 0}},
	}
}

// TestQueryDigest: every field that enters a score changes the digest;
// metadata and the file position do not.
func TestQueryDigest(t *testing.T) {
	b := digestBench()
	want := QueryDigest(b, &b.Queries[0])
	if len(want) != 64 {
		t.Fatalf("digest %q is not sha256 hex", want)
	}
	for name, edit := range map[string]func(b *lasagna.Benchmark){
		"id":      func(b *lasagna.Benchmark) { b.Queries[0].ID = "q2"; b.Qrels["q2"] = b.Qrels["q1"] },
		"text":    func(b *lasagna.Benchmark) { b.Queries[0].Text = "what!" },
		"answers": func(b *lasagna.Benchmark) { b.Queries[0].Answers = []string{"a", "b"} },
		"answer split": func(b *lasagna.Benchmark) {
			b.Queries[0].Answers = []string{""}
			b.Queries[0].Contexts = []string{"a", "c"}
		},
		"unanswerable": func(b *lasagna.Benchmark) { b.Queries[0].Unanswerable = true },
		"contexts":     func(b *lasagna.Benchmark) { b.Queries[0].Contexts = nil },
		"grade":        func(b *lasagna.Benchmark) { b.Qrels["q1"]["d1"] = 2 },
		"judged":       func(b *lasagna.Benchmark) { delete(b.Qrels["q1"], "d2") },
	} {
		b := digestBench()
		edit(b)
		if got := QueryDigest(b, &b.Queries[0]); got == want {
			t.Errorf("%s: changing it leaves the digest", name)
		}
	}
	b = digestBench()
	b.Queries[0].Metadata = nil
	b.Queries[0].Pos = lasagna.Pos{File: "x.jsonl", Line: 9}
	b.Corpus = nil
	if got := QueryDigest(b, &b.Queries[0]); got != want {
		t.Error("metadata, position or corpus changed the query digest")
	}
}

// TestCorpusDigest: ids, titles, texts and order change it; queries,
// judgements and extra fields do not; no corpus has none.
func TestCorpusDigest(t *testing.T) {
	want := CorpusDigest(digestBench())
	if len(want) != 64 {
		t.Fatalf("digest %q is not sha256 hex", want)
	}
	for name, edit := range map[string]func(b *lasagna.Benchmark){
		"id":    func(b *lasagna.Benchmark) { b.Corpus[0].ID = "d9" },
		"title": func(b *lasagna.Benchmark) { b.Corpus[0].Title = "" },
		"text":  func(b *lasagna.Benchmark) { b.Corpus[1].Text = "two!" },
		"shift": func(b *lasagna.Benchmark) { b.Corpus[0].Title, b.Corpus[0].Text = "Tone", "" },
		"order": func(b *lasagna.Benchmark) { b.Corpus[0], b.Corpus[1] = b.Corpus[1], b.Corpus[0] },
		"added": func(b *lasagna.Benchmark) { b.Corpus = append(b.Corpus, lasagna.Document{ID: "d3"}) },
	} {
		b := digestBench()
		edit(b)
		if CorpusDigest(b) == want {
			t.Errorf("%s: changing it leaves the digest", name)
		}
	}
	b := digestBench()
	b.Queries = append(b.Queries, lasagna.Query{ID: "q2", Text: "new"})
	b.Qrels.Add("q2", "d2", 1)
	b.Corpus[0].Extra = map[string]any{"url": "x"}
	if CorpusDigest(b) != want {
		t.Error("queries, judgements or extra fields changed the corpus digest")
	}
	if got := CorpusDigest(&lasagna.Benchmark{Provenance: lasagna.ProvenanceNone}); got != "" {
		t.Errorf("no corpus has digest %q", got)
	}
}

package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

const (
	corpusRows = `{"id": "q1", "question": "Who introduced the solidus?", "answer": "Constantine", "expected_docs": ["solidus"], "contexts": ["Constantine introduced the solidus."]}
{"id": "q2", "question": "What replaced it?", "answer": "The hyperpyron", "expected_docs": ["hyperpyron", "debasement"]}
{"id": "q3", "question": "What did it cost to mint?", "metadata": {"unanswerable": true}, "expected_docs": ["solidus"]}
`
	corpusDocs = `{"_id": "solidus", "title": "Solidus", "text": "The solidus was a gold coin introduced by Constantine the Great."}
{"_id": "hyperpyron", "title": "Hyperpyron", "text": "The hyperpyron replaced the debased solidus in 1092."}
{"_id": "debasement", "title": "", "text": "Debasement began under Nikephoros II."}
{"_id": "glass", "title": "Glass", "text": "Soda-lime glass is made from silica sand."}
`
)

func TestCorpusBesideJSONL(t *testing.T) {
	fsys := mapFS(map[string]string{"data/faq.jsonl": corpusRows, "data/corpus.jsonl": corpusDocs})
	b, err := Load(fsys, "data/faq.jsonl", Options{Corpus: "data/corpus.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Provenance != lasagna.ProvenanceProvided {
		t.Errorf("Provenance = %q, want %q", b.Provenance, lasagna.ProvenanceProvided)
	}
	var ids []string
	for _, d := range b.Corpus {
		ids = append(ids, d.ID)
	}
	if want := []string{"solidus", "hyperpyron", "debasement", "glass"}; !slices.Equal(ids, want) {
		t.Errorf("corpus ids = %v, want %v (the corpus file, in file order)", ids, want)
	}
	if b.Corpus[0].Title != "Solidus" {
		t.Errorf("title = %q, want the corpus file's", b.Corpus[0].Title)
	}
	if got := b.Qrels["q1"]; len(got) != 1 || got["solidus"] != 1 {
		t.Errorf("q1 judgements = %v, want solidus", got)
	}
	if got := b.Qrels["q2"]; len(got) != 2 || got["hyperpyron"] != 1 || got["debasement"] != 1 {
		t.Errorf("q2 judgements = %v, want hyperpyron and debasement", got)
	}
	if _, ok := b.Qrels["q3"]; ok {
		t.Errorf("unanswerable q3 has judgements %v, want none", b.Qrels["q3"])
	}
	q1, _ := b.Query("q1")
	if want := []string{"Constantine introduced the solidus."}; !slices.Equal(q1.Contexts, want) {
		t.Errorf("q1 contexts = %q, want the row's own (generation contexts)", q1.Contexts)
	}
	q2, _ := b.Query("q2")
	if len(q2.Contexts) != 2 || !strings.Contains(q2.Contexts[0], "hyperpyron replaced") {
		t.Errorf("q2 contexts = %q, want the texts of the documents it names", q2.Contexts)
	}
	if err := RequireTracks(b, lasagna.TrackRetrieval, lasagna.TrackGeneration); err != nil {
		t.Errorf("RequireTracks: %v", err)
	}

	// Identity: the sha256 of both files' hex digests, the dataset's first.
	rev := sha256hex([]byte(sha256hex([]byte(corpusRows)) + "\n" + sha256hex([]byte(corpusDocs)) + "\n"))
	if b.Revision != rev || b.Name != "local/faq@"+rev[:12] {
		t.Errorf("Name, Revision = %q, %q; want local/faq@%s, %s", b.Name, b.Revision, rev[:12], rev)
	}
}

func TestCorpusIdentityCoversCorpus(t *testing.T) {
	load := func(docs string) *lasagna.Benchmark {
		t.Helper()
		b, err := Load(mapFS(map[string]string{"faq.jsonl": corpusRows, "corpus.jsonl": docs}), "faq.jsonl", Options{Corpus: "corpus.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := load(corpusDocs)
	if again := load(corpusDocs); again.Name != a.Name {
		t.Errorf("same bytes, different names: %s, %s", a.Name, again.Name)
	}
	edited := load(corpusDocs + `{"_id": "extra", "text": "One more document."}` + "\n")
	if edited.Name == a.Name || edited.Revision == a.Revision {
		t.Errorf("a corpus edit kept the identity %s", a.Name)
	}
}

func TestCorpusMissingExpectedDoc(t *testing.T) {
	rows := corpusRows + `{"id": "q4", "question": "Which glass?", "answer": "soda-lime", "expected_docs": ["glass", "glas-2"]}` + "\n"
	_, err := Load(mapFS(map[string]string{"faq.jsonl": rows, "corpus.jsonl": corpusDocs}), "faq.jsonl", Options{Corpus: "corpus.jsonl"})
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 {
		t.Fatalf("err = %v, want one problem", err)
	}
	msg := ps[0].Error()
	for _, want := range []string{"faq.jsonl:4:", `"glas-2"`, "corpus.jsonl"} {
		if !strings.Contains(msg, want) {
			t.Errorf("problem %q does not name %s", msg, want)
		}
	}
	if ps[0].Field != "expected_docs" {
		t.Errorf("field = %q, want expected_docs", ps[0].Field)
	}
}

func TestCorpusBesideCSV(t *testing.T) {
	csv := "id,question,answer,contexts\n" +
		"q1,What is glass made from?,silica sand,Soda-lime glass is made from silica sand.\n" +
		"q2,Who minted it?,Constantine,Constantine minted it.\n"
	_, err := Load(mapFS(map[string]string{"faq.csv": csv, "corpus.jsonl": corpusDocs}), "faq.csv", Options{Corpus: "corpus.jsonl"})
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || !strings.Contains(ps[0].Error(), "faq.csv:3:") || !strings.Contains(ps[0].Error(), "contexts[0]") {
		t.Fatalf("err = %v, want one problem at faq.csv:3 for a context that is no document", err)
	}
	b, err := Load(mapFS(map[string]string{"faq.csv": csv[:strings.Index(csv, "q2,")], "corpus.jsonl": corpusDocs}), "faq.csv", Options{Corpus: "corpus.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Qrels["q1"]; len(got) != 1 || got["glass"] != 1 {
		t.Errorf("q1 judgements = %v, want glass (the document with the context's text)", got)
	}
}

func TestCorpusRefused(t *testing.T) {
	fsys := mapFS(map[string]string{
		"faq.jsonl":              corpusRows,
		"empty.jsonl":            "\n",
		"bad.jsonl":              `{"_id": "d1"}` + "\n",
		"beir/corpus.jsonl":      corpusDocs,
		"beir/queries.jsonl":     `{"_id": "q1", "text": "?"}` + "\n",
		"beir/qrels/test.tsv":    "q1\tglass\t1\n",
		"vecta.csv":              "question,answer\nq,a\n",
		"corpus/placeholder.txt": "",
	})
	for _, tc := range []struct {
		path, corpus, want string
	}{
		{"faq.jsonl", "missing.jsonl", "missing.jsonl"},
		{"faq.jsonl", "empty.jsonl", "no documents"},
		{"faq.jsonl", "bad.jsonl", `bad.jsonl:1: missing field "text"`},
		{"faq.jsonl", "corpus", "is a folder, not a file"},
		{"beir", "faq.jsonl", "has its own corpus.jsonl"},
	} {
		_, err := Load(fsys, tc.path, Options{Corpus: tc.corpus})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s, Corpus: %s) = %v, want an error with %q", tc.path, tc.corpus, err, tc.want)
		}
	}
	if _, err := LoadVectaCSV(fsys, "vecta.csv", Options{Corpus: "faq.jsonl"}); err == nil {
		t.Error("LoadVectaCSV with a corpus succeeded, want an error")
	}
}

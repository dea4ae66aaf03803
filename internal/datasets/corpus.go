package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"

	"github.com/lasagna-go/lasagna"
)

// readCorpus reads a corpus file in the BEIR corpus.jsonl layout ({"_id",
// "title", "text"} per line; other fields are kept in Document.Extra) and
// returns its documents in file order with the hex sha256 of its bytes.
// A duplicate or missing id, or a line without text, is a Problem naming
// file:line. It is the reader LoadBEIR uses for corpus.jsonl, and the one
// Options.Corpus uses for a corpus given beside a JSONL or CSV file.
func readCorpus(fsys fs.FS, path string) ([]lasagna.Document, string, error) {
	var docs []lasagna.Document
	_, digest, err := scanCorpus(fsys, path, func(d lasagna.Document, _ int) { docs = append(docs, d) })
	if err != nil {
		return nil, "", err
	}
	return docs, digest, nil
}

// scanCorpus reads a corpus file as readCorpus does, handing each document
// to keep instead of returning them; it returns the documents' ids (id →
// index in file order).
func scanCorpus(fsys fs.FS, path string, keep func(lasagna.Document, int)) (map[string]int, string, error) {
	ids, digest, err := readHashed(fsys, path, func(r io.Reader, file string, c *collector) map[string]int {
		ids := map[string]int{}
		eachBEIRDoc(r, file, ids, nil, c, keep)
		return ids
	})
	if err != nil {
		return nil, "", err
	}
	if len(ids) == 0 {
		return nil, "", Problems{{Pos: lasagna.Pos{File: path}, Msg: "no documents; a corpus file holds one {\"_id\", \"title\", \"text\"} object per line"}}
	}
	return ids, digest, nil
}

// pairDigest is the revision of a file read with a corpus beside it: the
// sha256 of the two lines `sha256sum FILE CORPUS | cut -d' ' -f1` prints,
// that is, each file's hex digest and a newline, the dataset file first.
func pairDigest(file, corpus string) string {
	sum := sha256.Sum256([]byte(file + "\n" + corpus + "\n"))
	return hex.EncodeToString(sum[:])
}

// buildWithCorpus turns rows into a benchmark whose corpus is docs, a
// corpus file given beside the rows' file (Options.Corpus, read from
// corpusPath):
//
//   - each expected_docs entry names a document of the corpus, relevant
//     (grade 1) to its row; a name missing from the corpus is a Problem
//     naming the row's file:line and the id;
//   - a row without expected_docs names the documents whose text equals
//     one of its contexts exactly; a context matching no document is a
//     Problem (name the documents with expected_docs instead);
//   - a row's contexts stay its generation contexts; a row with
//     expected_docs and no contexts gets the texts of the documents it
//     names;
//   - an unanswerable row is relevant to nothing, as in a pooled corpus.
//
// Provenance is lasagna.ProvenanceProvided.
func buildWithCorpus(rows []Row, docs []lasagna.Document, corpusPath string, c *collector) *lasagna.Benchmark {
	cx := &corpusIndex{ids: make(map[string]int, len(docs)), docs: docs}
	for i, d := range docs {
		cx.ids[d.ID] = i
	}
	b := &lasagna.Benchmark{Qrels: lasagna.Qrels{}, Corpus: docs, Provenance: lasagna.ProvenanceProvided,
		Queries: make([]lasagna.Query, 0, len(rows))}
	eachWithCorpus(rows, cx, corpusPath, c, func(q lasagna.Query, relevant []string) bool {
		for _, id := range relevant {
			b.Qrels.Add(q.ID, id, 1)
		}
		b.Queries = append(b.Queries, q)
		return true
	})
	return b
}

// corpusIndex is what eachWithCorpus needs of a corpus: all its
// documents (docs), or, when a benchmark is streamed, only their ids and
// the texts rows need (texts by id, and byText for the context texts of
// rows without expected_docs).
type corpusIndex struct {
	ids    map[string]int // id → index
	docs   []lasagna.Document
	texts  map[string]string
	byText map[string]string // text → id of the first document with it
}

func (cx *corpusIndex) text(id string) string {
	if cx.docs != nil {
		return cx.docs[cx.ids[id]].Text
	}
	return cx.texts[id]
}

func (cx *corpusIndex) idOfText(text string) (string, bool) {
	if cx.byText == nil {
		cx.byText = make(map[string]string, len(cx.docs))
		for i := len(cx.docs) - 1; i >= 0; i-- {
			cx.byText[cx.docs[i].Text] = cx.docs[i].ID // the first document with a text wins
		}
	}
	id, ok := cx.byText[text]
	return id, ok
}

// eachWithCorpus applies buildWithCorpus's rules to each row, handing emit
// the query and the ids of the documents relevant to it (none for an
// unanswerable row), until emit returns false.
func eachWithCorpus(rows []Row, cx *corpusIndex, corpusPath string, c *collector, emit func(q lasagna.Query, relevant []string) bool) {
	for _, r := range rows {
		q := r.query()
		var relevant []string
		for i, name := range r.ExpectedDocs {
			if _, ok := cx.ids[name]; !ok {
				c.add(r.Pos, "expected_docs", "expected_docs[%d] names %q, which is not a document of the corpus %s; fix the id or add the document to the corpus", i, name, corpusPath)
				continue
			}
			relevant = append(relevant, name)
		}
		if len(r.ExpectedDocs) == 0 && len(r.Contexts) > 0 && !q.Unanswerable {
			for i, text := range r.Contexts {
				id, ok := cx.idOfText(text)
				if !ok {
					c.add(r.Pos, "contexts", "contexts[%d] is not the text of any document of the corpus %s; name the relevant documents with expected_docs (JSONL), or copy the document's text exactly", i, corpusPath)
					continue
				}
				relevant = append(relevant, id)
			}
		}
		if len(q.Contexts) == 0 && len(relevant) > 0 {
			q.Contexts = make([]string, len(relevant))
			for i, id := range relevant {
				q.Contexts[i] = cx.text(id)
			}
		}
		if q.Unanswerable {
			relevant = nil
		}
		if !emit(q, relevant) {
			return
		}
	}
}

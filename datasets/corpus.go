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
	docs, digest, err := readHashed(fsys, path, func(r io.Reader, file string, c *collector) []lasagna.Document {
		return parseBEIRCorpus(r, file, map[string]int{}, c)
	})
	if err != nil {
		return nil, "", err
	}
	if len(docs) == 0 {
		return nil, "", Problems{{Pos: lasagna.Pos{File: path}, Msg: "no documents; a corpus file holds one {\"_id\", \"title\", \"text\"} object per line"}}
	}
	return docs, digest, nil
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
	byID := make(map[string]int, len(docs))
	for i, d := range docs {
		byID[d.ID] = i
	}
	var byText map[string]int
	b := &lasagna.Benchmark{Qrels: lasagna.Qrels{}, Corpus: docs, Provenance: lasagna.ProvenanceProvided,
		Queries: make([]lasagna.Query, len(rows))}
	for ri, r := range rows {
		q := r.query()
		var relevant []int
		for i, name := range r.ExpectedDocs {
			di, ok := byID[name]
			if !ok {
				c.add(r.Pos, "expected_docs", "expected_docs[%d] names %q, which is not a document of the corpus %s; fix the id or add the document to the corpus", i, name, corpusPath)
				continue
			}
			relevant = append(relevant, di)
		}
		if len(r.ExpectedDocs) == 0 && len(r.Contexts) > 0 && !q.Unanswerable {
			if byText == nil {
				byText = make(map[string]int, len(docs))
				for i := len(docs) - 1; i >= 0; i-- {
					byText[docs[i].Text] = i // the first document with a text wins
				}
			}
			for i, text := range r.Contexts {
				di, ok := byText[text]
				if !ok {
					c.add(r.Pos, "contexts", "contexts[%d] is not the text of any document of the corpus %s; name the relevant documents with expected_docs (JSONL), or copy the document's text exactly", i, corpusPath)
					continue
				}
				relevant = append(relevant, di)
			}
		}
		if len(q.Contexts) == 0 && len(relevant) > 0 {
			q.Contexts = make([]string, len(relevant))
			for i, di := range relevant {
				q.Contexts[i] = docs[di].Text
			}
		}
		if !q.Unanswerable {
			for _, di := range relevant {
				b.Qrels.Add(r.ID, docs[di].ID, 1)
			}
		}
		b.Queries[ri] = q
	}
	return b
}

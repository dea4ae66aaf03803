package datasets

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// memSpool is a Spool in memory, in small batches, for tests.
type memSpool struct {
	rows []memRow
	docs []memDoc
}

type memRow struct {
	line int
	id   string
	data []byte
}

type memDoc struct {
	d    lasagna.Document
	line int
}

func (m *memSpool) AddRow(r Row, data []byte) error {
	m.rows = append(m.rows, memRow{r.Pos.Line, r.ID, append([]byte(nil), data...)})
	return nil
}

func (m *memSpool) AddDoc(d lasagna.Document, line int) error {
	m.docs = append(m.docs, memDoc{d, line})
	return nil
}

func (m *memSpool) Duplicates(docs bool, limit int) ([]Duplicate, error) {
	first := map[string]int{}
	var out []Duplicate
	see := func(id string, line int) {
		if f, ok := first[id]; ok {
			if len(out) < limit {
				out = append(out, Duplicate{Line: line, First: f, ID: id})
			}
			return
		}
		first[id] = line
	}
	if docs {
		for _, d := range m.docs {
			see(d.d.ID, d.line)
		}
	} else {
		for _, r := range m.rows {
			see(r.id, r.line)
		}
	}
	return out, nil
}

func (m *memSpool) Rows(fn func([]SpooledRow) error) error {
	for i := 0; i < len(m.rows); i += 2 {
		var batch []SpooledRow
		for _, r := range m.rows[i:min(i+2, len(m.rows))] {
			batch = append(batch, SpooledRow{Line: r.line, Data: r.data})
		}
		if err := fn(batch); err != nil {
			return err
		}
	}
	return nil
}

func (m *memSpool) Lookup(ids, texts []string) (map[string]string, map[string]string, error) {
	byID, byText := map[string]string{}, map[string]string{}
	for _, id := range ids {
		for _, d := range m.docs {
			if d.d.ID == id {
				byID[id] = d.d.Text
			}
		}
	}
	for _, t := range texts {
		for _, d := range m.docs {
			if d.d.Text == t {
				byText[t] = d.d.ID
				break
			}
		}
	}
	return byID, byText, nil
}

// streamSpooled collects what StreamSpooled hands over with a memSpool.
func streamSpooled(fsys fstest.MapFS, p string, format lasagna.Format, opts Options) ([]streamed, Summary, error) {
	var out []streamed
	sum, err := StreamSpooled(fsys, p, format, opts, &memSpool{}, func(q lasagna.Query, relevant []string) error {
		out = append(out, streamed{q, relevant})
		return nil
	})
	return out, sum, err
}

// Duplicates found by the Spool after a file was read are merged into the
// parse problems on their lines, under the loader's MaxProblems cap.
func TestSpooledProblemsAreTheLoaders(t *testing.T) {
	var many strings.Builder
	for i := range 80 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&many, `{"id": "q%d", "question": "Q?", "answer": "A", "expected_docs": ["solidus"]}`+"\n", i)
		case 1:
			fmt.Fprintf(&many, `{"id": "q%d", "question": "Q?", "answer": "A", "expected_docs": ["solidus"]}`+"\n", i-1)
		default:
			many.WriteString(`{"id": 3` + "\n")
		}
	}
	var fewDups strings.Builder
	fewDups.WriteString(corpusRows)
	fewDups.WriteString(`{"id": "q1", "question": "Q?", "answer": "A"}` + "\n{\"question\": 1}\n")
	var manyDocs strings.Builder
	manyDocs.WriteString(corpusDocs)
	for i := range 70 {
		if i%2 == 0 {
			fmt.Fprintf(&manyDocs, `{"_id": "glass", "text": "again %d"}`+"\n", i)
		} else {
			manyDocs.WriteString(`{"_id": "x"}` + "\n")
		}
	}
	for name, fsys := range map[string]fstest.MapFS{
		"many row problems": {"b.jsonl": {Data: []byte(many.String())}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
		"few duplicates":    {"b.jsonl": {Data: []byte(fewDups.String())}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
		"many doc problems": {"b.jsonl": {Data: []byte(corpusRows)}, "corpus.jsonl": {Data: []byte(manyDocs.String())}},
		"no rows":           {"b.jsonl": {Data: []byte("\n")}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
		"context unmatched": {"b.jsonl": {Data: []byte(corpusRows + `{"id": "c", "question": "Q?", "answer": "A", "contexts": ["nothing like it"]}` + "\n")}, "corpus.jsonl": {Data: []byte(corpusDocs)}},
	} {
		t.Run(name, func(t *testing.T) {
			opts := Options{Corpus: "corpus.jsonl"}
			_, want := LoadJSONL(fsys, "b.jsonl", opts)
			var wantP Problems
			if !errors.As(want, &wantP) {
				t.Fatalf("loader: %v, want Problems", want)
			}
			_, _, err := streamSpooled(fsys, "b.jsonl", lasagna.FormatJSONL, opts)
			if !reflect.DeepEqual(err, want) {
				t.Errorf("StreamSpooled: %v\nwant %v", err, want)
			}
		})
	}
}

package registry_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// corpusFiles returns a JSONL file of n rows naming their documents with
// expected_docs only (as registry/hf writes them) and a corpus beside it
// of over 1 MiB, so that it is stored in several chunks; bad, when set,
// is appended as the last row.
func corpusFiles(n int, bad string) fstest.MapFS {
	var rows, docs strings.Builder
	for i := range n {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"what is %d?","answer":"%d","expected_docs":["d%d"],"metadata":{"query_id":%d}}`+"\n", i, i, i, 3*i+1, i)
	}
	rows.WriteString(bad)
	for k := range 3 * n {
		fmt.Fprintf(&docs, `{"_id":"d%d","title":"","text":"Passage %d %s"}`+"\n", k, k, strings.Repeat("lorem ipsum ", 20))
	}
	return fstest.MapFS{"m/rows.jsonl": {Data: []byte(rows.String())}, "m/corpus.jsonl": {Data: []byte(docs.String())}}
}

// An import with a corpus is streamed: its entries are the loader's, its
// stored files (in chunks) rebuild the loader's benchmark, importing the
// same content again adds nothing, and a problem on the last row (after
// entries were written) leaves the registry unchanged.
func TestStreamedImportIsTheLoader(t *testing.T) {
	fsys := corpusFiles(5000, "")
	if len(fsys["m/corpus.jsonl"].Data) < 2<<20 {
		t.Fatal("the corpus is not over 2 MiB")
	}
	files := registry.Files{FS: fsys, Path: "m/rows.jsonl", Corpus: "m/corpus.jsonl"}
	want, err := datasets.LoadJSONL(fsys, "m/rows.jsonl", datasets.Options{Name: "m", Corpus: "m/corpus.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	var wantJSONL bytes.Buffer
	for _, e := range registry.EntriesOf(want) {
		b, _ := jsonLine(e)
		wantJSONL.Write(b)
	}
	badFS := corpusFiles(5000, `{"id":"last","question":"q?","answer":"a","expected_docs":["nowhere"]}`+"\n")
	_, wantErr := datasets.LoadJSONL(badFS, "m/rows.jsonl", datasets.Options{Name: "m", Corpus: "m/corpus.jsonl"})
	if wantErr == nil || !strings.Contains(wantErr.Error(), "m/rows.jsonl:5001") {
		t.Fatalf("the bad file: %v", wantErr)
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		if _, err := r.Create(bg(), "m", registry.Files{FS: badFS, Path: "m/rows.jsonl", Corpus: "m/corpus.jsonl"}); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("bad import: %v, want %v", err, wantErr)
		}
		if l, _ := r.List(bg(), registry.ListOptions{}); len(l) != 0 {
			t.Fatalf("a failed import left %v", l)
		}
		inf, err := r.Create(bg(), "m", files)
		if err != nil {
			t.Fatal(err)
		}
		if inf.Revision != want.Name || inf.Questions != len(want.Queries) {
			t.Errorf("imported %+v, want %s with %d questions", inf, want.Name, len(want.Queries))
		}
		var got bytes.Buffer
		if err := r.Download(bg(), "m", &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != wantJSONL.String() {
			t.Errorf("entries differ from the loader's: got %.300s…\nwant %.300s…", got.String(), wantJSONL.String())
		}
		b, err := r.Resolve(bg(), "m")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(comparable(b), comparable(want)) {
			t.Errorf("the stored files rebuild %s (%d docs), want %s (%d docs)", b.Name, len(b.Corpus), want.Name, len(want.Corpus))
		}
		// the same content again: no new revision, the stored copy is whole
		if _, err := r.Create(bg(), "m", files); err != nil {
			t.Fatal(err)
		}
		if revs, _ := r.Revisions(bg(), "m"); len(revs) != 1 {
			t.Errorf("re-import made %d revisions", len(revs))
		}
		if b, err := r.Resolve(bg(), "m"); err != nil || b.Name != want.Name {
			t.Errorf("after re-import: %v, %v", b, err)
		}
		// a failed revision leaves the current one
		if _, err := r.Create(bg(), "m", registry.Files{FS: badFS, Path: "m/rows.jsonl", Corpus: "m/corpus.jsonl"}); err == nil {
			t.Fatal("bad revision accepted")
		}
		var ps datasets.Problems
		if _, err := r.Create(bg(), "m", registry.Files{FS: badFS, Path: "m/rows.jsonl", Corpus: "m/corpus.jsonl"}); !errors.As(err, &ps) {
			t.Errorf("bad revision: %v, want Problems", err)
		}
		if inf, _ := r.Get(bg(), "m"); inf.Revision != want.Name || inf.Revisions != 1 {
			t.Errorf("after a failed revision: %+v", inf)
		}
	})
}

// jsonLine encodes e as Download writes it.
func jsonLine(e registry.Entry) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(e)
	return b.Bytes(), err
}

// The temporary tables of a JSONL file with a corpus (datasets.Spool)
// give the loader's entries and Problems on each backend: rows whose
// contexts are matched to documents by text (two documents share one; the
// first wins), rows filled from expected_docs, and duplicate row and
// document ids, missing documents and unmatched contexts reported with
// the loader's file:line messages; the tables go with the import, so one
// registry imports again.
func TestSpooledImportIsTheLoader(t *testing.T) {
	rows := `{"id":"a","question":"q a?","answer":"x","contexts":["shared text","only b"],"metadata":{"n":1.5,"tags":["t"]}}
{"id":"b","question":"q b?","answer":"y","expected_docs":["d3","d1"]}
{"id":"c","question":"q c?","answer":"z","contexts":["own context"],"expected_docs":["d2"]}
{"question":"q d?","metadata":{"unanswerable":true}}
`
	docs := `{"_id":"d1","title":"","text":"shared text"}
{"_id":"d2","title":"t","text":"only b"}
{"_id":"d3","title":"","text":"shared text"}
`
	good := fstest.MapFS{"rows.jsonl": {Data: []byte(rows)}, "corpus.jsonl": {Data: []byte(docs)}}
	opts := datasets.Options{Name: "s", Corpus: "corpus.jsonl"}
	want, err := datasets.LoadJSONL(good, "rows.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	var wantJSONL bytes.Buffer
	for _, e := range registry.EntriesOf(want) {
		b, _ := jsonLine(e)
		wantJSONL.Write(b)
	}
	bad := map[string]fstest.MapFS{
		"duplicate row": {"rows.jsonl": {Data: []byte(rows + `{"id":"b","question":"again?","answer":"v"}` + "\n{\"id\": 1\n")}, "corpus.jsonl": {Data: []byte(docs)}},
		"duplicate doc": {"rows.jsonl": {Data: []byte(rows)}, "corpus.jsonl": {Data: []byte(docs + `{"_id":"d2","text":"again"}` + "\n")}},
		"missing doc":   {"rows.jsonl": {Data: []byte(rows + `{"id":"e","question":"q?","answer":"v","expected_docs":["nowhere"]}` + "\n")}, "corpus.jsonl": {Data: []byte(docs)}},
		"no match":      {"rows.jsonl": {Data: []byte(rows + `{"id":"e","question":"q?","answer":"v","contexts":["nothing"]}` + "\n")}, "corpus.jsonl": {Data: []byte(docs)}},
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		for name, fsys := range bad {
			_, wantErr := datasets.LoadJSONL(fsys, "rows.jsonl", opts)
			var ps datasets.Problems
			if !errors.As(wantErr, &ps) {
				t.Fatalf("%s: the loader gives %v", name, wantErr)
			}
			if _, err := r.Create(bg(), "s", registry.Files{FS: fsys, Path: "rows.jsonl", Corpus: "corpus.jsonl"}); err == nil || err.Error() != wantErr.Error() {
				t.Errorf("%s: %v, want %v", name, err, wantErr)
			}
		}
		for range 2 {
			inf, err := r.Create(bg(), "s", registry.Files{FS: good, Path: "rows.jsonl", Corpus: "corpus.jsonl"})
			if err != nil {
				t.Fatal(err)
			}
			if inf.Revision != want.Name || inf.Questions != 4 {
				t.Errorf("imported %+v, want %s", inf, want.Name)
			}
		}
		var got bytes.Buffer
		if err := r.Download(bg(), "s", &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != wantJSONL.String() {
			t.Errorf("entries:\n%s\nwant\n%s", got.String(), wantJSONL.String())
		}
	})
}

// pooledFile returns a JSONL file of n rows with three contexts each and
// no corpus (the pooled corpus is built from the contexts; one passage is
// shared with the next row), over 1 MiB from 3,000 rows on so that it is
// stored in several chunks; tail is appended.
func pooledFile(n int, tail string) fstest.MapFS {
	var rows strings.Builder
	for i := range n {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"what is %d?","answer":"%d","contexts":["Passage %d %s","Shared %d","Other %d"]}`+"\n", i, i, i, i, strings.Repeat("lorem ipsum ", 20), i/2, i)
	}
	rows.WriteString(tail)
	return fstest.MapFS{"m/rows.jsonl": {Data: []byte(rows.String())}}
}

// A JSONL file without a corpus is streamed (datasets.StreamPooled): its
// revision (digest), counts, entries and stored files are those of the
// loader (datasets.LoadJSONL, the path before streaming), problems are
// the loader's and name file:line, and rows naming their passages
// (loaded whole from the stored chunks) give the loader's entries too.
func TestPooledImportIsTheLoader(t *testing.T) {
	named := `{"id":"n","question":"n?","contexts":["Shared 7"],"expected_docs":["seven"]}` + "\n" + `{"id":"m","question":"m?","answer":"a","expected_docs":["seven"]}` + "\n"
	good := map[string]fstest.MapFS{
		"pooled": pooledFile(4000, ""),
		"named":  pooledFile(4000, named),
		"plain":  {"m/rows.jsonl": {Data: []byte(strings.Repeat(`{"question":"q?"}`+"\n", 3) + `{"id":"x","question":"x?","answer":"a"}` + "\n")}},
	}
	bad := map[string]fstest.MapFS{
		"last row":      pooledFile(4000, `{"id":"q5","question":"again?"}`+"\n"),
		"named, absent": pooledFile(4000, `{"id":"n","question":"n?","expected_docs":["nowhere"]}`+"\n"),
	}
	if len(good["pooled"]["m/rows.jsonl"].Data) < 1<<20 {
		t.Fatal("the file is not over 1 MiB")
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		for name, fsys := range bad {
			_, wantErr := datasets.LoadJSONL(fsys, "m/rows.jsonl", datasets.Options{Name: "m"})
			if wantErr == nil || !strings.Contains(wantErr.Error(), "m/rows.jsonl:4001") {
				t.Fatalf("%s: the loader says %v", name, wantErr)
			}
			if _, err := r.Create(bg(), "m", registry.Files{FS: fsys, Path: "m/rows.jsonl"}); err == nil || err.Error() != wantErr.Error() {
				t.Errorf("%s: import: %v, want %v", name, err, wantErr)
			}
			if l, _ := r.List(bg(), registry.ListOptions{}); len(l) != 0 {
				t.Fatalf("%s: a failed import left %v", name, l)
			}
		}
		for name, fsys := range good {
			want, err := datasets.LoadJSONL(fsys, "m/rows.jsonl", datasets.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			var wantJSONL bytes.Buffer
			for _, e := range registry.EntriesOf(want) {
				b, _ := jsonLine(e)
				wantJSONL.Write(b)
			}
			inf, err := r.Create(bg(), name, registry.Files{FS: fsys, Path: "m/rows.jsonl"})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if inf.Revision != want.Name || inf.Questions != len(want.Queries) || inf.Documents != len(want.Corpus) {
				t.Errorf("%s: imported %s, %d questions, %d documents; want %s, %d, %d", name, inf.Revision, inf.Questions, inf.Documents, want.Name, len(want.Queries), len(want.Corpus))
			}
			stored, _, err := r.Entries(bg(), name, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, e := range stored {
				b, _ := jsonLine(e)
				got.Write(b)
			}
			if got.String() != wantJSONL.String() {
				t.Errorf("%s: entries differ from the loader's: got %.300s…\nwant %.300s…", name, got.String(), wantJSONL.String())
			}
			b, err := r.Resolve(bg(), name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(comparable(b), comparable(want)) {
				t.Errorf("%s: the stored files rebuild %s (%d docs), want %s (%d docs)", name, b.Name, len(b.Corpus), want.Name, len(want.Corpus))
			}
			if res, err := r.Search(bg(), name, registry.SearchQuery{Text: "q3999", Limit: 5}); name != "plain" && (err != nil || len(res.Entries) != 1 || res.Matches != 1) {
				t.Errorf("%s: search q3999: %v, %d, %v (the entries' search rows written once)", name, res.Entries, res.Matches, err)
			}
		}
		// The CLI's paths are the system's (datasets.OSFS), which the whole
		// load of named rows reads back from the stored chunks under the
		// same name.
		p := filepath.Join(t.TempDir(), "rows.jsonl")
		if err := os.WriteFile(p, good["named"]["m/rows.jsonl"].Data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := datasets.LoadJSONL(datasets.OSFS{}, p, datasets.Options{Name: "os"})
		if err != nil {
			t.Fatal(err)
		}
		if inf, err := r.Create(bg(), "os", registry.Files{FS: datasets.OSFS{}, Path: p}); err != nil || inf.Revision != want.Name || inf.Documents != len(want.Corpus) {
			t.Errorf("import of %s: %+v, %v; want %s", p, inf, err, want.Name)
		}
	})
}

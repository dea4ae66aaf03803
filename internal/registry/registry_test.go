package registry_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/registry"
)

func open(t *testing.T, dsn string) *registry.Registry {
	t.Helper()
	r, err := registry.Open(bg(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func repoFiles(dir string) registry.Files {
	return registry.Files{FS: os.DirFS(filepath.Join("..", "..", dir))}
}

func file(dir, p string) registry.Files {
	f := repoFiles(dir)
	f.Path = p
	return f
}

// comparable strips what differs by where a benchmark was read from (the
// path and the positions), which never reaches a bundle.
func comparable(b *lasagna.Benchmark) *lasagna.Benchmark {
	c := *b
	c.Source = ""
	c.Queries = append([]lasagna.Query(nil), b.Queries...)
	for i := range c.Queries {
		c.Queries[i].Pos = lasagna.Pos{}
	}
	return &c
}

func TestFAQKeepsItsIdentity(t *testing.T) {
	want, err := datasets.Load(os.DirFS("../../examples/data"), "faq.jsonl", datasets.Options{Name: "faq"})
	if err != nil {
		t.Fatal(err)
	}
	if want.Name != "faq@ea3e86b12545" {
		t.Fatalf("the file itself registers as %s", want.Name)
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		inf, err := r.Create(bg(), "faq", file("examples/data", "faq.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if inf.Revision != "faq@ea3e86b12545" || inf.Status != registry.StatusActive || inf.Questions != len(want.Queries) || !inf.Current {
			t.Errorf("Create = %+v, want faq@ea3e86b12545, active, %d questions", inf, len(want.Queries))
		}
		if inf.Source == nil || inf.Source.SHA256 != "ea3e86b125454f2e38f54ca1bc585c36383565fd51f57728f30a1a47c7a7a33f" || inf.Source.Format != "jsonl" {
			t.Errorf("source = %+v", inf.Source)
		}
		for _, ref := range []string{"registry:faq", "faq", "faq@ea3e86b12545", "registry:faq@ea3e"} {
			got, err := r.Resolve(bg(), ref)
			if err != nil {
				t.Fatalf("Resolve(%s): %v", ref, err)
			}
			if !reflect.DeepEqual(comparable(got), comparable(want)) {
				t.Errorf("Resolve(%s) differs from the file's benchmark:\n got %+v\nwant %+v", ref, comparable(got), comparable(want))
			}
		}
		// A second registry connection sees the same.
		r2 := open(t, dsn)
		got, err := r2.Resolve(bg(), "faq")
		if err != nil || got.Name != want.Name {
			t.Errorf("second connection: %v, %v", got, err)
		}
	})
}

func TestFormatsKeepTheLoadersIdentity(t *testing.T) {
	vecta := "id,question,answer,chunk_ids,page_nums,source_paths\n" +
		"q1,What is the max dose?,1200mg,c42|c87,3|4,guide.pdf\n" +
		",Who wrote it?,\"Ann, Bob\",,,\n"
	csvData := "id,question,answer,contexts\nc1,What colour is the sky?,blue,The sky is blue.|||Skies are blue\n"
	corpus := `{"_id":"d1","title":"","text":"The sky is blue."}` + "\n" + `{"_id":"d2","title":"","text":"Grass is green."}` + "\n"
	withCorpus := `{"id":"w1","question":"sky?","answer":"blue","expected_docs":["d1"]}` + "\n"
	mfs := fstest.MapFS{
		"v/bench.csv":         {Data: []byte(vecta)},
		"c/plain.csv":         {Data: []byte(csvData)},
		"j/q.jsonl":           {Data: []byte(withCorpus)},
		"j/corpus.jsonl":      {Data: []byte(corpus)},
		"seed/seed.jsonl":     {Data: mustRead(t, "../datasets/testdata/seed000/seed.jsonl")},
		"beir/corpus.jsonl":   {Data: mustRead(t, "../datasets/testdata/beir/corpus.jsonl")},
		"beir/queries.jsonl":  {Data: mustRead(t, "../datasets/testdata/beir/queries.jsonl")},
		"beir/qrels/test.tsv": {Data: mustRead(t, "../datasets/testdata/beir/qrels/test.tsv")},
	}
	cases := []struct {
		name   string
		files  registry.Files
		format string
		load   func() (*lasagna.Benchmark, error)
	}{
		{"vecta", registry.Files{FS: mfs, Path: "v/bench.csv"}, "vecta", func() (*lasagna.Benchmark, error) {
			return datasets.LoadVectaCSV(mfs, "v/bench.csv", datasets.Options{Name: "vecta"})
		}},
		{"csv", registry.Files{FS: mfs, Path: "c/plain.csv"}, "csv", func() (*lasagna.Benchmark, error) {
			return datasets.Load(mfs, "c/plain.csv", datasets.Options{Name: "csv"})
		}},
		{"corpus", registry.Files{FS: mfs, Path: "j/q.jsonl", Corpus: "j/corpus.jsonl"}, "jsonl", func() (*lasagna.Benchmark, error) {
			return datasets.Load(mfs, "j/q.jsonl", datasets.Options{Name: "corpus", Corpus: "j/corpus.jsonl"})
		}},
		{"seed", registry.Files{FS: mfs, Path: "seed/seed.jsonl"}, "jsonl", func() (*lasagna.Benchmark, error) {
			return datasets.Load(mfs, "seed/seed.jsonl", datasets.Options{Name: "seed"})
		}},
		{"beir", registry.Files{FS: mfs, Path: "beir"}, "beir", func() (*lasagna.Benchmark, error) {
			return datasets.Load(mfs, "beir", datasets.Options{Name: "beir"})
		}},
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		for _, c := range cases {
			want, err := c.load()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			inf, err := r.Create(bg(), c.name, c.files)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if inf.Revision != want.Name || inf.Source.Format != c.format || inf.Documents != len(want.Corpus) {
				t.Errorf("%s: %s format %s %d docs, want %s format %s %d docs", c.name, inf.Revision, inf.Source.Format, inf.Documents, want.Name, c.format, len(want.Corpus))
			}
			got, err := r.Resolve(bg(), c.name)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !reflect.DeepEqual(comparable(got), comparable(want)) {
				t.Errorf("%s: rebuilt benchmark differs:\n got %+v\nwant %+v", c.name, comparable(got), comparable(want))
			}
		}
		es, n, err := r.Entries(bg(), "vecta", 0, 0)
		if err != nil || n != 2 {
			t.Fatalf("Entries: %d, %v", n, err)
		}
		want0 := registry.Entry{ID: "q1", Question: "What is the max dose?", Answer: "1200mg", ChunkIDs: []string{"c42", "c87"}, PageNums: []int{3, 4}, SourcePaths: []string{"guide.pdf"}}
		if !reflect.DeepEqual(es[0], want0) || es[1].ID != "row3" || es[1].Answer != "Ann, Bob" {
			t.Errorf("vecta entries = %+v", es)
		}
		page, _, err := r.Entries(bg(), "seed", 1, 2)
		if err != nil || len(page) != 2 {
			t.Fatalf("page: %v %v", page, err)
		}
		all, _, _ := r.Entries(bg(), "seed", 0, 0)
		if !reflect.DeepEqual(page, all[1:3]) {
			t.Errorf("Entries(1, 2) = %v, want %v", page, all[1:3])
		}
	})
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLifecycle(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		inf, err := r.CreateDraft(bg(), "faq")
		if err != nil || inf.Status != registry.StatusDraft || inf.Revision != "" {
			t.Fatalf("CreateDraft = %+v, %v", inf, err)
		}
		if _, err := r.CreateDraft(bg(), "faq"); !errors.Is(err, registry.ErrExists) {
			t.Errorf("second CreateDraft: %v, want ErrExists", err)
		}
		refused := func(ref string, status registry.Status, words ...string) {
			t.Helper()
			_, err := r.Resolve(bg(), ref)
			var se *registry.StatusError
			if !errors.As(err, &se) || se.Status != status {
				t.Fatalf("Resolve(%s) = %v, want a StatusError %s", ref, err, status)
			}
			for _, w := range words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Resolve(%s): %q does not say %q", ref, err, w)
				}
			}
		}
		refused("faq", registry.StatusDraft, "draft with no entries", "lasagna benchmark create faq --from")
		if _, err := r.Activate(bg(), "faq"); err == nil {
			t.Error("an empty draft was activated")
		}
		if _, err := r.Archive(bg(), "faq"); err == nil {
			t.Error("a draft was archived")
		}
		inf, err = r.Import(bg(), "faq", file("examples/data", "faq.jsonl"), registry.ImportOptions{Draft: true})
		if err != nil || inf.Status != registry.StatusDraft || inf.Revision != "faq@ea3e86b12545" {
			t.Fatalf("fill the draft: %+v, %v", inf, err)
		}
		refused("faq", registry.StatusDraft, "is a draft", "lasagna benchmark activate faq")
		if inf, err = r.Activate(bg(), "faq"); err != nil || inf.Status != registry.StatusActive {
			t.Fatalf("Activate = %+v, %v", inf, err)
		}
		if _, err := r.Resolve(bg(), "faq"); err != nil {
			t.Fatal(err)
		}
		if inf, err = r.Archive(bg(), "faq"); err != nil || inf.Status != registry.StatusArchived {
			t.Fatalf("Archive = %+v, %v", inf, err)
		}
		refused("faq@ea3e86b12545", registry.StatusArchived, "is archived", "lasagna benchmark activate faq")
		if _, err := r.Create(bg(), "faq", file("internal/datasets/testdata/seed000", "seed.jsonl")); err == nil {
			t.Error("an archived benchmark took a new revision")
		}
		if l, _ := r.List(bg(), registry.ListOptions{Status: registry.StatusActive}); len(l) != 0 {
			t.Errorf("active list = %v", l)
		}
		if l, _ := r.List(bg(), registry.ListOptions{Status: registry.StatusArchived}); len(l) != 1 || l[0].Name != "faq" {
			t.Errorf("archived list = %v", l)
		}
		if _, err = r.Activate(bg(), "faq"); err != nil {
			t.Fatal(err)
		}
		if err := r.Delete(bg(), "faq", false); err == nil || !strings.Contains(err.Error(), "--force") {
			t.Errorf("Delete of an active benchmark without force: %v", err)
		}
		if err := r.Delete(bg(), "faq", true); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(bg(), "faq"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		if l, _ := r.List(bg(), registry.ListOptions{}); len(l) != 0 {
			t.Errorf("list after delete = %v", l)
		}
		// The name is free again, and the deleted entries are gone.
		if _, err := r.Create(bg(), "faq", file("examples/data", "faq.jsonl")); err != nil {
			t.Fatal(err)
		}
		if revs, _ := r.Revisions(bg(), "faq"); len(revs) != 1 {
			t.Errorf("revisions after re-create = %d", len(revs))
		}
	})
}

func TestRevisionsAreImmutableAndAddressable(t *testing.T) {
	v1 := `{"id":"a","question":"q one?","answer":"one"}` + "\n"
	v2 := v1 + `{"id":"b","question":"q two?","answer":"two"}` + "\n"
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		fsys := fstest.MapFS{"v1/x.jsonl": {Data: []byte(v1)}, "v2/x.jsonl": {Data: []byte(v2)}}
		i1, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "v1/x.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		i2, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "v2/x.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		if i1.Revision == i2.Revision || i2.Revisions != 2 || i2.Questions != 2 {
			t.Fatalf("revisions %+v then %+v", i1, i2)
		}
		if i1.Change != registry.ChangeCreated || i2.Change != registry.ChangeAdded {
			t.Errorf("changes %q then %q, want created then added", i1.Change, i2.Change)
		}
		cur, err := r.Resolve(bg(), "x")
		if err != nil || cur.Name != i2.Revision {
			t.Fatalf("registry:x = %v, %v; want %s", cur, err, i2.Revision)
		}
		old, err := r.Resolve(bg(), i1.Revision)
		if err != nil || old.Name != i1.Revision || len(old.Queries) != 1 {
			t.Fatalf("registry:%s = %v, %v", i1.Revision, old, err)
		}
		es, n, _ := r.Entries(bg(), i1.Revision, 0, 0)
		if n != 1 || len(es) != 1 {
			t.Errorf("old revision's entries: %v", es)
		}
		// The same bytes again add nothing and make that revision current.
		i3, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "v1/x.jsonl"})
		if err != nil || i3.Revision != i1.Revision || i3.Revisions != 2 || i3.Change != registry.ChangeRestored {
			t.Fatalf("re-import of v1 = %+v, %v", i3, err)
		}
		if i, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "v1/x.jsonl"}); err != nil || i.Change != registry.ChangeUnchanged {
			t.Fatalf("second re-import of v1 = %+v, %v; want unchanged", i, err)
		}
		// activate NAME@hash picks the current revision.
		i4, err := r.Activate(bg(), i2.Revision)
		if err != nil || i4.Revision != i2.Revision {
			t.Fatalf("Activate(%s) = %+v, %v", i2.Revision, i4, err)
		}
		revs, err := r.Revisions(bg(), "x")
		if err != nil || len(revs) != 2 || revs[0].Revision != i1.Revision || revs[0].Current || !revs[1].Current {
			t.Errorf("Revisions = %+v, %v", revs, err)
		}
		if _, err := r.Get(bg(), "x@ffffffff"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("unknown hash: %v", err)
		}
	})
}

// TestConcurrentCreatesReportOneCreated: creates of one content at once,
// each through its own connection pool (as separate processes), store
// one revision, and exactly one of them reports ChangeCreated; the others
// report ChangeUnchanged (decided under the write lock).
func TestConcurrentCreatesReportOneCreated(t *testing.T) {
	const n = 4
	eachBackend(t, func(t *testing.T, dsn string) {
		open(t, dsn) // create and migrate the registry first
		changes := make(chan registry.Change, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				r, err := registry.Open(bg(), dsn)
				if err != nil {
					t.Error(err)
					return
				}
				defer r.Close()
				inf, err := r.Create(bg(), "faq", file("examples/data", "faq.jsonl"))
				if err != nil {
					t.Error(err)
					return
				}
				changes <- inf.Change
			})
		}
		wg.Wait()
		close(changes)
		count := map[registry.Change]int{}
		for c := range changes {
			count[c]++
		}
		if count[registry.ChangeCreated] != 1 || count[registry.ChangeUnchanged] != n-1 {
			t.Errorf("changes %v; want one created and %d unchanged", count, n-1)
		}
		revs, err := open(t, dsn).Revisions(bg(), "faq")
		if err != nil || len(revs) != 1 {
			t.Errorf("Revisions = %+v, %v; want one", revs, err)
		}
	})
}

// TestNULRefusedOnBothBackends: a NUL in a question (raw, or as \u0000)
// is refused at validation with its file, line and field, the same on
// SQLite and PostgreSQL (which cannot store NUL in text), never as a
// database error, and nothing is stored.
func TestNULRefusedOnBothBackends(t *testing.T) {
	fsys := fstest.MapFS{
		"esc.jsonl": {Data: []byte("{\"question\": \"q?\"}\n{\"id\": \"b\", \"question\": \"a\\u0000b?\"}\n")},
		"raw.csv":   {Data: []byte("question\nq?\na\x00b?\n")},
	}
	want := map[string]string{
		"esc.jsonl": `esc.jsonl:2: field "question": the string at column 25 holds a NUL (\u0000); text may not contain NUL (U+0000), which a PostgreSQL registry cannot store: remove the \u0000 escape`,
		"raw.csv":   `raw.csv:3: NUL byte at column 2; text may not contain NUL (U+0000), which a PostgreSQL registry cannot store: remove it (tr -d '\000' drops every NUL byte of a file)`,
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		for p, msg := range want {
			_, err := r.Create(bg(), "nul", registry.Files{FS: fsys, Path: p})
			var ps datasets.Problems
			if !errors.As(err, &ps) || err.Error() != msg {
				t.Errorf("Create(%s) = %v (%T)\nwant %s", p, err, err, msg)
			}
		}
		if l, err := r.List(bg(), registry.ListOptions{}); err != nil || len(l) != 0 {
			t.Errorf("List = %+v, %v; want nothing stored", l, err)
		}
	})
}

func TestFailedImportLeavesRegistryUnchanged(t *testing.T) {
	bad := `{"id":"a","question":"ok?","answer":"yes"}` + "\n" + `{"id":"b","question":"typo?","anwser":"no"}` + "\n"
	fsys := fstest.MapFS{"data/bad.jsonl": {Data: []byte(bad)}}
	_, wantErr := datasets.Load(fsys, "data/bad.jsonl", datasets.Options{Name: "x"})
	if wantErr == nil {
		t.Fatal("the bad file loads")
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		_, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "data/bad.jsonl"})
		var ps datasets.Problems
		if !errors.As(err, &ps) || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), "data/bad.jsonl:2") {
			t.Fatalf("Create(bad) = %v, want the loader's problems %v", err, wantErr)
		}
		if l, _ := r.List(bg(), registry.ListOptions{}); len(l) != 0 {
			t.Errorf("a failed import left %v", l)
		}
		if _, err := r.Create(bg(), "x", file("examples/data", "faq.jsonl")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "data/bad.jsonl"}); err == nil {
			t.Fatal("bad revision accepted")
		}
		inf, _ := r.Get(bg(), "x")
		if inf.Revisions != 1 || inf.Revision != "x@ea3e86b12545" {
			t.Errorf("after a failed revision: %+v", inf)
		}
		if _, err := r.Create(bg(), "x", registry.Files{FS: fsys, Path: "data/missing.jsonl"}); err == nil {
			t.Error("a missing file imported")
		}
		if _, err := r.Create(bg(), "bad name", file("examples/data", "faq.jsonl")); err == nil {
			t.Error("a name with a space was accepted")
		}
	})
}

func TestExportRoundTrips(t *testing.T) {
	vecta := "question,answer,chunk_ids,page_nums,source_paths,id\n" +
		"What is the max dose?,1200mg,c42 | c87,3|4,guide.pdf,q1\n" +
		"\"Who wrote it, and when?\",\"Ann, 1999\",,,,q2\n"
	fsys := fstest.MapFS{"v.csv": {Data: []byte(vecta)}}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		if _, err := r.Create(bg(), "faq0", file("examples/data", "faq.jsonl")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Export(bg(), "faq0", io.Discard, registry.ExportOptions{}); err == nil || !strings.Contains(err.Error(), "--skip-unanswerable") {
			t.Errorf("export of unanswerable entries: %v", err)
		}
		for _, src := range []struct {
			name  string
			files registry.Files
		}{
			{"vecta", registry.Files{FS: fsys, Path: "v.csv"}},
			{"faq", file("examples/data", "faq.jsonl")},
		} {
			if _, err := r.Create(bg(), src.name, src.files); err != nil {
				t.Fatal(err)
			}
			var first bytes.Buffer
			skipped, err := r.Export(bg(), src.name, &first, registry.ExportOptions{SkipUnanswerable: true})
			if err != nil {
				t.Fatalf("%s: Export: %v", src.name, err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "out.csv"), first.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			back := src.name + "-back"
			inf, err := r.Create(bg(), back, registry.Files{FS: os.DirFS(dir), Path: "out.csv"})
			if err != nil {
				t.Fatalf("%s: import of the export: %v\n%s", src.name, err, first.String())
			}
			if inf.Source.Format != "vecta" {
				t.Errorf("%s: the export imported as %s, want vecta", src.name, inf.Source.Format)
			}
			all, _, _ := r.Entries(bg(), src.name, 0, 0)
			var orig []registry.Entry
			for _, e := range all {
				if slices.Contains(skipped, e.ID) {
					if !e.Unanswerable {
						t.Errorf("%s: skipped %s, which has an answer", src.name, e.ID)
					}
					continue
				}
				orig = append(orig, e)
			}
			if src.name == "faq" && len(skipped) == 0 {
				t.Error("faq has unanswerable entries; none was skipped")
			}
			got, _, _ := r.Entries(bg(), back, 0, 0)
			if len(orig) != len(got) {
				t.Fatalf("%s: %d entries, then %d", src.name, len(orig), len(got))
			}
			for i := range orig {
				o, g := orig[i], got[i]
				chunks := o.ChunkIDs
				if len(chunks) == 0 {
					chunks = o.ExpectedDocs
				}
				if o.ID != g.ID || o.Question != g.Question || o.Answer != g.Answer || !reflect.DeepEqual(chunks, g.ChunkIDs) ||
					!reflect.DeepEqual(o.PageNums, g.PageNums) || !reflect.DeepEqual(o.SourcePaths, g.SourcePaths) {
					t.Errorf("%s entry %d: %+v, then %+v", src.name, i, o, g)
				}
			}
			var second bytes.Buffer
			if _, err := r.Export(bg(), back, &second, registry.ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			if first.String() != second.String() {
				t.Errorf("%s: export of the re-import differs:\n%s\n---\n%s", src.name, first.String(), second.String())
			}
		}
	})
}

func TestDownloadAndList(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		if _, err := r.Create(bg(), "faq", file("examples/data", "faq.jsonl")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateDraft(bg(), "later"); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.Download(bg(), "faq", &buf); err != nil {
			t.Fatal(err)
		}
		b, _ := r.Resolve(bg(), "faq")
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != len(b.Queries) {
			t.Fatalf("%d lines for %d questions", len(lines), len(b.Queries))
		}
		// A JSONL benchmark downloads as the rows of docs/data.md.
		rows, err := datasets.ReadJSONL(fstest.MapFS{"d.jsonl": {Data: buf.Bytes()}}, "d.jsonl")
		if err != nil {
			t.Fatalf("the download does not read as JSONL rows: %v", err)
		}
		for i, row := range rows {
			if row.ID != b.Queries[i].ID || row.Question != b.Queries[i].Text {
				t.Errorf("line %d is %q %q, want %q %q", i+1, row.ID, row.Question, b.Queries[i].ID, b.Queries[i].Text)
			}
		}
		l, err := r.List(bg(), registry.ListOptions{})
		if err != nil || len(l) != 2 || l[0].Name != "faq" || l[1].Name != "later" {
			t.Fatalf("List = %+v, %v", l, err)
		}
		js, _ := json.Marshal(l[0])
		var m map[string]any
		json.Unmarshal(js, &m)
		for _, k := range []string{"name", "status", "questions", "source", "created", "revision"} {
			if _, ok := m[k]; !ok {
				t.Errorf("list JSON lacks %q: %s", k, js)
			}
		}
		if l[1].Questions != 0 || l[1].Revision != "" || l[1].Source != nil {
			t.Errorf("draft = %+v", l[1])
		}
	})
}

func TestParseRef(t *testing.T) {
	for _, c := range []struct{ ref, name, hash string }{
		{"faq", "faq", ""},
		{"registry:faq", "faq", ""},
		{"registry:team/faq@EA3E86b12545", "team/faq", "ea3e86b12545"},
	} {
		n, h, err := registry.ParseRef(c.ref)
		if err != nil || n != c.name || h != c.hash {
			t.Errorf("ParseRef(%q) = %q, %q, %v", c.ref, n, h, err)
		}
	}
	for _, bad := range []string{"", "registry:", "faq@", "faq@xyz", "faq@12", "a b", "local/faq", "-x", "faq:1"} {
		if _, _, err := registry.ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) accepted", bad)
		}
	}
}

func TestDefaultDSN(t *testing.T) {
	t.Setenv(registry.EnvVar, "")
	t.Setenv("XDG_DATA_HOME", "/data")
	if d, _ := registry.DefaultDSN(); d != "/data/lasagna/registry.db" {
		t.Errorf("XDG: %s", d)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := registry.DefaultDSN(); d != "/home/u/.local/share/lasagna/registry.db" {
		t.Errorf("HOME: %s", d)
	}
	t.Setenv(registry.EnvVar, "postgres://x@/db")
	if d, _ := registry.DefaultDSN(); d != "postgres://x@/db" {
		t.Errorf("env: %s", d)
	}
	if _, err := registry.Open(bg(), "mysql://x"); err == nil {
		t.Error("an unknown scheme opened")
	}
}

//go:build parquet

// The tests that write parquet files with parquet-go, a library of the
// parquet build, are built with that tag: make test builds with it, and
// make check (the default build) does not compile parquet-go.

package hf_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
)

// The MS MARCO fixture is written with parquet-go in the shape the Hub's
// parquet files have (optional columns, LIST groups of optional elements).
type msPassages struct {
	IsSelected  []*int32  `parquet:"is_selected,optional,list"`
	PassageText []*string `parquet:"passage_text,optional,list"`
	URL         []*string `parquet:"url,optional,list"`
}

type msRow struct {
	Answers           []*string  `parquet:"answers,optional,list"`
	Passages          msPassages `parquet:"passages"`
	Query             string     `parquet:"query"`
	QueryID           int32      `parquet:"query_id"`
	QueryType         string     `parquet:"query_type"`
	WellFormedAnswers []*string  `parquet:"wellFormedAnswers,optional,list"`
}

func sp(s ...string) []*string {
	out := make([]*string, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

func ip(n ...int32) []*int32 {
	out := make([]*int32, len(n))
	for i := range n {
		out[i] = &n[i]
	}
	return out
}

func passages(sel []int32, text ...string) msPassages {
	urls := make([]string, len(text))
	for i := range text {
		urls[i] = fmt.Sprintf("http://example.com/%d", len(text[i]))
	}
	return msPassages{IsSelected: ip(sel...), PassageText: sp(text...), URL: sp(urls...)}
}

const (
	pGlass = "Soda-lime glass is made from silica, soda ash and lime."
	pSoda  = "The soda lowers the melting point of the silica."
	pLime  = "Lime makes the glass stable in water."
	pOther = "Borosilicate glass resists thermal shock."
)

func msFixture() []msRow {
	return []msRow{
		{Query: "what does soda do in glass", QueryID: 101, QueryType: "DESCRIPTION",
			Answers: sp("It lowers the melting point."), WellFormedAnswers: sp("The soda lowers the melting point of the silica."),
			Passages: passages([]int32{0, 1, 0}, pGlass, pSoda, pOther)},
		{Query: "what makes glass stable in water", QueryID: 102, QueryType: "DESCRIPTION",
			Answers: sp("Lime"), Passages: passages([]int32{1, 0, 0}, pLime, pGlass, pSoda)},
		{Query: "who invented pyrex", QueryID: 103, QueryType: "PERSON",
			Answers: sp("No Answer Present."), Passages: passages([]int32{0, 0}, pOther, pGlass)},
	}
}

func writeParquet[T any](t testing.TB, path string, rows []T, perGroup int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(perGroup))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestImportMSMARCO(t *testing.T) {
	eachBackend(t, func(t *testing.T, r *registry.Registry) {
		hub := msCache(t)
		inf, conv, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: hub, Config: "v1.1"})
		if err != nil {
			t.Fatal(err)
		}
		if inf.Name != "ms_marco-v1.1-validation" || inf.Status != registry.StatusActive || inf.Questions != 3 || inf.Documents != 4 {
			t.Errorf("info = %s %s %d questions %d documents, want ms_marco-v1.1-validation active 3 4", inf.Name, inf.Status, inf.Questions, inf.Documents)
		}
		want := registry.Source{Kind: "huggingface", Path: hub, SHA256: inf.Digest, Format: "parquet", Split: "validation", Dataset: hf.MSMARCO, Revision: rev, Config: "v1.1", Files: []string{"v1.1/validation-00000-of-00001.parquet"}}
		if inf.Source == nil || !reflect.DeepEqual(*inf.Source, want) {
			t.Errorf("source = %+v, want %+v", inf.Source, want)
		}
		if conv.Rows != 3 || conv.Documents != 4 {
			t.Errorf("converted %d rows, %d documents; want 3, 4", conv.Rows, conv.Documents)
		}
		es, _, err := r.Entries(bg(), inf.Name, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		id := func(text string) string { s := sha256.Sum256([]byte(text)); return "p" + hex.EncodeToString(s[:8]) }
		if len(es) != 3 {
			t.Fatalf("%d entries, want 3", len(es))
		}
		e := es[0]
		if e.ID != "101" || e.Question != "what does soda do in glass" || !slices.Equal(e.Answers, []string{"It lowers the melting point.", "The soda lowers the melting point of the silica."}) ||
			!slices.Equal(e.ExpectedDocs, []string{id(pSoda)}) || e.Metadata["query_type"] != "DESCRIPTION" || e.Metadata["query_id"] != float64(101) {
			t.Errorf("entry 101 = %+v", e)
		}
		if e := es[1]; e.Answer != "Lime" || !slices.Equal(e.ExpectedDocs, []string{id(pLime)}) {
			t.Errorf("entry 102 = %+v", e)
		}
		if e := es[2]; !e.Unanswerable || e.Answer != "" || len(e.ExpectedDocs) != 0 {
			t.Errorf("entry 103 (No Answer Present.) = %+v, want unanswerable without expected docs", e)
		}
		b, err := r.Resolve(bg(), "registry:"+inf.Name)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range b.Corpus {
			ids = append(ids, d.ID)
		}
		// every passage of the split once, in order of first appearance
		if wantIDs := []string{id(pGlass), id(pSoda), id(pOther), id(pLime)}; !slices.Equal(ids, wantIDs) {
			t.Errorf("corpus ids = %v, want %v", ids, wantIDs)
		}
		if b.Corpus[0].Text != pGlass || b.Corpus[0].Extra["url"] != fmt.Sprintf("http://example.com/%d", len(pGlass)) {
			t.Errorf("corpus[0] = %+v", b.Corpus[0])
		}
		// the conversion is deterministic: importing again adds nothing
		again, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: hub, Config: "v1.1"})
		if err != nil {
			t.Fatal(err)
		}
		if again.Revision != inf.Revision || again.Revisions != 1 {
			t.Errorf("second import = %s (%d revisions), want %s (1)", again.Revision, again.Revisions, inf.Revision)
		}
	})
}

func TestImportMSMARCOLimitAndLayouts(t *testing.T) {
	eachBackend(t, func(t *testing.T, r *registry.Registry) {
		hub := msCache(t)
		repo := filepath.Join(hub, "datasets--microsoft--ms_marco")
		snap := filepath.Join(repo, "snapshots", rev)
		for _, dir := range []string{repo, snap} { // the repo folder, a snapshot folder
			inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: dir, Name: "mm", Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if inf.Questions != 2 || inf.Documents != 4 || inf.Source.Revision != rev || inf.Source.Config != "v1.1" || inf.Source.Limit != 2 {
				t.Errorf("%s: %d questions, %d documents, source %+v; want 2, 4, revision %s, config v1.1 (the only one), limit 2", dir, inf.Questions, inf.Documents, inf.Source, rev)
			}
		}
		// a plain folder with one config's files needs --config
		plain := t.TempDir()
		writeParquet(t, filepath.Join(plain, "validation-00000-of-00001.parquet"), msFixture()[:1], 10)
		if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: plain}); err == nil || !strings.Contains(err.Error(), "give --config v1.1 or v2.1") {
			t.Errorf("plain folder without --config: err = %v", err)
		}
		inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: plain, Config: "v2.1", Name: "plain"})
		if err != nil {
			t.Fatal(err)
		}
		if inf.Questions != 1 || inf.Documents != 3 || inf.Source.Revision != "" || inf.Source.Config != "v2.1" {
			t.Errorf("plain: %d questions, %d documents, source %+v", inf.Questions, inf.Documents, inf.Source)
		}
		// a missing split names the ones on disk
		_, _, err = hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: hub, Split: "train"})
		if err == nil || !strings.Contains(err.Error(), "split train") || !strings.Contains(err.Error(), "v1.1/validation") {
			t.Errorf("missing split: err = %v", err)
		}
	})
}

func TestImportMSMARCOBadData(t *testing.T) {
	dup := msFixture()
	dup[2].QueryID = 101
	short := msFixture()
	short[1].Passages.URL = short[1].Passages.URL[:1]
	empty := msFixture()
	empty[0].Passages.PassageText[1] = new(string)
	nullElem := msFixture()
	nullElem[2].Answers = append(nullElem[2].Answers, nil)
	noQuery := msFixture()
	noQuery[1].Query = "  "
	five := msFixture()
	five[1].Passages.IsSelected = ip(1, 5, 0)
	minus := msFixture()
	minus[2].Passages.IsSelected = ip(-1, 0)
	nulQuery := msFixture()
	nulQuery[1].Query = "what makes glass\x00 stable"
	nulPassage := msFixture()
	nulPassage[0].Passages.PassageText[2] = sp("Borosilicate\x00")[0]
	type thin struct {
		Query   string `parquet:"query"`
		QueryID int32  `parquet:"query_id"`
	}
	cases := []struct {
		name  string
		write func(t *testing.T, p string)
		want  string
	}{
		{"duplicate id", func(t *testing.T, p string) { writeParquet(t, p, dup, 2) }, "row 3: query_id: duplicate query_id 101 (also row 1 of the split)"},
		{"passage lists differ", func(t *testing.T, p string) { writeParquet(t, p, short, 2) }, "row 2: passages: is_selected has 3 values, passage_text 3 and url 1"},
		{"empty passage", func(t *testing.T, p string) { writeParquet(t, p, empty, 2) }, "row 1: passages.passage_text: passage_text[1] is empty"},
		{"null answer", func(t *testing.T, p string) { writeParquet(t, p, nullElem, 2) }, "row 3: answers: answers has a null element"},
		{"empty query", func(t *testing.T, p string) { writeParquet(t, p, noQuery, 2) }, "row 2: query: empty or missing query"},
		{"is_selected 5", func(t *testing.T, p string) { writeParquet(t, p, five, 2) }, "row 2: passages.is_selected: is_selected[1] is 5; MS MARCO marks each passage 0 (not selected) or 1 (selected)"},
		{"is_selected -1", func(t *testing.T, p string) { writeParquet(t, p, minus, 2) }, "row 3: passages.is_selected: is_selected[0] is -1; MS MARCO marks each passage 0 (not selected) or 1 (selected)"},
		{"NUL in the query", func(t *testing.T, p string) { writeParquet(t, p, nulQuery, 2) }, "row 2: query: query holds a NUL (U+0000)"},
		{"NUL in a passage", func(t *testing.T, p string) { writeParquet(t, p, nulPassage, 2) }, "row 1: passages.passage_text: passages.passage_text[2] holds a NUL (U+0000)"},
		{"missing columns", func(t *testing.T, p string) { writeParquet(t, p, []thin{{"q", 1}}, 2) }, "missing column(s) answers, passages"},
		{"not parquet", func(t *testing.T, p string) { os.WriteFile(p, []byte("id,question\n"), 0o644) }, "not a readable parquet file"},
	}
	eachBackend(t, func(t *testing.T, r *registry.Registry) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "v1.1", "validation-00000-of-00001.parquet")
				os.MkdirAll(filepath.Dir(p), 0o755)
				c.write(t, p)
				_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: dir, Name: "bad"})
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("err = %v\nwant it to name %s and say %q", err, p, c.want)
				}
				if _, err := r.Get(bg(), "bad"); !errors.Is(err, registry.ErrNotFound) {
					t.Errorf("after a failed import, Get(bad) = %v, want ErrNotFound", err)
				}
			})
		}
	})
}

// TestCommittedMSMARCOFixture keeps testdata/ms_marco (the folder the
// README's import-hf example reads) equal to msFixture written by
// parquet-go; LASAGNA_UPDATE_TESTDATA=1 rewrites it.
func TestCommittedMSMARCOFixture(t *testing.T) {
	const committed = "testdata/ms_marco/v1.1/validation-00000-of-00001.parquet"
	fresh := filepath.Join(t.TempDir(), "f.parquet")
	writeParquet(t, fresh, msFixture(), 2)
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LASAGNA_UPDATE_TESTDATA") == "1" {
		os.MkdirAll(filepath.Dir(committed), 0o755)
		if err := os.WriteFile(committed, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from msFixture written with parquet-go; rerun with LASAGNA_UPDATE_TESTDATA=1", committed)
	}
}

// Files written by older pyarrow name list elements "item" (and some
// writers leave out the LIST annotation): columns are found by their
// top-level names, whatever the element is called.
type itemList struct {
	List []struct {
		Item *string `parquet:"item,optional"`
	} `parquet:"list"`
}

type itemInts struct {
	List []struct {
		Item *int32 `parquet:"item,optional"`
	} `parquet:"list"`
}

type legacyRow struct {
	Query    string    `parquet:"query"`
	QueryID  int64     `parquet:"query_id"`
	Answers  *itemList `parquet:"answers,optional"`
	Passages struct {
		IsSelected  itemInts `parquet:"is_selected"`
		PassageText itemList `parquet:"passage_text"`
		URL         itemList `parquet:"url"`
	} `parquet:"passages"`
}

func items(s ...string) itemList {
	var l itemList
	for i := range s {
		l.List = append(l.List, struct {
			Item *string `parquet:"item,optional"`
		}{&s[i]})
	}
	return l
}

func TestImportMSMARCOItemLists(t *testing.T) {
	row := legacyRow{Query: "what does soda do in glass", QueryID: 7}
	a := items("It lowers the melting point.")
	row.Answers = &a
	row.Passages.PassageText, row.Passages.URL = items(pGlass, pSoda), items("u1", "u2")
	for _, sel := range []int32{0, 1} {
		row.Passages.IsSelected.List = append(row.Passages.IsSelected.List, struct {
			Item *int32 `parquet:"item,optional"`
		}{&sel})
	}
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "v2.1", "validation.parquet"), []legacyRow{row}, 10)
	r, err := registry.Open(bg(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: dir, Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if inf.Name != "ms_marco-v2.1-validation" || inf.Status != registry.StatusDraft || inf.Questions != 1 || inf.Documents != 2 {
		t.Errorf("info = %s %s %d %d", inf.Name, inf.Status, inf.Questions, inf.Documents)
	}
	es, _, err := r.Entries(bg(), inf.Name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e := es[0]; e.ID != "7" || e.Answer != "It lowers the melting point." || len(e.ExpectedDocs) != 1 {
		t.Errorf("entry = %+v", e)
	}
}

package chunk

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// words returns n distinct words w0 … w(n-1) separated by sep.
func words(n int, sep string) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(ws, sep)
}

// TestChunkSeed000 checks the chunker against docs/data.md's description: a
// document is cut into 200-word passages, consecutive and without overlap,
// the last shorter one kept.
func TestChunkSeed000(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []int // words per chunk
	}{
		{1, []int{1}},
		{199, []int{199}},
		{200, []int{200}},
		{201, []int{200, 1}},
		{450, []int{200, 200, 50}},
		{600, []int{200, 200, 200}},
	} {
		doc := lasagna.Document{ID: "guide.md", Title: "Guide", Text: words(c.n, " ")}
		got := Chunker{}.Chunk(doc)
		var sizes []int
		var all []string
		for i, ch := range got {
			sizes = append(sizes, len(strings.Fields(ch.Text)))
			all = append(all, strings.Fields(ch.Text)...)
			if want := fmt.Sprintf("guide.md#%d", i); ch.ID != want || ch.Index != i || ch.DocID != "guide.md" {
				t.Errorf("%d words: chunk %d = {ID %q, DocID %q, Index %d}, want {%q, guide.md, %d}", c.n, i, ch.ID, ch.DocID, ch.Index, want, i)
			}
		}
		if !slices.Equal(sizes, c.want) {
			t.Errorf("%d words: chunk sizes %v, want %v", c.n, sizes, c.want)
		}
		// Consecutive and non-overlapping: the chunks concatenated give
		// back the document's words in order, each once.
		if !slices.Equal(all, strings.Fields(doc.Text)) {
			t.Errorf("%d words: chunks do not concatenate back to the document's words", c.n)
		}
	}
}

func TestChunkWhitespace(t *testing.T) {
	doc := lasagna.Document{ID: "d", Text: "  alpha\tbeta\n\ngamma  δέλτα\u00a0epsilon "}
	got := Chunker{Words: 2}.Chunk(doc)
	want := []lasagna.Chunk{
		{ID: "d#0", DocID: "d", Index: 0, Text: "alpha beta"},
		{ID: "d#1", DocID: "d", Index: 1, Text: "gamma δέλτα"},
		{ID: "d#2", DocID: "d", Index: 2, Text: "epsilon"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Chunk = %+v, want %+v", got, want)
	}
}

func TestChunkEmpty(t *testing.T) {
	for _, text := range []string{"", "   ", "\n\t\n"} {
		if got := (Chunker{}).Chunk(lasagna.Document{ID: "e", Text: text}); got != nil {
			t.Errorf("Chunk(%q) = %+v, want no chunk", text, got)
		}
	}
}

func TestDocuments(t *testing.T) {
	docs := []lasagna.Document{
		{ID: "a", Title: "A", Text: words(3, " ")},
		{ID: "empty", Title: "E", Text: " "},
		{ID: "b", Title: "B", Text: "x", Extra: map[string]any{"k": 1}},
	}
	got := Chunker{Words: 2}.Documents(docs)
	want := []lasagna.Document{
		{ID: "a#0", Title: "A", Text: "w0 w1"},
		{ID: "a#1", Title: "A", Text: "w2"},
		{ID: "b#0", Title: "B", Text: "x"},
	}
	if len(got) != len(want) {
		t.Fatalf("Documents = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Title != want[i].Title || got[i].Text != want[i].Text || got[i].Extra != nil {
			t.Errorf("Documents[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestDocID(t *testing.T) {
	for _, c := range []struct {
		doc   string
		index int
	}{{"guide.md", 0}, {"a#b", 12}, {"", 3}, {"x#", 7}} {
		id := ID(c.doc, c.index)
		doc, index, err := DocID(id)
		if err != nil || doc != c.doc || index != c.index {
			t.Errorf("DocID(%q) = %q, %d, %v; want %q, %d, nil", id, doc, index, err, c.doc, c.index)
		}
	}
	for _, bad := range []string{"nohash", "d#", "d#x", "d#-1", "d#01", "d#+1", "d#1 "} {
		if _, _, err := DocID(bad); err == nil {
			t.Errorf("DocID(%q) succeeded, want an error", bad)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("DocID(%q) error %q does not name the id", bad, err)
		}
	}
}

func TestDocHits(t *testing.T) {
	got, err := DocHits([]lasagna.Hit{{ID: "b#2", Score: 9}, {ID: "a#0", Score: 8}, {ID: "b#0", Score: 7}, {ID: "c#1", Score: 6}, {ID: "a#3", Score: 5}})
	if err != nil {
		t.Fatal(err)
	}
	want := []lasagna.Hit{{ID: "b", Score: 9}, {ID: "a", Score: 8}, {ID: "c", Score: 6}}
	if !slices.Equal(got, want) {
		t.Errorf("DocHits = %v, want %v", got, want)
	}
	if _, err := DocHits([]lasagna.Hit{{ID: "a#0", Score: 2}, {ID: "oops", Score: 1}}); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("DocHits with a bad id: err = %v, want one naming rank 2", err)
	}
}

func FuzzDocID(f *testing.F) {
	f.Add("guide.md", 0)
	f.Add("a#b#c", 41)
	f.Fuzz(func(t *testing.T, doc string, index int) {
		if index < 0 {
			index = -(index + 1)
		}
		d, i, err := DocID(ID(doc, index))
		if err != nil || d != doc || i != index {
			t.Fatalf("DocID(ID(%q, %d)) = %q, %d, %v", doc, index, d, i, err)
		}
	})
}

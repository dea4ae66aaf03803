package dense

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// letters embeds a text as counts of the letters a, b, c.
func letters(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(strings.Count(t, "a")), float32(strings.Count(t, "b")), float32(strings.Count(t, "c"))}
	}
	return out
}

func TestBuildAndRetrieve(t *testing.T) {
	docs := []lasagna.Document{{ID: "A", Text: "aaaa"}, {ID: "B", Title: "bb", Text: "bb"}, {ID: "C", Text: "ccc a"}}
	var calls atomic.Int64
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		calls.Add(1)
		return letters(texts), nil
	})
	ix, _ := vector.New(vector.Cosine)
	r, err := Build(t.Context(), docs, emb, ix, Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || r.IngestGap() != 0 {
		t.Errorf("embed calls = %d (want 2 batches), gap = %d", calls.Load(), r.IngestGap())
	}
	hits, err := r.Retrieve(t.Context(), lasagna.Query{Text: "cc"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].ID != "C" || hits[1].ID != "B" || hits[2].ID != "A" {
		t.Errorf("hits = %v, want C, then the tie B, A", hits)
	}
}

func TestBuildCountsFailedBatches(t *testing.T) {
	docs := []lasagna.Document{{ID: "A", Text: "a"}, {ID: "B", Text: "b"}, {ID: "C", Text: "c"}}
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		if slices.Contains(texts, "c") {
			return nil, errors.New("429 too many requests")
		}
		return letters(texts), nil
	})
	ix, _ := vector.New(vector.Cosine)
	r, err := Build(t.Context(), docs, emb, ix, Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.IngestGap() != 1 || !strings.Contains(r.IngestErrors(), "document C: 429 too many requests") {
		t.Errorf("gap = %d, errors = %q", r.IngestGap(), r.IngestErrors())
	}
	if ix.Len() != 2 {
		t.Errorf("index holds %d vectors, want 2", ix.Len())
	}
	all := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) { return nil, errors.New("401 bad key") })
	ix2, _ := vector.New(vector.Cosine)
	if _, err := Build(t.Context(), docs, all, ix2, Options{}); err == nil || !strings.Contains(err.Error(), "401 bad key") {
		t.Errorf("all batches failing: err = %v", err)
	}
	short := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) { return letters(texts[1:]), nil })
	ix3, _ := vector.New(vector.Cosine)
	if _, err := Build(t.Context(), docs, short, ix3, Options{BatchSize: 3}); err == nil || !strings.Contains(err.Error(), "returned 0 vectors for 1 texts") {
		t.Errorf("short reply: err = %v", err)
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ title, text, want string }{{"", "x", "x"}, {"T", "", "T"}, {"T", "x", "T x"}} {
		if got := Text(lasagna.Document{Title: c.title, Text: c.text}); got != c.want {
			t.Errorf("Text(%q, %q) = %q", c.title, c.text, got)
		}
	}
}

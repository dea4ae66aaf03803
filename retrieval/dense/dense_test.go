package dense

import (
	"context"
	"errors"
	"fmt"
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

// memStore is a vector.Store that keeps its collections between Builds, as
// a database does: sealed state and vectors per collection, backed by the
// exact index. refuse, when set, makes Add fail for a batch it returns an
// error for.
type memStore struct {
	name    string
	colls   map[string]*memColl
	cur     *memColl
	adds    int
	seals   []int
	refuse  func(ids []string) error
	texts   map[string]string // AddDocuments only
	textAdd int
}

type memColl struct {
	state vector.State
	ix    *vector.Index
}

func newMemStore(name string) *memStore {
	return &memStore{name: name, colls: map[string]*memColl{}}
}

func (m *memStore) Open(ctx context.Context, c vector.Collection) (vector.State, error) {
	mc := m.colls[c.Name]
	if mc == nil {
		ix, _ := vector.New(c.Metric)
		mc = &memColl{ix: ix}
		m.colls[c.Name] = mc
	}
	m.cur = mc
	st := mc.state
	st.Exists = mc.ix.Len() > 0 || st.Sealed
	if !st.Sealed {
		st.Documents = mc.ix.Len()
	}
	return st, nil
}

func (m *memStore) Add(ctx context.Context, ids []string, vecs [][]float32) error {
	m.adds++
	if m.refuse != nil {
		if err := m.refuse(ids); err != nil {
			return err
		}
	}
	return m.cur.ix.Add(ctx, ids, vecs)
}

func (m *memStore) Search(ctx context.Context, v []float32, k int) ([]lasagna.Hit, error) {
	return m.cur.ix.Search(ctx, v, k)
}

func (m *memStore) Seal(ctx context.Context, c vector.Collection, stored int) error {
	m.seals = append(m.seals, stored)
	m.cur.state = vector.State{Exists: true, Sealed: true, Fingerprint: c.Fingerprint, Documents: stored}
	return nil
}

func (m *memStore) Describe() vector.Description {
	return vector.Description{Name: m.name, ServerVersion: "1.0"}
}
func (m *memStore) Close() error { return nil }

// textStore is a memStore that keeps texts too (vector.TextStore).
type textStore struct{ *memStore }

func (t textStore) AddDocuments(ctx context.Context, docs []lasagna.Document, vecs [][]float32) error {
	t.textAdd++
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	if t.refuse != nil {
		if err := t.refuse(ids); err != nil {
			return err
		}
	}
	if t.texts == nil {
		t.texts = map[string]string{}
	}
	for _, d := range docs {
		t.texts[d.ID] = Text(d)
	}
	if vecs == nil {
		return nil
	}
	return t.cur.ix.Add(ctx, ids, vecs)
}

type dropStore struct{ *memStore }

func (d dropStore) DropCommand(c vector.Collection) string { return "drop-it " + c.Name }

func countingLetters(calls *atomic.Int64, texts *atomic.Int64) lasagna.Embedder {
	return lasagna.EmbedderFunc(func(ctx context.Context, in []string) ([][]float32, error) {
		calls.Add(1)
		texts.Add(int64(len(in)))
		return letters(in), nil
	})
}

var sixDocs = []lasagna.Document{{ID: "A", Text: "aaaa"}, {ID: "B", Text: "bb"}, {ID: "C", Text: "ccc a"},
	{ID: "D", Text: "ab"}, {ID: "E", Text: "bc"}, {ID: "F", Text: "ca"}}

func TestBuildReusesASealedCollection(t *testing.T) {
	st := newMemStore("pgvector")
	var calls, texts atomic.Int64
	emb := countingLetters(&calls, &texts)
	r1, err := Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters"})
	if err != nil {
		t.Fatal(err)
	}
	fp := vector.CorpusFingerprint(sixDocs, Text)
	want := vector.Collection{Name: vector.CollectionName(fp, "letters"), Fingerprint: fp, Documents: 6, Embedder: "letters", Metric: vector.Cosine}
	if r1.Collection() != want || r1.Reused() || texts.Load() != 6 || !slices.Equal(st.seals, []int{6}) {
		t.Fatalf("first build: collection %+v reused %v, %d texts embedded, seals %v; want %+v, 6 texts, sealed with 6", r1.Collection(), r1.Reused(), texts.Load(), st.seals, want)
	}
	q := lasagna.Query{Text: "cc"}
	h1, err := r1.Retrieve(t.Context(), q, 3)
	if err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	texts.Store(0)
	var progress []int
	r2, err := Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters", Progress: func(d, n int) { progress = append(progress, d, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Reused() || calls.Load() != 0 || st.adds != 2 || len(st.seals) != 1 || r2.IngestGap() != 0 || !slices.Equal(progress, []int{6, 6}) {
		t.Errorf("rerun: reused %v, %d embed calls (want none for documents), %d adds (want the first build's 2), seals %v, gap %d, progress %v",
			r2.Reused(), calls.Load(), st.adds, st.seals, r2.IngestGap(), progress)
	}
	h2, err := r2.Retrieve(t.Context(), q, 3)
	if err != nil || !slices.Equal(h1, h2) {
		t.Errorf("reused collection answers %v, %v; the first build answered %v", h2, err, h1)
	}
	// Another embedder names another collection: no reuse, no refusal.
	r3, err := Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters-v2"})
	if err != nil || r3.Reused() || r3.Collection().Name == want.Name || len(st.colls) != 2 {
		t.Errorf("another model: reused %v, collection %s, %d collections, %v", r3.Reused(), r3.Collection().Name, len(st.colls), err)
	}
	// A collection sealed with fewer documents (an earlier ingest gap) is
	// filled again, not reused.
	st.colls[want.Name].state.Documents = 5
	calls.Store(0)
	texts.Store(0)
	r4, err := Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters"})
	if err != nil || r4.Reused() || texts.Load() != 6 || st.colls[want.Name].ix.Len() != 6 {
		t.Errorf("after a gap: reused %v, %d texts embedded, %d vectors, %v; want the corpus ingested again (upsert)", r4.Reused(), texts.Load(), st.colls[want.Name].ix.Len(), err)
	}
}

func TestBuildRefusesAnotherCorpusCollection(t *testing.T) {
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) { return letters(texts), nil })
	fp := vector.CorpusFingerprint(sixDocs, Text)
	name := vector.CollectionName(fp, "letters")
	for _, c := range []struct {
		store vector.Store
		state vector.State
		want  []string
	}{
		{newMemStore("pgvector"), vector.State{Exists: true, Sealed: true, Fingerprint: strings.Repeat("f", 64), Documents: 6},
			[]string{"pgvector collection " + name, "holds another corpus", "psql -c 'DROP TABLE " + name + "'"}},
		{newMemStore("weaviate"), vector.State{Exists: true, Documents: 7},
			[]string{"weaviate collection " + name, "holds 7 documents and this corpus has 6", "curl -X DELETE \"$WEAVIATE_URL/v1/schema/L" + name[1:]}},
		{dropStore{newMemStore("other")}, vector.State{Exists: true, Fingerprint: strings.Repeat("0", 64), Documents: 2},
			[]string{"other collection " + name, "drop-it " + name}},
	} {
		var m *memStore
		switch s := c.store.(type) {
		case *memStore:
			m = s
		case dropStore:
			m = s.memStore
		}
		ix, _ := vector.New(vector.Cosine)
		m.colls[name] = &memColl{state: c.state, ix: ix}
		if c.state.Documents == 7 {
			// Unsealed: Open reports the vectors it holds.
			for i := range 7 {
				ix.Add(t.Context(), []string{fmt.Sprint("x", i)}, [][]float32{{1, 0, 0}})
			}
		}
		_, err := Build(t.Context(), sixDocs, emb, c.store, Options{Model: "letters"})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want it to contain %q", m.name, err, w)
			}
		}
		if m.adds != 0 {
			t.Errorf("%s: %d adds to a refused collection", m.name, m.adds)
		}
	}
	// A store that keeps collections needs the model's name.
	if _, err := Build(t.Context(), sixDocs, emb, newMemStore("pgvector"), Options{}); err == nil || !strings.Contains(err.Error(), "set Options.Model") {
		t.Errorf("no model name: %v", err)
	}
}

func TestBuildSplitsBatchesTheStoreRefuses(t *testing.T) {
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) { return letters(texts), nil })
	st := newMemStore("pgvector")
	st.refuse = func(ids []string) error {
		if slices.Contains(ids, "D") {
			return errors.New("value too long for type")
		}
		return nil
	}
	r, err := Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters"})
	if err != nil {
		t.Fatal(err)
	}
	if r.IngestGap() != 1 || r.IngestErrors() != "document D: value too long for type" || !slices.Equal(st.seals, []int{5}) || st.cur.ix.Len() != 5 {
		t.Errorf("gap %d, errors %q, seals %v, stored %d; want D alone missing, sealed with 5", r.IngestGap(), r.IngestErrors(), st.seals, st.cur.ix.Len())
	}
	// A bad first document costs only itself, though nothing is stored yet.
	st = newMemStore("pgvector")
	st.refuse = func(ids []string) error {
		if slices.Contains(ids, "A") {
			return errors.New("bad A")
		}
		return nil
	}
	r, err = Build(t.Context(), sixDocs, emb, st, Options{BatchSize: 4, Model: "letters"})
	if err != nil || r.IngestGap() != 1 || st.cur.ix.Len() != 5 {
		t.Errorf("bad first document: gap %d, stored %d, %v; want 1 and 5", r.IngestGap(), st.cur.ix.Len(), err)
	}
	// A server that refuses everything: an error after a few tries of the
	// first batch, not one per document of the corpus.
	st = newMemStore("pgvector")
	st.refuse = func(ids []string) error { return errors.New("connection refused") }
	many := make([]lasagna.Document, 1000)
	for i := range many {
		many[i] = lasagna.Document{ID: fmt.Sprintf("d%04d", i), Text: "abc"}
	}
	_, err = Build(t.Context(), many, emb, st, Options{BatchSize: 256, Model: "letters"})
	if err == nil || !strings.Contains(err.Error(), "no document could be embedded and stored") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("store down: %v", err)
	}
	if st.adds > 2*9 || len(st.seals) != 0 {
		t.Errorf("store down: %d adds (want at most 2·log2(256)+2), seals %v", st.adds, st.seals)
	}
}

func TestBuildTextStore(t *testing.T) {
	var calls, texts atomic.Int64
	emb := countingLetters(&calls, &texts)
	ts := textStore{newMemStore("weaviate")}
	r, err := Build(t.Context(), sixDocs, emb, ts, Options{BatchSize: 4, Model: "letters"})
	if err != nil {
		t.Fatal(err)
	}
	if ts.adds != 0 || ts.cur.ix.Len() != 6 || len(ts.texts) != 6 || ts.texts["C"] != "ccc a" {
		t.Errorf("text store: %d Adds (want AddDocuments only), %d vectors, texts %v", ts.adds, ts.cur.ix.Len(), ts.texts)
	}
	if hits, err := r.Retrieve(t.Context(), lasagna.Query{Text: "cc"}, 1); err != nil || hits[0].ID != "C" {
		t.Errorf("retrieve: %v %v", hits, err)
	}
	// No embedder: a collection of texts only, named with an empty model.
	calls.Store(0)
	r, err = Build(t.Context(), sixDocs, nil, ts, Options{BatchSize: 4, Model: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	fp := vector.CorpusFingerprint(sixDocs, Text)
	if r.Collection().Name != vector.CollectionName(fp, "") || r.Collection().Embedder != "" || calls.Load() != 0 || !slices.Equal(ts.seals, []int{6, 6}) {
		t.Errorf("text only: collection %+v, %d embed calls, seals %v", r.Collection(), calls.Load(), ts.seals)
	}
	if _, err := r.Retrieve(t.Context(), lasagna.Query{Text: "a"}, 1); err == nil || !strings.Contains(err.Error(), "holds texts only") {
		t.Errorf("vector search of a text-only collection: %v", err)
	}
	if _, err := Build(t.Context(), sixDocs, nil, newMemStore("pgvector"), Options{}); err == nil || !strings.Contains(err.Error(), "needs an embedder") {
		t.Errorf("no embedder, no text store: %v", err)
	}
}

// plainBackend is a lasagna.VectorBackend that is not a vector.Store.
type plainBackend struct {
	ix   *vector.Index
	fail bool
}

func (p plainBackend) Add(ctx context.Context, ids []string, vecs [][]float32) error {
	if p.fail {
		return errors.New("disk full")
	}
	return p.ix.Add(ctx, ids, vecs)
}

func (p plainBackend) Search(ctx context.Context, v []float32, k int) ([]lasagna.Hit, error) {
	return p.ix.Search(ctx, v, k)
}

func TestBuildPlainBackend(t *testing.T) {
	emb := lasagna.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) { return letters(texts), nil })
	ix, _ := vector.New(vector.Cosine)
	r, err := Build(t.Context(), sixDocs, emb, plainBackend{ix: ix}, Options{BatchSize: 4})
	if err != nil || ix.Len() != 6 || r.Collection() != (vector.Collection{}) {
		t.Fatalf("plain backend: %v, %d vectors, collection %+v", err, ix.Len(), r.Collection())
	}
	if hits, err := r.Retrieve(t.Context(), lasagna.Query{Text: "cc"}, 1); err != nil || hits[0].ID != "C" {
		t.Errorf("retrieve: %v %v", hits, err)
	}
	// A plain backend's refusal fails Build, as it always did.
	if _, err := Build(t.Context(), sixDocs, emb, plainBackend{ix: ix, fail: true}, Options{}); err == nil || !strings.Contains(err.Error(), "dense: index documents A…F: disk full") {
		t.Errorf("plain backend refusing: %v", err)
	}
}

// TestBuildTwiceIntoTheExactIndex: the exact index reports what it holds
// and is never sealed, so a second Build upserts the corpus again.
func TestBuildTwiceIntoTheExactIndex(t *testing.T) {
	var calls, texts atomic.Int64
	emb := countingLetters(&calls, &texts)
	ix, _ := vector.New(vector.Cosine)
	for range 2 {
		r, err := Build(t.Context(), sixDocs, emb, ix, Options{})
		if err != nil || r.Reused() || ix.Len() != 6 {
			t.Fatalf("build into the exact index: %v, reused %v, %d vectors", err, r.Reused(), ix.Len())
		}
	}
	if texts.Load() != 12 {
		t.Errorf("%d texts embedded, want 12", texts.Load())
	}
	if _, err := Build(t.Context(), sixDocs[:2], emb, ix, Options{}); err == nil || !strings.Contains(err.Error(), "new index (vector.New)") || !strings.Contains(err.Error(), "holds 6 documents and this corpus has 2") {
		t.Errorf("smaller corpus into a filled index: %v", err)
	}
}

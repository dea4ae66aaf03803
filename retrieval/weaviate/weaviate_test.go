package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/weaviatetest"
	"github.com/lasagna-go/lasagna/retrieval/vector"
	"github.com/lasagna-go/lasagna/retrieval/weaviate"
)

func TestMain(m *testing.M) {
	code := m.Run()
	weaviatetest.StopShared()
	os.Exit(code)
}

// open connects to the shared server and opens a new collection named
// after the test (a fresh class per test).
func open(t *testing.T, cfg weaviate.Config, name string, metric vector.Metric) (*weaviate.Store, vector.Collection) {
	t.Helper()
	srv := weaviatetest.Shared(t)
	cfg.URL = srv.URL
	ctx := context.Background()
	s, err := weaviate.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := vector.Collection{Name: name, Fingerprint: strings.Repeat("ab", 32), Embedder: "hash-64", Metric: metric}
	return s, c
}

func hashVectors(docs []lasagna.Document, dim int) [][]float32 {
	vs := make([][]float32, len(docs))
	for i, d := range docs {
		vs[i] = fixtures.HashEmbedding(strings.TrimSpace(d.Title+" "+d.Text), dim)
	}
	return vs
}

func ids(hits []lasagna.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestUpsertIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{BatchSize: 2}, "lasagna_upsert", "")
	st, err := s.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if st.Exists || st.Sealed {
		t.Fatalf("new collection: state %+v, want nothing", st)
	}
	docs := []lasagna.Document{
		{ID: "d1", Text: "apples and pears"},
		{ID: "d2", Title: "Citrus", Text: "lemons and limes"},
		{ID: "d3", Text: "cherries"},
	}
	if err := s.AddDocuments(ctx, docs, hashVectors(docs, 16)); err != nil {
		t.Fatal(err)
	}
	docs[2].Text = "plums replace cherries"
	if err := s.AddDocuments(ctx, docs, hashVectors(docs, 16)); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 3); err != nil {
		t.Fatal(err)
	}
	// A second Open reads the object count back: still 3 after the upsert.
	st, err = s.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Sealed || st.Documents != 3 {
		t.Fatalf("after two upserts of 3 documents: state %+v, want sealed with 3 (the count matches)", st)
	}
	hits, err := s.SearchKeyword(ctx, "plums", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !slices.Equal(got, []string{"d3"}) {
		t.Fatalf("keyword plums: %v, want [d3] (the replaced text)", got)
	}
	hits, err = s.SearchKeyword(ctx, "citrus", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !slices.Equal(got, []string{"d2"}) {
		t.Fatalf("keyword citrus (the title): %v, want [d2]", got)
	}
	// The vector of d3 was replaced too.
	hits, err = s.Search(ctx, fixtures.HashEmbedding("plums replace cherries", 16), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "d3" || math.Abs(hits[0].Score-1) > 1e-5 {
		t.Fatalf("nearest to d3's new vector: %+v, want d3 with score 1", hits)
	}
}

func TestOpenSealReuse(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{}, "lasagna_reuse", "")
	c.Documents = 2
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	docs := []lasagna.Document{{ID: "a", Text: "one"}, {ID: "b", Text: "two"}}
	if err := s.AddDocuments(ctx, docs, hashVectors(docs, 8)); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 2); err != nil {
		t.Fatal(err)
	}

	// Another Store (a rerun) finds the sealed collection.
	s2, _ := open(t, weaviate.Config{}, c.Name, "")
	st, err := s2.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := vector.State{Exists: true, Sealed: true, Fingerprint: c.Fingerprint, Documents: 2}
	if st != want {
		t.Fatalf("reopen: %+v, want %+v", st, want)
	}
	hits, err := s2.Search(ctx, fixtures.HashEmbedding("two", 8), 1)
	if err != nil || len(hits) != 1 || hits[0].ID != "b" {
		t.Fatalf("search after reopen: %v %v, want b", hits, err)
	}

	// Adding again unseals until the next Seal: an interrupted re-ingest
	// is never taken for a complete one.
	more := []lasagna.Document{{ID: "c", Text: "three"}}
	if err := s2.AddDocuments(ctx, more, hashVectors(more, 8)); err != nil {
		t.Fatal(err)
	}
	st, err = s.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exists || st.Sealed {
		t.Fatalf("after an add without Seal: %+v, want exists and not sealed", st)
	}
	if err := s.Seal(ctx, c, 3); err != nil {
		t.Fatal(err)
	}
	if st, err = s.Open(ctx, c); err != nil || !st.Sealed || st.Documents != 3 {
		t.Fatalf("after Seal(3): %+v %v", st, err)
	}
}

func TestOpenRefusesAnotherIndex(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{Index: vector.HNSW{M: 8, EfConstruction: 64, EfSearch: 64}}, "lasagna_mismatch", "")
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	s2, _ := open(t, weaviate.Config{Index: vector.HNSW{M: 16, EfConstruction: 64, EfSearch: 64}}, c.Name, "")
	_, err := s2.Open(ctx, c)
	if err == nil || !strings.Contains(err.Error(), "m=8") || !strings.Contains(err.Error(), "DELETE /v1/schema/Lasagna_mismatch") {
		t.Fatalf("reopen with another m: %v, want a refusal naming m=8 and the fix", err)
	}
	// Another ef only changes searches: Open updates it.
	s3, _ := open(t, weaviate.Config{Index: vector.HNSW{M: 8, EfConstruction: 64, EfSearch: 100}}, c.Name, "")
	if _, err := s3.Open(ctx, c); err != nil {
		t.Fatalf("reopen with another ef: %v", err)
	}
	if got := s3.Describe().Index; got != "hnsw m=8 ef_construction=64 ef=100 cosine" {
		t.Fatalf("Describe().Index = %q", got)
	}
	s4, _ := open(t, weaviate.Config{Index: vector.HNSW{M: 8, EfConstruction: 64, EfSearch: 100}}, c.Name, vector.Dot)
	c.Metric = vector.Dot
	if _, err := s4.Open(ctx, c); err == nil || !strings.Contains(err.Error(), "distance cosine") {
		t.Fatalf("reopen with another metric: %v, want a refusal", err)
	}
}

func TestDescribe(t *testing.T) {
	s, c := open(t, weaviate.Config{}, "lasagna_describe", "")
	if _, err := s.Open(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	d := s.Describe()
	want := "weaviate " + strings.TrimPrefix(weaviatetest.Version, "v") + " hnsw m=64 ef_construction=512 ef=1536 cosine"
	if d.String() != want {
		t.Fatalf("Describe() = %q, want %q", d, want)
	}
	srv := weaviatetest.Shared(t)
	if got, want := s.DropCommand(c), `curl -X DELETE -H "Authorization: Bearer $WEAVIATE_API_KEY" `+srv.URL+`/v1/schema/Lasagna_describe`; got != want {
		t.Fatalf("DropCommand = %q, want %q", got, want)
	}
}

func TestKeywordFindsRareWordFirst(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{}, "lasagna_keyword", "")
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	docs, _ := corpusgen.Zipf(300, 0)
	docs[137].Text += " zyzzyva"
	// Text only: the keyword arm needs no vectors.
	if err := s.AddDocuments(ctx, docs, nil); err != nil {
		t.Fatal(err)
	}
	// The rare word beside a word found in 5–30% of the passages (not a
	// stopword, which Weaviate's BM25 drops) but not in passage 137, so
	// that others match too and score lower.
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range strings.Fields(d.Text) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	common := ""
	for _, w := range strings.Fields(docs[0].Text) {
		if len(w) > 4 && df[w] >= 15 && df[w] <= 90 && !slices.Contains(strings.Fields(docs[137].Text), w) {
			common = w
			break
		}
	}
	if common == "" {
		t.Fatalf("no common word in %q", docs[0].Text)
	}
	hits, err := s.SearchKeyword(ctx, common+" zyzzyva", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != docs[137].ID {
		t.Fatalf("BM25 for a rare word: %v, want %s first", hits, docs[137].ID)
	}
	if len(hits) != 5 {
		t.Fatalf("BM25 k=5 gave %d hits (common words match others)", len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("hits not best first: %v", hits)
		}
	}
	// The top k is the first k of a longer list: the engine's BM25 ranks
	// exactly at every limit (see internal/weaviatetest on BlockMax WAND).
	q := strings.Join(strings.Fields(docs[0].Text)[:6], " ")
	long, err := s.SearchKeyword(ctx, q, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3, 5, 10, 20} {
		short, err := s.SearchKeyword(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(short), ids(long[:k])) {
			t.Fatalf("BM25 %q: limit %d gives %v, the first %d of limit 100 are %v", q, k, ids(short), k, ids(long[:k]))
		}
	}
	// Quotes, backslashes and control characters reach the server as text.
	if _, err := s.SearchKeyword(ctx, "\"zyzzyva\\\"\n\x00", 3); err != nil {
		t.Fatalf("query with quotes and control characters: %v", err)
	}
	if hits, err := s.SearchKeyword(ctx, " \t", 3); err != nil || len(hits) != 0 {
		t.Fatalf("blank query: %v %v, want nothing", hits, err)
	}
}

func TestHybrid(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{}, "lasagna_hybrid", "")
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	docs, _ := corpusgen.Zipf(300, 0)
	docs[42].Text += " zyzzyva"
	vecs := hashVectors(docs, 64)
	if err := s.AddDocuments(ctx, docs, vecs); err != nil {
		t.Fatal(err)
	}
	// The query vector is document 7's: pure vector search finds 7, pure
	// keyword search finds the rare word's document, and a mix finds both.
	q := vecs[7]
	for _, tc := range []struct {
		alpha float64
		first string
	}{{1, docs[7].ID}, {0, docs[42].ID}} {
		hits, err := s.SearchHybrid(ctx, "zyzzyva", q, 10, tc.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].ID != tc.first {
			t.Fatalf("hybrid alpha=%v: %v, want %s first", tc.alpha, hits, tc.first)
		}
	}
	hits, err := s.SearchHybrid(ctx, "zyzzyva", q, 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 10 || !slices.Contains(got[:2], docs[7].ID) || !slices.Contains(got[:2], docs[42].ID) {
		t.Fatalf("hybrid alpha=0.5: %v, want %s and %s on top", got, docs[7].ID, docs[42].ID)
	}
	// Concurrent searches (the engine runs queries in parallel) agree
	// with a sequential one.
	want, err := s.Search(ctx, vecs[3], 10)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 10 {
				got, err := s.Search(ctx, vecs[3], 10)
				if err == nil && !slices.Equal(ids(got), ids(want)) {
					err = fmt.Errorf("concurrent search gave %v, sequential %v", ids(got), ids(want))
				}
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.SearchKeyword(ctx, "zyzzyva", 3); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// A query without words is the vector part alone.
	if hits, err := s.SearchHybrid(ctx, " ", q, 10, 0.5); err != nil || len(hits) == 0 || hits[0].ID != docs[7].ID {
		t.Fatalf("hybrid with a blank query: %v %v, want %s first", hits, err, docs[7].ID)
	}
	if _, err := s.SearchHybrid(ctx, "x", q, 10, 1.5); err == nil || !strings.Contains(err.Error(), "[0, 1]") {
		t.Fatalf("alpha 1.5: %v, want a refusal", err)
	}
	if _, err := s.SearchHybrid(ctx, "x", nil, 10, 0.5); err == nil || !strings.Contains(err.Error(), "query's vector") {
		t.Fatalf("no vector: %v, want a refusal", err)
	}
}

// recallAt10 is the share of the exact top-10 the engine returned, where
// an engine hit whose exact score ties the exact 10th score counts as
// correct (hash vectors of equal word sets tie exactly).
func recallAt10(exact, got []lasagna.Hit, score map[string]float64) float64 {
	if len(exact) == 0 {
		return 1
	}
	tenth := exact[len(exact)-1].Score
	want := map[string]bool{}
	for _, h := range exact {
		want[h.ID] = true
	}
	n := 0
	for _, h := range got {
		if want[h.ID] || score[h.ID] >= tenth-1e-6 {
			n++
		}
	}
	return float64(min(n, len(exact))) / float64(len(exact))
}

// TestConformanceWithExactIndex compares Weaviate's HNSW top-10 with the
// exact index's on the same hash vectors: recall@10 ≥ 0.99, and each
// score within float32 rounding of the exact cosine.
func TestConformanceWithExactIndex(t *testing.T) {
	for _, metric := range []vector.Metric{vector.Cosine, vector.Dot} {
		t.Run(string(metric), func(t *testing.T) {
			ctx := context.Background()
			s, c := open(t, weaviate.Config{}, "lasagna_conformance_"+string(metric), metric)
			if _, err := s.Open(ctx, c); err != nil {
				t.Fatal(err)
			}
			docs, queries := corpusgen.Zipf(3000, 100)
			vecs := hashVectors(docs, fixtures.DefaultEmbeddingDim)
			if err := s.AddDocuments(ctx, docs, vecs); err != nil {
				t.Fatal(err)
			}
			exact, err := vector.New(metric)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(docs))
			for i, d := range docs {
				ids[i] = d.ID
			}
			if err := exact.Add(ctx, ids, vecs); err != nil {
				t.Fatal(err)
			}
			var sum float64
			for _, q := range queries {
				qv := fixtures.HashEmbedding(q, fixtures.DefaultEmbeddingDim)
				want, err := exact.Search(ctx, qv, 10)
				if err != nil {
					t.Fatal(err)
				}
				all, err := exact.Search(ctx, qv, len(docs))
				if err != nil {
					t.Fatal(err)
				}
				score := make(map[string]float64, len(all))
				for _, h := range all {
					score[h.ID] = h.Score
				}
				got, err := s.Search(ctx, qv, 10)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 10 {
					t.Fatalf("query %q: %d hits, want 10", q, len(got))
				}
				for _, h := range got {
					if math.Abs(h.Score-score[h.ID]) > 1e-4 {
						t.Fatalf("query %q: %s scored %v, exact %v", q, h.ID, h.Score, score[h.ID])
					}
				}
				sum += recallAt10(want, got, score)
			}
			recall := sum / float64(len(queries))
			t.Logf("recall@10 over %d queries on %d %d-d vectors: %.4f", len(queries), len(docs), fixtures.DefaultEmbeddingDim, recall)
			if recall < 0.99 {
				t.Fatalf("recall@10 = %.4f, want ≥ 0.99", recall)
			}
		})
	}
}

func TestBatchRejectsBadInputWhole(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{}, "lasagna_badinput", "")
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	docs := []lasagna.Document{{ID: "x", Text: "a"}, {ID: "y", Text: "b"}}
	for _, tc := range []struct {
		name string
		docs []lasagna.Document
		vecs [][]float32
		want string
	}{
		{"NaN", docs, [][]float32{{1, 0}, {float32(math.NaN()), 1}}, `vector "y" has NaN at position 0`},
		{"dimension", docs, [][]float32{{1, 0}, {1, 0, 0}}, `vector "y" has 3 dimensions, want 2`},
		{"zero", docs, [][]float32{{1, 0}, {0, 0}}, `vector "y" is all zeros`},
		{"count", docs, [][]float32{{1, 0}}, "2 documents but 1 vectors"},
		{"duplicate", []lasagna.Document{{ID: "x"}, {ID: "x"}}, nil, `"x" is twice`},
		{"empty id", []lasagna.Document{{ID: ""}}, nil, "empty id"},
	} {
		if err := s.AddDocuments(ctx, tc.docs, tc.vecs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if st, err := s.Open(ctx, c); err != nil || st.Sealed {
		t.Fatal(st, err)
	}
	if hits, err := s.SearchKeyword(ctx, "a b", 10); err != nil || len(hits) != 0 {
		t.Fatalf("after refused batches: %v %v, want nothing stored", hits, err)
	}
}

func TestBatchErrorNamesFailedDocuments(t *testing.T) {
	ctx := context.Background()
	s, c := open(t, weaviate.Config{}, "lasagna_batcherror", "")
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	first := []lasagna.Document{{ID: "ok", Text: "fine"}}
	if err := s.AddDocuments(ctx, first, [][]float32{{1, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	// A new Store does not know the class's dimension, so the server is
	// the one to refuse a vector of another length: per object, in the
	// batch response.
	s2, _ := open(t, weaviate.Config{}, c.Name, "")
	if _, err := s2.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	docs := []lasagna.Document{{ID: "short1"}, {ID: "short2"}}
	err := s2.AddDocuments(ctx, docs, [][]float32{{1, 0}, {0, 1}})
	var be *weaviate.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("vectors of another dimension: %v, want a *BatchError", err)
	}
	if !slices.Equal(be.FailedIDs(), []string{"short1", "short2"}) {
		t.Fatalf("failed ids %v", be.FailedIDs())
	}
	if !strings.Contains(err.Error(), "2 document(s) not stored") || !strings.Contains(err.Error(), "Lasagna_batcherror") {
		t.Fatalf("error %q does not name the count and the class", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		cfg  weaviate.Config
		want []string
	}{
		{weaviate.Config{}, []string{"no URL", "vector_backend.url"}},
		{weaviate.Config{URL: "localhost:8080"}, []string{"not http(s)://host[:port]"}},
		{weaviate.Config{URL: "http://user:hunter2@localhost:8080"}, []string{"carries credentials", "WEAVIATE_API_KEY", "http://localhost:8080"}},
		{weaviate.Config{URL: "http://localhost:8080/v1"}, []string{"has a path"}},
		{weaviate.Config{URL: "http://" + closed, APIKey: "sekret-key", Timeout: 2 * time.Second}, []string{"weaviate at http://" + closed, "start Weaviate there"}},
		{weaviate.Config{URL: "http://localhost:8080", Metric: "l2"}, []string{`unknown metric "l2"`}},
		{weaviate.Config{URL: "http://localhost:8080", Index: vector.HNSW{M: 1}}, []string{"m must be at least 2"}},
	} {
		_, err := weaviate.Open(ctx, tc.cfg)
		if err == nil {
			t.Errorf("%+v: no error", tc.cfg.URL)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Open(%q): %v, want it to say %q", tc.cfg.URL, err, w)
			}
		}
		for _, secret := range []string{"hunter2", "sekret-key"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Open(%q): the error shows a secret: %v", tc.cfg.URL, err)
			}
		}
	}
}

func TestAPIKeyIsSent(t *testing.T) {
	// A server that requires a key answers 401 without one; the store
	// reports the fix and never the key.
	got := make(chan string, 4)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				n, _ := c.Read(buf)
				req := string(buf[:n])
				auth := ""
				for _, line := range strings.Split(req, "\r\n") {
					if strings.HasPrefix(strings.ToLower(line), "authorization:") {
						auth = strings.TrimSpace(line[len("authorization:"):])
					}
				}
				got <- auth
				fmt.Fprint(c, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	url := "http://" + ln.Addr().String()
	_, err = weaviate.Open(context.Background(), weaviate.Config{URL: url, APIKey: "sekret-key"})
	if err == nil || !strings.Contains(err.Error(), "refused the API key") || strings.Contains(err.Error(), "sekret-key") {
		t.Fatalf("401 with a key: %v", err)
	}
	if a := <-got; a != "Bearer sekret-key" {
		t.Fatalf("Authorization header %q, want the bearer key", a)
	}
	_, err = weaviate.Open(context.Background(), weaviate.Config{URL: url})
	if err == nil || !strings.Contains(err.Error(), "set WEAVIATE_API_KEY") {
		t.Fatalf("401 without a key: %v", err)
	}
}

func TestClassName(t *testing.T) {
	name := vector.CollectionName(strings.Repeat("0f", 32), "model")
	got, err := weaviate.ClassName(name)
	if err != nil || got != "L"+name[1:] {
		t.Fatalf("ClassName(%q) = %q, %v", name, got, err)
	}
	for _, bad := range []string{"", "Lasagna", "1abc", "a-b", "ä"} {
		if _, err := weaviate.ClassName(bad); err == nil {
			t.Errorf("ClassName(%q): no error", bad)
		}
	}
}

func TestSearchBeforeOpen(t *testing.T) {
	srv := weaviatetest.Shared(t)
	s, err := weaviate.Open(context.Background(), weaviate.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(context.Background(), []float32{1}, 1); err == nil || !strings.Contains(err.Error(), "before Open") {
		t.Fatalf("Search before Open: %v", err)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	var calls, failFirst atomic.Int32
	failFirst.Store(2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n <= failFirst.Load() {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"version":"1.35.2"}`)
	}))
	defer srv.Close()
	s, err := weaviate.Open(context.Background(), weaviate.Config{URL: srv.URL})
	if err != nil {
		t.Fatalf("two 503s then an answer: %v", err)
	}
	if calls.Load() != 3 || s.Describe().ServerVersion != "1.35.2" {
		t.Fatalf("%d calls, version %q: want 3 and 1.35.2", calls.Load(), s.Describe().ServerVersion)
	}
	calls.Store(0)
	failFirst.Store(1000)
	_, err = weaviate.Open(context.Background(), weaviate.Config{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "status 503") || !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("always 503: %v", err)
	}
	// The client asks for the version once itself when it is made; then
	// the Store's 4 tries.
	if calls.Load() != 5 {
		t.Fatalf("always 503: %d requests, want 5 (the client's version probe and 4 tries)", calls.Load())
	}
}

// TestAPIKeyEchoIsRedacted: a server quoting the first 20 and the last 10
// characters of the key in its 401 (or the whole header) shows no run of 8
// of them in the error.
func TestAPIKeyEchoIsRedacted(t *testing.T) {
	const key = "wv-key/0123456789abcdefSECRETxyz"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":[{"message":"key %s... is invalid; %s (header %s)"}]}`, strings.ReplaceAll(k[:20], "/", `\/`), k[len(k)-10:], r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	_, err := weaviate.Open(context.Background(), weaviate.Config{URL: srv.URL, APIKey: key, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("err = %v, want the echo redacted", err)
	}
	for i := 0; i+8 <= len(key); i++ {
		if strings.Contains(err.Error(), key[i:i+8]) {
			t.Errorf("the error shows %q of the key: %v", key[i:i+8], err)
		}
	}
}

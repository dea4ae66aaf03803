package embed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/retrieval/embed"
)

func newEmbedder(t *testing.T, baseURL string, cfg embed.Config, mod func(*llm.Config)) *embed.OpenAI {
	t.Helper()
	lc := llm.Config{
		BaseURL:        baseURL,
		APIKey:         "k",
		EmbeddingModel: "text-embedding-3-small",
		MinBackoff:     time.Millisecond,
		MaxBackoff:     5 * time.Millisecond,
	}
	if mod != nil {
		mod(&lc)
	}
	c, err := llm.New(lc)
	if err != nil {
		t.Fatal(err)
	}
	e, err := embed.NewOpenAI(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage %d about topic %d", i, i%7)
	}
	return out
}

func TestBatchingPreservesOrder(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{EmbeddingDim: 24})
	defer f.Close()
	for _, conc := range []int{1, 3} {
		f.Reset()
		e := newEmbedder(t, f.URL, embed.Config{BatchSize: 10, Concurrency: conc}, nil)
		if e.Dim() != 0 {
			t.Fatalf("Dim before the first call = %d", e.Dim())
		}
		in := texts(35)
		vecs, err := e.Embed(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		if len(vecs) != len(in) {
			t.Fatalf("%d vectors for %d texts", len(vecs), len(in))
		}
		for i, v := range vecs {
			if fmt.Sprint(v) != fmt.Sprint(fixtures.HashEmbedding(in[i], 24)) {
				t.Fatalf("concurrency %d: vector %d is not the embedding of text %d", conc, i, i)
			}
		}
		var sizes []int
		for _, r := range f.Requests() {
			sizes = append(sizes, len(r.Body["input"].([]any)))
		}
		if got := fmt.Sprint(sizes); conc == 1 && got != "[10 10 10 5]" {
			t.Errorf("batch sizes %s", got)
		}
		if f.Count("embeddings") != 4 || e.Dim() != 24 {
			t.Errorf("%d requests, Dim %d", f.Count("embeddings"), e.Dim())
		}
	}
}

func TestDefaultBatchSizeAndEmptyInput(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	e := newEmbedder(t, f.URL, embed.Config{}, nil)
	vecs, err := e.Embed(t.Context(), nil)
	if err != nil || len(vecs) != 0 || f.Count("") != 0 {
		t.Fatalf("no texts: %v %v, %d requests", vecs, err, f.Count(""))
	}
	if _, err := e.Embed(t.Context(), texts(embed.DefaultBatchSize+1)); err != nil {
		t.Fatal(err)
	}
	if f.Count("") != 2 {
		t.Errorf("%d requests for %d texts, want 2", f.Count(""), embed.DefaultBatchSize+1)
	}
	if _, err := embed.NewOpenAI(nil, embed.Config{}); err == nil {
		t.Error("nil client accepted")
	}
	c, _ := llm.New(llm.Config{})
	if _, err := embed.NewOpenAI(c, embed.Config{BatchSize: -1}); err == nil {
		t.Error("negative batch size accepted")
	}
}

func TestFaults(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	in := texts(5)

	cases := []struct {
		name   string
		faults []fixtures.Fault
		want   error // nil: success after retries
		code   string
	}{
		{"429 then success", []fixtures.Fault{{Status: 429, RetryAfterMs: "10"}}, nil, ""},
		{"500s then success", []fixtures.Fault{{Status: 500, Times: 2}}, nil, ""},
		{"timeout then success", []fixtures.Fault{{Delay: 3 * time.Second}}, nil, ""},
		{"malformed then success", []fixtures.Fault{{Malformed: true}}, nil, ""},
		{"429 forever", []fixtures.Fault{{Status: 429, Times: 100}}, llm.ErrRateLimited, "rate_limited"},
		{"500 forever", []fixtures.Fault{{Status: 500, Times: 100}}, llm.ErrServer, "server_error"},
		{"timeout forever", []fixtures.Fault{{Delay: 3 * time.Second, Times: 100}}, llm.ErrTimeout, "timeout"},
		{"malformed forever", []fixtures.Fault{{Malformed: true, Times: 100}}, llm.ErrMalformed, "malformed_response"},
	}
	for _, c := range cases {
		// In a testing/synctest bubble, talking to f in memory: backoffs,
		// timeouts and delays run on the bubble's fake clock.
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f.Reset()
				f.Inject(c.faults...)
				e := newEmbedder(t, f.URL, embed.Config{BatchSize: 2}, func(lc *llm.Config) {
					lc.MaxRetries = 2
					lc.RequestTimeout = 100 * time.Millisecond
					lc.HTTPClient = f.InMemoryClient()
				})
				vecs, err := e.Embed(t.Context(), in)
				if c.want == nil {
					if err != nil || len(vecs) != len(in) {
						t.Fatalf("vecs %d err %v", len(vecs), err)
					}
					for i, v := range vecs {
						if fmt.Sprint(v) != fmt.Sprint(fixtures.HashEmbedding(in[i], fixtures.DefaultEmbeddingDim)) {
							t.Fatalf("vector %d wrong", i)
						}
					}
					return
				}
				if !errors.Is(err, c.want) || llm.Code(err) != c.code || vecs != nil {
					t.Fatalf("err %v (code %q), vecs %v; want %v", err, llm.Code(err), vecs, c.want)
				}
				if !strings.Contains(err.Error(), "batch 0") {
					t.Errorf("error does not name the batch: %v", err)
				}
			})
		})
	}
}

func TestDimensionCheck(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch n {
		case 1: // two vectors of length 3
			fmt.Fprint(w, `{"model": "e", "data": [{"index": 0, "embedding": [1, 0, 0]}, {"index": 1, "embedding": [0, 1, 0]}]}`)
		case 2: // lengths differ within a response
			fmt.Fprint(w, `{"model": "e", "data": [{"index": 0, "embedding": [1, 0, 0]}, {"index": 1, "embedding": [0, 1]}]}`)
		default: // consistent, but not the length learnt first
			fmt.Fprint(w, `{"model": "e", "data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [0, 1]}]}`)
		}
	}))
	defer srv.Close()
	e := newEmbedder(t, srv.URL+"/v1", embed.Config{}, nil)
	if _, err := e.Embed(t.Context(), []string{"a", "b"}); err != nil || e.Dim() != 3 {
		t.Fatalf("err %v dim %d", err, e.Dim())
	}
	for _, in := range [][]string{{"c", "d"}, {"e", "f"}} {
		_, err := e.Embed(t.Context(), in)
		if !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), "want 3") {
			t.Errorf("%v: err %v", in, err)
		}
	}
	e2 := newEmbedder(t, srv.URL+"/v1", embed.Config{Dim: 5}, nil)
	if e2.Dim() != 5 {
		t.Errorf("configured Dim %d", e2.Dim())
	}
	if _, err := e2.Embed(t.Context(), []string{"g", "h"}); !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), "want 5") {
		t.Errorf("configured Dim: err %v", err)
	}
}

func TestCancelledContext(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	e := newEmbedder(t, f.URL, embed.Config{BatchSize: 1}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	vecs, err := e.Embed(ctx, texts(3))
	if err == nil || vecs != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("vecs %v err %v", vecs, err)
	}
}

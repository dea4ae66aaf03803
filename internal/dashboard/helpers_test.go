package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// faqBundle runs the arms of sweep (YAML arms: list) over
// examples/data/faq.jsonl and returns the bundle.
func faqBundle(t testing.TB, arms string) *results.Bundle {
	t.Helper()
	return runOn(t, os.DirFS(filepath.Join("..", "..", "examples")), "data/faq.jsonl", arms)
}

const (
	// twoArms is a run of two arms (a comparison within the bundle).
	twoArms = `  - {name: bm25, retriever: bm25, varied: [bm25_stemming]}
  - {name: bm25-nostem, retriever: bm25, bm25: {stemming: false}, varied: [bm25_stemming]}
`
	// stemmed and unstemmed are one arm named bm25 each: the second
	// compares with the first as its baseline.
	stemmed   = "  - {name: bm25, retriever: bm25, varied: [bm25_stemming]}\n"
	unstemmed = "  - {name: bm25, retriever: bm25, bm25: {stemming: false}, varied: [bm25_stemming]}\n"
)

// bundles caches the runs the tests share (each takes a moment).
var bundles = struct {
	sync.Mutex
	m map[string]*results.Bundle
}{m: map[string]*results.Bundle{}}

func sharedBundle(t testing.TB, arms string) *results.Bundle {
	bundles.Lock()
	defer bundles.Unlock()
	if b := bundles.m[arms]; b != nil {
		return b
	}
	b := faqBundle(t, arms)
	bundles.m[arms] = b
	return b
}

// writeBundle writes b to dir/name (folders created).
func writeBundle(t testing.TB, dir, name string, b *results.Bundle) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostileBundle is a two-arm run whose first arm and first query are
// named by HTML that would run a script if it were not escaped.
func hostileBundle(t testing.TB) *results.Bundle {
	t.Helper()
	b := faqBundle(t, twoArms)
	const arm, query = `<script>alert("arm")</script>`, `<script>alert("query")</script>`
	old := b.Configs[0].Name
	b.Configs[0].Name = arm
	for i := range b.Results {
		if b.Results[i].ConfigName == old {
			b.Results[i].ConfigName = arm
		}
		for j := range b.Results[i].PerSampleScores {
			if j == 0 {
				b.Results[i].PerSampleScores[j].QueryID = query
			}
		}
	}
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// newTestServer returns the dashboard over dir with token.
func newTestServer(t testing.TB, dir, token string) *Server {
	t.Helper()
	s, err := New(Options{Bundles: dir, Token: token, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// get sends a GET for target (a path and query) to h with Host
// localhost and the given headers (pairs), and returns the response and
// its body.
func get(t testing.TB, h http.Handler, target string, headers ...string) (*http.Response, string) {
	t.Helper()
	return do(t, h, httptest.NewRequest(http.MethodGet, "http://localhost"+target, nil), headers...)
}

func do(t testing.TB, h http.Handler, r *http.Request, headers ...string) (*http.Response, string) {
	t.Helper()
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := w.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// formValue returns the value of the input named name in page.
func formValue(t testing.TB, page, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `name="`+name+`" value="`)
	if !ok {
		t.Fatalf("the page has no input %s", name)
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

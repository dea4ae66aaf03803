package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// hostileQuestion is an entry's question that would run a script if it
// were not escaped.
const hostileQuestion = `<script>alert("entry")</script> what now?`

// manyJSONL writes a JSONL benchmark of n entries (q-001 …), the 7th
// with hostileQuestion, the ones divisible by 10 mentioning "needle".
func manyJSONL(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("What is item %d?", i)
		if i == 7 {
			q = hostileQuestion
		}
		if i%10 == 0 {
			q = fmt.Sprintf("Where is needle %d?", i)
		}
		fmt.Fprintf(&b, `{"id": "q-%03d", "question": %q, "answer": "answer %d", "contexts": ["Passage %d about item %d."]}`+"\n", i, q, i, i, i)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "many.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// regFixture is a dashboard over a registry holding faq (active, from
// examples/data/faq.jsonl), many (active, 120 entries), old (archived)
// and empty (a draft).
type regFixture struct {
	s       *Server
	reg     *registry.Registry
	bundles string
	sweeps  string
}

func newRegFixture(t *testing.T, dsn string, deps func(*engine.Sweep) (engine.Deps, error)) *regFixture {
	t.Helper()
	ctx := context.Background()
	reg, err := registry.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	faq := registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "faq.jsonl"}
	if _, err := reg.Create(ctx, "faq", faq); err != nil {
		t.Fatal(err)
	}
	many := manyJSONL(t, 120)
	if _, err := reg.Create(ctx, "many", registry.Files{FS: os.DirFS(filepath.Dir(many)), Path: "many.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Create(ctx, "old", faq); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Archive(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.CreateDraft(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	f := &regFixture{reg: reg, bundles: t.TempDir(), sweeps: t.TempDir()}
	f.s, err = New(Options{Bundles: f.bundles, Version: "test", Registry: reg, Sweeps: f.sweeps, Deps: deps})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.s.Close() })
	return f
}

func sqliteDSN(t testing.TB) string { return filepath.Join(t.TempDir(), "registry.db") }

// backend is a registry backend the tests run on: its name and a
// function that makes an empty registry DSN.
type backend struct {
	name string
	dsn  func(t *testing.T) string
}

// backends are SQLite and PostgreSQL (a throwaway cluster,
// internal/pgtest).
func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return sqliteDSN(t) }},
		{"postgres", func(t *testing.T) string { return pgtest.New(t).Database(t) }},
	}
}

// post sends a POST of form to h from the dashboard's own page (with the
// page's CSRF token unless form sets csrf).
func post(t testing.TB, h *Server, target string, form url.Values, headers ...string) (*http.Response, string) {
	t.Helper()
	if !form.Has("csrf") {
		form.Set("csrf", h.csrfToken(httptest.NewRequest(http.MethodGet, "/", nil)))
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost"+target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, h, r, headers...)
}

// TestBenchmarksList: /benchmarks shows each benchmark's name (linking
// its page), status, question count, linked source, created time and
// revision, on SQLite and on PostgreSQL.
func TestBenchmarksList(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			f := newRegFixture(t, b.dsn(t), nil)
			res, body := get(t, f.s, "/benchmarks")
			if res.StatusCode != 200 {
				t.Fatalf("%s\n%s", res.Status, body)
			}
			faq, err := f.reg.Get(context.Background(), "faq")
			if err != nil {
				t.Fatal(err)
			}
			created := faq.Created.UTC().Format("2006-01-02 15:04 UTC")
			row := `<tr><td><a class="benchmark" href="/benchmark?ref=faq">faq</a></td><td><span class="status active">active</span></td><td class="num">47</td><td>faq.jsonl (jsonl)</td><td>` + created + `</td><td><code>faq@ea3e86b12545</code></td></tr>`
			for _, want := range []string{row,
				`<span class="status archived">archived</span>`,
				`<a class="benchmark" href="/benchmark?ref=empty">empty</a></td><td><span class="status draft">draft</span></td><td class="num">0</td><td>-</td>`,
				`<td class="num">120</td><td>many.jsonl (jsonl)</td>`,
				"registry: " + f.reg.Backend()} {
				if !strings.Contains(body, want) {
					t.Errorf("the list lacks %s:\n%s", want, body)
				}
			}
			// The entries come from the same backend.
			_, page := get(t, f.s, "/benchmark?ref=many&q=needle")
			if !strings.Contains(page, "entries 1–12 of 12 matching “needle”") {
				t.Errorf("search on %s:\n%s", b.name, page)
			}
		})
	}
}

// TestBenchmarkEntriesPagedAndSearchable: a benchmark's page shows 50
// entries a page with links to the others, and a search keeps the
// entries whose id, question or answer contain the text (any case),
// paged too; a page past the end is 404, a bad page number 400.
func TestBenchmarkEntriesPagedAndSearchable(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	_, body := get(t, f.s, "/benchmark?ref=many")
	for _, want := range []string{"entries 1–50 of 120 · page 1 of 3", "<code>q-001</code>", "<code>q-050</code>", `<a id="next" href="/benchmark?page=2&amp;ref=many">`,
		"<code>many@", "many.jsonl (jsonl)"} {
		if !strings.Contains(body, want) {
			t.Errorf("page 1 lacks %s", want)
		}
	}
	if strings.Contains(body, "<code>q-051</code>") || strings.Contains(body, `id="prev"`) {
		t.Error("page 1 shows page 2's entries or a previous link")
	}
	_, body = get(t, f.s, "/benchmark?ref=many&page=3")
	for _, want := range []string{"entries 101–120 of 120 · page 3 of 3", "<code>q-101</code>", "<code>q-120</code>", `<a id="prev" href="/benchmark?page=2&amp;ref=many">`} {
		if !strings.Contains(body, want) {
			t.Errorf("page 3 lacks %s", want)
		}
	}
	if strings.Contains(body, `id="next"`) {
		t.Error("the last page links a next page")
	}
	// Search: "NEEDLE" finds the 12 questions that say needle, 10 a page… all on one page.
	_, body = get(t, f.s, "/benchmark?ref=many&q=NEEDLE")
	if !strings.Contains(body, "entries 1–12 of 12 matching “NEEDLE”") || !strings.Contains(body, "<code>q-120</code>") || strings.Contains(body, "<code>q-001</code>") {
		t.Errorf("search for NEEDLE:\n%s", body)
	}
	// By id and by answer.
	if _, body = get(t, f.s, "/benchmark?ref=many&q=q-07"); !strings.Contains(body, "of 10 matching") {
		t.Errorf("search by id:\n%s", body)
	}
	if _, body = get(t, f.s, "/benchmark?ref=many&q="+url.QueryEscape("answer 119")); !strings.Contains(body, "entries 1–1 of 1 matching") {
		t.Errorf("search by answer:\n%s", body)
	}
	// A search matching more than a page is paged, keeping the search.
	_, body = get(t, f.s, "/benchmark?ref=many&q=item")
	if !strings.Contains(body, "entries 1–50 of 107 matching “item”") || !strings.Contains(body, `href="/benchmark?page=2&amp;q=item&amp;ref=many"`) {
		t.Errorf("paged search:\n%s", body)
	}
	if _, body = get(t, f.s, "/benchmark?ref=many&q=nothing-like-this"); !strings.Contains(body, "no entry matches “nothing-like-this”") {
		t.Errorf("empty search:\n%s", body)
	}
	for target, code := range map[string]int{
		"/benchmark?ref=many&page=4":    404,
		"/benchmark?ref=many&page=0":    400,
		"/benchmark?ref=many&page=x":    400,
		"/benchmark?ref=nope":           404,
		"/benchmark?ref=" + "..%2Fetc":  400,
		"/benchmark":                    400,
		"/benchmark?ref=many@000000000": 404,
	} {
		if res, body := get(t, f.s, target); res.StatusCode != code {
			t.Errorf("GET %s: %s, want %d\n%s", target, res.Status, code, body)
		}
	}
}

// TestSearchPastTheCountLimit: a search matching more entries than the
// dashboard counts says "more than N", pages on from the start with next
// links while there are more, and links its last page, whose pages are
// counted from the end (?page=-1, -2, …) back to the first match; a page
// from the end of a search that is counted is its page from the start.
func TestSearchPastTheCountLimit(t *testing.T) {
	defer func(n int) { searchCountLimit = n }(searchCountLimit)
	searchCountLimit = 20
	f := newRegFixture(t, sqliteDSN(t), nil)
	// q- is in all 120 ids: pages of 50, 50 and 20 from the start;
	// from the end: 50 (71–120), 50 (21–70), 20 (1–20).
	for _, tc := range []struct {
		page      string
		shown     string
		ids       [2]int // first and last entry shown
		has, lack []string
	}{
		{"", "entries 1–50 of more than 20 matching “q-” · page 1", [2]int{1, 50},
			[]string{`<a id="next" href="/benchmark?page=2&amp;q=q-&amp;ref=many">`, `<a id="last" href="/benchmark?page=-1&amp;q=q-&amp;ref=many">`}, []string{`id="prev"`, `id="first"`}},
		{"2", "entries 51–100 of more than 20 matching “q-” · page 2", [2]int{51, 100},
			[]string{`<a id="prev" href="/benchmark?q=q-&amp;ref=many">`, `<a id="next" href="/benchmark?page=3&amp;q=q-&amp;ref=many">`, `id="last"`}, []string{`id="first"`}},
		{"3", "entries 101–120 of more than 20 matching “q-” · page 3", [2]int{101, 120},
			[]string{`id="prev"`, `id="last"`}, []string{`id="next"`}},
		{"-1", "the last 50 entries of more than 20 matching “q-”", [2]int{71, 120},
			[]string{`<a id="prev" href="/benchmark?page=-2&amp;q=q-&amp;ref=many">`, `<a id="first" href="/benchmark?q=q-&amp;ref=many">`}, []string{`id="next"`, `id="last"`}},
		{"-2", "entries 51–100 counted from the last of more than 20 matching “q-” · page 2 from the end", [2]int{21, 70},
			[]string{`<a id="prev" href="/benchmark?page=-3&amp;q=q-&amp;ref=many">`, `<a id="next" href="/benchmark?page=-1&amp;q=q-&amp;ref=many">`, `id="first"`}, nil},
		{"-3", "entries 101–120 counted from the last of more than 20 matching “q-” · page 3 from the end", [2]int{1, 20},
			[]string{`<a id="next" href="/benchmark?page=-2&amp;q=q-&amp;ref=many">`, `id="first"`}, []string{`id="prev"`}},
	} {
		target := "/benchmark?ref=many&q=q-"
		if tc.page != "" {
			target += "&page=" + tc.page
		}
		res, body := get(t, f.s, target)
		if res.StatusCode != 200 || !strings.Contains(body, `<p id="shown">`+tc.shown+`</p>`) {
			t.Errorf("%s: %s, want %q:\n%s", target, res.Status, tc.shown, body)
			continue
		}
		first, last := fmt.Sprintf("<code>q-%03d</code>", tc.ids[0]), fmt.Sprintf("<code>q-%03d</code>", tc.ids[1])
		if strings.Count(body, "<code>q-") != tc.ids[1]-tc.ids[0]+1 || !strings.Contains(body, first) || !strings.Contains(body, last) {
			t.Errorf("%s shows %d entries, want q-%03d to q-%03d", target, strings.Count(body, "<code>q-"), tc.ids[0], tc.ids[1])
		}
		for _, want := range tc.has {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", target, want)
			}
		}
		for _, unwanted := range tc.lack {
			if strings.Contains(body, unwanted) {
				t.Errorf("%s has %s", target, unwanted)
			}
		}
	}
	for _, target := range []string{"/benchmark?ref=many&q=q-&page=4", "/benchmark?ref=many&q=q-&page=-4"} {
		if res, body := get(t, f.s, target); res.StatusCode != 404 {
			t.Errorf("GET %s: %s, want 404\n%s", target, res.Status, body)
		}
	}
	// Counted (12 matches): page -1 is page 1 of 1; -2 does not exist.
	if _, body := get(t, f.s, "/benchmark?ref=many&q=needle&page=-1"); !strings.Contains(body, "entries 1–12 of 12 matching “needle” · page 1 of 1") || strings.Contains(body, `id="last"`) {
		t.Errorf("page -1 of a counted search:\n%s", body)
	}
	if res, body := get(t, f.s, "/benchmark?ref=many&q=needle&page=-2"); res.StatusCode != 404 {
		t.Errorf("page -2 of a counted search: %s\n%s", res.Status, body)
	}
	// Without a search every entry is counted: page -1 is page 3 of 3.
	if _, body := get(t, f.s, "/benchmark?ref=many&page=-1"); !strings.Contains(body, "entries 101–120 of 120 · page 3 of 3") {
		t.Errorf("page -1 without a search:\n%s", body)
	}
}

// TestBenchmarkEntriesEscaped: an entry whose question is a script shows
// as text.
func TestBenchmarkEntriesEscaped(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	for _, target := range []string{"/benchmark?ref=many", "/benchmark?ref=many&q=" + url.QueryEscape(`<script>`)} {
		_, body := get(t, f.s, target)
		if strings.Contains(body, "<script>") {
			t.Errorf("%s has an unescaped script:\n%s", target, body)
		}
		if !strings.Contains(body, html.EscapeString(hostileQuestion)) && !strings.Contains(body, "&lt;script&gt;alert(&#34;entry&#34;)&lt;/script&gt; what now?") {
			t.Errorf("%s does not show the question as text", target)
		}
	}
}

// TestExportCSV: the export link downloads the Vecta CSV that
// registry.Export (lasagna benchmark export) writes; a benchmark with
// unanswerable entries fails with links to an export without them (the
// CSV of --skip-unanswerable) and to the JSONL download
// (lasagna benchmark download).
func TestExportCSV(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	ctx := context.Background()
	_, page := get(t, f.s, "/benchmark?ref=many")
	if !strings.Contains(page, `<a id="export" href="/benchmark/export.csv?ref=many">`) || !strings.Contains(page, `<a id="download" href="/benchmark/download.jsonl?ref=many">`) {
		t.Fatalf("no export link:\n%s", page)
	}
	inf, err := f.reg.Get(ctx, "many")
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, f.s, "/benchmark/export.csv?ref=many")
	var want bytes.Buffer
	if _, err := f.reg.Export(ctx, "many", &want, registry.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || body != want.String() || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="`+inf.Revision+`.csv"` {
		t.Errorf("%s %v\n%s", res.Status, res.Header, body)
	}
	if !strings.HasPrefix(body, "id,question,answer,chunk_ids,page_nums,source_paths\n") || strings.Count(body, "\nq-") != 120 {
		t.Errorf("not the Vecta CSV of 120 entries:\n%s", body)
	}
	// faq has an unanswerable question.
	res, body = get(t, f.s, "/benchmark/export.csv?ref=faq")
	if res.StatusCode != 422 || !strings.Contains(body, `entry &#34;glass-23&#34; has no answer`) ||
		!strings.Contains(body, `<a href="/benchmark/export.csv?ref=faq&amp;skip_unanswerable=1">`) || !strings.Contains(body, `<a href="/benchmark/download.jsonl?ref=faq">`) {
		t.Errorf("export of faq: %s\n%s", res.Status, body)
	}
	res, body = get(t, f.s, "/benchmark/export.csv?ref=faq&skip_unanswerable=1")
	want.Reset()
	skipped, err := f.reg.Export(ctx, "faq", &want, registry.ExportOptions{SkipUnanswerable: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || body != want.String() || res.Header.Get("X-Lasagna-Skipped") != fmt.Sprint(len(skipped)) {
		t.Errorf("export of faq without unanswerable entries: %s %v", res.Status, res.Header)
	}
	res, body = get(t, f.s, "/benchmark/download.jsonl?ref=faq")
	want.Reset()
	if err := f.reg.Download(ctx, "faq", &want); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || body != want.String() || res.Header.Get("Content-Disposition") != `attachment; filename="faq@ea3e86b12545.jsonl"` {
		t.Errorf("download: %s %v", res.Status, res.Header)
	}
	for _, target := range []string{"/benchmark/export.csv?ref=nope", "/benchmark/download.jsonl?ref=nope"} {
		if res, _ := get(t, f.s, target); res.StatusCode != 404 {
			t.Errorf("%s: %s", target, res.Status)
		}
	}
}

// TestActivateArchive: archive and activate change the status by POST
// with the page's CSRF token; a GET is 405, a POST without the token or
// from another site is 403 and changes nothing.
func TestActivateArchive(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	ctx := context.Background()
	status := func(name string) registry.Status {
		inf, err := f.reg.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return inf.Status
	}
	if res, _ := get(t, f.s, "/benchmark/archive?ref=faq"); res.StatusCode != 405 {
		t.Errorf("GET archive: %s", res.Status)
	}
	if res, _ := post(t, f.s, "/benchmark/archive", url.Values{"ref": {"faq"}, "csrf": {"forged"}}); res.StatusCode != 403 {
		t.Errorf("POST archive with a forged token: %s", res.Status)
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost/benchmark/archive", strings.NewReader("ref=faq"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res, _ := do(t, f.s, r); res.StatusCode != 403 {
		t.Errorf("POST archive without a token: %s", res.Status)
	}
	if res, _ := post(t, f.s, "/benchmark/archive", url.Values{"ref": {"faq"}}, "Sec-Fetch-Site", "cross-site"); res.StatusCode != 403 {
		t.Errorf("POST archive from another site: %s", res.Status)
	}
	if st := status("faq"); st != registry.StatusActive {
		t.Fatalf("a refused POST changed the status to %s", st)
	}
	// The page's own form archives.
	_, page := get(t, f.s, "/benchmark?ref=faq")
	res, _ := post(t, f.s, "/benchmark/archive", url.Values{"ref": {"faq"}, "csrf": {formValue(t, page, "csrf")}})
	if res.StatusCode != 303 || res.Header.Get("Location") != "/benchmark?ref=faq" || status("faq") != registry.StatusArchived {
		t.Errorf("archive: %s → %s, status %s", res.Status, res.Header.Get("Location"), status("faq"))
	}
	_, page = get(t, f.s, "/benchmark?ref=faq")
	if !strings.Contains(page, `<form id="activate"`) || strings.Contains(page, `<form id="evaluate"`) {
		t.Errorf("the archived benchmark's page:\n%s", page)
	}
	if res, _ := post(t, f.s, "/benchmark/activate", url.Values{"ref": {"faq"}}); res.StatusCode != 303 || status("faq") != registry.StatusActive {
		t.Errorf("activate: %s, status %s", res.Status, status("faq"))
	}
	// Refusals of the registry show its message.
	res, body := post(t, f.s, "/benchmark/activate", url.Values{"ref": {"empty"}})
	if res.StatusCode != 409 || !strings.Contains(body, "benchmark empty is a draft with no entries, so it cannot be activated") {
		t.Errorf("activate a draft without entries: %s\n%s", res.Status, body)
	}
	if res, _ := post(t, f.s, "/benchmark/archive", url.Values{"ref": {"nope"}}); res.StatusCode != 404 {
		t.Errorf("archive of a missing benchmark: %s", res.Status)
	}
}

// waitEvaluation waits until the evaluation id stops running.
func waitEvaluation(t *testing.T, s *Server, id string) *evalView {
	t.Helper()
	e := s.evals.get(id)
	if e == nil {
		t.Fatalf("no evaluation %s", id)
	}
	for {
		if v := e.view(); v.State != "running" {
			return v
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// evaluate posts the evaluation form and returns the evaluation's id.
func evaluate(t *testing.T, s *Server, form url.Values) string {
	t.Helper()
	res, body := post(t, s, "/evaluate", form)
	loc := res.Header.Get("Location")
	id, ok := strings.CutPrefix(loc, "/evaluations/")
	if res.StatusCode != 303 || !ok {
		t.Fatalf("POST /evaluate %v: %s → %q\n%s", form, res.Status, loc, body)
	}
	return id
}

// TestEvaluationRuns: "create evaluation" with the speed profile runs in
// the background through the engine; its page then says done and links
// the report of the bundle written into the bundles folder, whose
// benchmark is the registry's revision (as lasagna benchmark run
// registry:faq records it). The evaluation stays on the server: the
// list and the benchmark's page show it.
func TestEvaluationRuns(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	_, page := get(t, f.s, "/benchmark?ref=faq")
	for _, p := range engine.Profiles() {
		if !strings.Contains(page, `<option value="`+p.Name+`"`) {
			t.Errorf("the form does not offer profile %s", p.Name)
		}
	}
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "profile": {"speed"}, "csrf": {formValue(t, page, "csrf")}})
	v := waitEvaluation(t, f.s, id)
	if v.State != "done" || v.Error != "" || v.Done != 47 || v.Total != 47 {
		t.Fatalf("%+v", v)
	}
	if !strings.HasPrefix(v.Bundle, "evaluations/faq-") {
		t.Errorf("bundle %s", v.Bundle)
	}
	res, body := get(t, f.s, "/evaluations/"+id)
	if res.StatusCode != 200 || !strings.Contains(body, `<a id="report" href="/bundles/`+v.Bundle+`">`) || strings.Contains(body, `http-equiv="refresh"`) ||
		!strings.Contains(body, `<span id="state" class="state done">done</span>`) || !strings.Contains(body, "profile speed") {
		t.Errorf("the finished evaluation's page:\n%s", body)
	}
	b, err := results.ReadFile(filepath.Join(f.bundles, filepath.FromSlash(v.Bundle)))
	if err != nil {
		t.Fatal(err)
	}
	if b.Configs[0].Benchmark != "faq@ea3e86b12545" || b.Configs[0].Name != "bm25" {
		t.Errorf("the bundle ran %s with %s", b.Configs[0].Benchmark, b.Configs[0].Name)
	}
	if res, body := get(t, f.s, "/bundles/"+v.Bundle); res.StatusCode != 200 || !strings.Contains(body, "faq@ea3e86b12545") {
		t.Errorf("the report: %s", res.Status)
	}
	// A refresh, the list and the benchmark page still show it.
	for _, target := range []string{"/evaluations", "/benchmark?ref=faq"} {
		if _, body := get(t, f.s, target); !strings.Contains(body, `<a href="/evaluations/`+id+`">`) || !strings.Contains(body, `href="/bundles/`+v.Bundle+`">report</a>`) {
			t.Errorf("%s does not list the evaluation:\n%s", target, body)
		}
	}
	if res, _ := get(t, f.s, "/evaluations/ffff"); res.StatusCode != 404 {
		t.Errorf("unknown evaluation: %s", res.Status)
	}
}

// TestEvaluationFromSweep: a sweep file of the sweeps folder runs its arms
// on the benchmark (its own benchmarks are replaced).
func TestEvaluationFromSweep(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	sweep := "benchmarks:\n  - {path: elsewhere.jsonl}\narms:\n" + twoArms
	if err := os.MkdirAll(filepath.Join(f.sweeps, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.sweeps, "sub", "stemming.yaml"), []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	_, page := get(t, f.s, "/benchmark?ref=many")
	if !strings.Contains(page, `<option value="sub/stemming.yaml">sub/stemming.yaml</option>`) {
		t.Fatalf("the form does not offer the sweep file:\n%s", page)
	}
	id := evaluate(t, f.s, url.Values{"ref": {"many"}, "sweep": {"sub/stemming.yaml"}})
	v := waitEvaluation(t, f.s, id)
	if v.State != "done" || v.Total != 240 || v.What != "sweep sub/stemming.yaml" {
		t.Fatalf("%+v", v)
	}
	b, err := results.ReadFile(filepath.Join(f.bundles, filepath.FromSlash(v.Bundle)))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Configs) != 2 || !strings.HasPrefix(b.Configs[0].Benchmark, "many@") {
		t.Errorf("the bundle: %d arms on %s", len(b.Configs), b.Configs[0].Benchmark)
	}

	// A sweep without benchmarks: runs as well (the page gives the
	// benchmark); one without arms is still refused.
	if err := os.WriteFile(filepath.Join(f.sweeps, "arms-only.yaml"), []byte("arms:\n"+twoArms), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.sweeps, "no-arms.yaml"), []byte("top_k: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id = evaluate(t, f.s, url.Values{"ref": {"many"}, "sweep": {"arms-only.yaml"}})
	if v = waitEvaluation(t, f.s, id); v.State != "done" || v.Total != 240 {
		t.Fatalf("a sweep without benchmarks: %+v", v)
	}
	if b, err = results.ReadFile(filepath.Join(f.bundles, filepath.FromSlash(v.Bundle))); err != nil {
		t.Fatal(err)
	}
	if len(b.Configs) != 2 || !strings.HasPrefix(b.Configs[0].Benchmark, "many@") {
		t.Errorf("the bundle of a sweep without benchmarks: %d arms on %s", len(b.Configs), b.Configs[0].Benchmark)
	}
	res, body := post(t, f.s, "/evaluate", url.Values{"ref": {"many"}, "sweep": {"no-arms.yaml"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "the sweep lists no arms") || strings.Contains(body, "no benchmarks") {
		t.Errorf("a sweep without arms: %s\n%s", res.Status, body)
	}
}

// TestEvaluationThresholds: a sweep's thresholds are checked, as
// lasagna benchmark run checks them. A failing ndcg@10 threshold fails
// the evaluation: its page lists the failed verdict in the engine's
// wording and still links the bundle; a met one leaves it done.
func TestEvaluationThresholds(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	for name, at := range map[string]string{"strict.yaml": "0.999", "lax.yaml": "0.01"} {
		sweep := "benchmarks:\n  - {path: replaced.jsonl}\narms:\n  - name: bm25\n    retriever: bm25\n    thresholds: [{metric: ndcg@10, at_least: " + at + "}]\n"
		if err := os.WriteFile(filepath.Join(f.sweeps, name), []byte(sweep), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "sweep": {"strict.yaml"}})
	v := waitEvaluation(t, f.s, id)
	if v.State != "failed" || !strings.HasPrefix(v.Error, "1 check(s) failed") || v.Bundle == "" ||
		len(v.Checks) != 1 || !strings.HasPrefix(v.Checks[0], "faq@ea3e86b12545/bm25: ndcg@10 = 0.") || !strings.Contains(v.Checks[0], "0.999") {
		t.Fatalf("%+v", v)
	}
	_, body := get(t, f.s, "/evaluations/"+id)
	if !strings.Contains(body, `<span id="state" class="state failed">failed</span>`) || !strings.Contains(body, `<ul id="checks"><li class="err"><code>fail: faq@ea3e86b12545/bm25: ndcg@10 = `) ||
		!strings.Contains(body, `id="report"`) {
		t.Errorf("the failed evaluation's page:\n%s", body)
	}
	id = evaluate(t, f.s, url.Values{"ref": {"faq"}, "sweep": {"lax.yaml"}})
	if v := waitEvaluation(t, f.s, id); v.State != "done" || len(v.Checks) != 0 {
		t.Errorf("a met threshold: %+v", v)
	}
}

// TestEvaluationFails: an evaluation that fails (the dense profile with
// no embedding endpoint configured) shows as failed with the error.
func TestEvaluationFails(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "profile": {"dense"}})
	v := waitEvaluation(t, f.s, id)
	const want = `arm &#34;dense&#34;: retriever dense needs an embedding endpoint`
	_, body := get(t, f.s, "/evaluations/"+id)
	if v.State != "failed" || !strings.Contains(body, `<span id="state" class="state failed">failed</span>`) || !strings.Contains(body, `<p id="error" class="err">`+want) ||
		strings.Contains(body, `id="report"`) {
		t.Errorf("%+v\n%s", v, body)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.bundles, EvaluationsFolder)); len(entries) != 0 {
		t.Errorf("a failed evaluation wrote %d files", len(entries))
	}
}

// TestEvaluateRefusals: only an active benchmark evaluates (a draft or
// an archived one is refused with the message of lasagna benchmark run
// registry:NAME, and its page says so instead of offering the form); an
// unknown profile, a sweep file not in the folder (traversal, absolute,
// a link leading outside), no choice or both choices are refused; the
// form needs POST and the CSRF token.
func TestEvaluateRefusals(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte("benchmarks:\n  - {path: x.jsonl}\narms:\n"+stemmed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.sweeps, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"old", "empty"} {
		_, want := f.reg.Resolve(ctx, "registry:"+name)
		if want == nil {
			t.Fatalf("%s resolves", name)
		}
		res, body := post(t, f.s, "/evaluate", url.Values{"ref": {name}, "profile": {"speed"}})
		if res.StatusCode != 409 || !strings.Contains(body, html.EscapeString(want.Error())) {
			t.Errorf("evaluate %s: %s, want 409 and %q\n%s", name, res.Status, want, body)
		}
		_, page := get(t, f.s, "/benchmark?ref="+name)
		if strings.Contains(page, `<form id="evaluate"`) || !strings.Contains(page, `<p id="refusal" class="err">`+html.EscapeString(want.Error())) {
			t.Errorf("the page of %s:\n%s", name, page)
		}
	}
	for _, tc := range []struct {
		form url.Values
		code int
		want string
	}{
		{url.Values{"ref": {"faq"}, "profile": {"sped"}}, 400, `unknown profile &#34;sped&#34;`},
		{url.Values{"ref": {"faq"}}, 400, "Pick either a profile or a sweep file."},
		{url.Values{"ref": {"faq"}, "profile": {"speed"}, "sweep": {"x.yaml"}}, 400, "Pick either a profile or a sweep file."},
		{url.Values{"ref": {"faq"}, "sweep": {"../outside.yaml"}}, 404, "No sweep file ../outside.yaml in the sweeps folder."},
		{url.Values{"ref": {"faq"}, "sweep": {outside}}, 404, "No sweep file"},
		{url.Values{"ref": {"faq"}, "sweep": {"link.yaml"}}, 404, "No sweep file link.yaml"},
		{url.Values{"ref": {"nope"}, "profile": {"speed"}}, 404, "nope"},
		{url.Values{"profile": {"speed"}}, 400, "The form has no benchmark"},
		{url.Values{"ref": {"faq"}, "profile": {"speed"}, "csrf": {""}}, 403, "no valid CSRF token"},
	} {
		res, body := post(t, f.s, "/evaluate", tc.form)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("POST /evaluate %v: %s, want %d and %q\n%s", tc.form, res.Status, tc.code, tc.want, body)
		}
	}
	if res, _ := get(t, f.s, "/evaluate?ref=faq&profile=speed"); res.StatusCode != 405 {
		t.Errorf("GET /evaluate: %s", res.Status)
	}
	if v := f.s.evals.views(nil); len(v) != 0 {
		t.Errorf("refusals started %d evaluations", len(v))
	}
}

// blockingEmbedder embeds nothing until its context ends; started is
// closed on the first call.
type blockingEmbedder struct{ started chan struct{} }

func (b blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-b.started:
	default:
		close(b.started)
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCloseCancelsEvaluations: while an evaluation runs, its page shows
// the progress and refreshes itself (no script); Close (the server's
// shutdown) cancels it, waits for it, and it shows as canceled, with no
// bundle written.
func TestCloseCancelsEvaluations(t *testing.T) {
	emb := blockingEmbedder{started: make(chan struct{})}
	f := newRegFixture(t, sqliteDSN(t), func(*engine.Sweep) (engine.Deps, error) {
		return engine.Deps{Embedder: func(string) (lasagna.Embedder, error) { return emb, nil }}, nil
	})
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "profile": {"dense"}})
	<-emb.started
	_, body := get(t, f.s, "/evaluations/"+id)
	if !strings.Contains(body, `<meta http-equiv="refresh" content="2">`) || !strings.Contains(body, `<span id="state" class="state running">running</span>`) ||
		!strings.Contains(body, `<p id="progress"><progress`) {
		t.Errorf("the running evaluation's page:\n%s", body)
	}
	f.s.Close()
	v := f.s.evals.get(id).view()
	if v.State != "canceled" || !strings.Contains(v.Error, "the server shut down") {
		t.Errorf("after Close: %+v", v)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.bundles, EvaluationsFolder)); len(entries) != 0 {
		t.Errorf("a canceled evaluation wrote %d files", len(entries))
	}
}

// TestNoRegistry: without a registry the registry pages say how to give
// one.
func TestNoRegistry(t *testing.T) {
	s := newTestServer(t, t.TempDir(), "")
	res, body := get(t, s, "/benchmarks")
	if res.StatusCode != 404 || !strings.Contains(body, "start lasagna serve with LASAGNA_REGISTRY or --registry") {
		t.Errorf("%s\n%s", res.Status, body)
	}
}

package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/results"
)

// waitFor polls cond (no timing is measured: it only waits for work the
// server does in another goroutine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a hang, not a timing
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after 60s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestGate: the gate grants at most its slots; a job on a large bundle
// takes every slot, and the jobs behind it wait their turn (no
// starvation); a waiter whose context ends gives up without taking a
// slot.
func TestWorkGate(t *testing.T) {
	ctx := context.Background()
	g := newGate(2)
	r1, err := g.acquire(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := g.acquire(ctx, 10)
	got := make(chan string, 3)
	go func() {
		rel, _ := g.acquire(ctx, soloBytes+1) // needs both slots
		got <- "large"
		rel()
	}()
	waitFor(t, "the large job to wait", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.waiters.Len() == 1 })
	go func() {
		rel, _ := g.acquire(ctx, 10) // behind the large one, though a slot frees first
		got <- "small"
		rel()
	}()
	waitFor(t, "the small job to wait", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.waiters.Len() == 2 })

	// A waiter that gives up takes nothing.
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error)
	go func() {
		_, err := g.acquire(cctx, 10)
		gaveUp <- err
	}()
	waitFor(t, "the third waiter", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.waiters.Len() == 3 })
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled waiter got %v", err)
	}

	r1()
	select {
	case w := <-got:
		t.Fatalf("%s ran with one slot still held", w)
	default:
	}
	r2()
	if a, b := <-got, <-got; a != "large" || b != "small" {
		t.Errorf("order %s, %s; want large then small", a, b)
	}
	waitFor(t, "the jobs to finish", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.running == 0 })
	if g.free != 2 || g.peak != 2 || g.waiters.Len() != 0 {
		t.Errorf("free %d, peak %d, waiters %d; want 2, 2, 0", g.free, g.peak, g.waiters.Len())
	}
}

// TestPageCache: pages beyond the byte budget push out the least recently
// used; a page of more than a quarter of the budget is not kept.
func TestPageCache(t *testing.T) {
	c := newPageCache(100)
	page := func(key string, n int) *cachedPage { return &cachedPage{key: key, html: make([]byte, n)} }
	c.put(page("a", 25))
	c.put(page("b", 25))
	c.put(page("c", 25))
	c.get("a") // a is now the most recent
	c.put(page("d", 25))
	c.put(page("e", 25)) // 125 bytes: b, the least recent, goes
	if c.get("b") != nil || c.get("a") == nil || c.get("e") == nil || c.bytes != 100 {
		t.Errorf("after e: b kept %v, a kept %v, %d bytes", c.get("b") != nil, c.get("a") != nil, c.bytes)
	}
	c.put(page("huge", 26))
	if c.get("huge") != nil {
		t.Error("a page over a quarter of the budget was kept")
	}
}

// TestReportCache: a report is drawn once for a version of its file: a
// second request and concurrent identical requests are served without
// reading the bundle again; a new modification time (or content) draws
// it again.
func TestReportCache(t *testing.T) {
	dir := t.TempDir()
	p := writeBundle(t, dir, "a.json", sharedBundle(t, stemmed))
	s := newTestServer(t, dir, "")
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Go(func() {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", "http://localhost/bundles/a.json", nil))
			codes[i] = w.Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: %d", i, c)
		}
	}
	// One read to check it (results.Validate), one to draw it.
	if n := s.folder.decodes.Load(); n != 2 {
		t.Errorf("10 concurrent requests read the bundle %d times, want 2 (a check and a drawing)", n)
	}
	res, first := get(t, s, "/bundles/a.json")
	if n := s.folder.decodes.Load(); n != 2 || res.StatusCode != 200 {
		t.Errorf("a second request: %s, %d reads in all, want 2", res.Status, n)
	}
	if res.Header.Get("Content-Length") != fmt.Sprint(len(first)) || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'sha256-") {
		t.Errorf("the cached page's headers: %v", res.Header)
	}

	// Touched: the same bytes, a new modification time, read again.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if res, _ := get(t, s, "/bundles/a.json"); res.StatusCode != 200 || s.folder.decodes.Load() != 4 {
		t.Errorf("after a new mtime: %s, %d reads in all, want 4", res.Status, s.folder.decodes.Load())
	}
	// Replaced by another run: its report is the new one.
	writeBundle(t, dir, "a.json", sharedBundle(t, twoArms))
	if _, page := get(t, s, "/bundles/a.json"); !strings.Contains(page, "bm25-nostem") {
		t.Error("the report of the replaced bundle is the old one")
	}
	// The compare page is kept the same way.
	writeBundle(t, dir, "b.json", sharedBundle(t, unstemmed))
	before := s.folder.decodes.Load()
	for range 3 {
		if res, _ := get(t, s, "/compare?bundle=b.json&baseline=a.json"); res.StatusCode != 200 {
			t.Fatalf("compare: %s", res.Status)
		}
	}
	if n := s.folder.decodes.Load() - before; n != 3 { // b's check, then both bundles once
		t.Errorf("3 compare requests read %d bundles, want 3", n)
	}
}

// TestReportsBounded: many requests for distinct reports at once draw at
// most workSlots of them at a time, and all succeed.
func TestReportsBounded(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	for i := range n {
		writeBundle(t, dir, fmt.Sprintf("b%d.json", i), sharedBundle(t, stemmed))
	}
	s := newTestServer(t, dir, "")
	var wg sync.WaitGroup
	codes := make([]int, n*2)
	for i := range codes {
		wg.Go(func() {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", fmt.Sprintf("http://localhost/bundles/b%d.json", i%n), nil))
			codes[i] = w.Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: %d", i, c)
		}
	}
	if g := s.folder.gate; g.peak > workSlots || g.peak < 1 || g.running != 0 {
		t.Errorf("at most %d at once (running now %d), want between 1 and %d", g.peak, g.running, workSlots)
	}
	if got := s.folder.decodes.Load(); got != 2*n {
		t.Errorf("%d reads for %d bundles, want %d", got, n, 2*n)
	}
}

// TestReportWaitRespectsContext: a request waiting for its turn gives up
// when its context ends (503), and takes no slot.
func TestReportWaitRespectsContext(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, "a.json", sharedBundle(t, stemmed))
	s := newTestServer(t, dir, "")
	release, err := s.folder.gate.acquire(context.Background(), soloBytes+1) // every slot
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *httptest.ResponseRecorder)
	go func() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "http://localhost/bundles/a.json", nil).WithContext(ctx))
		done <- w
	}()
	waitFor(t, "the request to wait", func() bool {
		g := s.folder.gate
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.waiters.Len() == 1
	})
	cancel()
	w := <-done
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "try again") {
		t.Errorf("%d\n%s", w.Code, w.Body)
	}
	release()
	if res, _ := get(t, s, "/bundles/a.json"); res.StatusCode != 200 {
		t.Errorf("after the gate freed: %s", res.Status)
	}
}

// rowsOfWrongType is a bundle whose header is sound and whose rows are
// not rows at all: a reader that decoded them would fail.
func rowsOfWrongType(t *testing.T) []byte {
	t.Helper()
	raw, err := results.Marshal(sharedBundle(t, stemmed))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, `"per_sample_scores": [`)
	if i < 0 {
		t.Fatal("no per_sample_scores")
	}
	j := i + len(`"per_sample_scores": [`)
	k := strings.Index(s[j:], "\n      ]") // the end of the rows
	if k < 0 {
		t.Fatal("no end of per_sample_scores")
	}
	return []byte(s[:j] + `1, "two", {"scores": "not scores"}, [null]` + s[j+k:])
}

// TestListReadsHeadersOnly: the list shows a bundle from its header,
// counting its rows without decoding them; a bundle above the inline
// size is checked in the background (the list says "checking…" and
// reloads itself meanwhile), then shows its check, here INVALID.
func TestListReadsHeadersOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "odd.json"), rowsOfWrongType(t), 0o644); err != nil {
		t.Fatal(err)
	}
	b := sharedBundle(t, stemmed)
	s := newTestServer(t, dir, "")
	s.folder.inlineCheck = 0 // every bundle is "large"
	// Every slot taken: no check can run, so whatever the list shows
	// comes from the headers.
	release, err := s.folder.gate.acquire(context.Background(), soloBytes+1)
	if err != nil {
		t.Fatal(err)
	}
	_, page := get(t, s, "/")
	if n := s.folder.decodes.Load(); n != 0 {
		t.Errorf("the list read %d whole bundles", n)
	}
	for _, want := range []string{
		`<a class="report" href="/bundles/odd.json">odd.json</a>`,
		`<td>` + b.Configs[0].Benchmark + `</td><td>bm25</td><td class="num">4</td>`,
		`checking…`,
		`<meta http-equiv="refresh" content="5">`,
		`<option value="odd.json">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %s\n%s", want, page)
		}
	}
	release()
	waitFor(t, "the background check", func() bool { return s.folder.checked(s.folder.lookup("odd.json")) != nil })
	_, page = get(t, s, "/")
	if !strings.Contains(page, `<td>odd.json</td>`) || !strings.Contains(page, "INVALID: not reported") || strings.Contains(page, "checking…") ||
		strings.Contains(page, `http-equiv="refresh"`) || strings.Contains(page, `<option value="odd.json">`) {
		t.Errorf("after the check:\n%s", page)
	}
	if res, page := get(t, s, "/bundles/odd.json"); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "INVALID_BUNDLE") {
		t.Errorf("the report of the odd bundle: %s\n%s", res.Status, page)
	}
}

// TestReadHeader: the header of a bundle, of a non-bundle and of broken
// text.
func TestReadHeader(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       entry
		err        string
	}{
		{"bundle", `{"schema_version": "1.0", "run_id": "r", "configs": [{"name": "a", "benchmark": "x", "held_fixed": {"n": 1}}, {"name": "b", "benchmark": "x"}],
			"results": [{"per_sample_scores": [{}, {}]}, {"config_name": "b", "per_sample_scores": [{}, {}, {}]}], "integrity": {}}`,
			entry{RunID: "r", Benchmarks: []string{"x"}, Arms: []string{"a", "b"}, Queries: 3}, ""},
		{"nulls", `{"schema_version": "1.0", "run_id": null, "configs": null, "results": [{"per_sample_scores": null}]}`, entry{}, ""},
		{"no version", `{"arms": []}`, entry{Refused: "not a results bundle (no schema_version)"}, ""},
		{"not an object", `[1]`, entry{}, "a bundle is a json object, got an array"},
		{"wrong type", `{"schema_version": "1.0", "run_id": 7}`, entry{}, "run_id is a number, want a string"},
		{"configs not a list", `{"schema_version": "1.0", "configs": {}}`, entry{}, "/configs is an object, want an array"},
		{"cut", `{"schema_version": "1.0", "configs": [`, entry{}, "the file ends before the bundle object does"},
		{"trailing", `{"schema_version": "1.0"} {}`, entry{}, "unexpected data after the bundle object"},
		{"syntax", `{"schema_version": "1.0",, }`, entry{}, "invalid character ','"},
		{"empty", ``, entry{}, "the file ends before the bundle object does"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := readHeader(strings.NewReader(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(*e) != fmt.Sprint(tc.want) {
				t.Errorf("got %+v\nwant %+v", *e, tc.want)
			}
		})
	}
}

// TestIdenticalEvaluations: identical evaluations started at once (the
// same benchmark and profile, so the same run id and file name) each
// succeed, and the folder holds the one bundle, no temporary file
// (atomicfile.WriteIn gives each writer its own temporary name).
func TestIdenticalEvaluations(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { ids[i] = evaluate(t, f.s, url.Values{"ref": {"faq"}, "profile": {"speed"}}) })
	}
	wg.Wait()
	var bundle string
	for _, id := range ids {
		v := waitEvaluation(t, f.s, id)
		if v.State != "done" || v.Bundle == "" || (bundle != "" && v.Bundle != bundle) {
			t.Errorf("%+v (bundle of the first: %s)", v, bundle)
		}
		bundle = v.Bundle
	}
	ents, _ := os.ReadDir(filepath.Join(f.bundles, EvaluationsFolder))
	if len(ents) != 1 || "evaluations/"+ents[0].Name() != bundle {
		t.Errorf("the evaluations folder holds %v, want %s alone", ents, bundle)
	}
	if _, err := results.ReadFile(filepath.Join(f.bundles, filepath.FromSlash(bundle))); err != nil {
		t.Error(err)
	}
}

// TestCancelBeforeWrite: an evaluation that has its bundle ready to
// write when the server is told to stop (lasagna serve: SIGTERM) writes
// nothing and shows as canceled; CancelEvaluations counts it.
func TestCancelBeforeWrite(t *testing.T) {
	f := newRegFixture(t, sqliteDSN(t), nil)
	ready := make(chan struct{})
	f.s.evals.beforeWrite = func(ctx context.Context) {
		close(ready)
		<-ctx.Done()
	}
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "profile": {"speed"}})
	<-ready
	if n := f.s.CancelEvaluations(); n != 1 {
		t.Errorf("CancelEvaluations = %d, want 1", n)
	}
	v := waitEvaluation(t, f.s, id)
	if v.State != "canceled" || v.Bundle != "" || !strings.Contains(v.Error, "the server shut down") {
		t.Errorf("%+v", v)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.bundles, EvaluationsFolder)); len(ents) != 0 {
		t.Errorf("a canceled evaluation left %v", ents)
	}
	if res, body := post(t, f.s, "/evaluate", url.Values{"ref": {"faq"}, "profile": {"speed"}}); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("an evaluation after the cancellation: %s", res.Status)
	}
}

// TestCancelGuard: the guard renames while the evaluations run and
// refuses once they are cancelled; a rename in progress holds the
// cancellation until it is done.
func TestCancelGuard(t *testing.T) {
	m := newEvaluations()
	e := &evaluation{ID: "x", state: "running"}
	if err := m.add(e); err != nil {
		t.Fatal(err)
	}
	defer m.wg.Done()
	renaming, finish := make(chan struct{}), make(chan struct{})
	go m.guard(e)(func() error {
		close(renaming)
		<-finish
		return nil
	})
	<-renaming
	canceled := make(chan int)
	go func() { canceled <- m.cancelAll() }()
	select {
	case <-canceled:
		t.Fatal("cancelAll returned while a rename was in progress")
	default:
	}
	close(finish)
	if n := <-canceled; n != 0 {
		t.Errorf("cancelAll counted %d running evaluations; the one renamed its bundle", n)
	}
	called := false
	err := m.guard(e)(func() error { called = true; return nil })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("after cancelAll: err %v, renamed %v", err, called)
	}
}

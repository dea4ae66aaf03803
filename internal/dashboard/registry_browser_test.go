package dashboard

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// browserRegistry returns a registry holding support-faq (active: the
// answered questions of examples/data/faq.jsonl, the first one's text
// replaced by hostileQuestion), faq (active), old (archived) and empty
// (a draft).
func browserRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "data", "faq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(raw)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if a, _ := m["answer"].(string); a == "" {
			continue
		}
		if len(out) == 0 {
			m["question"] = hostileQuestion
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "support-faq.jsonl"), []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	faq := registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "faq.jsonl"}
	for _, c := range []struct {
		name  string
		files registry.Files
	}{{"support-faq", registry.Files{FS: os.DirFS(dir), Path: "support-faq.jsonl"}}, {"faq", faq}, {"old", faq}} {
		if _, err := reg.Create(ctx, c.name, c.files); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := reg.Archive(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.CreateDraft(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	return reg
}

// browserSession is a signed-in Chromium on a dashboard over a registry.
type browserSession struct {
	t       *testing.T
	ctx     context.Context
	url     string
	bundles string
	ev      pageEvents
	shots   map[string][]byte
}

func newBrowserSession(t *testing.T, reg *registry.Registry) *browserSession {
	t.Helper()
	ctx := browser(t, 1100, 700)
	b := &browserSession{t: t, ctx: ctx, bundles: t.TempDir(), shots: map[string][]byte{}}
	const token = "browser-test-token-0123"
	s, err := New(Options{Bundles: b.bundles, Token: token, Version: "test", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	b.url = srv.URL
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	b.ev.listen(t, ctx, srv.URL)
	b.do(chromedp.Navigate(srv.URL+"/login?token="+token), chromedp.WaitVisible(chromedp.ID("rescan")))
	t.Cleanup(func() {
		b.ev.check(t)
		for name, png := range b.shots {
			p := filepath.Join(t.ArtifactDir(), name)
			if err := os.WriteFile(p, png, 0o644); err != nil {
				t.Error(err)
			}
			t.Logf("screenshot: %s", p)
		}
	})
	return b
}

func (b *browserSession) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browserSession) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	b.shots[name] = png
}

func (b *browserSession) int(js string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](js))
	if err != nil {
		b.t.Fatal(err)
	}
	return n
}

func (b *browserSession) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

func (b *browserSession) location() string {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return strings.TrimPrefix(got, b.url)
}

// waitFinished waits while the evaluation page refreshes itself, until
// its state is no longer running, and returns the state. Errors while a
// reload replaces the page are retried.
func (b *browserSession) waitFinished() string {
	b.t.Helper()
	for b.ctx.Err() == nil {
		st, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.getElementById("state") || {}).textContent || ""`))
		if err == nil && st != "" && st != "running" {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatal("the evaluation did not finish before the test's deadline")
	return ""
}

// TestRegistryDashboardInBrowser clicks through the registry half of the
// dashboard in headless Chromium, signed in with a token: the nav leads
// to the benchmarks list (status, questions, source, revision); a
// benchmark's link opens its page, whose entries show a question that is
// a script as text (and no script runs); the search form filters the
// entries; "Export CSV" downloads the Vecta CSV; "Create evaluation"
// with the speed profile starts a background run whose page refreshes
// itself until done, then links the report, which opens with its plots.
// No page logs an error, fails a load, gets an HTTP error or asks
// another host. Screenshots go to the test's artifact folder.
func TestRegistryDashboardInBrowser(t *testing.T) {
	reg := browserRegistry(t)
	b := newBrowserSession(t, reg)

	// Nav → benchmarks list.
	b.do(chromedp.Click(chromedp.CSS(`nav a[href="/benchmarks"]`)), chromedp.WaitVisible(chromedp.ID("benchmarks")))
	if n := b.int(`document.querySelectorAll("#benchmarks tbody tr").length`); n != 4 {
		t.Errorf("the list shows %d benchmarks, want 4", n)
	}
	if s := b.text(`#benchmarks tbody tr:nth-child(4)`); !strings.Contains(s, "support-faq") || !strings.Contains(s, "active") || !strings.Contains(s, "42") || !strings.Contains(s, "support-faq.jsonl (jsonl)") {
		t.Errorf("the support-faq row: %q", s)
	}
	b.shot("registry-benchmarks.png")

	// List → benchmark: entries, the hostile question as text.
	b.do(chromedp.Click(chromedp.CSS(`#benchmarks a.benchmark[href="/benchmark?ref=support-faq"]`)), chromedp.WaitVisible(chromedp.ID("entries")))
	if got := b.location(); got != "/benchmark?ref=support-faq" {
		t.Errorf("location %s", got)
	}
	if n := b.int(`document.querySelectorAll("#entries tbody tr").length`); n != 42 {
		t.Errorf("the page shows %d entries, want 42", n)
	}
	if s := b.text(`#entries tbody tr:first-child td:nth-child(2)`); s != hostileQuestion {
		t.Errorf("the first question shows as %q, want the text %q", s, hostileQuestion)
	}
	if n := b.int(`document.querySelectorAll("script").length`); n != 0 {
		t.Errorf("the page has %d script elements", n)
	}
	b.shot("registry-benchmark.png")

	// Search.
	// The old page's #shown is renamed, so that the wait is for the new page.
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("shown").id = "before-search"`),
		chromedp.SendKeys(chromedp.ID("search-q"), "coin"), chromedp.Click(chromedp.CSS(`#search button`)), chromedp.WaitVisible(chromedp.ID("shown")))
	if got := b.location(); got != "/benchmark?ref=support-faq&q=coin" {
		t.Errorf("location after the search %s", got)
	}
	n := b.int(`document.querySelectorAll("#entries tbody tr").length`)
	if n == 0 || n >= 42 || !strings.Contains(b.text("#shown"), "matching “coin”") {
		t.Errorf("the search shows %d entries: %q", n, b.text("#shown"))
	}
	b.do(chromedp.ScrollIntoView(chromedp.ID("entries-title")))
	b.shot("registry-search.png")

	// CSV export: a download.
	downloads := t.TempDir()
	progress := chromedp.Events(b.ctx, cdpbrowser.DownloadProgress)
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: new(true)})
		return err
	}), chromedp.Click(chromedp.ID("export")))
	var csv []byte
	for ev, err := range progress {
		if err != nil {
			t.Fatal(err)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCanceled {
			t.Fatal("the CSV download was canceled")
		}
		if ev.State == cdpbrowser.DownloadProgressStateCompleted {
			if csv, err = os.ReadFile(filepath.Join(downloads, ev.GUID)); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	// The navigation that became the download is reported aborted: that
	// is how Chromium ends it, not a failure.
	b.ev.Forgive("failed load: net::ERR_ABORTED")
	if !strings.HasPrefix(string(csv), "id,question,answer,chunk_ids,page_nums,source_paths\n") || strings.Count(string(csv), "\n") != 43 ||
		!strings.Contains(string(csv), `"<script>alert(""entry"")</script> what now?"`) {
		t.Errorf("the downloaded CSV:\n%s", csv)
	}

	// Create evaluation → progress page → done → report.
	b.do(chromedp.SetValue(chromedp.ID("evaluate-profile"), "speed"), chromedp.Click(chromedp.CSS(`#evaluate button`)), chromedp.WaitVisible(chromedp.ID("state")))
	if got := b.location(); !strings.HasPrefix(got, "/evaluations/") {
		t.Errorf("the form led to %s", got)
	}
	if st := b.waitFinished(); st != "done" {
		t.Fatalf("the evaluation ended %s: %s", st, b.text("main"))
	}
	b.shot("registry-evaluation.png")
	b.do(chromedp.Click(chromedp.ID("report")), chromedp.WaitVisible(chromedp.ID("queries")))
	if got := b.location(); !strings.HasPrefix(got, "/bundles/evaluations/support-faq-") {
		t.Errorf("the report is at %s", got)
	}
	if n := b.int(`document.querySelectorAll("#queries tbody tr").length`); n != 42 {
		t.Errorf("the report's table has %d rows, want 42", n)
	}
	if n := b.int(`document.querySelectorAll("figure.means svg").length`); n == 0 {
		t.Error("the report has no plot")
	}
	b.shot("registry-report.png")

	// The evaluation is still listed after leaving it (server-side state).
	b.do(chromedp.Navigate(b.url+"/evaluations"), chromedp.WaitVisible(chromedp.CSS(`table.evaluations`)))
	if s := b.text(`table.evaluations tbody`); !strings.Contains(s, "support-faq@") || !strings.Contains(s, "done") || !strings.Contains(s, "report") {
		t.Errorf("the evaluations list: %q", s)
	}
}

// TestFailedEvaluationInBrowser: an evaluation that fails (the dense
// profile, with no embedding endpoint configured) shows as failed with
// its error, after the page's refreshes, and in the benchmark's list of
// evaluations; an archived benchmark's page offers no evaluation and
// says why.
func TestFailedEvaluationInBrowser(t *testing.T) {
	reg := browserRegistry(t)
	b := newBrowserSession(t, reg)
	b.do(chromedp.Navigate(b.url+"/benchmark?ref=faq"), chromedp.WaitVisible(chromedp.ID("evaluate")))
	b.do(chromedp.SetValue(chromedp.ID("evaluate-profile"), "dense"), chromedp.Click(chromedp.CSS(`#evaluate button`)), chromedp.WaitVisible(chromedp.ID("state")))
	if st := b.waitFinished(); st != "failed" {
		t.Fatalf("the evaluation ended %s", st)
	}
	if s := b.text("#error"); !strings.Contains(s, `arm "dense": retriever dense needs an embedding endpoint`) {
		t.Errorf("the error shows as %q", s)
	}
	if n := b.int(`document.querySelectorAll("#report").length`); n != 0 {
		t.Error("a failed evaluation links a report")
	}
	b.shot("registry-evaluation-failed.png")
	b.do(chromedp.Click(chromedp.CSS(`#evaluation a`)), chromedp.WaitVisible(chromedp.CSS(`table.evaluations`)))
	if s := b.text(`table.evaluations tbody`); !strings.Contains(s, "failed") || !strings.Contains(s, "needs an embedding endpoint") {
		t.Errorf("the benchmark's evaluations: %q", s)
	}
	b.do(chromedp.Navigate(b.url+"/benchmark?ref=old"), chromedp.WaitVisible(chromedp.ID("refusal")))
	if s := b.text("#refusal"); s != "benchmark old is archived, so it cannot be evaluated (only active benchmarks can); activate it with `lasagna benchmark activate old`" {
		t.Errorf("the archived benchmark says %q", s)
	}
}

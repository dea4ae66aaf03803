package dashboard

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/lasagna-go/lasagna/internal/browsertest"
)

// browser starts the headless Chromium of the tests (browsertest.Start).
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	return browsertest.Start(t, width, height)
}

// pageEvents records what the pages did wrong: console errors and
// warnings (a CSP violation is one), uncaught exceptions, failed loads,
// HTTP errors, and any request to another origin.
type pageEvents struct{ browsertest.Problems }

func (p *pageEvents) listen(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	allowed := func(u string) bool { return strings.HasPrefix(u, origin+"/") }
	if err := p.Listen(ctx, allowed, true); err != nil {
		t.Fatal(err)
	}
}

func (p *pageEvents) check(t *testing.T) {
	t.Helper()
	if problems := p.List(); len(problems) > 0 {
		t.Errorf("the pages had problems:\n%s", strings.Join(problems, "\n"))
	}
}

// TestDashboardInBrowser clicks through the dashboard in headless
// Chromium, behind a token: sign in with /login?token=…, the list shows
// the three bundles; its link opens a bundle's report (plots and the
// per-query table); "← bundles" leads back; the compare form reports a
// bundle against a baseline with a verdict; the rescan button (a POST with
// its CSRF token) brings the list back. No page logs an error, fails a
// load, gets an HTTP error or asks another host for anything. Screenshots
// of each page go to the test's artifact folder.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t, 1100, 640)
	dir := t.TempDir()
	writeBundle(t, dir, "baseline.json", sharedBundle(t, stemmed))
	writeBundle(t, dir, "runs/candidate.json", sharedBundle(t, unstemmed))
	writeBundle(t, dir, "two-arms.json", sharedBundle(t, twoArms))
	const token = "browser-test-token-0123"
	srv := httptest.NewServer(newTestServer(t, dir, token))
	defer srv.Close()

	var ev pageEvents
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	ev.listen(t, ctx, srv.URL)
	shots := map[string][]byte{}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		shots[name] = png
	}
	location := func(want string) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if got != srv.URL+want {
			t.Errorf("location %s, want %s", got, srv.URL+want)
		}
	}
	count := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Sign in: the cookie is set and the token leaves the address bar.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+token), chromedp.WaitVisible(chromedp.ID("bundles"))); err != nil {
		t.Fatal(err)
	}
	location("/")
	if n := count(`document.querySelectorAll("#bundles a.report").length`); n != 3 {
		t.Errorf("the list links %d reports, want 3", n)
	}
	shot("dashboard-list.png")

	// List → report.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#bundles a.report[href="/bundles/runs/candidate.json"]`)), chromedp.WaitVisible(chromedp.ID("queries"))); err != nil {
		t.Fatal(err)
	}
	location("/bundles/runs/candidate.json")
	if n := count(`document.querySelectorAll("figure.means svg").length`); n == 0 {
		t.Error("the report has no plot")
	}
	if n := count(`document.querySelectorAll("#queries tbody tr").length`); n != 47 {
		t.Errorf("the report's table has %d rows, want 47", n)
	}
	// The report's own script ran (allowed by its hash): it wrote the
	// row count.
	if n := count(`document.getElementById("shown").textContent.indexOf("matching rows")`); n < 0 {
		t.Error("the report's script did not run")
	}
	shot("dashboard-report.png")

	// Report → list → compare.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/"]`)), chromedp.WaitVisible(chromedp.ID("compare"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("compare-bundle"), "runs/candidate.json"),
		chromedp.SetValue(chromedp.ID("compare-baseline"), "baseline.json"),
		chromedp.Click(chromedp.CSS(`#compare button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.verdict`))); err != nil {
		t.Fatal(err)
	}
	location("/compare?bundle=runs%2Fcandidate.json&baseline=baseline.json")
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`p.verdict`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(verdict, "bm25") {
		t.Errorf("verdict %q", verdict)
	}
	if n := count(`document.querySelectorAll("figure.diffs svg").length`); n == 0 {
		t.Error("the compare page has no plot of the per-query differences")
	}
	shot("dashboard-compare.png")

	// Compare → list → rescan (POST with the page's CSRF token).
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/"]`)), chromedp.WaitVisible(chromedp.ID("rescan"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("bundles").id = "before-rescan"`),
		chromedp.Click(chromedp.CSS(`#rescan button`)), chromedp.WaitVisible(chromedp.ID("bundles"))); err != nil {
		t.Fatal(err)
	}
	location("/")

	ev.check(t)
	for name, png := range shots {
		p := filepath.Join(t.ArtifactDir(), name)
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

// Package browsertest starts the headless Chromium that the browser tests
// of the HTML report and the dashboard drive with chromedp. Only _test.go
// files import it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TB is the part of testing.TB these helpers use (*testing.T and
// *testing.B have it), so the package need not import testing.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}

// Find returns the path of a Chromium binary: $LASAGNA_CHROMIUM, else the
// first of the usual names on $PATH.
func Find() (string, bool) {
	if p := os.Getenv("LASAGNA_CHROMIUM"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// Chromium returns Find's path. Like every heavy helper it is skipped
// under -short, and where no Chromium is found it skips the test with the
// way to get one, or fails it under LASAGNA_REQUIRE_BACKENDS=1 (package
// servertest); .ci/run installs Debian's chromium package and sets it, so
// CI always runs them.
func Chromium(tb TB) string {
	tb.Helper()
	servertest.Heavy(tb, "a headless Chromium")
	p, ok := Find()
	if !ok {
		servertest.SkipOrFail(tb, "no Chromium found: install Debian's chromium package (apt-get install chromium) or set LASAGNA_CHROMIUM to a Chromium binary")
	}
	return p
}

// Start starts a headless Chromium with a new profile and a width×height
// window and returns a context for chromedp; the browser stops when the
// test ends, and the context expires after two minutes. The flags keep
// Chromium from reaching for any host (the machine has no network).
func Start(tb TB, width, height int) context.Context {
	tb.Helper()
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(Chromium(tb)),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(width, height),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	tb.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 2*time.Minute)
	tb.Cleanup(cancel3)
	return ctx
}

// Problems collects what a page did wrong, from chromedp's event
// listener (which runs on another goroutine).
type Problems struct {
	mu   sync.Mutex
	list []string
}

// Add records one problem.
func (p *Problems) Add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, s)
}

// List returns the problems recorded so far.
func (p *Problems) List() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

// Forgive drops one recorded occurrence of s, for a problem a test expects
// (Chromium reports a finished download as an aborted request).
func (p *Problems) Forgive(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.list, s); i >= 0 {
		p.list = slices.Delete(p.list, i, i+1)
	}
}

// Listen records on p what the pages of ctx do wrong: uncaught exceptions,
// console errors and warnings, log entries at level error (and warning
// when logWarnings), failed loads, HTTP responses of 400 and above, and
// every request whose URL allowed refuses (data: URLs always pass).
func (p *Problems) Listen(ctx context.Context, allowed func(url string) bool, logWarnings bool) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p.Add("exception: " + e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				p.Add("console " + string(e.Type))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || logWarnings && e.Entry.Level == log.EntryLevelWarning {
				p.Add("log " + string(e.Entry.Level) + ": " + e.Entry.Text + " " + e.Entry.URL)
			}
		case *network.EventLoadingFailed:
			p.Add("failed load: " + e.ErrorText)
		case *network.EventResponseReceived:
			if s := e.Response.Status; s >= 400 {
				p.Add("HTTP " + e.Response.StatusText + ": " + e.Response.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !allowed(u) && !strings.HasPrefix(u, "data:") {
				p.Add("request: " + u)
			}
		}
	})
}

package dashboard

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
	"github.com/lasagna-go/lasagna/results"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var embedded embed.FS

// staticFS holds the assets served under /static/.
var staticFS, _ = fs.Sub(embedded, "static")

// pages parses the page templates on first use, not at package init: every
// lasagna command links this package, and only serve renders pages.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"bundleURL": func(p string) string { return "/bundles/" + escapePath(p) },
		"rawURL":    func(p string) string { return "/raw/" + escapePath(p) },
		"short": func(s string) string {
			if len(s) > 12 {
				return s[:12]
			}
			return s
		},
		"when":         func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"size":         humanSize,
		"join":         func(ss []string) string { return strings.Join(ss, ", ") },
		"benchmarkURL": func(ref string) string { return benchmarkURL(ref, "", 0) },
		"source":       (*registry.Source).String,
		"citations": func(e registry.Entry) string {
			ids := e.ChunkIDs
			if len(ids) == 0 {
				ids = e.ExpectedDocs
			}
			return strings.Join(ids, ", ")
		},
		"add": func(a, b int) int { return a + b },
	}).ParseFS(templateFS, "templates/*.html"))
})

// escapePath escapes each segment of slash path p for a URL path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// layout is what every dashboard page template receives.
type layout struct {
	Title   string
	Folder  string
	Version string
	CSRF    string
	// Registry is the registry's backend ("" without one).
	Registry string
	// Refresh, when not 0, reloads the page after so many seconds.
	Refresh int
	Body    any
}

// render writes the page template name with body, buffered so that a
// template error becomes a 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name, title string, body any) {
	s.renderPage(w, r, code, name, title, body, 0)
}

// renderRefresh renders a page that reloads itself every 2 seconds while
// refresh holds (a running evaluation): no script.
func (s *Server) renderRefresh(w http.ResponseWriter, r *http.Request, name, title string, body any, refresh bool) {
	n := 0
	if refresh {
		n = 2
	}
	s.renderPage(w, r, http.StatusOK, name, title, body, n)
}

func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, code int, name, title string, body any, refresh int) {
	var buf bytes.Buffer
	l := layout{Title: title, Folder: s.opts.Bundles, Version: s.opts.Version, CSRF: s.csrfToken(r), Refresh: refresh, Body: body}
	if s.opts.Registry != nil {
		l.Registry = s.opts.Registry.Backend()
	}
	if err := pages().ExecuteTemplate(&buf, name, l); err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// errorPage answers with code and a page saying msg.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, code int, msg string, details ...string) {
	s.errorPageWith(w, r, code, msg, details, nil)
}

// pageLink is a link an error page offers as the way out.
type pageLink struct{ Text, URL string }

// errorPageLinks is errorPage with links to the ways out.
func (s *Server) errorPageLinks(w http.ResponseWriter, r *http.Request, code int, msg string, links ...pageLink) {
	s.errorPageWith(w, r, code, msg, nil, links)
}

func (s *Server) errorPageWith(w http.ResponseWriter, r *http.Request, code int, msg string, details []string, links []pageLink) {
	s.render(w, r, code, "error.html", http.StatusText(code), struct {
		Code    int
		Status  string
		Message string
		Details []string
		Links   []pageLink
	}{code, http.StatusText(code), msg, details, links})
}

// listRow is a line of the bundles list: the file and its check (nil
// while it is pending).
type listRow struct {
	*entry
	Check *check
}

// GET /: the bundles of the folder, from their headers (readHeader: no
// row is decoded), with the checks done so far. The list checks the
// bundles up to inlineCheckBytes before it answers and leaves the larger
// ones to the background checker; while some are pending it says
// "checking…" and reloads itself.
func (s *Server) bundlesPage(w http.ResponseWriter, r *http.Request) {
	entries := s.folder.scan()
	var later []*entry
	for _, e := range entries {
		if e.Refused != "" || s.folder.checked(e) != nil {
			continue
		}
		if e.Size <= s.folder.inlineCheck && r.Context().Err() == nil {
			s.folder.check(r.Context(), e) // a failure leaves it pending
			continue
		}
		later = append(later, e)
	}
	s.folder.checkLater(later)
	var rows, usable []listRow
	pending := false
	for _, e := range entries {
		row := listRow{entry: e}
		if e.Refused == "" {
			row.Check = s.folder.checked(e)
			pending = pending || row.Check == nil
			if row.Check == nil || len(row.Check.Untrusted) == 0 {
				usable = append(usable, row)
			}
		}
		rows = append(rows, row)
	}
	refresh := 0
	if pending {
		refresh = listRefresh
	}
	s.renderPage(w, r, http.StatusOK, "bundles.html", "Bundles", struct {
		Entries   []listRow
		Usable    []listRow
		Submitted *submittedList
	}{rows, usable, s.submitted(r.Context())}, refresh)
}

// submittedShown is how many submitted bundles the list shows, newest
// first; GET /api/bundles lists them all.
const submittedShown = 100

// submittedList is the list's section of the bundles submitted to the
// registry (nil without a registry).
type submittedList struct {
	Bundles []registry.StoredBundle
	More    int    // stored but not shown
	Error   string // reading them failed
}

func (s *Server) submitted(ctx context.Context) *submittedList {
	if s.opts.Registry == nil {
		return nil
	}
	bs, total, err := s.opts.Registry.NewestBundles(ctx, submittedShown)
	if err != nil {
		return &submittedList{Error: "reading the submitted bundles: " + err.Error()}
	}
	return &submittedList{Bundles: bs, More: max(0, total-len(bs))} // a submission between the two reads
}

// listRefresh is how often, in seconds, the list reloads itself while
// checks are pending.
const listRefresh = 5

// entryOf returns the served bundle named by the path value or query
// parameter, once checked and found trustworthy, or answers with an error
// page and returns nil.
func (s *Server) entryOf(w http.ResponseWriter, r *http.Request, p, what string) *entry {
	if p == "" {
		s.errorPage(w, r, http.StatusBadRequest, "Give "+what+": the path of a bundle in the folder, as the list links it.")
		return nil
	}
	e := s.folder.lookup(p)
	if e == nil {
		s.errorPage(w, r, http.StatusNotFound, "No bundle "+p+" in the bundles folder.")
		return nil
	}
	if e.Refused != "" {
		s.errorPage(w, r, http.StatusNotFound, "Not served: "+e.Path+": "+e.Refused+".")
		return nil
	}
	c, err := s.folder.check(r.Context(), e)
	if err != nil {
		s.workError(w, r, err)
		return nil
	}
	if len(c.Untrusted) > 0 {
		s.errorPage(w, r, http.StatusUnprocessableEntity, e.Path+" fails validation, so it is not reported (see lasagna results validate "+e.Path+"):", c.Untrusted...)
		return nil
	}
	return e
}

// workError answers a check or a report that could not be done: the
// request ended while it waited for its turn, or the file changed or
// cannot be read.
func (s *Server) workError(w http.ResponseWriter, r *http.Request, err error) {
	var de drawError
	switch {
	case isContextErr(err):
		s.errorPage(w, r, http.StatusServiceUnavailable, "The request ended before the server could read the bundle (it draws at most a few reports at a time); try again.")
	case errors.As(err, &de):
		s.errorPage(w, r, http.StatusInternalServerError, "The report could not be drawn: "+de.err.Error())
	default:
		s.errorPage(w, r, http.StatusNotFound, err.Error())
	}
}

// drawError is a failure of htmlreport.Write.
type drawError struct{ err error }

func (e drawError) Error() string { return e.err.Error() }

// page returns the report drawn from the bundles of es: from the cache
// when those files are unchanged, else read, decoded and drawn through
// the gate, once however many requests ask for it at the same time.
func (f *folder) page(ctx context.Context, kind string, es []*entry, draw func([]*results.Bundle) ([]byte, error)) (*cachedPage, error) {
	key := kind
	var size int64
	for _, e := range es {
		key += "\x01" + e.key()
		size += e.Size
	}
	if p := f.pages.get(key); p != nil {
		return p, nil
	}
	return f.pageFlight.do(ctx, key, func() (*cachedPage, error) {
		if p := f.pages.get(key); p != nil {
			return p, nil
		}
		release, err := f.gate.acquire(ctx, size)
		if err != nil {
			return nil, err
		}
		defer release()
		bs := make([]*results.Bundle, len(es))
		for i, e := range es {
			raw, err := f.readAll(e)
			if err != nil {
				return nil, err
			}
			if bs[i], err = results.Unmarshal(raw); err != nil {
				return nil, fmt.Errorf("%s: %w", e.Path, err)
			}
		}
		html, err := draw(bs)
		if err != nil {
			return nil, drawError{err}
		}
		p := &cachedPage{key: key, html: html, scripts: scriptHashes(html)}
		f.pages.put(p)
		return p, nil
	})
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	// A run_id (64 hex digits) is a stored bundle: the folder lists only
	// *.json files, so no file of it has that name.
	if id := r.PathValue("file"); registry.IsRunID(id) {
		s.storedReport(w, r, id)
		return
	}
	e := s.entryOf(w, r, r.PathValue("file"), "a bundle")
	if e == nil {
		return
	}
	p, err := s.folder.page(r.Context(), "report"+s.registryStamp(r.Context()), []*entry{e}, func(bs []*results.Bundle) ([]byte, error) {
		return drawReport([]htmlreport.Input{{Bundle: bs[0]}}, htmlreport.Options{
			Data:  s.registryData(r.Context(), bs[0]),
			Title: e.Path,
			Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: "bundle JSON", URL: "/raw/" + escapePath(e.Path)}},
		})
	})
	if err != nil {
		s.workError(w, r, err)
		return
	}
	writeReport(w, p)
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// Two run_ids compare two stored bundles (submitted, in the registry).
	if a, base := q.Get("bundle"), q.Get("baseline"); registry.IsRunID(a) || registry.IsRunID(base) {
		if !registry.IsRunID(a) || !registry.IsRunID(base) {
			s.errorPage(w, r, http.StatusBadRequest, "Compare a stored bundle with a stored bundle (two run_ids), or a file of the folder with a file of the folder.")
			return
		}
		s.storedCompare(w, r, a, base)
		return
	}
	a := s.entryOf(w, r, q.Get("bundle"), "?bundle=")
	if a == nil {
		return
	}
	base := s.entryOf(w, r, q.Get("baseline"), "?baseline=")
	if base == nil {
		return
	}
	p, err := s.folder.page(r.Context(), "compare"+s.registryStamp(r.Context()), []*entry{a, base}, func(bs []*results.Bundle) ([]byte, error) {
		return drawReport([]htmlreport.Input{{Bundle: bs[0]}}, htmlreport.Options{
			Data:     s.registryData(r.Context(), bs[0]),
			Title:    a.Path + " against baseline " + base.Path,
			Baseline: bs[1],
			Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: a.Path, URL: "/bundles/" + escapePath(a.Path)},
				{Text: "baseline " + base.Path, URL: "/bundles/" + escapePath(base.Path)}},
		})
	})
	if err != nil {
		s.workError(w, r, err)
		return
	}
	writeReport(w, p)
}

// registryData returns the benchmarks of b's arms that the registry
// (Options.Registry) holds, found by content: the revision whose digest
// is the arm's held_fixed.corpus_fingerprint, or starts with the 12 hex
// digits after the "@" of its benchmark name. With them a report shows
// each query's question and gold answers and marks the relevant
// documents. A benchmark the registry does not hold, or that does not
// load, is left out (the report then shows ids only, as without data).
func (s *Server) registryData(ctx context.Context, b *results.Bundle) []*lasagna.Benchmark {
	if s.opts.Registry == nil {
		return nil
	}
	var out []*lasagna.Benchmark
	seen := map[string]bool{}
	for _, c := range b.Configs {
		digest := c.HeldFixed.CorpusFingerprint
		if len(digest) != 64 {
			_, digest, _ = strings.Cut(c.Benchmark, "@")
		}
		if digest == "" || seen[digest] {
			continue
		}
		seen[digest] = true
		if bench, err := s.opts.Registry.FindRevision(ctx, digest); err == nil {
			out = append(out, bench)
		}
	}
	return out
}

// registryStamp is the part of a report page's cache key that changes
// with the registry's revisions, so that a page drawn before its
// benchmark was imported (ids only) is drawn again with its questions.
func (s *Server) registryStamp(ctx context.Context) string {
	if s.opts.Registry == nil {
		return ""
	}
	st, err := s.opts.Registry.Stamp(ctx)
	if err != nil {
		return "\x01registry error"
	}
	return "\x01registry " + st
}

func drawReport(ins []htmlreport.Input, o htmlreport.Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, ins, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeReport answers with a drawn htmlreport page: its
// Content-Security-Policy allows its inline scripts by hash and nothing
// from another host.
func writeReport(w http.ResponseWriter, p *cachedPage) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src "+p.scripts+"; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(p.html)))
	w.Write(p.html)
}

// rawBundle answers with the file's bytes, streamed from the file (not
// held in memory), as a download.
func (s *Server) rawBundle(w http.ResponseWriter, r *http.Request) {
	e := s.folder.lookup(r.PathValue("file"))
	if e == nil || e.Refused != "" {
		s.errorPage(w, r, http.StatusNotFound, "No bundle "+r.PathValue("file")+" in the bundles folder.")
		return
	}
	fh, st, err := s.folder.open(e.Path)
	if err != nil {
		s.errorPage(w, r, http.StatusNotFound, stripRoot(err))
		return
	}
	defer fh.Close()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(pathBase(e.Path)))
	http.ServeContent(w, r, "", st.ModTime(), fh)
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// rescan forgets what was read and sends the browser back to the list.
func (s *Server) rescan(w http.ResponseWriter, r *http.Request) {
	s.folder.forget()
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
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

func (s *Server) bundlesPage(w http.ResponseWriter, r *http.Request) {
	entries := s.folder.scan()
	var usable []*entry
	for _, e := range entries {
		if e.Refused == "" && len(e.Untrusted) == 0 {
			usable = append(usable, e)
		}
	}
	s.render(w, r, http.StatusOK, "bundles.html", "Bundles", struct {
		Entries []*entry
		Usable  []*entry
	}{entries, usable})
}

// entryOf returns the served bundle named by the path value or query
// parameter, or answers with an error page and returns nil.
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
	if len(e.Untrusted) > 0 {
		s.errorPage(w, r, http.StatusUnprocessableEntity, e.Path+" fails validation, so it is not reported (see lasagna results validate "+e.Path+"):", e.Untrusted...)
		return nil
	}
	return e
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	e := s.entryOf(w, r, r.PathValue("file"), "a bundle")
	if e == nil {
		return
	}
	b, err := s.folder.bundle(e)
	if err != nil {
		s.errorPage(w, r, http.StatusNotFound, err.Error())
		return
	}
	s.report(w, r, []htmlreport.Input{{Bundle: b}}, htmlreport.Options{
		Title: e.Path,
		Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: "bundle JSON", URL: "/raw/" + escapePath(e.Path)}},
	})
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a := s.entryOf(w, r, q.Get("bundle"), "?bundle=")
	if a == nil {
		return
	}
	base := s.entryOf(w, r, q.Get("baseline"), "?baseline=")
	if base == nil {
		return
	}
	ba, err := s.folder.bundle(a)
	if err != nil {
		s.errorPage(w, r, http.StatusNotFound, err.Error())
		return
	}
	bb, err := s.folder.bundle(base)
	if err != nil {
		s.errorPage(w, r, http.StatusNotFound, err.Error())
		return
	}
	s.report(w, r, []htmlreport.Input{{Bundle: ba}}, htmlreport.Options{
		Title:    a.Path + " against baseline " + base.Path,
		Baseline: bb,
		Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: a.Path, URL: "/bundles/" + escapePath(a.Path)},
			{Text: "baseline " + base.Path, URL: "/bundles/" + escapePath(base.Path)}},
	})
}

// report answers with an htmlreport page: its Content-Security-Policy
// allows its inline scripts by hash and nothing from another host.
func (s *Server) report(w http.ResponseWriter, r *http.Request, ins []htmlreport.Input, o htmlreport.Options) {
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, ins, o); err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "The report could not be drawn: "+err.Error())
		return
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src "+scriptHashes(buf.Bytes())+"; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

func (s *Server) rawBundle(w http.ResponseWriter, r *http.Request) {
	e := s.folder.lookup(r.PathValue("file"))
	if e == nil || e.Refused != "" {
		s.errorPage(w, r, http.StatusNotFound, "No bundle "+r.PathValue("file")+" in the bundles folder.")
		return
	}
	raw, _, err := s.folder.readFile(e.Path)
	if err != nil {
		s.errorPage(w, r, http.StatusNotFound, stripRoot(err))
		return
	}
	attachment(w, "application/json", pathBase(e.Path), raw)
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

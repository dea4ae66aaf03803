package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// entriesPerPage is the page size of a benchmark's entries.
const entriesPerPage = 50

// searchCountLimit is how many matches a search counts: past it, the
// page says "more than 1,000" and links the last page too (pages counted
// from the end), as search engines report a lower bound past a limit
// (Elasticsearch's track_total_hits), so that a search matching most of
// a large benchmark costs a walk of 1,000 matches, not of all of them
// (BENCHMARKS.md, "Dashboard search"). A variable for the tests.
var searchCountLimit = 1000

// reg returns the registry, or answers that there is none and returns nil.
func (s *Server) reg(w http.ResponseWriter, r *http.Request) *registry.Registry {
	if s.opts.Registry == nil {
		s.errorPage(w, r, http.StatusNotFound, "This dashboard has no benchmark registry: start lasagna serve with LASAGNA_REGISTRY or --registry (a SQLite file path or a postgres:// URL).")
		return nil
	}
	return s.opts.Registry
}

// registryError answers with the page of a registry error: 400 for a bad
// name or reference (registry.ErrInvalid), 404 for a benchmark that is
// not there, 409 for a refusal by status, 503 with Retry-After when the
// storage is unavailable (registry.Unavailable), 500 for anything else.
func (s *Server) registryError(w http.ResponseWriter, r *http.Request, err error) {
	var se *registry.StatusError
	code := http.StatusInternalServerError
	msg := err.Error()
	switch {
	case errors.Is(err, registry.ErrInvalid):
		code = http.StatusBadRequest
	case errors.Is(err, registry.ErrNotFound):
		code = http.StatusNotFound
	case errors.As(err, &se):
		code = http.StatusConflict
	case registry.Unavailable(err):
		code = http.StatusServiceUnavailable
		msg = unavailableText(err)
		retryLater(w)
	case strings.Contains(err.Error(), "benchmark name") || strings.Contains(err.Error(), "reference"):
		code = http.StatusBadRequest
	}
	s.errorPage(w, r, code, msg)
}

// retryAfter is the Retry-After of a 503 (seconds): the storage was
// unavailable, or the server too busy to start the work.
const retryAfter = 5

// retryLater sets the Retry-After header of a 503 answer.
func retryLater(w http.ResponseWriter) { w.Header().Set("Retry-After", strconv.Itoa(retryAfter)) }

// unavailableText is the message of a 503 for a storage failure.
func unavailableText(err error) string {
	return "the registry's storage is unavailable (" + err.Error() + "); nothing was changed: try again in a moment"
}

// benchmarkURL is the page of the benchmark ref (NAME or NAME@hash),
// with query and page when set.
func benchmarkURL(ref, query string, page int) string {
	v := url.Values{"ref": {ref}}
	if query != "" {
		v.Set("q", query)
	}
	if page > 1 || page < 0 { // 0 and 1: the first page
		v.Set("page", strconv.Itoa(page))
	}
	return "/benchmark?" + v.Encode()
}

// shownLine says which entries a benchmark page shows: n of res's
// matches from offset (counted from the end for a page < 0).
func shownLine(search string, res registry.SearchResult, page, pages, offset, n int) string {
	matching := ""
	if search != "" {
		matching = " matching “" + search + "”"
	}
	switch {
	case res.Matches == 0 && search != "":
		return "no entry matches “" + search + "”"
	case res.Matches == 0:
		return "no entries"
	case res.Exact:
		return fmt.Sprintf("entries %d–%d of %d%s · page %d of %d", offset+1, offset+n, res.Matches, matching, page, pages)
	case page > 0:
		return fmt.Sprintf("entries %d–%d of more than %s%s · page %d", offset+1, offset+n, thousands(res.Matches), matching, page)
	case page == -1:
		return fmt.Sprintf("the last %d entries of more than %s%s", n, thousands(res.Matches), matching)
	default:
		return fmt.Sprintf("entries %d–%d counted from the last of more than %s%s · page %d from the end", offset+1, offset+n, thousands(res.Matches), matching, -page)
	}
}

// thousands writes n with a comma between thousands (10,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// GET /benchmarks: every benchmark of the registry at its current revision.
func (s *Server) benchmarksPage(w http.ResponseWriter, r *http.Request) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	infos, err := reg.List(r.Context(), registry.ListOptions{})
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "benchmarks.html", "Benchmarks", struct {
		Benchmarks []registry.Info
		Backend    string
	}{infos, reg.Backend()})
}

// GET /benchmark?ref=NAME[@hash][&q=TEXT][&page=N]: a benchmark, its
// entries (paged; q keeps those whose id, question or answer contain the
// text, ignoring case: registry.Search), its actions and its evaluations.
func (s *Server) benchmarkPage(w http.ResponseWriter, r *http.Request) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	q := r.URL.Query()
	ref := q.Get("ref")
	if ref == "" {
		s.errorPage(w, r, http.StatusBadRequest, "Give ?ref=NAME (or NAME@hash), as the benchmarks list links it.")
		return
	}
	page := 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n == 0 {
			s.errorPage(w, r, http.StatusBadRequest, "?page="+p+" is not a page number (1, 2, …; -1 is the last page, -2 the one before).")
			return
		}
		page = n
	}
	inf, err := reg.Get(r.Context(), ref)
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	search := strings.TrimSpace(q.Get("q"))
	// registry.Search: in the database, paged there too. One match more
	// than the page says whether there are more beyond it (before it, for
	// a page counted from the end) when the count stops short.
	sq := registry.SearchQuery{Text: search, Limit: entriesPerPage + 1, CountLimit: searchCountLimit}
	if page > 0 {
		sq.Offset = (page - 1) * entriesPerPage
	} else {
		sq.Offset, sq.FromEnd = (-page-1)*entriesPerPage, true
	}
	res, err := reg.Search(r.Context(), ref, sq)
	if err == nil && res.Exact && page < 0 {
		// Counted: the page from the end is a page from the start.
		page = max(1, (res.Matches+entriesPerPage-1)/entriesPerPage) + 1 + page
		if page >= 1 {
			sq.Offset, sq.FromEnd = (page-1)*entriesPerPage, false
			res, err = reg.Search(r.Context(), ref, sq)
		}
	}
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	entries, more := res.Entries, len(res.Entries) > entriesPerPage
	if more && sq.FromEnd {
		entries = entries[1:] // the one before the page
	} else if more {
		entries = entries[:entriesPerPage]
	}
	pages := max(1, (res.Matches+entriesPerPage-1)/entriesPerPage)
	if (res.Exact && (page < 1 || page > pages)) || (!res.Exact && page != 1 && len(entries) == 0) {
		msg := fmt.Sprintf("Page %d of %s does not exist: it has %d page(s) of entries.", page, ref, pages)
		if !res.Exact {
			msg = fmt.Sprintf("Page %d of %s does not exist: the search has fewer matches.", page, ref)
		}
		if page < 1 {
			msg = fmt.Sprintf("Page %s of %s does not exist: it has %d page(s) of entries.", q.Get("page"), ref, pages)
		}
		s.errorPage(w, r, http.StatusNotFound, msg)
		return
	}
	var prev, next, first, last string
	switch {
	case res.Exact:
		if page > 1 {
			prev = benchmarkURL(ref, search, page-1)
		}
		if page < pages {
			next = benchmarkURL(ref, search, page+1)
		}
	case page > 0: // more than searchCountLimit matches, counted from the start
		if page > 1 {
			prev = benchmarkURL(ref, search, page-1)
		}
		if more {
			next = benchmarkURL(ref, search, page+1)
		}
		last = benchmarkURL(ref, search, -1)
	default: // counted from the end
		if more {
			prev = benchmarkURL(ref, search, page-1)
		}
		if page < -1 {
			next = benchmarkURL(ref, search, page+1)
		}
		first = benchmarkURL(ref, search, 1)
	}
	shown := shownLine(search, res, page, pages, sq.Offset, len(entries))
	var refusal string
	if inf.Status != registry.StatusActive {
		refusal = (&registry.StatusError{Name: inf.Name, Status: inf.Status, Op: "be evaluated", Empty: inf.Revision == ""}).Error()
	}
	s.render(w, r, http.StatusOK, "benchmark.html", inf.Name, struct {
		Info                    registry.Info
		Ref                     string
		Source                  string
		Search                  string
		Entries                 []registry.Entry
		Shown                   string
		Prev, Next, First, Last string
		Export                  string
		Download                string
		Refusal                 string
		Profiles                []profileChoice
		Sweeps                  []string
		SweepsDir               string
		Evaluations             []*evalView
	}{inf, ref, inf.Source.String(), search, entries, shown, prev, next, first, last,
		"/benchmark/export.csv?" + url.Values{"ref": {ref}}.Encode(), downloadURL(ref), refusal,
		profileChoices(), s.sweepFiles(), s.opts.Sweeps, s.evals.views(func(e *evaluation) bool { return e.Benchmark == inf.Name })})
}

// GET /benchmark/export.csv?ref=NAME[&skip_unanswerable=1]: the entries as
// a Vecta benchmark CSV (registry.Export, as lasagna benchmark export), as
// a download.
func (s *Server) exportCSV(w http.ResponseWriter, r *http.Request) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	ref := r.URL.Query().Get("ref")
	inf, err := reg.Get(r.Context(), ref)
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	var buf bytes.Buffer
	skip := r.URL.Query().Get("skip_unanswerable") == "1"
	skipped, err := reg.Export(r.Context(), ref, &buf, registry.ExportOptions{SkipUnanswerable: skip})
	if err != nil {
		msg := "The CSV export of " + ref + " failed: " + err.Error()
		if na, ok := errors.AsType[*registry.NoAnswerError](err); ok {
			// Here the fix is a link, not the CLI's flag.
			msg = "The CSV export of " + ref + " failed: " + na.Problem() + "; leave such entries out (the link below), or download the JSONL, which keeps them"
			s.errorPageLinks(w, r, http.StatusUnprocessableEntity, msg,
				pageLink{"Export the CSV without the unanswerable entries", "/benchmark/export.csv?" + url.Values{"ref": {ref}, "skip_unanswerable": {"1"}}.Encode()},
				pageLink{"Download the JSONL", downloadURL(ref)})
			return
		}
		s.registryError(w, r, errors.New(msg))
		return
	}
	if len(skipped) > 0 {
		w.Header().Set("X-Lasagna-Skipped", strconv.Itoa(len(skipped)))
	}
	attachment(w, "text/csv; charset=utf-8", fileStem(inf)+".csv", buf.Bytes())
}

// attachment writes data as a download named filename.
func attachment(w http.ResponseWriter, contentType, filename string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(filename))
	w.Write(data)
}

func downloadURL(ref string) string {
	return "/benchmark/download.jsonl?" + url.Values{"ref": {ref}}.Encode()
}

// GET /benchmark/download.jsonl?ref=NAME: every entry as JSONL
// (registry.Download, as lasagna benchmark download), as a download.
func (s *Server) downloadJSONL(w http.ResponseWriter, r *http.Request) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	ref := r.URL.Query().Get("ref")
	inf, err := reg.Get(r.Context(), ref)
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := reg.Download(r.Context(), ref, &buf); err != nil {
		s.registryError(w, r, err)
		return
	}
	attachment(w, "application/jsonl; charset=utf-8", fileStem(inf)+".jsonl", buf.Bytes())
}

// fileStem names a download of inf: its revision (name@hash), slashes
// made underscores.
func fileStem(inf registry.Info) string {
	if inf.Revision != "" {
		return strings.ReplaceAll(inf.Revision, "/", "_")
	}
	return strings.ReplaceAll(inf.Name, "/", "_")
}

// POST /benchmark/activate (ref) and /benchmark/archive (ref): change the
// status, then back to the benchmark's page.
func (s *Server) activate(w http.ResponseWriter, r *http.Request) {
	s.setStatus(w, r, func(reg *registry.Registry, ref string) error {
		_, err := reg.Activate(r.Context(), ref)
		return err
	})
}

func (s *Server) archive(w http.ResponseWriter, r *http.Request) {
	s.setStatus(w, r, func(reg *registry.Registry, ref string) error {
		name, _, err := registry.ParseRef(ref)
		if err != nil {
			return err
		}
		_, err = reg.Archive(r.Context(), name)
		return err
	})
}

func (s *Server) setStatus(w http.ResponseWriter, r *http.Request, change func(*registry.Registry, string) error) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	ref := r.PostFormValue("ref")
	if ref == "" {
		s.errorPage(w, r, http.StatusBadRequest, "The form has no benchmark (field ref).")
		return
	}
	if err := change(reg, ref); err != nil {
		s.registryError(w, r, err)
		return
	}
	name, _, _ := registry.ParseRef(ref)
	http.Redirect(w, r, benchmarkURL(name, "", 0), http.StatusSeeOther)
}

// profileChoice is a built-in profile the evaluation form offers.
type profileChoice struct{ Name, Summary string }

func profileChoices() []profileChoice {
	var out []profileChoice
	for _, p := range engineProfiles() {
		out = append(out, profileChoice{p.Name, p.Summary})
	}
	return out
}

// isSweepName reports whether p names a sweep file.
func isSweepName(p string) bool {
	return strings.HasSuffix(strings.ToLower(p), ".yaml") || strings.HasSuffix(strings.ToLower(p), ".yml")
}

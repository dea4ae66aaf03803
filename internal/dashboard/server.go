// Package dashboard is the web dashboard of `lasagna serve`: an
// http.Handler over a folder of results bundles, with server-rendered
// html/template pages and embedded static assets (no frontend framework,
// no request to any other host).
//
// Pages:
//
//	GET  /                      the bundles in the folder: file, run id,
//	                            benchmarks, arms, queries (from each file's
//	                            header), modified, size, integrity counts
//	                            (its check); a form comparing two
//	GET  /bundles/{file...}     a bundle's report (htmlreport.Write)
//	GET  /raw/{file...}         a bundle's JSON, as a download (streamed)
//	GET  /compare?bundle=A&baseline=B
//	                            A's report against baseline B
//	POST /rescan                forget what was read and rescan the folder
//	GET  /login?token=T         sets the session cookie (with a token)
//	GET  /static/…              the embedded style sheet
//
// Security (docs/reports.md, issue 15):
//
//   - Address: CheckAddr allows a loopback address without a token; any
//     other address needs LASAGNA_SERVE_TOKEN (at least MinTokenLength
//     characters).
//   - Authentication, when a token is configured: every request but
//     /login carries "Authorization: Bearer TOKEN" or the session cookie
//     that GET /login?token=TOKEN sets (HttpOnly, SameSite=Strict; its
//     value is an HMAC of the token, not the token), else 401. /login
//     redirects to / so the token leaves the address bar, and every page
//     says Referrer-Policy: no-referrer.
//   - Without a token (loopback only), a request whose Host header is not
//     a loopback name or address gets 403: a page of another site cannot
//     reach the dashboard through DNS rebinding.
//   - State-changing requests are POST only (other methods get 405), pass
//     net/http's CrossOriginProtection (Sec-Fetch-Site, Origin) and carry
//     the page's CSRF token (form field "csrf" or header X-CSRF-Token), an
//     HMAC of the session under a key drawn when the server starts; else
//     403.
//   - Files: a URL never names a file to open. Bundles are found by
//     walking the folder through os.Root (a symbolic link leading outside
//     is listed as refused, never read) and a URL is looked up among the
//     files found, so "..", encoded or not, absolute paths and links
//     outside reach nothing. Assets come from an embed.FS.
//   - Every page is html/template, so user text (arm names, query ids,
//     file names) is escaped; every response has a Content-Security-Policy
//     that allows no other host (report pages allow only their own inline
//     scripts, by hash), nosniff, no framing and no referrer.
//   - Serve sets read, write and idle timeouts and shuts down gracefully
//     when its context ends (lasagna serve: SIGINT, SIGTERM).
//   - Work is bounded (bounds.go; docs/reports.md, "The dashboard's
//     bounds"): the list reads headers only; checks (results.Validate)
//     and report drawings pass a gate of workSlots (a large bundle alone)
//     whose waiters give up with their request; each file's check and
//     drawn reports are kept until the file changes.
//
// The registry's pages (Options.Registry; docs/registry.md):
//
//	GET  /benchmarks            every benchmark: name, status, questions,
//	                            linked source, created, revision
//	GET  /benchmark?ref=NAME[@hash][&q=TEXT][&page=N]
//	                            a benchmark: its entries (50 a page; q
//	                            searches id, question and answer), CSV
//	                            export, activate or archive, the form that
//	                            creates an evaluation, its evaluations
//	GET  /benchmark/export.csv?ref=NAME
//	                            the entries as a Vecta CSV (download); an
//	                            entry without an answer fails it, with a
//	                            link adding &skip_unanswerable=1
//	GET  /benchmark/download.jsonl?ref=NAME
//	                            every entry as JSONL (download)
//	POST /benchmark/activate    ref: activate (as lasagna benchmark activate)
//	POST /benchmark/archive     ref: archive (as lasagna benchmark archive)
//	POST /evaluate              ref, and profile (engine.Profiles) or sweep
//	                            (a file of Options.Sweeps): starts an
//	                            evaluation in the background
//	GET  /evaluations           the evaluations this server ran or runs
//	GET  /evaluations/{id}      one evaluation: progress (the page refreshes
//	                            itself while it runs), error, or the link
//	                            to its bundle's report
//
// Submitted bundles (submit.go; docs/reports.md, "Submitting bundles"):
//
//	POST /api/bundles           a bundle's JSON, with the bearer token
//	                            (always); checked against the registry and
//	                            stored by run_id: 201, 200 for a duplicate,
//	                            422 with every finding, 401, 403, 413
//	GET  /api/bundles           the stored bundles, newest first (JSON;
//	                            the list at / shows the newest 100)
//	GET  /api/bundles/{run_id}  a stored bundle's JSON
//	GET  /bundles/{run_id}      a stored bundle's report
//	GET  /compare?bundle=RUN_ID&baseline=RUN_ID
//	                            a stored bundle against another
//	GET  /leaderboards[?metric=M]
//	                            the stored bundles ranked in groups
//	                            (leaderboards.go, internal/leaderboard)
//	GET  /api/leaderboards[?metric=M]
//	                            the same groups as JSON
//
// An evaluation runs through the engine as `lasagna benchmark run
// registry:NAME` does: only an active benchmark evaluates (a draft or an
// archived one is refused with the CLI's message); a sweep file's arms
// and settings apply to this benchmark (its own benchmarks are replaced).
// The bundle is written into the bundles folder, under evaluations/. The
// server keeps the evaluations in memory: they survive a browser refresh,
// not a restart (the bundles stay). CancelEvaluations (lasagna serve: on
// SIGINT or SIGTERM, as the shutdown begins) cancels the running ones, and
// Close cancels them and waits for them; they show as canceled and write
// nothing: a bundle is renamed into place only while the evaluations are
// not cancelled, under the lock the cancellation takes.
package dashboard

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/leaderboard"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// MinTokenLength is the shortest LASAGNA_SERVE_TOKEN accepted.
const MinTokenLength = 16

// TokenEnv names the environment variable holding the token.
const TokenEnv = "LASAGNA_SERVE_TOKEN"

// sessionCookie is the name of the cookie /login sets.
const sessionCookie = "lasagna_session"

// Options configure a Server.
type Options struct {
	// Bundles is the folder of results bundles (*.json, searched
	// recursively; folders whose name starts with "." are skipped).
	Bundles string
	// Token, when not empty, is required of every request (see the
	// package documentation). CheckAddr says when it is mandatory.
	Token string
	// Version is shown in the page footer. (The bundles of evaluations
	// record engine.Version, as every front end's do.)
	Version string
	// Registry, when not nil, adds the benchmarks pages and evaluations.
	// The caller opens and closes it.
	Registry *registry.Registry
	// Sweeps, when not empty, is a folder of sweep files (*.yaml, *.yml)
	// that "create evaluation" offers beside the built-in profiles.
	Sweeps string
	// Deps returns what a sweep's model-calling arms need (embedders,
	// generators, judges), configured by the caller (lasagna serve: from
	// the environment, as benchmark run does). nil means BM25 arms only;
	// an error fails the evaluation with that message.
	Deps func(*engine.Sweep) (engine.Deps, error)
	// SchemaCheck is the JSON Schema check of a bundle (lasagna serve:
	// package results/schema's Check), which POST /api/bundles runs with
	// the other checks of results validate. nil: the server accepts no
	// submissions.
	SchemaCheck func(raw []byte) []results.Problem
	// MaxUpload is the largest bundle POST /api/bundles accepts, in
	// bytes; 0 means DefaultMaxUpload.
	MaxUpload int64
	// PublicRead (lasagna serve --public-read), with a Token, lets the
	// reads of the submitted results through without it: the
	// leaderboards, the stored bundles' reports and comparisons, and GET
	// /api/leaderboards, /api/bundles and /api/bundles/{run_id}. Every
	// other page (the folder's bundles, the registry's benchmarks and
	// evaluations) and every write still need the token.
	PublicRead bool
}

// Server is the dashboard's http.Handler.
type Server struct {
	opts    Options
	folder  *folder
	sweeps  *os.Root // nil without Options.Sweeps
	evals   *evaluations
	mux     *http.ServeMux
	cop     *http.CrossOriginProtection
	csrfKey []byte
	session string // the session cookie's value; "" without a token
	handler http.Handler
	boards  boards // the leaderboards built, by metric and stored bundles
	facts   factsCache
	pairs   leaderboard.PairCache
	inputs  inputCache
}

// New returns the dashboard over o.Bundles, which must be a folder.
func New(o Options) (*Server, error) {
	if o.Token != "" && len(o.Token) < MinTokenLength {
		return nil, fmt.Errorf("%s is %d characters long; use at least %d (for example: openssl rand -hex 32)", TokenEnv, len(o.Token), MinTokenLength)
	}
	f, err := openFolder(o.Bundles)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, folder: f, evals: newEvaluations(), mux: http.NewServeMux(), cop: http.NewCrossOriginProtection()}
	if o.Sweeps != "" {
		if s.sweeps, err = openSweeps(o.Sweeps); err != nil {
			f.close()
			return nil, err
		}
	}
	s.csrfKey = make([]byte, 32)
	rand.Read(s.csrfKey) // never fails (crypto/rand)
	if o.Token != "" {
		s.session = mac([]byte(o.Token), "lasagna serve session v1")
	}
	s.routes()
	s.handler = s.secureHeaders(s.checkHost(s.authenticate(s.mux)))
	return s, nil
}

// CancelEvaluations cancels the evaluations still running and returns
// how many it cancelled: they end as canceled and write no bundle. A
// bundle being renamed into place when it is called is in place when it
// returns; no bundle appears after it. lasagna serve calls it as its
// shutdown begins (SIGINT, SIGTERM), before the requests in flight finish.
func (s *Server) CancelEvaluations() int { return s.evals.cancelAll() }

// Close cancels the evaluations still running, waits until they stop,
// and releases the folders.
func (s *Server) Close() error {
	s.evals.close()
	if s.sweeps != nil {
		s.sweeps.Close()
	}
	return s.folder.close()
}

// openSweeps opens the sweeps folder.
func openSweeps(dir string) (*os.Root, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("sweeps folder: %w (give --sweeps DIR, a folder of sweep files)", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("sweeps folder %s is not a folder (give --sweeps DIR, a folder of sweep files)", dir)
	}
	return os.OpenRoot(dir)
}

// ServeHTTP serves the dashboard.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// routes registers every page. Registry pages join here.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /{$}", s.bundlesPage)
	s.mux.HandleFunc("GET /bundles/{file...}", s.reportPage)
	s.mux.HandleFunc("GET /raw/{file...}", s.rawBundle)
	s.mux.HandleFunc("GET /compare", s.comparePage)
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFS)))
	// Browsers ask for an icon; there is none, and that is not an error.
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s.post("POST /rescan", s.rescan)
	s.mux.HandleFunc("GET /benchmarks", s.benchmarksPage)
	s.mux.HandleFunc("GET /benchmark", s.benchmarkPage)
	s.mux.HandleFunc("GET /benchmark/export.csv", s.exportCSV)
	s.mux.HandleFunc("GET /benchmark/download.jsonl", s.downloadJSONL)
	s.post("POST /benchmark/activate", s.activate)
	s.post("POST /benchmark/archive", s.archive)
	s.post("POST /evaluate", s.evaluate)
	s.mux.HandleFunc("GET /evaluations", s.evaluationsPage)
	s.mux.HandleFunc("GET /evaluations/{id}", s.evaluationPage)
	s.submitRoutes()
	s.leaderboardRoutes()
	// No catch-all route: the mux answers 404 to an unknown path and 405
	// to a known path with another method (GET /rescan).
}

// post registers a state-changing handler behind the CSRF check.
func (s *Server) post(pattern string, h http.HandlerFunc) {
	if !strings.HasPrefix(pattern, "POST ") {
		panic("dashboard: state-changing route without POST: " + pattern)
	}
	s.mux.Handle(pattern, s.csrf(h))
}

// mac is the hex HMAC-SHA256 of msg under key.
func mac(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, msg)
	return hex.EncodeToString(m.Sum(nil))
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// csrfToken is the token the pages of r's session put in their forms.
func (s *Server) csrfToken(r *http.Request) string {
	session := ""
	if c, err := r.Cookie(sessionCookie); err == nil {
		session = c.Value
	}
	return mac(s.csrfKey, "csrf\x00"+session)
}

// csrf refuses a request that comes from another site or lacks the
// page's CSRF token, with 403.
func (s *Server) csrf(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.cop.Check(r); err != nil {
			s.errorPage(w, r, http.StatusForbidden, "Refused: a cross-origin request ("+err.Error()+").")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		got := r.Header.Get("X-CSRF-Token")
		if got == "" {
			got = r.PostFormValue("csrf")
		}
		if got == "" || !equal(got, s.csrfToken(r)) {
			s.errorPage(w, r, http.StatusForbidden, "Refused: the request has no valid CSRF token. Reload the page and try again (the token changes when the server restarts).")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authenticate asks every request but /login and the embedded assets for
// the token when one is configured.
func (s *Server) authenticate(h http.Handler) http.Handler {
	if s.opts.Token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The style sheet is public (the 401 page uses it); it holds no data.
		// POST /api/bundles checks the bearer token itself (always, and
		// never the cookie) and answers in JSON.
		if r.Method == http.MethodPost && r.URL.Path == "/api/bundles" {
			h.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/login" || r.URL.Path == "/favicon.ico" || strings.HasPrefix(r.URL.Path, "/static/") || s.authenticated(r) || s.publicRead(r) {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="lasagna serve"`)
		s.errorPage(w, r, http.StatusUnauthorized, "This dashboard needs its token: open /login?token=… with the value of "+TokenEnv+", or send the header Authorization: Bearer ….")
	})
}

// publicRead reports whether r is a read that Options.PublicRead lets
// through without the token: GET or HEAD of the leaderboards, a stored
// bundle's report or JSON, the comparison of two stored bundles, or the
// list of stored bundles.
func (s *Server) publicRead(r *http.Request) bool {
	if !s.opts.PublicRead || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	p := r.URL.Path
	switch p {
	case "/leaderboards", "/api/leaderboards", "/api/bundles":
		return true
	case "/compare":
		q := r.URL.Query()
		return registry.IsRunID(q.Get("bundle")) && registry.IsRunID(q.Get("baseline"))
	}
	for _, prefix := range []string{"/bundles/", "/api/bundles/"} {
		if id, ok := strings.CutPrefix(p, prefix); ok {
			return registry.IsRunID(id)
		}
	}
	return false
}

func (s *Server) authenticated(r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(tok, s.opts.Token) {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && equal(c.Value, s.session)
}

// login sets the session cookie when ?token= is right, and sends the
// browser to the bundles list (taking the token out of the address bar).
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !equal(r.URL.Query().Get("token"), s.opts.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="lasagna serve"`)
		s.errorPage(w, r, http.StatusUnauthorized, "Wrong or missing token: open /login?token=… with the value of "+TokenEnv+".")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// checkHost refuses, when no token is configured, a request whose Host
// is not loopback: the DNS-rebinding guard of a server without a token.
func (s *Server) checkHost(h http.Handler) http.Handler {
	if s.opts.Token != "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			s.errorPage(w, r, http.StatusForbidden, "Refused: the Host header "+r.Host+" is not a loopback address; without "+TokenEnv+" this dashboard answers only localhost, 127.0.0.1 and [::1].")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// pageCSP is the Content-Security-Policy of the dashboard's own pages:
// nothing but the embedded style sheet, no script at all.
const pageCSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (s *Server) secureHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", pageCSP)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether hostport (a Host header or an address)
// names the loopback interface: localhost, 127.0.0.0/8 or ::1.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckAddr checks that the server may listen on addr (host:port): a
// loopback address always may; any other (":8080", "0.0.0.0:8080", a
// host name, a public address) only with a token.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v (want host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if host != "" && loopbackHost(addr) {
		return nil
	}
	if token == "" {
		what := "address " + host
		if host == "" {
			what = "every interface"
		}
		return fmt.Errorf("--addr %s listens on %s, not loopback: set %s to a secret of at least %d characters (for example: export %s=$(openssl rand -hex 32)) and open /login?token=… in the browser, or listen on 127.0.0.1", addr, what, TokenEnv, MinTokenLength, TokenEnv)
	}
	if len(token) < MinTokenLength {
		return fmt.Errorf("%s is %d characters long; use at least %d (for example: openssl rand -hex 32)", TokenEnv, len(token), MinTokenLength)
	}
	return nil
}

// Timeouts bound the time a connection may take.
type Timeouts struct {
	ReadHeader, Read, Write, Idle, Shutdown time.Duration
}

// DefaultTimeouts are Serve's: a slow client cannot hold a connection, a
// large report still has time to be written, and a shutdown waits this
// long for requests in flight.
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	Read:       time.Minute,
	Write:      5 * time.Minute,
	Idle:       2 * time.Minute,
	Shutdown:   30 * time.Second,
}

// HTTPServer returns an http.Server for h with the timeouts t and a
// 64 KiB header limit, logging its errors to errLog.
func HTTPServer(h http.Handler, t Timeouts, errLog io.Writer) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(errLog, "lasagna serve: ", 0),
	}
}

// Serve serves h on ln until ctx ends, then shuts down gracefully: it
// stops accepting, lets the requests in flight finish (up to
// t.Shutdown) and returns nil. stopping, if not nil, is called when the
// shutdown begins. An error of the listener is returned as is.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, errLog io.Writer, stopping func()) error {
	srv := HTTPServer(h, t, errLog)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Shutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("requests still in flight after %v were cut: %w", t.Shutdown, err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// scriptHashes returns the CSP sources allowing the inline scripts of
// page (a rendered report): 'sha256-…' of each <script> element.
func scriptHashes(page []byte) string {
	var srcs []string
	rest := page
	for {
		i := bytes.Index(rest, []byte("<script>"))
		if i < 0 {
			break
		}
		rest = rest[i+len("<script>"):]
		j := bytes.Index(rest, []byte("</script>"))
		if j < 0 {
			break
		}
		sum := sha256.Sum256(rest[:j])
		srcs = append(srcs, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		rest = rest[j:]
	}
	if len(srcs) == 0 {
		return "'none'"
	}
	return strings.Join(srcs, " ")
}

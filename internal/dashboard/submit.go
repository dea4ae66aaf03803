package dashboard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
	"github.com/lasagna-go/lasagna/results"
)

// Submission (docs/reports.md, "Submitting bundles"):
//
//	POST /api/bundles           one bundle's JSON as the body, with
//	                            "Authorization: Bearer TOKEN" (always: a
//	                            server without a token accepts none);
//	                            checked as lasagna results validate
//	                            --strict --data registry:NAME@HASH checks
//	                            it, then stored in the registry by run_id
//	GET  /api/bundles           the stored bundles (JSON), newest first
//	GET  /api/bundles/{run_id}  a stored bundle's JSON
//	GET  /bundles/{run_id}      a stored bundle's report (htmlreport); a
//	                            run_id is 64 hex digits, never the name of
//	                            a file of the folder (those end in .json)

// DefaultMaxUpload is the largest bundle POST /api/bundles accepts when
// Options.MaxUpload is 0 (lasagna serve --max-upload): 32 MiB.
const DefaultMaxUpload = 32 << 20

// maxSubmitterRunes bounds each of a submitter's name and affiliation.
const maxSubmitterRunes = 200

// codeInvalidSubmitter is the finding of a submitter string the hub
// refuses (control characters, bidirectional overrides, too long). It is
// the server's own finding, not a code of the bundles' catalogue.
const codeInvalidSubmitter lasagna.Code = "INVALID_SUBMITTER"

// submitterFix is the fix of codeInvalidSubmitter.
var submitterFix = "give the run a plain submitter of at most " + strconv.Itoa(maxSubmitterRunes) + " characters without control characters, and write the bundle again (the submitter is part of its run_id)"

// finding is one problem of a refused submission, as the JSON answer
// lists it.
type finding struct {
	Code   string `json:"code"`
	Level  string `json:"level"`
	Where  string `json:"where"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// submitAnswer is the JSON answer of POST /api/bundles.
type submitAnswer struct {
	// Status is accepted, duplicate or refused ("error" for a request
	// refused before its bundle was read: token, size).
	Status string `json:"status"`
	RunID  string `json:"run_id,omitempty"`
	// Report and JSON are the paths of the stored bundle's report and
	// JSON on this server.
	Report    string `json:"report,omitempty"`
	JSON      string `json:"json,omitempty"`
	Benchmark string `json:"benchmark,omitempty"`
	// ContentHash is the benchmark revision the bundle names.
	ContentHash string `json:"content_hash,omitempty"`
	// Rescored is what the check recomputed (results validate's line).
	Rescored string    `json:"rescored,omitempty"`
	Error    string    `json:"error,omitempty"`
	Findings []finding `json:"findings,omitempty"`
}

// storedView is a stored bundle as GET /api/bundles lists it.
type storedView struct {
	RunID       string    `json:"run_id"`
	Submitter   string    `json:"submitter"`
	SubmittedAt time.Time `json:"submitted_at"`
	Size        int64     `json:"size"`
	Benchmark   string    `json:"benchmark"`
	ContentHash string    `json:"content_hash"`
	Report      string    `json:"report"`
	JSON        string    `json:"json"`
}

func (s *Server) submitRoutes() {
	s.mux.HandleFunc("POST /api/bundles", s.submitBundle)
	s.mux.HandleFunc("GET /api/bundles", s.listStored)
	s.mux.HandleFunc("GET /api/bundles/{run_id}", s.storedJSON)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

func jsonError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, submitAnswer{Status: "error", Error: msg})
}

// bearer reports whether r carries the server's token as a bearer token
// (the session cookie does not do for a write through the API).
func (s *Server) bearer(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.opts.Token != "" && equal(tok, s.opts.Token)
}

func (s *Server) maxUpload() int64 {
	if s.opts.MaxUpload > 0 {
		return s.opts.MaxUpload
	}
	return DefaultMaxUpload
}

// submitBundle is POST /api/bundles.
func (s *Server) submitBundle(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.opts.Token == "":
		jsonError(w, http.StatusForbidden, "this server has no token, so it accepts no submissions: start lasagna serve with "+TokenEnv+" set (at least 16 characters) and submit with the same value")
		return
	case !s.bearer(r):
		w.Header().Set("WWW-Authenticate", `Bearer realm="lasagna serve"`)
		jsonError(w, http.StatusUnauthorized, "a submission needs the server's token as the header Authorization: Bearer … (the value of "+TokenEnv+" lasagna serve runs with)")
		return
	case s.opts.Registry == nil:
		jsonError(w, http.StatusNotFound, "this server has no registry to store bundles in")
		return
	case s.opts.SchemaCheck == nil:
		jsonError(w, http.StatusServiceUnavailable, "this server cannot check bundles against the JSON Schema, so it accepts no submissions")
		return
	}
	if err := s.cop.Check(r); err != nil {
		jsonError(w, http.StatusForbidden, "refused: a cross-origin request ("+err.Error()+")")
		return
	}
	limit := s.maxUpload()
	tooLarge := fmt.Sprintf("the bundle is larger than this server's upload limit of %d bytes (%s); start lasagna serve with a larger --max-upload", limit, humanSize(limit))
	if r.ContentLength > limit {
		jsonError(w, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		jsonError(w, http.StatusRequestEntityTooLarge, tooLarge)
		return
	case err != nil:
		jsonError(w, http.StatusBadRequest, "reading the bundle: "+err.Error())
		return
	}
	submitter := r.URL.Query().Get("submitter")
	if ps := submitterProblems(&results.Submitter{Name: submitter}); len(ps) > 0 {
		writeJSON(w, http.StatusBadRequest, submitAnswer{Status: "error", Error: "?submitter= is refused: " + ps[0].Detail, Findings: findingsOf(ps)})
		return
	}
	release, err := s.folder.gate.acquire(r.Context(), int64(len(raw)))
	if err != nil {
		retryLater(w)
		jsonError(w, http.StatusServiceUnavailable, "the request ended before the server could check the bundle (it checks a few at a time); try again")
		return
	}
	defer release()
	code, ans := s.checkAndStore(r.Context(), raw, submitter)
	if code == http.StatusServiceUnavailable {
		retryLater(w)
	}
	writeJSON(w, code, ans)
}

// unavailableAnswer is the 503 answer of a submission the storage could
// not serve: the bundle was not judged, and is worth sending again.
func unavailableAnswer(err error) (int, submitAnswer) {
	return http.StatusServiceUnavailable, submitAnswer{Status: "unavailable", Error: unavailableText(err)}
}

// checkAndStore checks raw as results validate --strict --data checks a
// bundle against the registry's revision of each benchmark it names,
// checks its claims against what that data says (judge), and stores it
// when it passes, recorded as submitted by submitter (the bundle's own
// submitter when "").
func (s *Server) checkAndStore(ctx context.Context, raw []byte, submitter string) (int, submitAnswer) {
	refuse := func(msg string, ps ...results.Problem) (int, submitAnswer) {
		return http.StatusUnprocessableEntity, submitAnswer{Status: "refused", Error: msg, Findings: findingsOf(ps)}
	}
	b, err := results.Unmarshal(raw)
	if err != nil {
		rep, _, _ := results.ValidateAgainst(raw, nil, s.opts.SchemaCheck)
		if len(rep.Problems) == 0 {
			return refuse("the body is not a results bundle: " + err.Error())
		}
		return refuse("the body is not a valid results bundle", rep.Problems...)
	}
	if ps := submitterProblems(b.Submitter); len(ps) > 0 {
		return refuse("the bundle's submitter is refused", ps...)
	}
	var (
		data  []*lasagna.Benchmark
		first registry.StoredBundle
		revs  = map[string]*loadedRev{}
	)
	for _, c := range b.Configs {
		if revs[c.Benchmark] != nil {
			continue
		}
		bench, regName, hash, err := s.registryRevision(ctx, c.Benchmark)
		if registry.Unavailable(err) {
			return unavailableAnswer(err)
		}
		if err != nil {
			code, ans := refuse(err.Error())
			ans.Benchmark, ans.ContentHash = c.Benchmark, hash
			return code, ans
		}
		if first.Benchmark == "" {
			first.Benchmark, first.ContentHash = regName, hash
		}
		revs[c.Benchmark] = &loadedRev{bench: bench, revision: regName + "@" + hash}
		data = append(data, bench)
	}
	if len(data) == 0 {
		rep, _, _ := results.ValidateAgainst(raw, nil, s.opts.SchemaCheck)
		return refuse("the bundle names no benchmark to check it against", rep.Problems...)
	}
	rep, rs, err := results.ValidateAgainst(raw, data, s.opts.SchemaCheck)
	if err != nil {
		return refuse(err.Error(), rep.Problems...)
	}
	if blocking := refusing(rep.Problems, b); len(blocking) > 0 {
		return refuse(fmt.Sprintf("the bundle fails validation (as lasagna results validate --strict --data registry:%s@%s): %d blocking, %d warnings (warnings refuse too, but for the corpus labels the bundle lists)", first.Benchmark, first.ContentHash, rep.Blocking(), len(blocking)-rep.Blocking()), blocking...)
	}
	var claims []results.Problem
	for _, c := range b.Configs {
		lr := revs[c.Benchmark]
		_, ps := judge(b, c, factsOf(lr.revision, lr.bench, c.HeldFixed))
		for _, p := range ps {
			if p.Where != "subset" || !slices.ContainsFunc(claims, func(q results.Problem) bool { return q.Where == "subset" }) {
				claims = append(claims, p)
			}
		}
	}
	if len(claims) > 0 {
		return refuse(fmt.Sprintf("the bundle says what the registry's data does not (registry:%s@%s): a leaderboard shows what the data says, and ranks whole samples only", first.Benchmark, first.ContentHash), claims...)
	}
	first.Submitter = cmp.Or(submitter, submitterText(b.Submitter))
	created, err := s.opts.Registry.PutBundle(ctx, b.RunID, first, raw)
	if errors.Is(err, registry.ErrExists) {
		// Other bytes under a stored run_id, and both passed the run_id
		// check: the same canonical JSON written differently (spacing,
		// member order). The stored bytes stay; it is the same bundle.
		created, err = false, nil
	}
	if registry.Unavailable(err) {
		return unavailableAnswer(err)
	}
	if err != nil {
		return http.StatusInternalServerError, submitAnswer{Status: "error", RunID: b.RunID, Error: "storing the bundle: " + err.Error()}
	}
	ans := submitAnswer{Status: "accepted", RunID: b.RunID, Report: "/bundles/" + b.RunID, JSON: "/api/bundles/" + b.RunID,
		Benchmark: first.Benchmark, ContentHash: first.ContentHash, Rescored: rs.String()}
	if !created {
		ans.Status = "duplicate"
		return http.StatusOK, ans
	}
	return http.StatusCreated, ans
}

// registryRevision returns the registry's revision of the benchmark a
// bundle names (NAME@HASH): the registry benchmark NAME at that revision,
// or, when the registry has no benchmark NAME (a bundle of a run on a
// file, local/NAME@HASH), the registry's revision whose content hash is
// HASH under whatever name (the same content), renamed to the bundle's
// name for the re-scoring. It returns the registry name and the hash too.
func (s *Server) registryRevision(ctx context.Context, named string) (*lasagna.Benchmark, string, string, error) {
	reg := s.opts.Registry
	i := strings.LastIndexByte(named, '@')
	if i < 0 {
		return nil, "", "", fmt.Errorf("the bundle ran on benchmark %q, which names no content hash (NAME@HASH), so it cannot be checked against the registry", named)
	}
	name, hash := named[:i], named[i+1:]
	notHeld := fmt.Errorf("the bundle ran on benchmark %s (content hash %s), which the registry does not hold: register that content first (lasagna benchmark create NAME --from FILE), then submit again", named, hash)
	if _, h, err := registry.ParseRef("x@" + hash); err != nil || len(h) < 12 {
		return nil, "", hash, fmt.Errorf("the bundle ran on benchmark %q, whose content hash %q is not 12 or more hex digits", named, hash)
	}
	if registry.CheckName(name) == nil {
		inf, err := reg.Get(ctx, name+"@"+hash)
		switch {
		case err == nil:
			b, err := reg.Benchmark(ctx, inf)
			if err != nil {
				return nil, "", hash, err
			}
			return b, inf.Name, hash, nil
		case !errors.Is(err, registry.ErrNotFound):
			return nil, "", hash, err
		}
	}
	b, err := reg.FindRevision(ctx, hash)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return nil, "", hash, notHeld
	case err != nil:
		return nil, "", hash, err
	}
	regName, _, _ := strings.Cut(b.Name, "@")
	b.Name = named
	return b, regName, hash, nil
}

// labels are the warnings a bundle may list in integrity.warnings and
// still be accepted: they say what its benchmark is (a pool of gold
// passages, a synthetic benchmark), and the leaderboards group by them
// rather than refuse them.
var labels = []lasagna.Code{lasagna.PooledGoldCorpus, lasagna.SyntheticBenchmark}

// refusing returns the problems that refuse a submission: those
// results validate --strict fails on, but for a label the bundle itself
// lists in integrity.warnings for that place.
func refusing(ps []results.Problem, b *results.Bundle) []results.Problem {
	declared := map[lasagna.Finding]bool{}
	for _, f := range b.Integrity.Warnings {
		if slices.Contains(labels, f.Code) {
			declared[lasagna.Finding{Code: f.Code, Where: f.Where}] = true
		}
	}
	var out []results.Problem
	for _, p := range ps {
		if !p.Blocking() && declared[lasagna.Finding{Code: p.Code, Where: p.Where}] {
			continue
		}
		out = append(out, p)
	}
	return out
}

func findingsOf(ps []results.Problem) []finding {
	out := make([]finding, 0, len(ps))
	for _, p := range ps {
		f := finding{Code: string(p.Code), Level: string(p.Level), Where: p.Where, Detail: p.Detail}
		if p.Code == codeInvalidSubmitter {
			f.Fix = submitterFix
		}
		if fix, ok := hubFixes[p.Code]; ok {
			f.Fix = fix
		}
		if info, ok := p.Code.Info(); ok {
			f.Fix = info.Fix
			if f.Detail == "" {
				f.Detail = info.Meaning
			}
		}
		out = append(out, f)
	}
	return out
}

// submitterProblems refuses a submitter's name or affiliation that holds
// control characters (C0, DEL, C1) or bidirectional controls, that is not
// UTF-8, or is longer than maxSubmitterRunes: such text is refused, never
// stripped (the bundle's bytes, which its run_id hashes, are stored as
// sent). What remains is escaped wherever it is shown.
func submitterProblems(sub *results.Submitter) []results.Problem {
	if sub == nil {
		return nil
	}
	var ps []results.Problem
	for _, f := range []struct{ field, v string }{{"submitter.name", sub.Name}, {"submitter.affiliation", sub.Affiliation}} {
		bad := ""
		switch {
		case !utf8.ValidString(f.v):
			bad = "is not valid UTF-8"
		case utf8.RuneCountInString(f.v) > maxSubmitterRunes:
			bad = fmt.Sprintf("is %d characters long, more than %d", utf8.RuneCountInString(f.v), maxSubmitterRunes)
		default:
			for _, c := range f.v {
				if unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c) {
					bad = fmt.Sprintf("holds the control character %U", c)
					break
				}
			}
		}
		if bad != "" {
			ps = append(ps, results.Problem{Code: codeInvalidSubmitter, Level: lasagna.LevelBlocking, Where: f.field,
				Detail: f.field + " " + bad + ": the hub refuses such text rather than strip it"})
		}
	}
	return ps
}

// submitterText is the submitter as the registry records it: "name
// (affiliation)", "" for none.
func submitterText(sub *results.Submitter) string {
	switch {
	case sub == nil:
		return ""
	case sub.Affiliation != "":
		return sub.Name + " (" + sub.Affiliation + ")"
	}
	return sub.Name
}

// listStored is GET /api/bundles.
func (s *Server) listStored(w http.ResponseWriter, r *http.Request) {
	if s.opts.Registry == nil {
		jsonError(w, http.StatusNotFound, "this server has no registry, so it stores no bundles")
		return
	}
	bs, err := s.opts.Registry.Bundles(r.Context())
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]storedView, 0, len(bs))
	for _, b := range bs {
		out = append(out, storedView{RunID: b.RunID, Submitter: b.Submitter, SubmittedAt: b.SubmittedAt.UTC(), Size: b.Size,
			Benchmark: b.Benchmark, ContentHash: b.ContentHash, Report: "/bundles/" + b.RunID, JSON: "/api/bundles/" + b.RunID})
	}
	writeJSON(w, http.StatusOK, struct {
		Bundles []storedView `json:"bundles"`
	}{out})
}

// storedBytes returns a stored bundle's bytes, or answers 404 (JSON when
// asJSON) and returns nil.
func (s *Server) storedBytes(w http.ResponseWriter, r *http.Request, runID string, asJSON bool) []byte {
	fail := func(code int, msg string) {
		if asJSON {
			jsonError(w, code, msg)
		} else {
			s.errorPage(w, r, code, msg)
		}
	}
	if s.opts.Registry == nil {
		fail(http.StatusNotFound, "This server has no registry, so it stores no bundles.")
		return nil
	}
	if !registry.IsRunID(runID) {
		fail(http.StatusNotFound, "No stored bundle "+runID+": a run_id is 64 hex digits.")
		return nil
	}
	raw, err := s.opts.Registry.Bundle(r.Context(), runID)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		fail(http.StatusNotFound, "No stored bundle "+runID+" (GET /api/bundles lists them).")
		return nil
	case err != nil:
		fail(http.StatusInternalServerError, err.Error())
		return nil
	}
	return raw
}

// storedJSON is GET /api/bundles/{run_id}.
func (s *Server) storedJSON(w http.ResponseWriter, r *http.Request) {
	raw := s.storedBytes(w, r, r.PathValue("run_id"), true)
	if raw == nil {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.Write(raw)
}

// storedReport is GET /bundles/{run_id}: the stored bundle's report,
// drawn through the gate once and kept (a stored bundle never changes).
func (s *Server) storedReport(w http.ResponseWriter, r *http.Request, runID string) {
	s.storedPage(w, r, "stored", []string{runID}, func(bs []*results.Bundle) ([]byte, error) {
		title := "stored bundle " + runID[:12]
		if sub := submitterText(bs[0].Submitter); sub != "" {
			title += " submitted by " + sub
		}
		return drawReport([]htmlreport.Input{{Bundle: bs[0]}}, htmlreport.Options{
			Title: title,
			Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: "bundle JSON", URL: "/api/bundles/" + runID}},
		})
	})
}

// storedCompare is GET /compare?bundle=RUN_ID&baseline=RUN_ID for two
// stored bundles: the first's report against the second as baseline.
func (s *Server) storedCompare(w http.ResponseWriter, r *http.Request, a, base string) {
	s.storedPage(w, r, "storedcompare", []string{a, base}, func(bs []*results.Bundle) ([]byte, error) {
		return drawReport([]htmlreport.Input{{Bundle: bs[0]}}, htmlreport.Options{
			Title:    "stored bundle " + a[:12] + " against baseline " + base[:12],
			Baseline: bs[1],
			Links: []htmlreport.Link{{Text: "← bundles", URL: "/"}, {Text: a[:12], URL: "/bundles/" + a},
				{Text: "baseline " + base[:12], URL: "/bundles/" + base}},
		})
	})
}

// storedPage answers with the page draw makes of the stored bundles
// runIDs: from the cache (stored bundles never change, so the run_ids
// are the key), else read, decoded and drawn through the gate, once
// however many requests ask for it at the same time.
func (s *Server) storedPage(w http.ResponseWriter, r *http.Request, kind string, runIDs []string, draw func([]*results.Bundle) ([]byte, error)) {
	f := s.folder
	key := kind + "\x01" + strings.Join(runIDs, "\x01")
	p := f.pages.get(key)
	if p == nil {
		raws := make([][]byte, len(runIDs))
		var size int64
		for i, id := range runIDs {
			if raws[i] = s.storedBytes(w, r, id, false); raws[i] == nil {
				return // storedBytes answered
			}
			size += int64(len(raws[i]))
		}
		var err error
		p, err = f.pageFlight.do(r.Context(), key, func() (*cachedPage, error) {
			if p := f.pages.get(key); p != nil {
				return p, nil
			}
			release, err := f.gate.acquire(r.Context(), size)
			if err != nil {
				return nil, err
			}
			defer release()
			bs := make([]*results.Bundle, len(raws))
			for i, raw := range raws {
				if bs[i], err = results.Unmarshal(raw); err != nil {
					return nil, drawError{err}
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
		if err != nil {
			s.workError(w, r, err)
			return
		}
	}
	writeReport(w, p)
}

package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/lasagna-go/lasagna/internal/leaderboard"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// The leaderboards rank the bundles submitted to the registry (POST
// /api/bundles), which were checked against their benchmark's data when
// they were accepted; the folder's bundles, which nothing checked against
// the data, are not ranked.
//
//	GET /leaderboards[?metric=M]      the groups as a page, each with
//	                                  its first boardPage entries
//	GET /leaderboards?group=KEY&page=N[&metric=M]
//	                                  page N of the group KEY (its
//	                                  comparability key)
//	GET /api/leaderboards[…]          the same as JSON

// boards caches the groups built for one set of stored bundles and one
// metric: stored bundles never change, so the run_ids are the key.
type boards struct {
	mu sync.Mutex
	m  map[string][]leaderboard.Group
}

// maxBoards bounds the cached sets of groups (one per metric asked for).
const maxBoards = 16

func (s *Server) leaderboardRoutes() {
	s.mux.HandleFunc("GET /leaderboards", s.leaderboardsPage)
	s.mux.HandleFunc("GET /api/leaderboards", s.leaderboardsJSON)
}

// errNoRegistry is the answer of a server without a registry.
var errNoRegistry = errors.New("this server has no registry, so no bundle is submitted to it and there is no leaderboard (start lasagna serve with --registry)")

// leaderboards builds (or finds in the cache) the groups of the stored
// bundles ranked by metric ("" for each group's default).
func (s *Server) leaderboards(ctx context.Context, metric string) ([]leaderboard.Group, error) {
	reg := s.opts.Registry
	if reg == nil {
		return nil, errNoRegistry
	}
	stored, err := reg.Bundles(ctx)
	if err != nil {
		return nil, err
	}
	var key strings.Builder
	key.WriteString(metric)
	var size int64
	for _, b := range stored {
		key.WriteString("\x00" + b.RunID)
		size += b.Size
	}
	s.boards.mu.Lock()
	g, ok := s.boards.m[key.String()]
	s.boards.mu.Unlock()
	if ok {
		return g, nil
	}
	// Reading and decoding every stored bundle is a large job: it passes
	// the work gate like a report.
	release, err := s.folder.gate.acquire(ctx, size)
	if err != nil {
		return nil, err
	}
	defer release()
	in := make([]leaderboard.Input, len(stored))
	var misses []int
	for i, sb := range stored {
		li, ok := s.inputs.get(sb.RunID)
		if !ok {
			misses = append(misses, i)
			continue
		}
		li.Submitter, li.Date = sb.Submitter, sb.SubmittedAt.UTC()
		in[i] = li
	}
	// The bundles not read before are read, decoded and checked against
	// the registry's data on every core (after a restart: all of them).
	revs := &revLoader{m: map[string]*loadedRev{}}
	errs := make([]error, len(misses))
	workers := min(runtime.GOMAXPROCS(0), len(misses))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for n := w; n < len(misses); n += workers {
				i := misses[n]
				if in[i], errs[n] = s.boardInput(ctx, stored[i], revs); errs[n] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	g, err = leaderboard.Build(in, leaderboard.Options{Metric: metric, Pairs: &s.pairs})
	if err != nil {
		return nil, err
	}
	s.boards.mu.Lock()
	if s.boards.m == nil || len(s.boards.m) >= maxBoards {
		s.boards.m = map[string][]leaderboard.Group{}
	}
	s.boards.m[key.String()] = g
	s.boards.mu.Unlock()
	return g, nil
}

// boardInput reads the stored bundle sb as the leaderboards take it: slim,
// with what the registry's data says of each of its arms, and caches it.
func (s *Server) boardInput(ctx context.Context, sb registry.StoredBundle, revs *revLoader) (leaderboard.Input, error) {
	raw, err := s.opts.Registry.Bundle(ctx, sb.RunID)
	if err != nil {
		return leaderboard.Input{}, err
	}
	b, err := decodeStored(raw)
	if err != nil {
		return leaderboard.Input{}, err
	}
	data := map[string]leaderboard.Data{}
	for _, c := range b.Configs {
		f, err := s.armFacts(ctx, c, revs)
		switch {
		case registry.Unavailable(err) || isContextErr(err):
			return leaderboard.Input{}, err
		case err != nil:
			data[leaderboard.ArmKey(c)] = leaderboard.Data{Provenance: c.HeldFixed.CorpusProvenance, NotRanked: "it cannot be checked against the registry's data: " + err.Error()}
			continue
		}
		d, _ := judge(b, c, f)
		if r, ok := b.Result(c.Benchmark, c.Name); ok {
			d.Content = leaderboard.ContentKey(c, *r)
		}
		data[leaderboard.ArmKey(c)] = d
	}
	li := leaderboard.Input{ID: sb.RunID, Date: sb.SubmittedAt.UTC(), Submitter: sb.Submitter, Bundle: slim(b), Data: data}
	s.inputs.put(sb.RunID, li)
	return li, nil
}

// decodeStored decodes a stored bundle as results.Unmarshal does, in half
// its time: with go-json-experiment's decoder, refusing any member the
// bundle's types do not name (so a key that encoding/json would match
// case-insensitively is never dropped), duplicate names and invalid
// UTF-8. The registry's bundles passed those checks when submitted; one
// that does not is read by results.Unmarshal, as before.
func decodeStored(raw []byte) (*results.Bundle, error) {
	var b results.Bundle
	if jsonv2.Unmarshal(raw, &b, jsonv2.RejectUnknownMembers(true)) == nil {
		return &b, nil
	}
	return results.Unmarshal(raw)
}

// boardPage is the number of entries (and of partial entries) of a group
// a page shows: the rest are on the group's further pages
// (?group=KEY&page=N), so that a page is bounded whatever the number of
// submissions.
const boardPage = 100

// boardGroup is a group as a page of the leaderboards holds it: at most
// boardPage of its entries and of its partial ones.
type boardGroup struct {
	leaderboard.Group
	// Total and PartialTotal count all the group's entries and partial
	// entries; Page (from 1) of Pages is the page shown.
	Total        int `json:"total_entries"`
	PartialTotal int `json:"total_partial,omitzero"`
	Page         int `json:"page"`
	Pages        int `json:"pages"`
}

// inputCache keeps each stored bundle as the leaderboards read it
// (slim, with what the registry's data says of its arms), by run_id: a
// stored bundle never changes, so a build after one more submission reads
// and decodes that one only. It forgets everything at maxInputs.
type inputCache struct {
	mu sync.Mutex
	m  map[string]leaderboard.Input
}

const maxInputs = 50_000

func (c *inputCache) get(runID string) (leaderboard.Input, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	li, ok := c.m[runID]
	return li, ok
}

func (c *inputCache) put(runID string, li leaderboard.Input) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxInputs {
		c.m = map[string]leaderboard.Input{}
	}
	c.m[runID] = li
}

// slim returns b with what ranking reads: the configs, the stats seed, the
// subset, and each result's metrics, statistics and rows' scores (no
// ranked lists, answers, slices or findings), a fraction of its memory.
func slim(b *results.Bundle) *results.Bundle {
	out := &results.Bundle{RunID: b.RunID, Configs: b.Configs, Subset: b.Subset,
		Experiment: results.Experiment{StatsSeed: b.Experiment.StatsSeed}}
	for _, r := range b.Results {
		sr := results.Result{BenchmarkName: r.BenchmarkName, ConfigName: r.ConfigName, Metrics: r.Metrics, MetricStats: r.MetricStats,
			PerSampleScores: make([]results.Sample, len(r.PerSampleScores))}
		for i, row := range r.PerSampleScores {
			sr.PerSampleScores[i] = results.Sample{QueryID: row.QueryID, Scores: row.Scores, Error: row.Error, Missing: row.Missing}
		}
		out.Results = append(out.Results, sr)
	}
	return out
}

// boardAnswer is GET /api/leaderboards's body.
type boardAnswer struct {
	Metric string       `json:"metric,omitzero"`
	Groups []boardGroup `json:"groups"`
	Error  string       `json:"error,omitzero"`
	Known  []string     `json:"known_metrics,omitzero"`
}

// boardQuery is what a request to the leaderboards asks for.
type boardQuery struct {
	metric, group string
	page          int
}

// parseBoardQuery reads ?metric=, ?group= (a comparability key) and
// ?page= (from 1; with group only), or says what is wrong.
func parseBoardQuery(r *http.Request) (boardQuery, string) {
	q := r.URL.Query()
	bq := boardQuery{metric: q.Get("metric"), group: q.Get("group"), page: 1}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return bq, "?page=" + p + " is not a page number (1, 2, …)"
		}
		if bq.group == "" {
			return bq, "?page= needs ?group=KEY, the comparability key of the group to page through"
		}
		bq.page = n
	}
	return bq, ""
}

// paged returns the page bq asks for of groups: every group's first
// page, or the page of the one group bq names (false when there is no
// such group or page).
func paged(groups []leaderboard.Group, bq boardQuery) ([]boardGroup, bool) {
	out := []boardGroup{}
	for _, g := range groups {
		if bq.group != "" && g.Key != bq.group {
			continue
		}
		bg := boardGroup{Group: g, Total: len(g.Entries), PartialTotal: len(g.Partial), Page: bq.page,
			Pages: max(1, (max(len(g.Entries), len(g.Partial))+boardPage-1)/boardPage)}
		if bq.page > bg.Pages {
			return nil, false
		}
		lo := (bq.page - 1) * boardPage
		bg.Entries = g.Entries[min(lo, len(g.Entries)):min(lo+boardPage, len(g.Entries))]
		bg.Partial = g.Partial[min(lo, len(g.Partial)):min(lo+boardPage, len(g.Partial))]
		out = append(out, bg)
	}
	return out, bq.group == "" || len(out) > 0
}

// boardError answers err of building the leaderboards as JSON or as a
// page, and reports whether there was one.
func (s *Server) boardError(w http.ResponseWriter, r *http.Request, err error, asJSON bool, metric string) bool {
	var unknown *leaderboard.UnknownMetricError
	code, msg, known := 0, "", []string(nil)
	switch {
	case err == nil:
		return false
	case errors.As(err, &unknown):
		code, msg, known = http.StatusBadRequest, err.Error(), unknown.Known
	case errors.Is(err, errNoRegistry):
		code, msg = http.StatusNotFound, "this server has no registry, so no bundle is submitted to it and there is no leaderboard: start lasagna serve with --registry"
	case isContextErr(err):
		retryLater(w)
		code, msg = http.StatusServiceUnavailable, "the request ended before the server could read the stored bundles; try again"
	case registry.Unavailable(err):
		retryLater(w)
		code, msg = http.StatusServiceUnavailable, unavailableText(err)
	default:
		code, msg = http.StatusInternalServerError, err.Error()
	}
	if asJSON {
		writeJSON(w, code, boardAnswer{Metric: metric, Error: msg, Known: known, Groups: []boardGroup{}})
	} else {
		s.errorPage(w, r, code, msg)
	}
	return true
}

func (s *Server) leaderboardsJSON(w http.ResponseWriter, r *http.Request) {
	bq, bad := parseBoardQuery(r)
	if bad != "" {
		writeJSON(w, http.StatusBadRequest, boardAnswer{Error: bad, Groups: []boardGroup{}})
		return
	}
	groups, err := s.leaderboards(r.Context(), bq.metric)
	if s.boardError(w, r, err, true, bq.metric) {
		return
	}
	out, ok := paged(groups, bq)
	if !ok {
		writeJSON(w, http.StatusNotFound, boardAnswer{Metric: bq.metric, Error: "no group " + bq.group + " with a page " + strconv.Itoa(bq.page), Groups: []boardGroup{}})
		return
	}
	writeJSON(w, http.StatusOK, boardAnswer{Metric: bq.metric, Groups: out})
}

// boardView is a group as the page shows it.
type boardView struct {
	boardGroup
	Rows []boardRow
	// RunIDs are the run_ids of the page's entries, once each: the
	// choices of the group's comparison form.
	RunIDs []string
	// Prev and Next link the group's neighbouring pages ("" for none).
	Prev, Next string
	// From and To number the entries shown (from 1).
	From, To int
}

// boardRow is an entry with the link of its report.
type boardRow struct {
	leaderboard.Entry
	Report string
}

// boardURL is the page of the leaderboards bq names, on page.
func boardURL(bq boardQuery, page int) string {
	v := url.Values{"group": {bq.group}, "page": {strconv.Itoa(page)}}
	if bq.metric != "" {
		v.Set("metric", bq.metric)
	}
	return "/leaderboards?" + v.Encode()
}

func (s *Server) leaderboardsPage(w http.ResponseWriter, r *http.Request) {
	bq, bad := parseBoardQuery(r)
	if bad != "" {
		s.errorPage(w, r, http.StatusBadRequest, bad+".")
		return
	}
	groups, err := s.leaderboards(r.Context(), bq.metric)
	if s.boardError(w, r, err, false, bq.metric) {
		return
	}
	pg, ok := paged(groups, bq)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "No group "+bq.group+" with a page "+strconv.Itoa(bq.page)+" (the leaderboards link each group's pages).")
		return
	}
	views := make([]boardView, len(pg))
	for gi, g := range pg {
		v := &views[gi]
		v.boardGroup = g
		v.From, v.To = (g.Page-1)*boardPage+1, (g.Page-1)*boardPage+len(g.Entries)
		seen := map[string]bool{}
		for _, e := range g.Entries {
			v.Rows = append(v.Rows, boardRow{Entry: e, Report: "/bundles/" + e.RunID})
			if !seen[e.RunID] {
				seen[e.RunID] = true
				v.RunIDs = append(v.RunIDs, e.RunID)
			}
		}
		gq := boardQuery{metric: bq.metric, group: g.Key}
		if g.Page > 1 {
			v.Prev = boardURL(gq, g.Page-1)
		}
		if g.Page < g.Pages {
			v.Next = boardURL(gq, g.Page+1)
		}
	}
	s.render(w, r, http.StatusOK, "leaderboards.html", "Leaderboards", struct {
		Metric string
		Single bool
		Groups []boardView
	}{bq.metric, bq.group != "", views})
}

package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna/internal/leaderboard"
	"github.com/lasagna-go/lasagna/results"
)

// The leaderboards rank the bundles submitted to the registry (POST
// /api/bundles), which were checked against their benchmark's data when
// they were accepted; the folder's bundles, which nothing checked against
// the data, are not ranked.
//
//	GET /leaderboards[?metric=M]      the groups as a page
//	GET /api/leaderboards[?metric=M]  the same as JSON

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
	in := make([]leaderboard.Input, 0, len(stored))
	for _, sb := range stored {
		raw, err := reg.Bundle(ctx, sb.RunID)
		if err != nil {
			return nil, err
		}
		b, err := results.Unmarshal(raw)
		if err != nil {
			return nil, err
		}
		in = append(in, leaderboard.Input{ID: sb.RunID, Date: sb.SubmittedAt.UTC(), Submitter: sb.Submitter, Bundle: b})
	}
	g, err = leaderboard.Build(in, leaderboard.Options{Metric: metric})
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

// boardAnswer is GET /api/leaderboards's body.
type boardAnswer struct {
	Metric string              `json:"metric,omitzero"`
	Groups []leaderboard.Group `json:"groups"`
	Error  string              `json:"error,omitzero"`
	Known  []string            `json:"known_metrics,omitzero"`
}

func (s *Server) leaderboardsJSON(w http.ResponseWriter, r *http.Request) {
	metric := r.URL.Query().Get("metric")
	groups, err := s.leaderboards(r.Context(), metric)
	var unknown *leaderboard.UnknownMetricError
	switch {
	case errors.As(err, &unknown):
		writeJSON(w, http.StatusBadRequest, boardAnswer{Metric: metric, Error: err.Error(), Known: unknown.Known, Groups: []leaderboard.Group{}})
	case errors.Is(err, errNoRegistry):
		writeJSON(w, http.StatusNotFound, boardAnswer{Error: err.Error(), Groups: []leaderboard.Group{}})
	case isContextErr(err):
		writeJSON(w, http.StatusServiceUnavailable, boardAnswer{Error: "the request ended before the server could read the stored bundles; try again", Groups: []leaderboard.Group{}})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, boardAnswer{Error: err.Error(), Groups: []leaderboard.Group{}})
	default:
		if groups == nil {
			groups = []leaderboard.Group{}
		}
		writeJSON(w, http.StatusOK, boardAnswer{Metric: metric, Groups: groups})
	}
}

// boardView is a group as the page shows it.
type boardView struct {
	leaderboard.Group
	Rows []boardRow
}

// boardRow is an entry with the links of its row.
type boardRow struct {
	leaderboard.Entry
	Report string
	// Others are the run_ids of the group's other bundles, the baselines
	// its comparison form offers.
	Others []string
}

func (s *Server) leaderboardsPage(w http.ResponseWriter, r *http.Request) {
	metric := r.URL.Query().Get("metric")
	groups, err := s.leaderboards(r.Context(), metric)
	var unknown *leaderboard.UnknownMetricError
	switch {
	case errors.As(err, &unknown):
		s.errorPage(w, r, http.StatusBadRequest, err.Error())
		return
	case errors.Is(err, errNoRegistry):
		s.errorPage(w, r, http.StatusNotFound, "This server has no registry, so no bundle is submitted to it and there is no leaderboard: start lasagna serve with --registry.")
		return
	case isContextErr(err):
		s.errorPage(w, r, http.StatusServiceUnavailable, "The request ended before the server could read the stored bundles; try again.")
		return
	case err != nil:
		s.errorPage(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	views := make([]boardView, len(groups))
	for gi, g := range groups {
		views[gi].Group = g
		for _, e := range g.Entries {
			row := boardRow{Entry: e, Report: "/bundles/" + e.RunID}
			seen := map[string]bool{e.RunID: true}
			for _, o := range g.Entries {
				if !seen[o.RunID] {
					seen[o.RunID] = true
					row.Others = append(row.Others, o.RunID)
				}
			}
			views[gi].Rows = append(views[gi].Rows, row)
		}
	}
	s.render(w, r, http.StatusOK, "leaderboards.html", "Leaderboards", struct {
		Metric string
		Groups []boardView
	}{metric, views})
}

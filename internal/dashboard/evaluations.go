package dashboard

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// EvaluationsFolder is the subfolder of the bundles folder that receives
// the bundles of the evaluations the dashboard runs.
const EvaluationsFolder = "evaluations"

// maxEvaluations bounds the evaluations the server remembers; the oldest
// finished ones are forgotten first (their bundles stay in the folder).
const maxEvaluations = 200

func engineProfiles() []engine.Profile { return engine.Profiles() }

// evaluation is a background run of a registered benchmark, kept in the
// server's memory: it survives a browser refresh, not a server restart
// (its bundle, once written, is in the bundles folder).
type evaluation struct {
	ID        string
	Benchmark string // the benchmark's name
	Revision  string // name@hash evaluated
	What      string // "profile speed", "sweep sweeps/x.yaml"
	Started   time.Time

	done, total atomic.Int64
	// written is set, under evaluations.writing, once the bundle is in
	// place.
	written bool

	mu       sync.Mutex
	state    string // running, done, failed, canceled
	err      string
	bundle   string // slash path in the bundles folder
	checks   []string
	finished time.Time
}

// evalView is what the pages show of an evaluation, a snapshot.
type evalView struct {
	ID, Benchmark, Revision, What string
	Started, Finished             time.Time
	State, Error, Bundle          string
	Done, Total, Percent          int
	// Checks are the failed verdicts, "benchmark/arm[/query]: message",
	// at most maxShownChecks and a count of the rest.
	Checks []string
}

func (e *evaluation) view() *evalView {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := &evalView{ID: e.ID, Benchmark: e.Benchmark, Revision: e.Revision, What: e.What, Started: e.Started, Finished: e.finished,
		State: e.state, Error: e.err, Bundle: e.bundle, Checks: e.checks, Done: int(e.done.Load()), Total: int(e.total.Load())}
	if v.Total > 0 {
		v.Percent = v.Done * 100 / v.Total
	}
	return v
}

func (e *evaluation) finish(state, msg, bundle string, checks []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state, e.err, e.bundle, e.checks, e.finished = state, msg, bundle, checks, time.Now()
}

// maxShownChecks is how many failed verdicts an evaluation's page lists.
const maxShownChecks = 20

// evaluations are the server's background runs. cancelAll cancels the
// running ones; close cancels them and waits for them.
type evaluations struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// writing is held (shared) by an evaluation while it checks ctx and
	// renames its bundle into place, and taken by cancelAll to cancel ctx:
	// once cancelAll returns, no bundle appears.
	writing sync.RWMutex
	// beforeWrite, when not nil, is called before an evaluation writes
	// its bundle (for the tests).
	beforeWrite func(ctx context.Context)

	mu   sync.Mutex
	list []*evaluation // oldest first
	byID map[string]*evaluation
}

func newEvaluations() *evaluations {
	ctx, cancel := context.WithCancel(context.Background())
	return &evaluations{ctx: ctx, cancel: cancel, byID: map[string]*evaluation{}}
}

// cancelAll cancels every running evaluation and returns how many were
// running. A bundle being renamed into place when it is called is in
// place when it returns; no other bundle is written after it.
func (m *evaluations) cancelAll() int {
	m.writing.Lock()
	defer m.writing.Unlock()
	m.cancel()
	return len(m.views(func(e *evaluation) bool { return !e.written && e.view().State == "running" }))
}

// close cancels every running evaluation and waits until they stop.
func (m *evaluations) close() {
	m.cancelAll()
	m.wg.Wait()
}

// guard returns the atomicfile.WriteInGuarded guard of e's bundle: it
// renames only while the evaluations are not cancelled.
func (m *evaluations) guard(e *evaluation) func(rename func() error) error {
	return func(rename func() error) error {
		m.writing.RLock()
		defer m.writing.RUnlock()
		if err := m.ctx.Err(); err != nil {
			return err
		}
		if err := rename(); err != nil {
			return err
		}
		e.written = true // several guards may run at once, each for its own e
		return nil
	}
}

func (m *evaluations) get(id string) *evaluation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byID[id]
}

// views returns the evaluations keep accepts, newest first.
func (m *evaluations) views(keep func(*evaluation) bool) []*evalView {
	m.mu.Lock()
	list := slices.Clone(m.list)
	m.mu.Unlock()
	var out []*evalView
	for i := len(list) - 1; i >= 0; i-- {
		if keep == nil || keep(list[i]) {
			out = append(out, list[i].view())
		}
	}
	return out
}

// add records e, forgetting the oldest finished evaluations beyond
// maxEvaluations. It fails when the server is shutting down.
func (m *evaluations) add(e *evaluation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return errors.New("the server is shutting down")
	}
	for len(m.list) >= maxEvaluations {
		i := slices.IndexFunc(m.list, func(o *evaluation) bool { return o.view().State != "running" })
		if i < 0 {
			return fmt.Errorf("%d evaluations are running; wait for one to finish", len(m.list))
		}
		delete(m.byID, m.list[i].ID)
		m.list = slices.Delete(m.list, i, i+1)
	}
	m.list = append(m.list, e)
	m.byID[e.ID] = e
	m.wg.Add(1)
	return nil
}

// sweepFiles lists the sweep files (*.yaml, *.yml) of the sweeps folder
// and its subfolders (not those starting with "."), as slash paths.
func (s *Server) sweepFiles() []string {
	if s.sweeps == nil {
		return nil
	}
	var out []string
	fs.WalkDir(s.sweeps.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if isSweepName(p) && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// POST /evaluate: ref, and profile or sweep. The benchmark must be
// active (else 409 with the message of lasagna benchmark run); the
// evaluation starts in the background and the browser goes to its page.
func (s *Server) evaluate(w http.ResponseWriter, r *http.Request) {
	reg := s.reg(w, r)
	if reg == nil {
		return
	}
	ref, profile, sweepName := r.PostFormValue("ref"), r.PostFormValue("profile"), r.PostFormValue("sweep")
	if ref == "" {
		s.errorPage(w, r, http.StatusBadRequest, "The form has no benchmark (field ref).")
		return
	}
	var (
		sweep *engine.Sweep
		what  string
	)
	switch {
	case (profile == "") == (sweepName == ""):
		s.errorPage(w, r, http.StatusBadRequest, "Pick either a profile or a sweep file.")
		return
	case profile != "":
		p, err := engine.LookupProfile(profile)
		if err != nil {
			s.errorPage(w, r, http.StatusBadRequest, err.Error())
			return
		}
		sweep = &engine.Sweep{Arms: p.Arms(engine.DefaultEmbeddingModel)}
		what = "profile " + p.Name
	default:
		// The name is looked up among the files listed, never opened as
		// given: "..", absolute paths and links outside find nothing.
		if !slices.Contains(s.sweepFiles(), sweepName) {
			s.errorPage(w, r, http.StatusNotFound, "No sweep file "+sweepName+" in the sweeps folder.")
			return
		}
		var err error
		if sweep, err = engine.ReadSweepArms(s.sweeps.FS(), sweepName); err != nil {
			s.errorPage(w, r, http.StatusUnprocessableEntity, "The sweep file has problems: "+err.Error())
			return
		}
		what = "sweep " + sweepName
	}
	// The benchmark is this one: a sweep file's own benchmarks are
	// replaced; its arms and settings (seed, top_k, cutoffs, judge) stay.
	path := engine.RegistryScheme + ref
	sweep.Benchmarks = []engine.BenchmarkEntry{{Path: path}}
	// Resolved now, as lasagna benchmark run resolves it: a draft or an
	// archived benchmark is refused with the same message.
	bench, err := reg.Resolve(r.Context(), path)
	if err != nil {
		s.registryError(w, r, err)
		return
	}
	id := make([]byte, 8)
	rand.Read(id)
	name, _, _ := registry.ParseRef(ref)
	e := &evaluation{ID: hex.EncodeToString(id), Benchmark: name, Revision: bench.Name, What: what, Started: time.Now(), state: "running"}
	if err := s.evals.add(e); err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "The evaluation was not started: "+err.Error()+".")
		return
	}
	go s.runEvaluation(e, sweep, bench)
	http.Redirect(w, r, "/evaluations/"+e.ID, http.StatusSeeOther)
}

// runEvaluation runs e through the engine, as lasagna benchmark run does
// (the sweep's plan, engine.Execute, the bundle), writes the bundle into
// the bundles folder and, like the CLI, fails the evaluation on a failed
// verdict (a threshold of the sweep, a failed query) or a blocking
// integrity finding; the bundle is written all the same.
func (s *Server) runEvaluation(e *evaluation, sweep *engine.Sweep, bench *lasagna.Benchmark) {
	defer s.evals.wg.Done()
	ctx := s.evals.ctx
	var (
		failed   []engine.Verdict
		blocking int
	)
	bundle, err := func() (p string, err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("the evaluation panicked: %v", v)
			}
		}()
		deps := engine.Deps{}
		if s.opts.Deps != nil {
			if deps, err = s.opts.Deps(sweep); err != nil {
				return "", err
			}
		}
		plan, err := deps.SweepPlan(ctx, sweep)
		if err != nil {
			return "", err
		}
		if plan.Benchmarks, err = engine.LoadBenchmarksWith(nil, sweep, func(string) (*lasagna.Benchmark, error) { return bench, nil }); err != nil {
			return "", err
		}
		plan.Options.Progress = func(done, total int) {
			e.total.Store(int64(total))
			e.done.Store(int64(done))
		}
		out, err := engine.Execute(engine.Discard(ctx), plan)
		if err != nil {
			return "", err
		}
		// A cancelled evaluation writes nothing: the context is checked
		// before the bundle is built and encoded, and again, under the
		// lock cancelAll takes, just before its rename (s.evals.guard).
		if err := ctx.Err(); err != nil {
			return "", err
		}
		b := out.Bundle
		if b == nil {
			return "", errors.New("no query ran")
		}
		failed, blocking = engine.Failed(out.Verdicts), len(b.Integrity.Blocking)
		if s.evals.beforeWrite != nil {
			s.evals.beforeWrite(ctx)
		}
		return s.folder.writeBundle(ctx, EvaluationsFolder, atomicfile.SafeName(e.Benchmark)+"-"+b.RunID[:12]+".json", b, s.evals.guard(e))
	}()
	var intr *engine.Interrupted
	switch {
	case errors.As(err, &intr) || (err != nil && ctx.Err() != nil):
		e.finish("canceled", "canceled: the server shut down before the evaluation finished", "", nil)
	case err != nil:
		e.finish("failed", err.Error(), "", nil)
	case len(failed) > 0 || blocking > 0:
		var why []string
		if len(failed) > 0 {
			why = append(why, fmt.Sprintf("%d check(s) failed", len(failed)))
		}
		if blocking > 0 {
			why = append(why, fmt.Sprintf("%d blocking integrity problem(s), so its numbers cannot be trusted", blocking))
		}
		var checks []string
		for i, v := range failed {
			if i == maxShownChecks {
				checks = append(checks, fmt.Sprintf("… and %d more (each failed query is a row of the bundle)", len(failed)-i))
				break
			}
			checks = append(checks, v.String())
		}
		e.finish("failed", strings.Join(why, "; ")+"; the bundle was written", bundle, checks)
	default:
		e.finish("done", "", bundle, nil)
	}
}

// writeBundle writes b as dir/name inside the folder, atomically, through
// the folder's os.Root (atomicfile.WriteInGuarded: guard decides whether
// the file is renamed into place), and returns its slash path. Nothing is
// written once ctx has ended.
func (f *folder) writeBundle(ctx context.Context, dir, name string, b *results.Bundle, guard func(func() error) error) (string, error) {
	var buf bytes.Buffer
	if err := results.Write(&buf, b); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := f.root.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bundles folder: %s", stripRoot(err))
	}
	p := path.Join(dir, name)
	if err := atomicfile.WriteInGuarded(f.root, p, buf.Bytes(), 0o644, guard); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("bundles folder: %s", stripRoot(err))
	}
	return p, nil
}

// GET /evaluations: every evaluation the server remembers, newest first.
func (s *Server) evaluationsPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "evaluations.html", "Evaluations", s.evals.views(nil))
}

// GET /evaluations/{id}: an evaluation's progress (the page refreshes
// itself while it runs: no script), its error, or its report's link.
func (s *Server) evaluationPage(w http.ResponseWriter, r *http.Request) {
	e := s.evals.get(r.PathValue("id"))
	if e == nil {
		s.errorPage(w, r, http.StatusNotFound, "No evaluation "+r.PathValue("id")+" on this server: evaluations are kept in the server's memory, so a restart forgets them (their bundles stay in the bundles folder).")
		return
	}
	v := e.view()
	s.renderRefresh(w, r, "evaluation.html", "Evaluation of "+v.Benchmark, v, v.State == "running")
}

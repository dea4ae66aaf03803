package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/dense"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// fakeServer is an in-memory vector engine that keeps its collections
// across stores, as a PostgreSQL or Weaviate server does. With text set,
// its stores are vector.TextStores and vector.KeywordSearchers (a toy BM25:
// the number of query words a document holds). It tests the engine's
// wiring; the adapters are tested against real servers.
type fakeServer struct {
	mu      sync.Mutex
	name    string
	version string
	text    bool
	colls   map[string]*fakeColl
	opens   int
	closes  int
	// refuse is an id whose storing fails, with an error quoting errAddr.
	refuse  string
	errAddr string
}

type fakeColl struct {
	state vector.State
	ix    *vector.Index
	texts map[string]string
}

func newFakeServer(name string, text bool) *fakeServer {
	return &fakeServer{name: name, version: "9.9.9", text: text, colls: map[string]*fakeColl{}}
}

// open is a Deps.VectorStore.
func (f *fakeServer) open(ctx context.Context, spec VectorBackendSpec) (vector.Store, error) {
	if spec.Name == VectorBackendExact {
		return vector.New(spec.Metric)
	}
	if spec.Name != f.name {
		return nil, fmt.Errorf("this fake serves %s, not %s", f.name, spec.Name)
	}
	if spec.Metric != vector.Cosine {
		return nil, fmt.Errorf("metric %q, want cosine", spec.Metric)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens++
	s := &fakeStore{srv: f, index: spec.Index}
	if f.text {
		return fakeTextStore{s}, nil
	}
	return s, nil
}

type fakeStore struct {
	srv   *fakeServer
	index IndexSpec
	cur   *fakeColl
}

func (s *fakeStore) Open(ctx context.Context, c vector.Collection) (vector.State, error) {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	fc := s.srv.colls[c.Name]
	st := vector.State{}
	if fc == nil {
		ix, _ := vector.New(c.Metric)
		fc = &fakeColl{ix: ix, texts: map[string]string{}}
		s.srv.colls[c.Name] = fc
	} else {
		st = fc.state
		st.Exists = true
		if !st.Sealed {
			st.Documents = max(fc.ix.Len(), len(fc.texts))
		}
	}
	s.cur = fc
	return st, nil
}

func (s *fakeStore) check(ids []string) error {
	if s.srv.refuse != "" && slices.Contains(ids, s.srv.refuse) {
		return fmt.Errorf("insert into %s: value too long", s.srv.errAddr)
	}
	return nil
}

func (s *fakeStore) Add(ctx context.Context, ids []string, vecs [][]float32) error {
	if err := s.check(ids); err != nil {
		return err
	}
	return s.cur.ix.Add(ctx, ids, vecs)
}

func (s *fakeStore) Search(ctx context.Context, v []float32, k int) ([]lasagna.Hit, error) {
	return s.cur.ix.Search(ctx, v, k)
}

func (s *fakeStore) Seal(ctx context.Context, c vector.Collection, stored int) error {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.cur.state = vector.State{Exists: true, Sealed: true, Fingerprint: c.Fingerprint, Documents: stored}
	return nil
}

func (s *fakeStore) Describe() vector.Description {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	return vector.Description{Name: s.srv.name, ServerVersion: s.srv.version,
		Index: fmt.Sprintf("hnsw m=%d ef_construction=%d ef_search=%d cosine", s.index.M, s.index.EfConstruction, s.index.EfSearch)}
}

func (s *fakeStore) Close() error {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.closes++
	return nil
}

type fakeTextStore struct{ *fakeStore }

func (s fakeTextStore) AddDocuments(ctx context.Context, docs []lasagna.Document, vecs [][]float32) error {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	if err := s.check(ids); err != nil {
		return err
	}
	if vecs != nil {
		if err := s.cur.ix.Add(ctx, ids, vecs); err != nil {
			return err
		}
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	for _, d := range docs {
		s.cur.texts[d.ID] = dense.Text(d)
	}
	return nil
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		out = append(out, strings.Trim(w, ".,?"))
	}
	return out
}

func (s fakeTextStore) keywordScores(text string) map[string]float64 {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	scores := map[string]float64{}
	q := words(text)
	for id, t := range s.cur.texts {
		for _, w := range words(t) {
			if slices.Contains(q, w) && len(w) > 3 {
				scores[id]++
			}
		}
	}
	return scores
}

func ranked(scores map[string]float64, k int) []lasagna.Hit {
	var hits []lasagna.Hit
	for id, sc := range scores {
		if sc > 0 {
			hits = append(hits, lasagna.Hit{ID: id, Score: sc})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID
	})
	return hits[:min(k, len(hits))]
}

func (s fakeTextStore) SearchKeyword(ctx context.Context, text string, k int) ([]lasagna.Hit, error) {
	return ranked(s.keywordScores(text), k), nil
}

func (s fakeTextStore) SearchHybrid(ctx context.Context, text string, v []float32, k int, alpha float64) ([]lasagna.Hit, error) {
	kw := s.keywordScores(text)
	top := 0.0
	for _, sc := range kw {
		top = math.Max(top, sc)
	}
	vec, err := s.cur.ix.Search(ctx, v, s.cur.ix.Len())
	if err != nil {
		return nil, err
	}
	scores := map[string]float64{}
	for _, h := range vec {
		scores[h.ID] = alpha * h.Score
	}
	for id, sc := range kw {
		scores[id] += (1 - alpha) * sc / top
	}
	return ranked(scores, k), nil
}

// corpusEmbedder embeds as wordsEmbedder does and counts the corpus
// documents it is asked to embed.
type corpusEmbedder struct {
	wordsEmbedder
	corpus map[string]bool
	mu     sync.Mutex
	docs   int
	texts  int
}

func newCorpusEmbedder(b *lasagna.Benchmark) *corpusEmbedder {
	e := &corpusEmbedder{corpus: map[string]bool{}}
	for _, d := range b.Corpus {
		e.corpus[dense.Text(d)] = true
	}
	return e
}

func (e *corpusEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	for _, t := range texts {
		if e.corpus[t] {
			e.docs++
		}
		e.texts++
	}
	e.mu.Unlock()
	return e.wordsEmbedder.Embed(ctx, texts)
}

const vbSweep = `benchmarks: [{path: tiny.jsonl}]
vector_backend:
  name: weaviate
  url: http://127.0.0.1:18080
  index: {m: 8, ef_search: 64}
arms:
  - {name: dense, retriever: dense, embedder: {model: toy-embed}}
  - {name: hybrid, retriever: hybrid, embedder: {model: toy-embed}}
  - {name: wbm25, retriever: weaviate-bm25}
  - {name: whybrid, retriever: weaviate-hybrid, embedder: {model: toy-embed}}
  - {name: whybrid-kw, retriever: weaviate-hybrid, alpha: 0, embedder: {model: toy-embed}}
  - name: exact
    retriever: dense
    embedder: {model: toy-embed}
    vector_backend: {name: exact}
  - {name: bm25, retriever: bm25}
`

func vbRun(t *testing.T, src string, deps Deps) (*Report, []*BenchmarkRun) {
	t.Helper()
	s, err := ParseSweep([]byte(src), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	benches, err := LoadBenchmarks(fstest.MapFS{"tiny.jsonl": {Data: tinyJSONL}}, s)
	if err != nil {
		t.Fatal(err)
	}
	arms, err := deps.ArmsContext(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), benches, arms, Options{JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return rep, benches
}

func TestVectorBackendArms(t *testing.T) {
	srv := newFakeServer("weaviate", true)
	emb := newCorpusEmbedder(tinyBench(t).Benchmark)
	deps := Deps{
		Embedder:    func(model string) (lasagna.Embedder, error) { return emb, nil },
		VectorStore: srv.open,
	}
	rep, _ := vbRun(t, vbSweep, deps)
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const desc = "weaviate 9.9.9 hnsw m=8 ef_construction=0 ef_search=64 cosine"
	for _, c := range b.Configs {
		hf := c.HeldFixed
		// The arms differ in their vector backend and retriever, so those
		// are varied (VaryComponents): their levels describe each arm.
		for _, dim := range []string{"vector_backend", "retriever"} {
			if !slices.Contains(c.VariedDimensions, dim) {
				t.Errorf("%s: %s not varied: %v", c.Name, dim, c.VariedDimensions)
			}
		}
		stage := c.VariedLevels["vector_backend"]
		wantStage := desc
		switch c.Name {
		case "exact":
			wantStage = "exact cosine"
		case "bm25":
			wantStage = ""
		}
		if hf.VectorBackend != nil || stage != wantStage {
			t.Errorf("%s: held_fixed vector_backend %v, varied level %q; want none, %q", c.Name, hf.VectorBackend, stage, wantStage)
		}
		if hf.FixedStages == nil {
			hf.FixedStages = map[string]string{}
		}
		hf.FixedStages["retriever"] = c.VariedLevels["retriever"]
		gap := -1
		if hf.CorpusIngestGap != nil {
			gap = *hf.CorpusIngestGap
		}
		if (c.Name == "bm25") != (gap == -1) || gap > 0 {
			t.Errorf("%s: corpus_ingest_gap %d", c.Name, gap)
		}
		if c.Name == "wbm25" && (hf.EmbedderModel != nil || hf.EmbedderDim != nil || hf.FixedStages["retriever"] != "weaviate-bm25") {
			t.Errorf("wbm25: embedder %v/%v, retriever stage %q", hf.EmbedderModel, hf.EmbedderDim, hf.FixedStages["retriever"])
		}
		if c.Name == "whybrid" && (hf.FixedStages["retriever"] != "weaviate-hybrid alpha=0.75" || hf.EmbedderDim == nil || *hf.EmbedderDim != 16) {
			t.Errorf("whybrid: retriever stage %q, embedder_dim %v", hf.FixedStages["retriever"], hf.EmbedderDim)
		}
		if c.Name == "whybrid-kw" && hf.FixedStages["retriever"] != "weaviate-hybrid alpha=0" {
			t.Errorf("whybrid-kw: retriever stage %q", hf.FixedStages["retriever"])
		}
	}
	for _, c := range rep.Cells {
		if c.BuildErr != nil {
			t.Fatalf("%s: %v", c.Arm.Name, c.BuildErr)
		}
		for _, q := range c.Queries {
			if q.Err != nil || len(q.Output.Hits) == 0 {
				t.Errorf("%s %s: %v, %v", c.Arm.Name, q.Query.ID, q.Output.Hits, q.Err)
			}
		}
		if top := c.Queries[0].Output.Hits; (c.Arm.Name == "wbm25" || c.Arm.Name == "whybrid-kw") && top[0].ID != "d1" {
			t.Errorf("%s q1 (silica): top hit %s, want d1", c.Arm.Name, top[0].ID)
		}
	}
	// One collection of vectors and texts (dense, hybrid and whybrid share
	// it: the corpus is embedded once), one of texts alone (wbm25).
	if len(srv.colls) != 2 || emb.docs != 6+6 {
		t.Errorf("%d collections, %d corpus texts embedded; want 2 collections, the corpus embedded for weaviate once and for the exact arm once", len(srv.colls), emb.docs)
	}
	if srv.opens != srv.closes || srv.opens != 5*2 {
		t.Errorf("stores opened %d, closed %d; want 10 each (5 arms: one to describe, one to build)", srv.opens, srv.closes)
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "127.0.0.1:18080") {
		t.Errorf("the bundle holds the vector_backend url")
	}

	// A rerun reuses the sealed collections: no corpus document embedded.
	emb.docs = 0
	rep, _ = vbRun(t, strings.Replace(vbSweep, "  - name: exact\n    retriever: dense\n    embedder: {model: toy-embed}\n    vector_backend: {name: exact}\n", "", 1), deps)
	if emb.docs != 0 {
		t.Errorf("rerun: %d corpus documents embedded, want 0 (the collections are reused)", emb.docs)
	}
	for _, c := range rep.Cells {
		if c.BuildErr != nil || c.Queries[0].Err != nil || (c.Arm.Name != "bm25" && c.Facts["corpus_ingest_gap"] != 0) {
			t.Errorf("rerun %s: %v %v, facts %v", c.Arm.Name, c.BuildErr, c.Queries[0].Err, c.Facts)
		}
	}
}

// TestVectorBackendReuseLearnsDim: an embedder that learns its dimension
// from its first call still gets embedder_dim into held_fixed when the
// collection is reused, from one probe text, not from the corpus.
func TestVectorBackendReuseLearnsDim(t *testing.T) {
	srv := newFakeServer("pgvector", false)
	src := "benchmarks: [{path: tiny.jsonl}]\narms:\n  - name: d\n    retriever: dense\n    embedder: {model: toy-embed}\n    vector_backend: {name: pgvector, dsn: 'host=127.0.0.1 user=lasagna'}\n"
	for run := range 2 {
		emb := &lazyDimEmbedder{corpusEmbedder: newCorpusEmbedder(tinyBench(t).Benchmark)}
		rep, _ := vbRun(t, src, Deps{Embedder: func(string) (lasagna.Embedder, error) { return emb, nil }, VectorStore: srv.open})
		c := rep.Cells[0]
		if c.Facts["embedder_dim"] != 16 || (run == 1 && emb.docs != 0) {
			t.Errorf("run %d: facts %v, %d corpus texts embedded", run, c.Facts, emb.docs)
		}
	}
}

type lazyDimEmbedder struct {
	*corpusEmbedder
	mu  sync.Mutex
	dim int
}

func (e *lazyDimEmbedder) Dim() int { e.mu.Lock(); defer e.mu.Unlock(); return e.dim }

func (e *lazyDimEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := e.corpusEmbedder.Embed(ctx, texts)
	if err == nil && len(v) > 0 {
		e.mu.Lock()
		e.dim = len(v[0])
		e.mu.Unlock()
	}
	return v, err
}

func TestVectorBackendPartialCorpusAndSecrets(t *testing.T) {
	const dsn = "postgres://lasagna@127.0.0.1:59999/evals?sslmode=disable"
	srv := newFakeServer("pgvector", false)
	srv.refuse, srv.errAddr = "d3", dsn
	emb := newCorpusEmbedder(tinyBench(t).Benchmark)
	src := "benchmarks: [{path: tiny.jsonl}]\nvector_backend: {name: pgvector, dsn: '" + dsn + "'}\narms:\n  - {name: d, retriever: dense, embedder: {model: toy-embed}}\n"
	rep, _ := vbRun(t, src, Deps{Embedder: func(string) (lasagna.Embedder, error) { return emb, nil }, VectorStore: srv.open})
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hf := b.Configs[0].HeldFixed
	if hf.CorpusIngestGap == nil || *hf.CorpusIngestGap != 1 {
		t.Errorf("corpus_ingest_gap = %v, want 1", hf.CorpusIngestGap)
	}
	partial := false
	for _, line := range b.Integrity.Blocking {
		partial = partial || (line.Code == lasagna.PartialCorpus && strings.Contains(line.Detail, "value too long"))
	}
	if !partial {
		t.Errorf("blocking = %q, want PARTIAL_CORPUS with the store's error", b.Integrity.Blocking)
	}
	data, _ := json.Marshal(b)
	for _, secret := range []string{dsn, "127.0.0.1:59999"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the bundle holds %q", secret)
		}
	}
	if !strings.Contains(string(data), "pgvector 9.9.9 hnsw") {
		t.Errorf("the bundle lacks the backend's description")
	}
}

func TestVectorBackendArmErrors(t *testing.T) {
	emb := func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }
	parse := func(src string) *Sweep {
		t.Helper()
		s, err := ParseSweep([]byte("benchmarks: [{path: tiny.jsonl}]\n"+src), "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pg := parse("arms:\n  - name: d\n    retriever: dense\n    embedder: {model: m}\n    vector_backend: {name: pgvector, dsn: 'host=db'}\n")
	if _, err := (Deps{Embedder: emb}).Arms(pg); err == nil || !strings.Contains(err.Error(), `s.yaml:3: arm "d": vector_backend pgvector needs a client for it`) {
		t.Errorf("pgvector without Deps.VectorStore: %v", err)
	}
	// A weaviate retriever on a store that cannot search text.
	w := parse("vector_backend: {name: weaviate, url: 'http://10.1.2.3:8080'}\narms: [{name: k, retriever: weaviate-bm25}]\n")
	notText := newFakeServer("weaviate", false)
	if _, err := (Deps{VectorStore: notText.open}).Arms(w); err == nil || !strings.Contains(err.Error(), "needs a store that keeps texts and searches them") {
		t.Errorf("weaviate-bm25 on a vector-only store: %v", err)
	}
	if notText.opens != notText.closes {
		t.Errorf("the probe store was not closed: %d opens, %d closes", notText.opens, notText.closes)
	}
	// A factory error quoting the address: the arm's error does not.
	down := func(ctx context.Context, spec VectorBackendSpec) (vector.Store, error) {
		return nil, fmt.Errorf("dial %s: connection refused", spec.URL)
	}
	_, err := (Deps{VectorStore: down}).Arms(w)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "10.1.2.3") {
		t.Errorf("unreachable server: %v", err)
	}
	// The exact index works without Deps.VectorStore, and Deps.VectorStore
	// is asked for it when set.
	ex := parse("arms: [{name: d, retriever: dense, embedder: {model: m}}]\n")
	if _, err := (Deps{Embedder: emb}).Arms(ex); err != nil {
		t.Errorf("exact without Deps.VectorStore: %v", err)
	}
	asked := ""
	_, err = (Deps{Embedder: emb, VectorStore: func(ctx context.Context, spec VectorBackendSpec) (vector.Store, error) {
		asked = spec.Name
		return vector.New(spec.Metric)
	}}).Arms(ex)
	if err != nil || asked != "exact" {
		t.Errorf("exact through Deps.VectorStore: asked for %q, %v", asked, err)
	}
}

// TestVectorBackendChangedMidRun: a server upgraded between assembling the
// arms and building the index fails the cell rather than mislabel it.
func TestVectorBackendChangedMidRun(t *testing.T) {
	srv := newFakeServer("pgvector", false)
	s, err := ParseSweep([]byte("benchmarks: [{path: tiny.jsonl}]\nvector_backend: {name: pgvector, dsn: 'host=db'}\narms: [{name: d, retriever: dense, embedder: {model: m}}]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arms, err := (Deps{Embedder: func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }, VectorStore: srv.open}).Arms(s)
	if err != nil {
		t.Fatal(err)
	}
	srv.version = "10.0.0"
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, arms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Cells[0].BuildErr; e == nil || !strings.Contains(e.Error(), `vector_backend changed while the sweep ran: it was "pgvector 9.9.9`) {
		t.Errorf("build error = %v", e)
	}
	if srv.opens != srv.closes {
		t.Errorf("%d opens, %d closes", srv.opens, srv.closes)
	}
}

func TestVectorBackendSweep(t *testing.T) {
	src := `benchmarks: [{path: a.jsonl}]
vector_backend:
  name: pgvector
  dsn: postgres://lasagna@127.0.0.1:5432/evals
  index: {m: 16, ef_construction: 200, ef_search: 100}
arms:
  - {name: d, retriever: dense, embedder: {model: m}}
  - name: w
    retriever: weaviate-hybrid
    alpha: 0.5
    embedder: {model: m}
    vector_backend: {name: weaviate, url: 'https://weaviate.internal:8080'}
  - {name: b, retriever: bm25}
`
	s, err := ParseSweep([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if vb := s.ArmVectorBackend(s.Arms[0]); vb == nil || vb.Name != "pgvector" || vb.Index.HNSW() != (vector.HNSW{M: 16, EfConstruction: 200, EfSearch: 100}) || vb.Pos.Line != 2 {
		t.Errorf("arm d's backend = %+v", vb)
	}
	if vb := s.ArmVectorBackend(s.Arms[1]); vb == nil || vb.Name != "weaviate" || vb.Pos.Line != 12 || *s.Arms[1].Alpha != 0.5 {
		t.Errorf("arm w's backend = %+v", vb)
	}
	if vb := s.ArmVectorBackend(s.Arms[2]); vb != nil {
		t.Errorf("a bm25 arm's backend = %+v, want none", vb)
	}
	if !s.Arms[1].NeedsEmbedder() || s.Arms[2].NeedsEmbedder() || (ArmSpec{Retriever: RetrieverWeaviateBM25}).NeedsEmbedder() {
		t.Error("NeedsEmbedder")
	}
}

func TestVectorBackendSweepErrors(t *testing.T) {
	const head = "benchmarks: [{path: a.jsonl}]\n"
	dense := func(vb string) string {
		return head + "arms:\n  - name: d\n    retriever: dense\n    embedder: {model: m}\n    vector_backend: " + vb + "\n"
	}
	for _, c := range []struct {
		name, src string
		want      []string
		secret    string
	}{
		{"unknown name", dense("{name: pgvectr, dsn: 'host=db'}"),
			[]string{`s.yaml:6: vector_backend: unknown name "pgvectr" (did you mean "pgvector"?)`}, ""},
		{"no name", dense("{url: 'http://h:8080'}"), []string{"s.yaml:6: vector_backend: needs a name: one of exact, pgvector, weaviate", "url applies to weaviate only"}, ""},
		{"dsn on weaviate", dense("{name: weaviate, url: 'http://h:8080', dsn: 'host=db'}"), []string{"s.yaml:6: vector_backend: dsn applies to pgvector only"}, ""},
		{"url on pgvector", dense("{name: pgvector, dsn: 'host=db', url: 'http://h:8080'}"), []string{"s.yaml:6: vector_backend: url applies to weaviate only"}, ""},
		{"pgvector without dsn", dense("{name: pgvector}"), []string{"s.yaml:6: vector_backend: pgvector needs dsn:", "PGPASSWORD"}, ""},
		{"weaviate without url", dense("{name: weaviate}"), []string{"s.yaml:6: vector_backend: weaviate needs url:", "WEAVIATE_API_KEY"}, ""},
		{"password in a dsn url", dense("{name: pgvector, dsn: 'postgres://lasagna:hunter2@db:5432/evals'}"),
			[]string{"s.yaml:6: vector_backend: dsn holds a password (user:password@); remove it and set PGPASSWORD"}, "hunter2"},
		{"password in a dsn query", dense("{name: pgvector, dsn: 'postgres://lasagna@db/evals?password=hunter2'}"),
			[]string{"dsn holds a password (password=)", "PGPASSWORD"}, "hunter2"},
		{"password in key=value dsn", dense("{name: pgvector, dsn: 'host=db password=hunter2 user=x'}"),
			[]string{"s.yaml:6: vector_backend: dsn holds a password (password=)", "PGPASSWORD"}, "hunter2"},
		{"userinfo in url", dense("{name: weaviate, url: 'http://admin:hunter2@h:8080'}"),
			[]string{"s.yaml:6: vector_backend: url holds user information", "WEAVIATE_API_KEY"}, "hunter2"},
		{"api key field", dense("{name: weaviate, url: 'http://h:8080', api_key: hunter2}"),
			[]string{`s.yaml:6: vector_backend: key "api_key" holds a credential`, "WEAVIATE_API_KEY", "PGPASSWORD"}, "hunter2"},
		{"password field at sweep level", head + "vector_backend: {name: pgvector, dsn: 'host=db', password: hunter2}\narms: [{name: b, retriever: bm25}]\n",
			[]string{`s.yaml:2: vector_backend: key "password" holds a credential`}, "hunter2"},
		{"misspelt key", dense("{name: pgvector, dns: 'host=db'}"), []string{`s.yaml:6: unknown key "dns" in vector_backend (did you mean "dsn"?)`}, ""},
		{"misspelt index key", dense("{name: pgvector, dsn: 'host=db', index: {ef_serch: 10}}"), []string{`s.yaml:6: unknown key "ef_serch" in vector_backend index (did you mean "ef_search"?)`}, ""},
		{"not a url", dense("{name: weaviate, url: 'h:8080'}"), []string{"url must be an http:// or https:// address"}, ""},
		{"exact with an index", dense("{name: exact, index: {m: 4}}"), []string{"the exact index has no index parameters"}, ""},
		{"negative index", dense("{name: pgvector, dsn: 'host=db', index: {m: -1}}"), []string{"index m, ef_construction and ef_search must be positive"}, ""},
		{"on a bm25 arm", head + "arms:\n  - {name: b, retriever: bm25, vector_backend: {name: exact}}\n", []string{`s.yaml:3: arm "b": vector_backend applies to arms that keep the corpus in one`}, ""},
		{"weaviate arm on pgvector", head + "vector_backend: {name: pgvector, dsn: 'host=db'}\narms: [{name: k, retriever: weaviate-bm25}]\n",
			[]string{`s.yaml:3: arm "k": retriever weaviate-bm25 searches a Weaviate server; add vector_backend: {name: weaviate, url: …}`}, ""},
		{"weaviate arm without backend", head + "arms: [{name: k, retriever: weaviate-hybrid, embedder: {model: m}}]\n", []string{`retriever weaviate-hybrid searches a Weaviate server`}, ""},
		{"weaviate-hybrid without embedder", head + "vector_backend: {name: weaviate, url: 'http://h:8080'}\narms: [{name: k, retriever: weaviate-hybrid}]\n",
			[]string{`arm "k": retriever weaviate-hybrid needs embedder: {model: …}`}, ""},
		{"alpha out of range", head + "vector_backend: {name: weaviate, url: 'http://h:8080'}\narms: [{name: k, retriever: weaviate-hybrid, alpha: 1.5, embedder: {model: m}}]\n",
			[]string{`arm "k": alpha is 1.5; it must be in [0, 1]`}, ""},
		{"alpha on dense", head + "arms: [{name: k, retriever: dense, alpha: 0.5, embedder: {model: m}}]\n", []string{`arm "k": alpha applies to retriever weaviate-hybrid only`}, ""},
		{"misspelt retriever", head + "arms: [{name: k, retriever: weaviate-bm52}]\n", []string{`(did you mean "weaviate-bm25"?)`}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSweep([]byte(c.src), "s.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if c.secret != "" && strings.Contains(err.Error(), c.secret) {
				t.Errorf("error %q quotes the secret", err)
			}
		})
	}
	// A sweep made in Go is checked too (no file positions).
	s := &Sweep{Benchmarks: []BenchmarkEntry{{Path: "a.jsonl"}}, Arms: []ArmSpec{{Name: "d", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "m"},
		VectorBackend: &VectorBackendSpec{Name: "pgvector", DSN: "postgres://u:pw@h/db"}}}}
	if err := s.Check(); err == nil || !strings.HasPrefix(err.Error(), `vector_backend: dsn holds a password`) {
		t.Errorf("Check: %v", err)
	}
	if _, err := (Deps{Embedder: func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }}).Arm(s.Arms[0], 10); err == nil || !strings.Contains(err.Error(), "dsn holds a password") {
		t.Errorf("Deps.Arm: %v", err)
	}
	// Deps.Arm checks an ArmSpec made in Go too.
	for _, c := range []struct {
		spec ArmSpec
		want string
	}{
		{ArmSpec{Name: "b", Retriever: RetrieverBM25, VectorBackend: &VectorBackendSpec{Name: "exact"}}, "vector_backend applies to arms that keep the corpus in one"},
		{ArmSpec{Name: "k", Retriever: RetrieverWeaviateBM25}, "searches a Weaviate server"},
		{ArmSpec{Name: "k", Retriever: RetrieverWeaviateBM25, VectorBackend: &VectorBackendSpec{Name: "pgvector", DSN: "host=db"}}, "searches a Weaviate server"},
		{ArmSpec{Name: "d", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "m"}, Alpha: new(float64)}, "alpha applies to retriever weaviate-hybrid only"},
		{ArmSpec{Name: "d", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "m"}, VectorBackend: &VectorBackendSpec{Name: "exakt"}}, `unknown name "exakt" (did you mean "exact"?)`},
	} {
		_, err := (Deps{Embedder: func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }}).Arm(c.spec, 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deps.Arm(%+v): %v, want %q", c.spec, err, c.want)
		}
	}
}

// TestVectorBackendVaried: arms that differ only in a declared
// vector_backend share a comparability key and record their backends as
// levels, so results compare pairs them.
func TestVectorBackendVaried(t *testing.T) {
	srv := newFakeServer("pgvector", false)
	src := `benchmarks: [{path: tiny.jsonl}]
arms:
  - {name: exact, retriever: dense, embedder: {model: toy-embed}, varied: [vector_backend]}
  - {name: pg, retriever: dense, embedder: {model: toy-embed}, vector_backend: {name: pgvector, dsn: 'host=db', index: {m: 4}}}
`
	rep, _ := vbRun(t, src, Deps{Embedder: func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }, VectorStore: srv.open})
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := b.Configs[0], b.Configs[1]
	if c0.ComparabilityKey != c1.ComparabilityKey || c0.HeldFixed.VectorBackend != nil || c0.HeldFixed.FixedStages["vector_backend"] != "" {
		t.Errorf("keys %s / %s, held_fixed vector_backend %v, stage %q", c0.ComparabilityKey, c1.ComparabilityKey, c0.HeldFixed.VectorBackend, c0.HeldFixed.FixedStages["vector_backend"])
	}
	if c0.VariedLevels["vector_backend"] != "exact cosine" || c1.VariedLevels["vector_backend"] != "pgvector 9.9.9 hnsw m=4 ef_construction=0 ef_search=0 cosine" {
		t.Errorf("levels %v / %v", c0.VariedLevels, c1.VariedLevels)
	}
	// The fake searches exactly, so the lists are the exact index's.
	for i := range rep.Cells[0].Queries {
		if a, b := rep.Cells[0].Queries[i].Output.Hits, rep.Cells[1].Queries[i].Output.Hits; !slices.Equal(a, b) {
			t.Errorf("query %d: exact %v, pgvector %v", i, a, b)
		}
	}
}

// userRetriever is a user's retriever that has a Close method.
type userRetriever struct {
	lasagna.Retriever
	closed *bool
}

func (u userRetriever) Close() error { *u.closed = true; return nil }

// TestClosePipeline: the engine releases the stores of built-in arms and
// never closes a user's retriever, which may serve other cells.
func TestClosePipeline(t *testing.T) {
	closed := false
	user := Arm{Name: "user", Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return userRetriever{goldArmRetriever(b), &closed}, nil
	}}
	if _, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, []Arm{user}, Options{}); err != nil {
		t.Fatal(err)
	}
	if closed {
		t.Error("the engine closed a user's retriever")
	}
	srv := newFakeServer("pgvector", false)
	arm, err := (Deps{Embedder: func(string) (lasagna.Embedder, error) { return wordsEmbedder{}, nil }, VectorStore: srv.open}).Arm(
		ArmSpec{Name: "d", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "m"}, VectorBackend: &VectorBackendSpec{Name: "pgvector", DSN: "host=db"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	p, err := arm.Build(t.Context(), tinyBench(t).Benchmark)
	if err != nil {
		t.Fatal(err)
	}
	if srv.opens != 2 || srv.closes != 1 {
		t.Errorf("before ClosePipeline: %d opens, %d closes; want 2 and 1 (the probe)", srv.opens, srv.closes)
	}
	if err := ClosePipeline(p); err != nil || srv.closes != 2 {
		t.Errorf("ClosePipeline: %v, %d closes", err, srv.closes)
	}
	if err := ClosePipeline(lasagna.PipelineFunc(func(context.Context, lasagna.Query) (lasagna.Output, error) { return lasagna.Output{}, nil })); err != nil {
		t.Errorf("ClosePipeline of a user's pipeline: %v", err)
	}
}

func goldArmRetriever(b *lasagna.Benchmark) lasagna.Retriever {
	return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return []lasagna.Hit{{ID: b.Corpus[0].ID, Score: 1}}, nil
	})
}

// TestVectorBackendStoreKindChanged: a factory that returns a store that
// cannot search text after setting the arm up with one that could fails
// the cell, and the store is closed.
func TestVectorBackendStoreKindChanged(t *testing.T) {
	srv := newFakeServer("weaviate", true)
	s, err := ParseSweep([]byte("benchmarks: [{path: tiny.jsonl}]\nvector_backend: {name: weaviate, url: 'http://h:8080'}\narms: [{name: k, retriever: weaviate-bm25}]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arms, err := (Deps{VectorStore: srv.open}).Arms(s)
	if err != nil {
		t.Fatal(err)
	}
	srv.text = false
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, arms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Cells[0].BuildErr; e == nil || !strings.Contains(e.Error(), "does not keep and search texts") || srv.opens != srv.closes {
		t.Errorf("build error = %v; %d opens, %d closes", e, srv.opens, srv.closes)
	}
}

// TestRedactorMasksPasswordRuns: the backend's address is replaced whole,
// and a driver quoting the first characters of its password (or
// PGPASSWORD's last ones) shows no run of 8 of them.
func TestRedactorMasksPasswordRuns(t *testing.T) {
	t.Setenv("PGPASSWORD", "env-Password-0123456789")
	r := newRedactor(VectorBackendSpec{Name: "pgvector", DSN: "postgres://u:dsn-Password-abcdefgh@db/x"})
	got := r.str("connect postgres://u:dsn-Password-abcdefgh@db/x: password dsn-Password-ab... refused; ...word-0123456789")
	for _, run := range []string{"dsn-Pass", "Password", "d-012345", "23456789"} {
		if strings.Contains(got, run) {
			t.Errorf("str = %q shows %q", got, run)
		}
	}
	if !strings.Contains(got, "<vector_backend address>") {
		t.Errorf("str = %q: the address is not replaced", got)
	}
}

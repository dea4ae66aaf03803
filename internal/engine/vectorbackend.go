package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/lasagna-go/lasagna"
	pgdsn "github.com/lasagna-go/lasagna/internal/dsn"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/retrieval/dense"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// Vector backends a sweep can name in vector_backend.
const (
	// VectorBackendExact is the embedded exact index (package
	// retrieval/vector), the default.
	VectorBackendExact = "exact"
	// VectorBackendPgvector is PostgreSQL with the pgvector extension.
	VectorBackendPgvector = "pgvector"
	// VectorBackendWeaviate is a Weaviate server.
	VectorBackendWeaviate = "weaviate"
)

var vectorBackendNames = []string{VectorBackendExact, VectorBackendPgvector, VectorBackendWeaviate}

// Environment variables the credentials of a vector backend come from:
// never from a sweep file, never into a bundle.
const (
	// EnvPGPassword is the PostgreSQL password (read by the driver).
	EnvPGPassword = "PGPASSWORD"
	// EnvWeaviateAPIKey is the Weaviate API key.
	EnvWeaviateAPIKey = "WEAVIATE_API_KEY"
)

// DefaultWeaviateAlpha is the alpha of weaviate-hybrid arms that set none:
// Weaviate's own default (1 is pure vector search, 0 pure BM25).
const DefaultWeaviateAlpha = 0.75

// VectorBackendSpec selects where a dense, hybrid or Weaviate arm keeps
// the corpus's vectors: vector_backend: {name: exact} (the default),
// {name: pgvector, dsn: …} or {name: weaviate, url: …}, with index:
// {m, ef_construction, ef_search} for an engine's HNSW index. Credentials
// are never part of it: PGPASSWORD and WEAVIATE_API_KEY come from the
// environment. The bundle records the backend's Description (name, server
// version, index), never the DSN or the URL.
type VectorBackendSpec struct {
	// Name is exact, pgvector or weaviate.
	Name string `yaml:"name"`
	// DSN is pgvector's PostgreSQL connection string (a postgres:// URL
	// or key=value pairs) without a password.
	DSN string `yaml:"dsn"`
	// URL is Weaviate's HTTP address, without user information.
	URL string `yaml:"url"`
	// Index sets the HNSW index of pgvector and Weaviate; zero fields take
	// the adapter's defaults, which the Description states.
	Index IndexSpec `yaml:"index"`
	// Metric is the similarity the arm searches by; the engine sets it
	// (cosine) before calling Deps.VectorStore.
	Metric vector.Metric `yaml:"-"`

	Pos lasagna.Pos `yaml:"-"`
}

// IndexSpec is the index: mapping of a vector_backend.
type IndexSpec struct {
	M              int `yaml:"m"`
	EfConstruction int `yaml:"ef_construction"`
	EfSearch       int `yaml:"ef_search"`
}

// HNSW returns the index parameters as package vector states them.
func (s IndexSpec) HNSW() vector.HNSW {
	return vector.HNSW{M: s.M, EfConstruction: s.EfConstruction, EfSearch: s.EfSearch}
}

// Known keys of a vector_backend mapping and of its index.
var (
	vectorBackendKeys = []string{"name", "dsn", "url", "index"}
	indexKeys         = []string{"m", "ef_construction", "ef_search"}
)

// credentialKey matches the names of keys that would put a credential in
// a sweep file.
var credentialKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(pass|secret|token|key|auth|user|cred)`) })

// credentialFix is how to give a backend its credentials.
func credentialFix() string {
	return fmt.Sprintf("credentials never go in a sweep file: set %s for pgvector (or use a ~/.pgpass file) and %s for weaviate in the environment", EnvPGPassword, EnvWeaviateAPIKey)
}

// checkVectorBackendNode reports unknown keys of a vector_backend mapping
// n (at file), refusing credential-like keys with the fix; it never quotes
// a value.
func checkVectorBackendNode(n *yaml.Node, file, where string) []error {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return []error{fmt.Errorf("%s:%d: %s must be a mapping such as {name: pgvector, dsn: …}", file, n.Line, where)}
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		switch {
		case slices.Contains(vectorBackendKeys, k.Value):
		case credentialKey().MatchString(k.Value):
			errs = append(errs, fmt.Errorf("%s:%d: %s: key %q holds a credential; %s", file, k.Line, where, k.Value, credentialFix()))
		default:
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q in %s%s; known keys: %s",
				file, k.Line, k.Value, where, suggest.Hint(k.Value, vectorBackendKeys), strings.Join(vectorBackendKeys, ", ")))
		}
	}
	if ix := mapValue(n, "index"); ix != nil {
		if ix.Kind != yaml.MappingNode {
			return append(errs, fmt.Errorf("%s:%d: %s: index must be a mapping such as {m: 16, ef_construction: 200, ef_search: 100}", file, ix.Line, where))
		}
		for i := 0; i+1 < len(ix.Content); i += 2 {
			k := ix.Content[i]
			if !slices.Contains(indexKeys, k.Value) {
				errs = append(errs, fmt.Errorf("%s:%d: unknown key %q in %s index%s; known keys: %s",
					file, k.Line, k.Value, where, suggest.Hint(k.Value, indexKeys), strings.Join(indexKeys, ", ")))
			}
		}
	}
	return errs
}

// problems returns what is wrong with s, each error prefixed with at (a
// "file:line: " or ""); it never quotes the DSN or the URL.
func (s VectorBackendSpec) problems(at string) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%svector_backend: "+format, append([]any{at}, args...)...))
	}
	switch {
	case s.Name == "":
		bad("needs a name: one of %s", strings.Join(vectorBackendNames, ", "))
	case !slices.Contains(vectorBackendNames, s.Name):
		bad("unknown name %q%s; use one of %s", s.Name, suggest.Hint(s.Name, vectorBackendNames), strings.Join(vectorBackendNames, ", "))
	}
	if s.DSN != "" && s.Name != VectorBackendPgvector {
		bad("dsn applies to pgvector only; drop it (or use name: pgvector)")
	}
	if s.URL != "" && s.Name != VectorBackendWeaviate {
		bad("url applies to weaviate only; drop it (or use name: weaviate)")
	}
	if s.Name == VectorBackendPgvector && s.DSN == "" {
		bad("pgvector needs dsn:, a PostgreSQL connection string without the password, such as postgres://user@host:5432/db (the password comes from %s)", EnvPGPassword)
	}
	if s.Name == VectorBackendWeaviate && s.URL == "" {
		bad("weaviate needs url:, the server's HTTP address, such as http://127.0.0.1:8080 (the API key comes from %s)", EnvWeaviateAPIKey)
	}
	if s.Index != (IndexSpec{}) && s.Name == VectorBackendExact {
		bad("the exact index has no index parameters; drop index: (or name an engine with an HNSW index)")
	}
	if s.Index.M < 0 || s.Index.EfConstruction < 0 || s.Index.EfSearch < 0 {
		bad("index m, ef_construction and ef_search must be positive (or absent for the backend's defaults)")
	}
	if s.DSN != "" {
		if err := checkDSN(s.DSN); err != nil {
			bad("dsn %v", err)
		}
	}
	if s.URL != "" {
		if err := checkWeaviateURL(s.URL); err != nil {
			bad("url %v", err)
		}
	}
	return errs
}

// dsnPassword finds a password in a key=value connection string.
var dsnPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|\s)(password|sslpassword)\s*=`) })

// checkDSN refuses a connection string that holds a password, without
// quoting it.
func checkDSN(dsn string) error {
	fix := fmt.Sprintf("remove it and set %s in the environment (or use a ~/.pgpass file)", EnvPGPassword)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return errors.New("is not a valid postgres:// URL; write it as postgres://user@host:5432/db")
		}
		if _, ok := u.User.Password(); ok {
			return errors.New("holds a password (user:password@); " + fix)
		}
		for k := range u.Query() {
			if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
				return fmt.Errorf("holds a password (%s=); %s", k, fix)
			}
		}
		return nil
	}
	if !strings.Contains(dsn, "=") {
		return errors.New("is neither a postgres:// URL nor key=value pairs; write it as postgres://user@host:5432/db")
	}
	if dsnPassword().MatchString(dsn) {
		return errors.New("holds a password (password=); " + fix)
	}
	return nil
}

// checkWeaviateURL refuses a URL that is not http(s) or holds user
// information, without quoting it.
func checkWeaviateURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// address such as http://127.0.0.1:8080")
	}
	if u.User != nil {
		return errors.New("holds user information (user@ or user:password@); remove it and set " + EnvWeaviateAPIKey + " in the environment")
	}
	for k := range u.Query() {
		if credentialKey().MatchString(k) {
			return fmt.Errorf("holds a credential (%s=); remove it and set %s in the environment", k, EnvWeaviateAPIKey)
		}
	}
	return nil
}

// usesVectorBackend reports whether a retriever kind keeps the corpus in a
// vector backend.
func usesVectorBackend(retriever string) bool {
	switch retriever {
	case RetrieverDense, RetrieverHybrid, RetrieverWeaviateBM25, RetrieverWeaviateHybrid:
		return true
	}
	return false
}

// NeedsEmbedder reports whether the arm embeds texts (dense, hybrid and
// weaviate-hybrid retrievers), so Deps.Embedder must be set.
func (a ArmSpec) NeedsEmbedder() bool {
	switch a.Retriever {
	case RetrieverDense, RetrieverHybrid, RetrieverWeaviateHybrid:
		return true
	}
	return false
}

// checkArmVectorBackend reports what is wrong with arm a's vector backend
// vb (resolved: the arm's own or the sweep's) and its Weaviate settings.
func checkArmVectorBackend(a ArmSpec, vb *VectorBackendSpec, at string) []error {
	var errs []error
	if a.VectorBackend != nil && !usesVectorBackend(a.Retriever) {
		errs = append(errs, fmt.Errorf("%sarm %q: vector_backend applies to arms that keep the corpus in one (retriever dense, hybrid, %s or %s); drop it", at, a.Name, RetrieverWeaviateBM25, RetrieverWeaviateHybrid))
	}
	if a.Alpha != nil && a.Retriever != RetrieverWeaviateHybrid {
		errs = append(errs, fmt.Errorf("%sarm %q: alpha applies to retriever %s only; drop it", at, a.Name, RetrieverWeaviateHybrid))
	}
	if a.Alpha != nil && (*a.Alpha < 0 || *a.Alpha > 1) {
		errs = append(errs, fmt.Errorf("%sarm %q: alpha is %s; it must be in [0, 1] (1 is pure vector search, 0 pure BM25; absent means %g)", at, a.Name, strconv.FormatFloat(*a.Alpha, 'g', -1, 64), DefaultWeaviateAlpha))
	}
	if a.Retriever == RetrieverWeaviateBM25 || a.Retriever == RetrieverWeaviateHybrid {
		if vb == nil || vb.Name != VectorBackendWeaviate {
			errs = append(errs, fmt.Errorf("%sarm %q: retriever %s searches a Weaviate server; add vector_backend: {name: weaviate, url: …} to the arm or the sweep", at, a.Name, a.Retriever))
		}
	}
	return errs
}

// vectorBackendOf returns the vector backend arm spec uses: its own, else
// exact.
func vectorBackendOf(spec ArmSpec) VectorBackendSpec {
	vb := VectorBackendSpec{Name: VectorBackendExact}
	if spec.VectorBackend != nil {
		vb = *spec.VectorBackend
	}
	vb.Metric = vector.Cosine
	return vb
}

// ArmVectorBackend returns the vector backend of arm a in s: the arm's
// own, else the sweep's, else nil (the exact index) — nil too for an arm
// that keeps no corpus in one.
func (s *Sweep) ArmVectorBackend(a ArmSpec) *VectorBackendSpec {
	switch {
	case !usesVectorBackend(a.Retriever):
		return nil
	case a.VectorBackend != nil:
		return a.VectorBackend
	default:
		return s.VectorBackend
	}
}

// redactor removes a backend's DSN and URL from the texts the bundle may
// record (errors, ingest errors): an adapter's error may quote them. A
// password in the DSN, or PGPASSWORD's, is masked too wherever 8 or more
// of its characters occur (package internal/dsn).
type redactor struct {
	addrs []string
	dsn   string
}

func newRedactor(vb VectorBackendSpec) redactor {
	r := redactor{dsn: vb.DSN}
	for _, s := range []string{vb.DSN, vb.URL} {
		if s != "" {
			r.addrs = append(r.addrs, s)
		}
	}
	return r
}

func (r redactor) str(s string) string {
	for _, secret := range r.addrs {
		s = strings.ReplaceAll(s, secret, "<vector_backend address>")
	}
	if r.dsn != "" {
		s = pgdsn.RedactIn(s, r.dsn)
	}
	return s
}

func (r redactor) err(err error) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); r.str(msg) != msg {
		return redactedError{msg: r.str(msg), err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// vectorBackend is an arm's vector backend: how to open a store for one
// benchmark's build, and what the bundle records of it.
type vectorBackend struct {
	spec   VectorBackendSpec
	open   func(ctx context.Context) (vector.Store, error)
	desc   string // held_fixed vector_backend: Description.String()
	stage  string // fixed_stages vector_backend
	text   bool   // the arm searches the store's texts (weaviate-*)
	redact redactor
}

// vectorBackend prepares the vector backend of arm spec: it opens a store
// once (an unreachable server fails the arm before anything runs), takes
// its Description and checks that a Weaviate retriever's store searches
// text, then closes it; each benchmark's build opens its own store.
func (d Deps) vectorBackend(ctx context.Context, spec ArmSpec) (*vectorBackend, error) {
	where := fmt.Sprintf("%sarm %q", posPrefix(spec.Pos), spec.Name)
	vb := vectorBackendOf(spec)
	at := posPrefix(vb.Pos)
	if at == "" {
		at = posPrefix(spec.Pos)
	}
	if errs := vb.problems(at); len(errs) > 0 {
		return nil, errs[0]
	}
	b := &vectorBackend{spec: vb, redact: newRedactor(vb),
		text: spec.Retriever == RetrieverWeaviateBM25 || spec.Retriever == RetrieverWeaviateHybrid}
	switch {
	case d.VectorStore != nil:
		b.open = func(ctx context.Context) (vector.Store, error) {
			s, err := d.VectorStore(ctx, vb)
			if err == nil && s == nil {
				err = errors.New("Deps.VectorStore returned no store")
			}
			return s, b.redact.err(err)
		}
	case vb.Name == VectorBackendExact:
		b.open = func(context.Context) (vector.Store, error) { return vector.New(vb.Metric) }
	default:
		return nil, fmt.Errorf("%s: vector_backend %s needs a client for it, and this program wires in only the exact index; run it with the lasagna CLI, or set engine.Deps.VectorStore (see retrieval/%s)", where, vb.Name, vb.Name)
	}
	probe, err := b.open(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: vector_backend %s: %w", where, vb.Name, err)
	}
	defer probe.Close()
	desc := probe.Describe()
	b.desc = b.redact.str(desc.String())
	b.stage = b.desc
	if desc.Index == "" {
		// The embedded index states no index; its stage has always been
		// "exact cosine".
		b.stage += " " + string(vb.Metric)
	}
	if b.text {
		_, text := probe.(vector.TextStore)
		_, kw := probe.(vector.KeywordSearcher)
		if !text || !kw {
			return nil, fmt.Errorf("%s: retriever %s needs a store that keeps texts and searches them (vector.TextStore and vector.KeywordSearcher); the %s store does not", where, spec.Retriever, desc.Name)
		}
	}
	return b, nil
}

// build opens a store and ingests b's corpus into it (see dense.Build);
// emb nil ingests texts only. The store is closed when build fails;
// otherwise the caller closes it.
func (vb *vectorBackend) build(ctx context.Context, b *lasagna.Benchmark, emb lasagna.Embedder, model string) (*dense.Retriever, vector.Store, error) {
	store, err := vb.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	if got := vb.redact.str(store.Describe().String()); got != vb.desc {
		store.Close()
		return nil, nil, fmt.Errorf("vector_backend changed while the sweep ran: it was %q when the arms were set up and is %q now; rerun the sweep", vb.desc, got)
	}
	if vb.text {
		if _, err := keywordSearcher(store); err != nil {
			return nil, nil, err
		}
	}
	r, err := dense.Build(ctx, b.Corpus, emb, store, dense.Options{Model: model, Metric: vb.spec.Metric})
	if err == nil && emb != nil && r.Reused() {
		err = learnDim(ctx, emb)
	}
	if err != nil {
		store.Close()
		return nil, nil, vb.redact.err(err)
	}
	return r, store, nil
}

// learnDim makes an embedder that learns its dimension from its first
// call (Dim() 0) embed one probe text, so that held_fixed states
// embedder_dim when a reused collection spared embedding the corpus.
func learnDim(ctx context.Context, emb lasagna.Embedder) error {
	d, ok := emb.(interface{ Dim() int })
	if !ok || d.Dim() > 0 {
		return nil
	}
	if _, err := emb.Embed(ctx, []string{"lasagna: the embedding dimension"}); err != nil {
		return fmt.Errorf("embed a probe text to learn the embedding dimension: %w", err)
	}
	return nil
}

// keywordSearcher returns store as a KeywordSearcher, or closes it and
// fails (Deps.VectorStore returned another kind of store than the one the
// arm was set up with).
func keywordSearcher(store vector.Store) (vector.KeywordSearcher, error) {
	ks, ok := store.(vector.KeywordSearcher)
	if _, text := store.(vector.TextStore); !ok || !text {
		store.Close()
		return nil, fmt.Errorf("the %s store opened for this benchmark does not keep and search texts (vector.TextStore and vector.KeywordSearcher), though the one the arm was set up with did", store.Describe().Name)
	}
	return ks, nil
}

// keywordRetriever searches a store's text with the engine's own BM25.
type keywordRetriever struct {
	ks     vector.KeywordSearcher
	redact redactor
}

func (k keywordRetriever) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {
	hits, err := k.ks.SearchKeyword(ctx, q.Text, n)
	return hits, k.redact.err(err)
}

// hybridRetriever searches a store with the engine's own fusion of BM25 and
// the query's vector.
type hybridRetriever struct {
	ks     vector.KeywordSearcher
	emb    lasagna.Embedder
	alpha  float64
	redact redactor
}

func (h hybridRetriever) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {
	vecs, err := h.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed query: the embedder returned %d vectors for 1 text", len(vecs))
	}
	hits, err := h.ks.SearchHybrid(ctx, q.Text, vecs[0], n, h.alpha)
	return hits, h.redact.err(err)
}

// redactedRetriever removes the backend's address from search errors.
type redactedRetriever struct {
	lasagna.Retriever
	redact redactor
}

func (r redactedRetriever) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {
	hits, err := r.Retriever.Retrieve(ctx, q, n)
	return hits, r.redact.err(err)
}

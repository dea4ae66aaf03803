package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/redact"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// Defaults for a zero Config field.
const (
	defaultM              = 64
	defaultEfConstruction = 512
	defaultEfSearch       = 1536
	defaultBatchSize      = 256
)

// metaClass is the class that records what each collection holds.
const metaClass = "LasagnaCollections"

const (
	propID   = "doc_id"
	propText = "text"
	// attempts bounds the tries of one request (transient failures) and
	// of one object the batch response reports as failed.
	attempts = 4
)

// idSpace is the UUIDv5 namespace of object ids: an object's UUID is
// uuid.NewSHA1(idSpace, document id), the same on every machine.
var idSpace = uuid.MustParse("5b0c6f1e-3f0a-5d7c-9b39-6c1a2f1f4e10")

// Config sets up a Store.
type Config struct {
	// URL is the server's REST address, http(s)://host[:port]; it must
	// not carry credentials.
	URL string
	// APIKey is sent as a bearer token when set; the caller reads it
	// from the environment (WEAVIATE_API_KEY). It is never printed.
	APIKey string
	// Index sets the HNSW parameters of classes Open creates; a zero
	// field takes 64, 512 or 1536.
	Index vector.HNSW
	// Metric is the distance of classes Open creates when the
	// collection names none; "" is cosine.
	Metric vector.Metric
	// BatchSize is the number of objects per batch request (default
	// 256).
	BatchSize int
	// Timeout bounds one request (default 60 s).
	Timeout time.Duration
}

// Store is a Weaviate-backed vector.TextStore and vector.KeywordSearcher.
// It works on the collection of its last Open. Its methods are safe for
// concurrent use.
type Store struct {
	client    *wv.Client
	transport *http.Transport
	url       string // without userinfo
	version   string
	index     vector.HNSW
	metric    vector.Metric
	batch     int
	// red masks the API key, and every run of 8 or more of its
	// characters, in the server's text that errors quote.
	red *redact.Redactor

	mu      sync.RWMutex
	class   string // "" until Open
	coll    vector.Collection
	metric0 vector.Metric // the open class's metric
	sealed  bool
	dim     int
}

var (
	_ vector.TextStore       = (*Store)(nil)
	_ vector.KeywordSearcher = (*Store)(nil)
	_ vector.Dropper         = (*Store)(nil)
)

// Open connects to the Weaviate server at cfg.URL and checks that it
// answers (its meta endpoint, which also gives the version Describe
// records).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	u, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	metric, err := vector.MetricOr(cfg.Metric, vector.Cosine)
	if err != nil {
		return nil, fmt.Errorf("weaviate: %v", err)
	}
	ix := cfg.Index
	if ix.M == 0 {
		ix.M = defaultM
	}
	if ix.EfConstruction == 0 {
		ix.EfConstruction = defaultEfConstruction
	}
	if ix.EfSearch == 0 {
		ix.EfSearch = defaultEfSearch
	}
	if ix.M < 2 || ix.EfConstruction < 1 || ix.EfSearch < 1 {
		return nil, fmt.Errorf("weaviate: HNSW m=%d ef_construction=%d ef_search=%d: m must be at least 2 and the others at least 1; leave them 0 for the defaults (m=%d ef_construction=%d ef_search=%d)",
			ix.M, ix.EfConstruction, ix.EfSearch, defaultM, defaultEfConstruction, defaultEfSearch)
	}
	batch := cfg.BatchSize
	if batch <= 0 {
		batch = defaultBatchSize
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	// A transport of the Store's own, so Close can release its idle
	// connections.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// Queries run concurrently: keep their connections instead of the
	// default 2 per host.
	transport.MaxIdleConnsPerHost = 32
	wcfg := wv.Config{Host: u.Host, Scheme: u.Scheme, Timeout: timeout,
		ConnectionClient: &http.Client{Timeout: timeout, Transport: transport}}
	if cfg.APIKey != "" {
		// What the client's auth.ApiKey sends, without its second client.
		wcfg.Headers = map[string]string{"Authorization": "Bearer " + cfg.APIKey}
	}
	client, err := wv.NewClient(wcfg)
	if err != nil {
		return nil, fmt.Errorf("weaviate at %s: %v", u, redact.New(cfg.APIKey).Error(err))
	}
	s := &Store{client: client, transport: transport, url: u.String(), index: ix, metric: metric, batch: batch, red: redact.New(cfg.APIKey)}
	var meta *models.Meta
	err = s.retry(ctx, func() error {
		var err error
		meta, err = client.Misc().MetaGetter().Do(ctx)
		return err
	})
	if err != nil {
		return nil, s.fail("", "read the server's meta endpoint", err, s.reachFix(err, cfg.APIKey != ""))
	}
	s.version = meta.Version
	return s, nil
}

func parseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("weaviate: no URL; set vector_backend.url to the server's REST address, for example http://localhost:8080")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("weaviate: URL %q is not http(s)://host[:port]; set vector_backend.url to the server's REST address, for example http://localhost:8080", redactURL(raw))
	}
	if u.User != nil {
		u.User = nil
		return nil, fmt.Errorf("weaviate: URL %s carries credentials; remove them from the URL and set the API key in the environment variable WEAVIATE_API_KEY", u)
	}
	if p := strings.TrimRight(u.Path, "/"); p != "" || u.RawQuery != "" || u.Fragment != "" {
		u.Path, u.RawQuery, u.Fragment = "", "", ""
		return nil, fmt.Errorf("weaviate: URL %q has a path, query or fragment; give only the server's address, %s", redactURL(raw), u)
	}
	u.Path = ""
	return u, nil
}

// redactURL drops the userinfo of a URL that may not parse.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		u.User = nil
		return u.String()
	}
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			return raw[:j+3] + raw[i+1:]
		}
		return raw[i+1:]
	}
	return raw
}

func (s *Store) reachFix(err error, withKey bool) string {
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && (ce.StatusCode == 401 || ce.StatusCode == 403) {
		if withKey {
			return "the server refused the API key; check WEAVIATE_API_KEY"
		}
		return "the server needs an API key; set WEAVIATE_API_KEY"
	}
	return "start Weaviate there or set vector_backend.url to its REST address"
}

// fail formats an error naming the server, the class (when there is one),
// what failed and the fix.
func (s *Store) fail(class, what string, err error, fix string) error {
	where := "weaviate at " + s.url
	if class != "" {
		where += ", class " + class
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %v; %s", where, what, s.red.String(errText(err)), fix)
	}
	return fmt.Errorf("%s: %s; %s", where, what, fix)
}

func errText(err error) string {
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) {
		msg := strings.TrimSpace(ce.Msg)
		if ce.DerivedFromError != nil {
			msg = ce.DerivedFromError.Error()
		}
		if ce.StatusCode != 0 {
			return fmt.Sprintf("status %d: %s", ce.StatusCode, msg)
		}
		return msg
	}
	return err.Error()
}

// transient reports whether a failed request is worth another try: no
// response at all, or 429 or a 5xx status.
func transient(err error) bool {
	var ce *fault.WeaviateClientError
	if !errors.As(err, &ce) {
		return false
	}
	if ce.DerivedFromError != nil {
		return !errors.Is(ce.DerivedFromError, context.Canceled) && !errors.Is(ce.DerivedFromError, context.DeadlineExceeded)
	}
	return ce.StatusCode == 429 || ce.StatusCode >= 500
}

// retry calls f until it succeeds, fails for good, or attempts are spent,
// waiting 100 ms, 200 ms, 400 ms … between tries.
func (s *Store) retry(ctx context.Context, f func() error) error {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		err := f()
		if err == nil || try == attempts || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// className returns the Weaviate class of a collection name: the name with
// its first letter upper-cased. It fails on a name vector.Collection does
// not allow (lower-case ASCII letters, digits and underscores, starting
// with a letter).
func className(collection string) (string, error) {
	if !collectionRE().MatchString(collection) {
		return "", fmt.Errorf("weaviate: collection name %q is not lower-case ASCII letters, digits and underscores starting with a letter; name it with vector.CollectionName", collection)
	}
	return strings.ToUpper(collection[:1]) + collection[1:], nil
}

var collectionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })

// Describe names the backend for held_fixed: "weaviate", the server's
// version, and the HNSW parameters and metric (of the open collection, or
// the configured ones before Open).
func (s *Store) Describe() vector.Description {
	s.mu.RLock()
	metric := s.metric
	if s.class != "" {
		metric = s.metric0
	}
	s.mu.RUnlock()
	return vector.Description{
		Name:          "weaviate",
		ServerVersion: s.version,
		Index:         fmt.Sprintf("hnsw m=%d ef_construction=%d ef=%d %s", s.index.M, s.index.EfConstruction, s.index.EfSearch, metric),
	}
}

// DropCommand returns the command that drops collection c's class (the
// dense stage's fix when it refuses a collection), with the API key read
// from the environment, never written out.
func (s *Store) DropCommand(c vector.Collection) string {
	class, err := className(c.Name)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(`curl -X DELETE -H "Authorization: Bearer $WEAVIATE_API_KEY" %s/v1/schema/%s`, s.url, class)
}

// Close releases the Store's idle connections.
func (s *Store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

func distanceOf(m vector.Metric) string {
	if m == vector.Dot {
		return "dot"
	}
	return "cosine"
}

func boolp(b bool) *bool { return &b }

// Open makes c's class ready, creating it (and the metadata class) when it
// does not exist, and reports what the metadata records of it. An existing
// class whose index differs from the Store's (m, ef_construction, distance)
// is refused with the fix; a different ef is updated, as ef only affects
// searches. A sealed record whose object count no longer matches the
// class is reported as not sealed, so the caller ingests again.
func (s *Store) Open(ctx context.Context, c vector.Collection) (vector.State, error) {
	class, err := className(c.Name)
	if err != nil {
		return vector.State{}, err
	}
	metric, err := vector.MetricOr(c.Metric, s.metric)
	if err != nil {
		return vector.State{}, fmt.Errorf("weaviate: collection %s: %v", c.Name, err)
	}
	if err := s.ensureMetaClass(ctx); err != nil {
		return vector.State{}, err
	}
	var st vector.State
	existing, err := s.getClass(ctx, class)
	if err != nil {
		return st, s.fail(class, "read the class", err, s.reachFix(err, false))
	}
	if existing != nil {
		st.Exists = true
		if err := s.checkClass(ctx, existing, metric); err != nil {
			return st, err
		}
	} else if err := s.createClass(ctx, class, metric); err != nil {
		return st, err
	}
	rec, err := s.readRecord(ctx, c.Name)
	if err != nil {
		return st, err
	}
	if st.Exists && rec != nil && rec.Sealed {
		n, err := s.count(ctx, class)
		if err != nil {
			return st, err
		}
		if n == rec.Documents {
			st.Sealed, st.Fingerprint, st.Documents = true, rec.Fingerprint, rec.Documents
		}
	}
	s.mu.Lock()
	s.class, s.coll, s.metric0, s.sealed, s.dim = class, c, metric, st.Sealed, 0
	s.mu.Unlock()
	return st, nil
}

func (s *Store) getClass(ctx context.Context, class string) (*models.Class, error) {
	var out *models.Class
	err := s.retry(ctx, func() error {
		var err error
		out, err = s.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
		return err
	})
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.StatusCode == 404 {
		return nil, nil
	}
	return out, err
}

func (s *Store) createClass(ctx context.Context, class string, metric vector.Metric) error {
	cl := &models.Class{
		Class:       class,
		Description: "lasagna vector_backend collection; what it holds is recorded in " + metaClass,
		Vectorizer:  "none",
		Properties: []*models.Property{
			{Name: propID, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: boolp(true), IndexSearchable: boolp(false)},
			{Name: propText, DataType: []string{"text"}, Tokenization: "word", IndexFilterable: boolp(false), IndexSearchable: boolp(true)},
		},
		VectorIndexType: "hnsw",
		VectorIndexConfig: map[string]any{
			"maxConnections": s.index.M,
			"efConstruction": s.index.EfConstruction,
			"ef":             s.index.EfSearch,
			"distance":       distanceOf(metric),
		},
	}
	err := s.retry(ctx, func() error { return s.client.Schema().ClassCreator().WithClass(cl).Do(ctx) })
	if err != nil {
		// Another process may have created it meanwhile.
		if got, gerr := s.getClass(ctx, class); gerr == nil && got != nil {
			return s.checkClass(ctx, got, metric)
		}
		return s.fail(class, "create the class", err, "check that the API key may change the schema (WEAVIATE_API_KEY)")
	}
	return nil
}

// hnswConfig reads the HNSW parameters of a class.
func hnswConfig(cl *models.Class) (m, efc, ef int, distance string) {
	cfg, _ := cl.VectorIndexConfig.(map[string]any)
	num := func(k string) int {
		switch v := cfg[k].(type) {
		case float64:
			return int(v)
		case json.Number:
			n, _ := v.Int64()
			return int(n)
		case int:
			return v
		}
		return -1
	}
	distance, _ = cfg["distance"].(string)
	return num("maxConnections"), num("efConstruction"), num("ef"), distance
}

func (s *Store) checkClass(ctx context.Context, cl *models.Class, metric vector.Metric) error {
	m, efc, ef, distance := hnswConfig(cl)
	if cl.VectorIndexType != "hnsw" || m != s.index.M || efc != s.index.EfConstruction || distance != distanceOf(metric) {
		return s.fail(cl.Class, fmt.Sprintf("the class exists with index %s m=%d ef_construction=%d distance %s, not hnsw m=%d ef_construction=%d distance %s",
			cl.VectorIndexType, m, efc, distance, s.index.M, s.index.EfConstruction, distanceOf(metric)), nil,
			fmt.Sprintf("delete the class (DELETE /v1/schema/%s) to rebuild it, or set the index parameters to the class's", cl.Class))
	}
	var hasID, hasText bool
	for _, p := range cl.Properties {
		hasID = hasID || p.Name == propID
		hasText = hasText || p.Name == propText
	}
	if !hasID || !hasText {
		return s.fail(cl.Class, "the class has no "+propID+" or "+propText+" property; it was not made by lasagna", nil,
			fmt.Sprintf("delete the class (DELETE /v1/schema/%s) or point lasagna at another server", cl.Class))
	}
	if ef == s.index.EfSearch {
		return nil
	}
	cfg, _ := cl.VectorIndexConfig.(map[string]any)
	cfg["ef"] = s.index.EfSearch
	err := s.retry(ctx, func() error { return s.client.Schema().ClassUpdater().WithClass(cl).Do(ctx) })
	if err != nil {
		return s.fail(cl.Class, fmt.Sprintf("update ef from %d to %d", ef, s.index.EfSearch), err, "check that the API key may change the schema (WEAVIATE_API_KEY)")
	}
	return nil
}

// record is what the metadata class holds of one collection.
type record struct {
	Collection  string
	Fingerprint string
	Documents   int
	Embedder    string
	Metric      string
	Sealed      bool
}

func (s *Store) ensureMetaClass(ctx context.Context) error {
	got, err := s.getClass(ctx, metaClass)
	if err != nil {
		return s.fail(metaClass, "read the class", err, s.reachFix(err, false))
	}
	if got != nil {
		return nil
	}
	text := func(name string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: boolp(true), IndexSearchable: boolp(false)}
	}
	cl := &models.Class{
		Class:       metaClass,
		Description: "lasagna: what each lasagna_* collection holds (corpus fingerprint, documents, embedder, metric, sealed)",
		Vectorizer:  "none",
		Properties: []*models.Property{
			text("collection"), text("fingerprint"), text("embedder"), text("metric"),
			{Name: "documents", DataType: []string{"int"}},
			{Name: "sealed", DataType: []string{"boolean"}},
		},
		VectorIndexConfig: map[string]any{"skip": true},
	}
	err = s.retry(ctx, func() error { return s.client.Schema().ClassCreator().WithClass(cl).Do(ctx) })
	if err != nil {
		if got, gerr := s.getClass(ctx, metaClass); gerr == nil && got != nil {
			return nil
		}
		return s.fail(metaClass, "create the class", err, "check that the API key may change the schema (WEAVIATE_API_KEY)")
	}
	return nil
}

func recordID(collection string) string {
	return uuid.NewSHA1(idSpace, []byte("collection:"+collection)).String()
}

func (s *Store) readRecord(ctx context.Context, collection string) (*record, error) {
	var objs []*models.Object
	err := s.retry(ctx, func() error {
		var err error
		objs, err = s.client.Data().ObjectsGetter().WithClassName(metaClass).WithID(recordID(collection)).Do(ctx)
		return err
	})
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.StatusCode == 404 {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail(metaClass, "read the record of collection "+collection, err, s.reachFix(err, false))
	}
	if len(objs) == 0 {
		return nil, nil
	}
	props, _ := objs[0].Properties.(map[string]any)
	r := &record{}
	r.Collection, _ = props["collection"].(string)
	r.Fingerprint, _ = props["fingerprint"].(string)
	r.Embedder, _ = props["embedder"].(string)
	r.Metric, _ = props["metric"].(string)
	r.Sealed, _ = props["sealed"].(bool)
	switch v := props["documents"].(type) {
	case float64:
		r.Documents = int(v)
	case json.Number:
		n, _ := v.Int64()
		r.Documents = int(n)
	}
	return r, nil
}

func (s *Store) writeRecord(ctx context.Context, r record) error {
	obj := &models.Object{
		Class: metaClass,
		ID:    strfmt.UUID(recordID(r.Collection)),
		Properties: map[string]any{
			"collection": r.Collection, "fingerprint": r.Fingerprint, "documents": r.Documents,
			"embedder": r.Embedder, "metric": r.Metric, "sealed": r.Sealed,
		},
	}
	if failed, err := s.upsert(ctx, metaClass, []*models.Object{obj}); err != nil || len(failed) > 0 {
		if err == nil {
			err = errors.New(failed[0].reason)
		}
		return s.fail(metaClass, "record collection "+r.Collection, err, "check that the API key may write objects (WEAVIATE_API_KEY)")
	}
	return nil
}

// Seal records that the open collection holds c's corpus: stored
// documents with c's fingerprint.
func (s *Store) Seal(ctx context.Context, c vector.Collection, stored int) error {
	s.mu.RLock()
	class, open := s.class, s.coll.Name
	metric := s.metric0
	s.mu.RUnlock()
	if class == "" || open != c.Name {
		return fmt.Errorf("weaviate: Seal of collection %s, but the open collection is %q; call Open with it first", c.Name, open)
	}
	err := s.writeRecord(ctx, record{Collection: c.Name, Fingerprint: c.Fingerprint, Documents: stored, Embedder: c.Embedder, Metric: string(metric), Sealed: true})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.sealed = true
	s.mu.Unlock()
	return nil
}

// BatchError reports the documents a batch could not store after its
// retries. The others of the batch are stored.
type BatchError struct {
	URL, Class string
	// IDs are the documents not stored, in input order.
	IDs []string
	// Reasons holds the server's reason for each of IDs.
	Reasons []string
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("weaviate at %s, class %s: %d document(s) not stored after %d tries, first %q: %s; check the server's log and free disk space, then run again (stored documents are kept and upserted again)",
		e.URL, e.Class, len(e.IDs), attempts, e.IDs[0], e.Reasons[0])
}

// FailedIDs returns the documents not stored, for a caller that counts a
// corpus_ingest_gap without importing this package.
func (e *BatchError) FailedIDs() []string { return slices.Clone(e.IDs) }

// Add stores vectors under ids, without text (keyword search then finds
// nothing for them). See AddDocuments.
func (s *Store) Add(ctx context.Context, ids []string, vectors [][]float32) error {
	docs := make([]lasagna.Document, len(ids))
	for i, id := range ids {
		docs[i].ID = id
	}
	return s.AddDocuments(ctx, docs, vectors)
}

// AddDocuments upserts docs (their Title + " " + Text) with vectors[i] as
// docs[i]'s vector, or without vectors when vectors is nil. It checks the
// whole input first (one vector per document, non-empty unique ids, one
// dimension, finite values, no all-zero vector under cosine) and stores
// nothing when a check fails. It sends BatchSize objects per request,
// retries transient failures and failed objects, and returns a *BatchError
// naming every document it could not store.
func (s *Store) AddDocuments(ctx context.Context, docs []lasagna.Document, vectors [][]float32) error {
	s.mu.RLock()
	class, coll, metric, sealed, dim := s.class, s.coll, s.metric0, s.sealed, s.dim
	s.mu.RUnlock()
	if class == "" {
		return errors.New("weaviate: AddDocuments before Open; open the collection first")
	}
	if vectors != nil && len(vectors) != len(docs) {
		return fmt.Errorf("weaviate: %d documents but %d vectors; give one vector per document", len(docs), len(vectors))
	}
	seen := make(map[string]bool, len(docs))
	for i, d := range docs {
		if d.ID == "" {
			return fmt.Errorf("weaviate: document %d of the batch (0-based) has an empty id; give every document an id", i)
		}
		if seen[d.ID] {
			return fmt.Errorf("weaviate: document %q is twice in the batch; ids must be unique", d.ID)
		}
		seen[d.ID] = true
		if vectors != nil {
			if err := checkVector(fmt.Sprintf("vector %q", d.ID), vectors[i], dim, metric); err != nil {
				return err
			}
			dim = len(vectors[i])
		}
	}
	if len(docs) == 0 {
		return nil
	}
	if sealed {
		// New documents: the recorded state no longer holds until Seal.
		err := s.writeRecord(ctx, record{Collection: coll.Name, Fingerprint: coll.Fingerprint, Embedder: coll.Embedder, Metric: string(metric)})
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.sealed = false
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.dim == 0 {
		s.dim = dim
	}
	s.mu.Unlock()
	berr := &BatchError{URL: s.url, Class: class}
	for start := 0; start < len(docs); start += s.batch {
		end := min(start+s.batch, len(docs))
		objs := make([]*models.Object, 0, end-start)
		for i := start; i < end; i++ {
			d := docs[i]
			text := d.Text
			if d.Title != "" {
				text = d.Title + " " + d.Text
			}
			o := &models.Object{
				Class:      class,
				ID:         strfmt.UUID(uuid.NewSHA1(idSpace, []byte(d.ID)).String()),
				Properties: map[string]any{propID: d.ID, propText: text},
			}
			if vectors != nil {
				o.Vector = vectors[i]
			}
			objs = append(objs, o)
		}
		failed, err := s.upsert(ctx, class, objs)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.fail(class, fmt.Sprintf("store documents %d–%d of %d", start+1, end, len(docs)), err, s.reachFix(err, false))
		}
		for _, f := range failed {
			id, _ := f.obj.Properties.(map[string]any)[propID].(string)
			berr.IDs = append(berr.IDs, id)
			berr.Reasons = append(berr.Reasons, f.reason)
		}
	}
	if len(berr.IDs) > 0 {
		return berr
	}
	return nil
}

func checkVector(what string, v []float32, dim int, metric vector.Metric) error {
	if len(v) != 0 && dim != 0 && len(v) != dim {
		return fmt.Errorf("weaviate: %s has %d dimensions, want %d (the collection's); embed every text with the same model", what, len(v), dim)
	}
	if err := vector.CheckVector(what, v, metric); err != nil {
		return fmt.Errorf("weaviate: %w", err)
	}
	return nil
}

type failedObject struct {
	obj    *models.Object
	reason string
}

// upsert sends objs as one batch (retrying transient failures), then
// sends the objects the response reports as failed again, up to attempts
// tries each. It returns the objects still failed, or an error when the
// batch request itself failed.
func (s *Store) upsert(ctx context.Context, class string, objs []*models.Object) ([]failedObject, error) {
	var failed []failedObject
	for try := 1; try <= attempts && len(objs) > 0; try++ {
		if try > 1 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(try) * 200 * time.Millisecond):
			}
		}
		var resp []models.ObjectsGetResponse
		err := s.retry(ctx, func() error {
			var err error
			resp, err = s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		byID := make(map[string]string, len(resp))
		answered := make(map[string]bool, len(resp))
		for _, r := range resp {
			id := string(r.ID)
			answered[id] = true
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				msgs := make([]string, 0, len(r.Result.Errors.Error))
				for _, e := range r.Result.Errors.Error {
					if e != nil {
						msgs = append(msgs, e.Message)
					}
				}
				byID[id] = strings.Join(msgs, "; ")
			}
		}
		failed = failed[:0]
		var again []*models.Object
		for _, o := range objs {
			id := string(o.ID)
			reason, bad := byID[id]
			if !answered[id] {
				bad, reason = true, "the batch response does not mention the object"
			}
			if bad {
				failed = append(failed, failedObject{obj: o, reason: reason})
				again = append(again, o)
			}
		}
		objs = again
	}
	return failed, nil
}

// Search returns the k documents whose vectors are nearest to v, best
// first (ties by descending id), by Weaviate's HNSW search (nearVector).
func (s *Store) Search(ctx context.Context, v []float32, k int) ([]lasagna.Hit, error) {
	class, metric, err := s.openClass("Search")
	if err != nil || k <= 0 {
		return nil, err
	}
	if err := checkVector("the query vector", v, 0, metric); err != nil {
		return nil, err
	}
	nv := s.client.GraphQL().NearVectorArgBuilder().WithVector(v)
	q := s.client.GraphQL().Get().WithClassName(class).WithNearVector(nv).WithLimit(k).
		WithFields(graphql.Field{Name: propID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}}})
	return s.query(ctx, class, "nearVector search", q, func(add map[string]any) (float64, error) {
		d, err := number(add["distance"])
		if err != nil {
			return 0, err
		}
		if metric == vector.Dot {
			return -d, nil
		}
		return 1 - d, nil
	})
}

// SearchKeyword returns the k best documents for text by Weaviate's BM25
// over the text property; none for a text without words.
func (s *Store) SearchKeyword(ctx context.Context, text string, k int) ([]lasagna.Hit, error) {
	class, _, err := s.openClass("SearchKeyword")
	if err != nil || k <= 0 {
		return nil, err
	}
	text = cleanQuery(text)
	if text == "" {
		return nil, nil
	}
	bm := s.client.GraphQL().Bm25ArgBuilder().WithQuery(text).WithProperties(propText)
	q := s.client.GraphQL().Get().WithClassName(class).WithBM25(bm).WithLimit(k).
		WithFields(graphql.Field{Name: propID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}}})
	return s.query(ctx, class, "BM25 search", q, func(add map[string]any) (float64, error) { return number(add["score"]) })
}

// SearchHybrid returns the k best documents by Weaviate's hybrid search:
// its fusion (relative score) of BM25 over text and the vector search by
// v, alpha 1 pure vector, 0 pure keyword.
func (s *Store) SearchHybrid(ctx context.Context, text string, v []float32, k int, alpha float64) ([]lasagna.Hit, error) {
	class, metric, err := s.openClass("SearchHybrid")
	if err != nil || k <= 0 {
		return nil, err
	}
	if math.IsNaN(alpha) || alpha < 0 || alpha > 1 {
		return nil, fmt.Errorf("weaviate: hybrid alpha %v is outside [0, 1]; 1 is pure vector search, 0 pure keyword search", alpha)
	}
	if err := checkVector("the query vector", v, 0, metric); err != nil {
		return nil, fmt.Errorf("%v (hybrid search needs the query's vector: the collection has no vectorizer)", err)
	}
	h := s.client.GraphQL().HybridArgumentBuilder().WithQuery(cleanQuery(text)).WithVector(v).
		WithAlpha(float32(alpha)).WithProperties([]string{propText})
	q := s.client.GraphQL().Get().WithClassName(class).WithHybrid(h).WithLimit(k).
		WithFields(graphql.Field{Name: propID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}}})
	return s.query(ctx, class, "hybrid search", q, func(add map[string]any) (float64, error) { return number(add["score"]) })
}

func (s *Store) openClass(op string) (string, vector.Metric, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.class == "" {
		return "", "", fmt.Errorf("weaviate: %s before Open; open the collection first", op)
	}
	return s.class, s.metric0, nil
}

// cleanQuery makes text safe for the client's GraphQL string: valid
// UTF-8, control characters as spaces; "" when no word is left.
func cleanQuery(text string) string {
	text = strings.ToValidUTF8(text, " ")
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, text)
	return strings.TrimSpace(text)
}

func number(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case json.Number:
		return x.Float64()
	case string:
		return strconv.ParseFloat(x, 64)
	}
	return 0, fmt.Errorf("not a number: %v", v)
}

type getQuery interface {
	Do(ctx context.Context) (*models.GraphQLResponse, error)
}

func (s *Store) query(ctx context.Context, class, what string, q getQuery, score func(map[string]any) (float64, error)) ([]lasagna.Hit, error) {
	var resp *models.GraphQLResponse
	err := s.retry(ctx, func() error {
		var err error
		resp, err = q.Do(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, s.fail(class, what, err, s.reachFix(err, false))
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, 0, len(resp.Errors))
		for _, e := range resp.Errors {
			if e != nil {
				msgs = append(msgs, e.Message)
			}
		}
		return nil, s.fail(class, what, errors.New(strings.Join(msgs, "; ")), "check that the class exists (run again to recreate it) and the server's log")
	}
	get, _ := resp.Data["Get"].(map[string]any)
	rows, _ := get[class].([]any)
	hits := make([]lasagna.Hit, 0, len(rows))
	for _, r := range rows {
		row, _ := r.(map[string]any)
		id, _ := row[propID].(string)
		add, _ := row["_additional"].(map[string]any)
		sc, err := score(add)
		if err != nil || id == "" {
			return nil, s.fail(class, what, fmt.Errorf("malformed result %v", row), "check that the class was made by lasagna")
		}
		hits = append(hits, lasagna.Hit{ID: id, Score: sc})
	}
	slices.SortStableFunc(hits, func(a, b lasagna.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(b.ID, a.ID)
	})
	return hits, nil
}

// count returns the number of objects of class.
func (s *Store) count(ctx context.Context, class string) (int, error) {
	q := s.client.GraphQL().Aggregate().WithClassName(class).
		WithFields(graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}})
	var resp *models.GraphQLResponse
	err := s.retry(ctx, func() error {
		var err error
		resp, err = q.Do(ctx)
		return err
	})
	if err == nil && len(resp.Errors) > 0 {
		err = errors.New(resp.Errors[0].Message)
	}
	if err != nil {
		return 0, s.fail(class, "count the objects", err, s.reachFix(err, false))
	}
	agg, _ := resp.Data["Aggregate"].(map[string]any)
	rows, _ := agg[class].([]any)
	if len(rows) == 0 {
		return 0, nil
	}
	row, _ := rows[0].(map[string]any)
	meta, _ := row["meta"].(map[string]any)
	n, err := number(meta["count"])
	if err != nil {
		return 0, s.fail(class, "count the objects", err, "check the server's log")
	}
	return int(n), nil
}

// Package pgvector is a vector_backend that keeps a corpus's vectors in a
// PostgreSQL database with the pgvector extension, the database a team
// already runs: Open connects to it, and the returned *Store implements
// vector.Store.
//
// # Tables
//
// Each collection is a table named by its vector.Collection.Name (quoted),
// with columns id (text, the primary key) and embedding (vector(dim), the
// dimension set by the first vector added). The table lasagna_collections
// records, per collection, its fingerprint, document count, embedder,
// metric, dimension, whether it was sealed, and the index built at Seal, so
// that a rerun's Open reports the State to reuse. DropCommand states the
// psql command that drops a collection.
//
// # Ingest
//
// Add upserts in batches of Config.BatchSize rows, each one multi-row
// INSERT … ON CONFLICT (id) DO UPDATE: adding an id again replaces its
// vector, and a batch retried after a lost connection stores the same
// rows. Transient failures (a lost or refused connection, a serialization
// failure or deadlock, too many connections, a server starting up) are
// retried with exponential backoff, up to five attempts per statement. COPY
// is not used: PGlite's wire server, which the tests run against, stalls
// on it.
//
// # Index and search
//
// Seal builds an HNSW index with explicit parameters (Config.Index; zero
// fields take m 32, ef_construction 400 and ef_search 800),
// vector_cosine_ops for vector.Cosine and vector_ip_ops for vector.Dot.
// Search sets hnsw.ef_search before each query, turns off sequential
// scans (the planner would otherwise scan a small table exactly, and the
// run would not be the one Describe records), and orders by the metric's
// distance operator (<=> or <#>); the score is 1 − cosine distance, or the
// inner product. Equal scores among the k hits are ordered by descending
// id, as the exact index orders them (which of several equal-scored rows
// at the k-th place make the cut is the index's choice).
//
// # Connections and secrets
//
// The DSN never holds a password: pgx reads PGPASSWORD (or ~/.pgpass)
// itself, and Open refuses a DSN with one. Errors name the DSN with any
// password removed. Unless the DSN sets default_query_exec_mode, Open uses
// pgx's "exec" mode (no named prepared statements), which works through
// connection poolers and PGlite's wire server, where every connection
// shares one session.
package pgvector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/lasagna-go/lasagna"
	pgdsn "github.com/lasagna-go/lasagna/internal/dsn"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// The HNSW defaults, chosen on BenchmarkConformance50k (BENCHMARKS.md):
// 50,000 vectors of the fake embedder (64 dimensions) and 1,000 short
// questions. There, recall@10 against the exact index is 0.9974 with
// these, 0.989 with ef_search 400, and the smaller graph m=16,
// ef_construction=200 reaches only 0.984 at ef_search 800. Short
// questions embed to sparse vectors under the fake embedder, a hard case
// for HNSW; a search costs about 12 ms of PGlite's CPU at ef_search 800.
const (
	defaultM              = 32
	defaultEfConstruction = 400
	defaultEfSearch       = 800
	// defaultBatchSize is the number of rows per INSERT.
	defaultBatchSize = 500
)

// metaTable is the table that records each collection's state.
const metaTable = "lasagna_collections"

// maxAttempts bounds the tries of one statement on transient errors.
const maxAttempts = 5

// Config configures Open.
type Config struct {
	// DSN is a PostgreSQL connection string (postgres://user@host:port/db
	// or key=value form) without a password; set PGPASSWORD instead.
	DSN string
	// Index sets the HNSW parameters; a zero field takes its default.
	Index vector.HNSW
	// Metric is used when the collection does not name one; "" is
	// vector.Cosine.
	Metric vector.Metric
	// BatchSize is the number of rows per INSERT; 0 is 500.
	BatchSize int
}

// Store is a vector.Store in a PostgreSQL database with pgvector. It holds
// one collection at a time, the one last given to Open (the method). Its
// methods are safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	dsn     string // without a password, for messages
	index   vector.HNSW
	metric  vector.Metric
	batch   int
	version string

	mu       sync.Mutex
	coll     vector.Collection
	opened   bool
	dim      int  // the table's dimension, 0 before the table exists
	unsealed bool // the seal was cleared since Open
}

var _ vector.Store = (*Store)(nil)

// Open connects to the database cfg.DSN names, creates the vector extension
// and the lasagna_collections table when they do not exist, and reads the
// server's versions for Describe.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	dsn := strings.TrimSpace(cfg.DSN)
	if dsn == "" {
		return nil, errors.New("pgvector: the DSN is empty; set vector_backend's dsn to a PostgreSQL connection string such as postgres://user@host:5432/dbname (the password goes in PGPASSWORD)")
	}
	shown := pgdsn.Redact(dsn)
	if pgdsn.HasPassword(dsn) {
		return nil, fmt.Errorf("pgvector: the DSN %s holds a password; remove it from the DSN and set the environment variable PGPASSWORD instead, so that the password never reaches a sweep file or a bundle", shown)
	}
	ix, err := hnswParams(cfg.Index)
	if err != nil {
		return nil, err
	}
	metric, err := vector.MetricOr(cfg.Metric, vector.Cosine)
	if err != nil {
		return nil, fmt.Errorf("pgvector: %w", err)
	}
	batch := cfg.BatchSize
	if batch < 0 {
		return nil, fmt.Errorf("pgvector: BatchSize %d is negative; give a positive number of rows per INSERT, or 0 for %d", batch, defaultBatchSize)
	}
	if batch == 0 {
		batch = defaultBatchSize
	}
	// Two parameters per row; PostgreSQL allows 65535 per statement.
	batch = min(batch, 32767)

	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgvector: cannot parse the DSN %s: %v; write it as postgres://user@host:5432/dbname or host=… user=… dbname=…", shown, pgdsn.RedactIn(err.Error(), dsn))
	}
	if !strings.Contains(dsn, "default_query_exec_mode") {
		pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = 15 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("pgvector: cannot connect to %s: %v", shown, pgdsn.RedactIn(err.Error(), dsn))
	}
	s := &Store{pool: pool, dsn: shown, index: ix, metric: metric, batch: batch}
	if err := s.setup(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) setup(ctx context.Context) error {
	err := s.retry(ctx, func(ctx context.Context) error { return s.pool.Ping(ctx) })
	if err != nil {
		return fmt.Errorf("pgvector: cannot connect to %s: %w; check that the server runs and accepts connections there, and that PGPASSWORD holds the user's password when the server asks for one", s.dsn, err)
	}
	err = s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector")
		return ignoreDuplicate(err)
	})
	if err != nil {
		return fmt.Errorf("pgvector: CREATE EXTENSION vector on %s failed: %w; install pgvector on the server (Debian: postgresql-NN-pgvector) and connect as a user allowed to create the extension, or have an administrator run CREATE EXTENSION vector in that database", s.dsn, err)
	}
	err = s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+metaTable+` (
	name text PRIMARY KEY,
	fingerprint text NOT NULL DEFAULT '',
	documents integer NOT NULL DEFAULT 0,
	embedder text NOT NULL DEFAULT '',
	metric text NOT NULL DEFAULT '',
	dim integer NOT NULL DEFAULT 0,
	sealed boolean NOT NULL DEFAULT false,
	hnsw text NOT NULL DEFAULT '',
	updated timestamptz NOT NULL DEFAULT now()
)`)
		return ignoreDuplicate(err)
	})
	if err != nil {
		return fmt.Errorf("pgvector: creating table %s on %s failed: %w; connect as a user allowed to create tables in that database", metaTable, s.dsn, err)
	}
	var ext, server string
	err = s.retry(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, "SELECT extversion, current_setting('server_version') FROM pg_extension WHERE extname = 'vector'").Scan(&ext, &server)
	})
	if err != nil {
		return fmt.Errorf("pgvector: reading the pgvector and server versions on %s failed: %w", s.dsn, err)
	}
	if f := strings.Fields(server); len(f) > 0 {
		server = f[0]
	}
	s.version = ext + " PostgreSQL " + server
	return nil
}

// hnswParams fills the defaults into h and checks the ranges pgvector
// accepts.
func hnswParams(h vector.HNSW) (vector.HNSW, error) {
	if h.M == 0 {
		h.M = defaultM
	}
	if h.EfConstruction == 0 {
		h.EfConstruction = max(defaultEfConstruction, 2*h.M)
	}
	if h.EfSearch == 0 {
		h.EfSearch = defaultEfSearch
	}
	switch {
	case h.M < 2 || h.M > 100:
		return h, fmt.Errorf("pgvector: HNSW m %d is outside pgvector's range 2–100; leave it 0 for %d", h.M, defaultM)
	case h.EfConstruction < 2*h.M || h.EfConstruction > 1000:
		return h, fmt.Errorf("pgvector: HNSW ef_construction %d must be at least 2·m (%d) and at most 1000; leave it 0 for %d", h.EfConstruction, 2*h.M, defaultEfConstruction)
	case h.EfSearch < 1 || h.EfSearch > 1000:
		return h, fmt.Errorf("pgvector: HNSW ef_search %d is outside pgvector's range 1–1000; leave it 0 for %d", h.EfSearch, defaultEfSearch)
	}
	return h, nil
}

// Describe names the backend, the server's versions and the index.
func (s *Store) Describe() vector.Description {
	s.mu.Lock()
	m := s.metric
	if s.opened && s.coll.Metric != "" {
		m = s.coll.Metric
	}
	s.mu.Unlock()
	return vector.Description{Name: "pgvector", ServerVersion: s.version, Index: s.indexString(m)}
}

func (s *Store) indexString(m vector.Metric) string {
	return fmt.Sprintf("hnsw m=%d ef_construction=%d ef_search=%d %s", s.index.M, s.index.EfConstruction, s.index.EfSearch, m)
}

// builtString states what the index build depends on (not ef_search, a
// search-time setting), as lasagna_collections records it.
func (s *Store) builtString(m vector.Metric) string {
	return fmt.Sprintf("hnsw m=%d ef_construction=%d %s", s.index.M, s.index.EfConstruction, m)
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })

// indexSuffix names a collection's HNSW index: the table's name and this.
const indexSuffix = "_hnsw"

// Open makes c the store's collection and reports what the database holds
// of it. A sealed collection whose index was built with another m,
// ef_construction or metric gets its index rebuilt here (ef_search is set
// per search and needs no rebuild).
func (s *Store) Open(ctx context.Context, c vector.Collection) (vector.State, error) {
	if !validName().MatchString(c.Name) || len(c.Name)+len(indexSuffix) > 63 {
		return vector.State{}, fmt.Errorf("pgvector: collection name %q is not a table name this adapter creates; use lower-case ASCII letters, digits and underscores, starting with a letter, at most %d characters (vector.CollectionName makes one)", c.Name, 63-len(indexSuffix))
	}
	m, err := vector.MetricOr(c.Metric, s.metric)
	if err != nil {
		return vector.State{}, fmt.Errorf("pgvector: collection %s: %w", c.Name, err)
	}
	c.Metric = m
	table := quote(c.Name)
	var st vector.State
	var metric, hnsw string
	var dim int
	var row bool
	err = s.retry(ctx, func(ctx context.Context) error {
		st, metric, hnsw, dim, row = vector.State{}, "", "", 0, false
		var exists bool
		if err := s.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil {
			return err
		}
		st.Exists = exists
		err := s.pool.QueryRow(ctx, "SELECT fingerprint, documents, metric, hnsw, sealed FROM "+metaTable+" WHERE name = $1", c.Name).
			Scan(&st.Fingerprint, &st.Documents, &metric, &hnsw, &st.Sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			st.Fingerprint, st.Documents, st.Sealed = "", 0, false
			err = nil
		} else if err == nil {
			row = true
		}
		if err != nil || !exists {
			return err
		}
		dim, err = s.tableDim(ctx, c.Name)
		return err
	})
	if err != nil {
		return vector.State{}, s.fail("reading the state of", c.Name, err)
	}
	if !st.Exists {
		// A record without its table (dropped by hand) says nothing.
		st = vector.State{}
	}
	if !row || !st.Exists {
		err = s.retry(ctx, func(ctx context.Context) error {
			_, err := s.pool.Exec(ctx, "INSERT INTO "+metaTable+" (name, embedder, metric, dim) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO UPDATE SET fingerprint = '', documents = 0, embedder = EXCLUDED.embedder, metric = EXCLUDED.metric, dim = EXCLUDED.dim, sealed = false, hnsw = '', updated = now()",
				c.Name, c.Embedder, string(c.Metric), dim)
			return err
		})
		if err != nil {
			return vector.State{}, s.fail("recording", c.Name, err)
		}
	}
	s.mu.Lock()
	s.coll, s.opened, s.dim, s.unsealed = c, true, dim, false
	s.mu.Unlock()
	if st.Sealed && (hnsw != s.builtString(c.Metric) || metric != string(c.Metric)) {
		if err := s.buildIndex(ctx, c); err != nil {
			return vector.State{}, err
		}
	}
	return st, nil
}

// tableDim returns the dimension of the embedding column of table name.
func (s *Store) tableDim(ctx context.Context, name string) (int, error) {
	var typmod int
	err := s.pool.QueryRow(ctx, "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped", quote(name)).Scan(&typmod)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("table %s has no column embedding; it was not made by lasagna, so drop or rename it (DROP TABLE %s) or use another collection name", quote(name), quote(name))
	}
	return max(typmod, 0), err
}

// current returns the opened collection and the table's dimension.
func (s *Store) current() (vector.Collection, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened {
		return vector.Collection{}, 0, errors.New("pgvector: no collection is open; call Open(ctx, collection) on the Store before Add, Search or Seal")
	}
	return s.coll, s.dim, nil
}

// check returns an error naming the vector (what) when v cannot be stored
// in or searched against table's dim-dimensional vectors.
func check(what string, v []float32, dim int, m vector.Metric, table string) error {
	if len(v) != 0 && dim != 0 && len(v) != dim {
		return fmt.Errorf("pgvector: %s has %d dimensions, but table %s holds %d-dimensional vectors; embed every text with the same model, or drop the table to start over (DROP TABLE %s)", what, len(v), table, dim, table)
	}
	if len(v) > 16000 {
		return fmt.Errorf("pgvector: %s has %d dimensions; pgvector's vector type holds at most 16000", what, len(v))
	}
	if err := vector.CheckVector(what, v, m); err != nil {
		return fmt.Errorf("pgvector: %w", err)
	}
	return nil
}

// Add upserts vectors[i] under ids[i] into the collection's table, creating
// the table with the first vector's dimension. It checks the whole batch
// before storing any of it; an id given twice keeps its last vector. It
// clears the collection's seal: Seal records it again after the ingest.
func (s *Store) Add(ctx context.Context, ids []string, vectors [][]float32) error {
	c, dim, err := s.current()
	if err != nil {
		return err
	}
	table := quote(c.Name)
	if len(ids) != len(vectors) {
		return fmt.Errorf("pgvector: %d ids but %d vectors for table %s; give one vector per id", len(ids), len(vectors), table)
	}
	if len(ids) == 0 {
		return ctx.Err()
	}
	last := make(map[string]int, len(ids))
	d := dim
	for i, id := range ids {
		if id == "" {
			return fmt.Errorf("pgvector: id %d of the batch (0-based) for table %s is empty; give every vector an id", i, table)
		}
		if err := check(fmt.Sprintf("vector %q", id), vectors[i], d, c.Metric, table); err != nil {
			return err
		}
		d = len(vectors[i])
		last[id] = i
	}
	if dim == 0 {
		if err := s.createTable(ctx, c, d); err != nil {
			return err
		}
	}
	if err := s.unseal(ctx, c); err != nil {
		return err
	}
	rows := make([]int, 0, len(last))
	for i, id := range ids {
		if last[id] == i {
			rows = append(rows, i)
		}
	}
	for start := 0; start < len(rows); start += s.batch {
		chunk := rows[start:min(start+s.batch, len(rows))]
		var sql strings.Builder
		sql.WriteString("INSERT INTO " + table + " (id, embedding) VALUES ")
		args := make([]any, 0, 2*len(chunk))
		for j, i := range chunk {
			if j > 0 {
				sql.WriteByte(',')
			}
			fmt.Fprintf(&sql, "($%d,$%d::vector)", 2*j+1, 2*j+2)
			args = append(args, ids[i], pgv.NewVector(vectors[i]))
		}
		sql.WriteString(" ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding")
		q := sql.String()
		err := s.retry(ctx, func(ctx context.Context) error {
			_, err := s.pool.Exec(ctx, q, args...)
			return err
		})
		if err != nil {
			return fmt.Errorf("pgvector: storing %d vectors (ids %q to %q) in table %s on %s failed: %w; %d of this call's %d vectors were stored before it, and adding them again is safe", len(chunk), ids[chunk[0]], ids[chunk[len(chunk)-1]], table, s.dsn, err, start, len(rows))
		}
	}
	return nil
}

// createTable creates c's table for dim-dimensional vectors, or checks the
// dimension of the one another process created meanwhile.
func (s *Store) createTable(ctx context.Context, c vector.Collection, dim int) error {
	table := quote(c.Name)
	got := 0
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (id text PRIMARY KEY, embedding vector(%d) NOT NULL)", table, dim))
		if err = ignoreDuplicate(err); err != nil {
			return err
		}
		if got, err = s.tableDim(ctx, c.Name); err != nil {
			return err
		}
		_, err = s.pool.Exec(ctx, "UPDATE "+metaTable+" SET dim = $2, updated = now() WHERE name = $1", c.Name, got)
		return err
	})
	if err != nil {
		return s.fail("creating", c.Name, err)
	}
	s.mu.Lock()
	if s.opened && s.coll.Name == c.Name {
		s.dim = got
	}
	s.mu.Unlock()
	if got != dim {
		return fmt.Errorf("pgvector: the vectors have %d dimensions, but table %s holds %d-dimensional vectors; embed every text with the same model, or drop the table to start over (DROP TABLE %s)", dim, table, got, table)
	}
	return nil
}

// unseal clears the collection's seal before its first Add since Open.
func (s *Store) unseal(ctx context.Context, c vector.Collection) error {
	s.mu.Lock()
	done := s.unsealed
	s.mu.Unlock()
	if done {
		return nil
	}
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "UPDATE "+metaTable+" SET sealed = false, updated = now() WHERE name = $1", c.Name)
		return err
	})
	if err != nil {
		return s.fail("clearing the seal of", c.Name, err)
	}
	s.mu.Lock()
	s.unsealed = true
	s.mu.Unlock()
	return nil
}

// Seal checks that the collection's table holds stored rows, builds its
// HNSW index and records the fingerprint and count.
func (s *Store) Seal(ctx context.Context, c vector.Collection, stored int) error {
	cur, _, err := s.current()
	if err != nil {
		return err
	}
	if c.Name != cur.Name {
		return fmt.Errorf("pgvector: Seal of collection %s, but the open collection is %s; call Open with it first", c.Name, cur.Name)
	}
	if c.Metric == "" {
		c.Metric = cur.Metric
	}
	table := quote(c.Name)
	var rows int
	err = s.retry(ctx, func(ctx context.Context) error {
		if exists, err := s.tableExists(ctx, c.Name); err != nil || !exists {
			rows = 0
			return err
		}
		return s.pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&rows)
	})
	if err != nil {
		return s.fail("counting the rows of", c.Name, err)
	}
	if rows != stored {
		return fmt.Errorf("pgvector: Seal says %d documents were stored, but table %s on %s holds %d rows; drop the table (DROP TABLE %s) and run again to ingest the corpus anew", stored, table, s.dsn, rows, table)
	}
	if rows > 0 {
		if err := s.buildIndex(ctx, c); err != nil {
			return err
		}
	}
	err = s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "UPDATE "+metaTable+" SET fingerprint = $2, documents = $3, embedder = $4, metric = $5, sealed = true, updated = now() WHERE name = $1",
			c.Name, c.Fingerprint, stored, c.Embedder, string(c.Metric))
		return err
	})
	if err != nil {
		return s.fail("recording the seal of", c.Name, err)
	}
	return nil
}

func (s *Store) tableExists(ctx context.Context, name string) (bool, error) {
	var exists bool
	err := s.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", quote(name)).Scan(&exists)
	return exists, err
}

// opclass returns pgvector's operator class and distance operator for m.
func opclass(m vector.Metric) (ops, op string) {
	if m == vector.Dot {
		return "vector_ip_ops", "<#>"
	}
	return "vector_cosine_ops", "<=>"
}

// buildIndex (re)builds c's HNSW index with the store's parameters and
// records them.
func (s *Store) buildIndex(ctx context.Context, c vector.Collection) error {
	table, index := quote(c.Name), quote(c.Name+indexSuffix)
	ops, _ := opclass(c.Metric)
	desc := s.builtString(c.Metric)
	var have string
	err := s.retry(ctx, func(ctx context.Context) error {
		have = ""
		err := s.pool.QueryRow(ctx, "SELECT hnsw FROM "+metaTable+" WHERE name = $1", c.Name).Scan(&have)
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
		if err != nil {
			return err
		}
		if have != desc {
			if _, err := s.pool.Exec(ctx, "DROP INDEX IF EXISTS "+index); err != nil {
				return err
			}
		}
		_, err = s.pool.Exec(ctx, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s USING hnsw (embedding %s) WITH (m = %d, ef_construction = %d)",
			index, table, ops, s.index.M, s.index.EfConstruction))
		if err = ignoreDuplicate(err); err != nil {
			return err
		}
		if _, err := s.pool.Exec(ctx, "ANALYZE "+table); err != nil {
			return err
		}
		_, err = s.pool.Exec(ctx, "UPDATE "+metaTable+" SET hnsw = $2, metric = $3, updated = now() WHERE name = $1", c.Name, desc, string(c.Metric))
		return err
	})
	if err != nil {
		return s.fail("building the HNSW index ("+desc+") of", c.Name, err)
	}
	return nil
}

// Search returns the k stored ids nearest to v, best first, ties by
// descending id; none when k ≤ 0 or nothing is stored. Above k = 1000
// (pgvector's largest ef_search) it scans the table exactly.
func (s *Store) Search(ctx context.Context, v []float32, k int) ([]lasagna.Hit, error) {
	c, dim, err := s.current()
	if err != nil {
		return nil, err
	}
	if k <= 0 || dim == 0 {
		return nil, ctx.Err()
	}
	table := quote(c.Name)
	if err := check("the query vector", v, dim, c.Metric, table); err != nil {
		return nil, err
	}
	_, op := opclass(c.Metric)
	order := "embedding " + op + " $1::vector"
	if k > 1000 {
		order = "(" + order + ") + 0" // not the index's expression: an exact scan
	}
	q := fmt.Sprintf("SELECT id, embedding %s $1::vector FROM %s ORDER BY %s LIMIT %d", op, table, order, k)
	// enable_seqscan off: the planner would scan a small table exactly
	// instead of using the index, and the run would not be the one
	// Describe records.
	set := fmt.Sprintf("SET hnsw.ef_search = %d; SET enable_seqscan = off", max(s.index.EfSearch, min(k, 1000)))
	qv := pgv.NewVector(v)
	var hits []lasagna.Hit
	err = s.retry(ctx, func(ctx context.Context) error {
		hits = hits[:0]
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, set); err != nil {
			return err
		}
		rows, err := conn.Query(ctx, q, qv)
		if err != nil {
			return err
		}
		var id string
		var dist float64
		_, err = pgx.ForEachRow(rows, []any{&id, &dist}, func() error {
			score := -dist // <#> is the negative inner product
			if c.Metric != vector.Dot {
				score = 1 - dist
			}
			hits = append(hits, lasagna.Hit{ID: id, Score: score})
			return nil
		})
		return err
	})
	if err != nil {
		return nil, s.fail("searching", c.Name, err)
	}
	slices.SortStableFunc(hits, func(a, b lasagna.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return hits, nil
}

// fail wraps err from doing what to table name.
func (s *Store) fail(what, name string, err error) error {
	return fmt.Errorf("pgvector: %s table %s on %s failed: %w%s", what, quote(name), s.dsn, err, hint(err))
}

// hint suggests a fix for the errors a user can act on.
func hint(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "42501":
			return "; connect as a user allowed to create and write tables in that database"
		case pe.Code == "53100" || pe.Code == "53200":
			return "; the server ran out of disk or memory: free some, or raise maintenance_work_mem for the index build"
		case strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01":
			return "; the connection was lost: check that the server runs, then run again (the ingest resumes safely)"
		}
		return ""
	}
	if transient(err) {
		return "; check that the server runs and accepts connections there, then run again (the ingest resumes safely)"
	}
	return ""
}

// retry runs f until it succeeds, fails with an error that is not
// transient, or has run maxAttempts times, waiting 100 ms, 200 ms, 400 ms, …
// (with jitter) between attempts.
func (s *Store) retry(ctx context.Context, f func(context.Context) error) error {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f(ctx)
		if err == nil || attempt == maxAttempts || !transient(err) || ctx.Err() != nil {
			if err != nil && ctx.Err() != nil {
				return fmt.Errorf("%w (%v)", ctx.Err(), err)
			}
			return err
		}
		d := wait/2 + rand.N(wait)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%v)", ctx.Err(), err)
		case <-time.After(d):
		}
		wait = min(2*wait, 3*time.Second)
	}
}

// transient reports whether err may go away when the statement is tried
// again: every statement of this package is idempotent, so a statement
// whose outcome is unknown may be sent again.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", "40P01", "53300", "57P01", "57P02", "57P03", "55P03":
			return true
		}
		return strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return pgconn.SafeToRetry(err) || errors.As(err, &ce) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// ignoreDuplicate drops the error of an IF NOT EXISTS statement that raced
// another session creating the same object.
func ignoreDuplicate(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P07" || pe.Code == "42710") {
		return nil
	}
	return err
}

// quote returns name as a quoted SQL identifier.
func quote(name string) string { return pgx.Identifier{name}.Sanitize() }

// DropCommand returns the psql command that drops collection c's table
// (Open forgets a lasagna_collections record whose table is gone). It names
// the DSN without a password and without pgx's own parameters, which psql
// does not know; credentials come from the environment.
func (s *Store) DropCommand(c vector.Collection) string {
	return "psql " + shellQuote(psqlDSN(s.dsn)) + " -c " + shellQuote("DROP TABLE IF EXISTS "+quote(c.Name))
}

// pgxParams are the DSN parameters pgx reads and libpq (psql) rejects.
var pgxParams = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(default_query_exec_mode|statement_cache_capacity|description_cache_capacity|pool_[a-z_]+|min_read_buffer_size)$`)
})

// psqlDSN returns dsn without pgx's own parameters.
func psqlDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for k := range q {
			if pgxParams().MatchString(k) {
				q.Del(k)
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	var keep []string
	for _, f := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(f, "="); ok && pgxParams().MatchString(k) {
			continue
		}
		keep = append(keep, f)
	}
	return strings.Join(keep, " ")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

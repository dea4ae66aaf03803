package pgvector_test

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/pglitetest"
	"github.com/lasagna-go/lasagna/retrieval/pgvector"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// TestPGlite runs the adapter against a real PostgreSQL with pgvector
// (PGlite over the wire protocol), one server for all subtests; each
// subtest uses collections of its own.
func TestPGlite(t *testing.T) {
	srv := pglitetest.Start(t)
	dsn := srv.DSN
	t.Run("UpsertIsIdempotent", func(t *testing.T) { testUpsert(t, dsn) })
	t.Run("ReuseAfterSeal", func(t *testing.T) { testReuse(t, dsn) })
	t.Run("IndexRebuiltForOtherParameters", func(t *testing.T) { testRebuild(t, dsn) })
	t.Run("DimensionMismatch", func(t *testing.T) { testDimension(t, dsn) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, dsn) })
	t.Run("TiesByDescendingID", func(t *testing.T) { testTies(t, dsn) })
	t.Run("Dot", func(t *testing.T) { testDot(t, dsn) })
	t.Run("DropCommand", func(t *testing.T) { testDrop(t, dsn) })
	t.Run("ConnectionLost", func(t *testing.T) { testConnectionLost(t, dsn, srv.Addr) })
	t.Run("ConformanceWithExactIndex", func(t *testing.T) { testConformance(t, dsn) })
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func open(t *testing.T, dsn string, cfg pgvector.Config) *pgvector.Store {
	t.Helper()
	cfg.DSN = dsn
	s, err := pgvector.Open(ctxFor(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func coll(name string, docs int) vector.Collection {
	return vector.Collection{Name: name, Fingerprint: strings.Repeat("ab", 32), Documents: docs, Embedder: "hash-8", Metric: vector.Cosine}
}

func ids(hits []lasagna.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// withConn runs f on a connection of its own to dsn, closed after.
func withConn(t *testing.T, dsn string, f func(ctx context.Context, conn *pgx.Conn) error) {
	t.Helper()
	ctx := ctxFor(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := f(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

func rowCount(t *testing.T, dsn, table string) int {
	t.Helper()
	var n int
	withConn(t, dsn, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n)
	})
	return n
}

func indexDef(t *testing.T, dsn, table string) string {
	t.Helper()
	var def string
	withConn(t, dsn, func(ctx context.Context, conn *pgx.Conn) error {
		err := conn.QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE tablename = $1 AND indexname = $2", table, table+"_hnsw").Scan(&def)
		if err == pgx.ErrNoRows {
			return nil
		}
		return err
	})
	return def
}

func testUpsert(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	s := open(t, dsn, pgvector.Config{BatchSize: 2})
	c := coll("upsert_t", 3)
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	// Three batches of two rows; "b" is given twice in one call and
	// keeps its last vector.
	err := s.Add(ctx, []string{"a", "b", "c", "b"}, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	// Adding again replaces: "c" now points along x.
	if err := s.Add(ctx, []string{"c", "a"}, [][]float32{{1, 0, 0.1}, {1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, dsn, "upsert_t"); n != 3 {
		t.Errorf("table holds %d rows after upserting ids a, b, c twice, want 3", n)
	}
	hits, err := s.Search(ctx, []float32{0, 0, 1}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// cos(c=(1,0,0.1), z) = 0.0995, cos(b=(1,1,0), z) = 0, cos(a, z) = 0.
	want := []string{"c", "b", "a"}
	if got := ids(hits); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Search(z) = %v, want %v", got, want)
	}
	if d := hits[0].Score - 0.1/math.Sqrt(1.01); math.Abs(d) > 1e-6 {
		t.Errorf("score of c = %v, want %v", hits[0].Score, 0.1/math.Sqrt(1.01))
	}
}

func testReuse(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	c := coll("reuse_t", 3)
	{
		s := open(t, dsn, pgvector.Config{})
		st, err := s.Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if st != (vector.State{}) {
			t.Fatalf("Open of a new collection = %+v, want the zero State", st)
		}
		if err := s.Add(ctx, []string{"a", "b", "c"}, [][]float32{{1, 0}, {0, 1}, {1, 1}}); err != nil {
			t.Fatal(err)
		}
		err = s.Seal(ctx, c, 2)
		if err == nil || !strings.Contains(err.Error(), `table "reuse_t"`) || !strings.Contains(err.Error(), "holds 3 rows") || !strings.Contains(err.Error(), "DROP TABLE") {
			t.Errorf("Seal with 2 stored but 3 rows: err = %v, want one naming the table, the 3 rows and the fix", err)
		}
		if err := s.Seal(ctx, c, 3); err != nil {
			t.Fatal(err)
		}
		d := s.Describe()
		if d.Name != "pgvector" || !regexp.MustCompile(`^\d+\.\d+\.\d+ PostgreSQL \d+\.\d+$`).MatchString(d.ServerVersion) ||
			d.Index != "hnsw m=32 ef_construction=400 ef_search=800 cosine" {
			t.Errorf("Describe() = %+v, want pgvector, \"pgvector X.Y.Z PostgreSQL N.M\", the default HNSW parameters", d)
		}
		if def := indexDef(t, dsn, "reuse_t"); !strings.Contains(def, "USING hnsw (embedding vector_cosine_ops) WITH (m='32', ef_construction='400')") {
			t.Errorf("index after Seal = %q, want HNSW with vector_cosine_ops, m=32, ef_construction=400", def)
		}
	}
	s := open(t, dsn, pgvector.Config{})
	st, err := s.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := vector.State{Exists: true, Sealed: true, Fingerprint: c.Fingerprint, Documents: 3}
	if st != want {
		t.Fatalf("Open after Seal = %+v, want %+v", st, want)
	}
	// A reused collection searches without another Add.
	hits, err := s.Search(ctx, []float32{1, 0}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("Search after reuse = %v, %v, want [a]", hits, err)
	}
	// An Add clears the seal until the next Seal.
	if err := s.Add(ctx, []string{"d"}, [][]float32{{2, 1}}); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dsn, pgvector.Config{})
	st, err = s2.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sealed || !st.Exists {
		t.Errorf("Open after an Add past the Seal = %+v, want Exists and not Sealed", st)
	}
}

func testRebuild(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	c := coll("rebuild_t", 2)
	s := open(t, dsn, pgvector.Config{})
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []string{"a", "b"}, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 2); err != nil {
		t.Fatal(err)
	}
	s8 := open(t, dsn, pgvector.Config{Index: vector.HNSW{M: 8, EfConstruction: 64, EfSearch: 40}})
	st, err := s8.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Sealed {
		t.Errorf("Open with other index parameters = %+v, want the seal kept", st)
	}
	if def := indexDef(t, dsn, "rebuild_t"); !strings.Contains(def, "WITH (m='8', ef_construction='64')") {
		t.Errorf("index after Open with m=8 = %q, want it rebuilt with m=8, ef_construction=64", def)
	}
	if got := s8.Describe().Index; got != "hnsw m=8 ef_construction=64 ef_search=40 cosine" {
		t.Errorf("Describe().Index = %q", got)
	}
}

func testDimension(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	c := coll("dim_t", 2)
	s := open(t, dsn, pgvector.Config{})
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []string{"a"}, [][]float32{{1, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error for a 3-dimensional vector in a 4-dimensional table")
		}
		for _, w := range []string{`"b"`, "3 dimensions", `table "dim_t"`, "4-dimensional", "same model", `DROP TABLE "dim_t"`} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
	}
	check(s.Add(ctx, []string{"b"}, [][]float32{{1, 0, 0}}))
	// Another Store learns the dimension from the table.
	s2 := open(t, dsn, pgvector.Config{})
	if _, err := s2.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	check(s2.Add(ctx, []string{"b"}, [][]float32{{1, 0, 0}}))
	if _, err := s2.Search(ctx, []float32{1, 0, 0}, 3); err == nil || !strings.Contains(err.Error(), "4-dimensional") {
		t.Errorf("Search with a 3-dimensional query: err = %v, want the dimension mismatch", err)
	}
	if n := rowCount(t, dsn, "dim_t"); n != 1 {
		t.Errorf("table holds %d rows, want 1 (the refused batches stored nothing)", n)
	}
}

func testBadInput(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	s := open(t, dsn, pgvector.Config{})
	if err := s.Add(ctx, []string{"a"}, [][]float32{{1}}); err == nil || !strings.Contains(err.Error(), "call Open") {
		t.Errorf("Add before Open: err = %v, want one saying to call Open", err)
	}
	if _, err := s.Open(ctx, vector.Collection{Name: "Bad-Name"}); err == nil || !strings.Contains(err.Error(), "lower-case") {
		t.Errorf("Open(Bad-Name): err = %v, want the naming rule", err)
	}
	if _, err := s.Open(ctx, coll("bad_t", 1)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ids  []string
		vecs [][]float32
		want string
	}{
		{[]string{"a", "b"}, [][]float32{{1, 0}}, "2 ids but 1 vectors"},
		{[]string{""}, [][]float32{{1, 0}}, "is empty; give every vector an id"},
		{[]string{"a"}, [][]float32{{}}, `vector "a" is empty`},
		{[]string{"a"}, [][]float32{{1, float32(math.NaN())}}, "NaN at position 1"},
		{[]string{"a"}, [][]float32{{0, 0}}, "all zeros"},
		{[]string{"a", "b"}, [][]float32{{1, 0}, {1, 0, 0}}, `vector "b" has 3 dimensions`},
	} {
		if err := s.Add(ctx, tc.ids, tc.vecs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%q, %v): err = %v, want one containing %q", tc.ids, tc.vecs, err, tc.want)
		}
	}
	if hits, err := s.Search(ctx, []float32{1, 0}, 5); err != nil || len(hits) != 0 {
		t.Errorf("Search of an empty collection = %v, %v, want none", hits, err)
	}
	for _, cfg := range []pgvector.Config{
		{Index: vector.HNSW{M: 1}},
		{Index: vector.HNSW{M: 16, EfConstruction: 20}},
		{Index: vector.HNSW{EfSearch: 1001}},
		{Metric: "l2"},
		{BatchSize: -1},
	} {
		cfg.DSN = dsn
		if _, err := pgvector.Open(ctx, cfg); err == nil {
			t.Errorf("Open(%+v) succeeded, want an error", cfg)
		}
	}
}

func testTies(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	s := open(t, dsn, pgvector.Config{})
	c := coll("ties_t", 4)
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []string{"a", "c", "b", "d"}, [][]float32{{1, 1}, {1, 1}, {1, 1}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 4); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, []float32{1, 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(hits), ","); got != "c,b,a,d" {
		t.Errorf("Search with three equal scores = %s, want c,b,a,d (ties by descending id, as the exact index)", got)
	}
	// Above pgvector's largest ef_search (1000) the search scans exactly.
	hits, err = s.Search(ctx, []float32{1, 1}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(hits), ","); got != "c,b,a,d" {
		t.Errorf("Search with k = 2000 = %s, want c,b,a,d", got)
	}
}

func testDot(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	s := open(t, dsn, pgvector.Config{Metric: vector.Dot})
	c := coll("dot_t", 3)
	c.Metric = ""
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	vecs := [][]float32{{3, 0}, {1, 1}, {0, 0}}
	if err := s.Add(ctx, []string{"a", "b", "z"}, vecs); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 3); err != nil {
		t.Fatal(err)
	}
	if def := indexDef(t, dsn, "dot_t"); !strings.Contains(def, "vector_ip_ops") {
		t.Errorf("index = %q, want vector_ip_ops", def)
	}
	if got := s.Describe().Index; !strings.HasSuffix(got, " dot") {
		t.Errorf("Describe().Index = %q, want it to end in dot", got)
	}
	hits, err := s.Search(ctx, []float32{1, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := vector.New(vector.Dot)
	if err := ex.Add(ctx, []string{"a", "b", "z"}, vecs); err != nil {
		t.Fatal(err)
	}
	want, _ := ex.Search(ctx, []float32{1, 2}, 3)
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Errorf("dot Search = %v, exact index = %v", hits, want)
	}
}

// testConformance compares the top-10 of the HNSW index with the exact
// index's on the same vectors: the fake embedder's vectors of a
// generated corpus.
func testConformance(t *testing.T, dsn string) {
	n, nq, dim := 5000, 200, 64
	if testing.Short() {
		n, nq = 1000, 50
	}
	docs, queries := corpusgen.Zipf(n, nq)
	r := Conformance(t, dsn, 0, "conform_t", docs, queries, dim, pgvector.Config{}, 10)
	t.Logf("recall@10 = %.4f over %d queries on %d vectors of %d dimensions", r.Recall, nq, n, dim)
	if r.Recall < 0.99 {
		t.Errorf("recall@10 against the exact index = %.4f, want ≥ 0.99", r.Recall)
	}
	// The figure is the HNSW index's, not an exact scan's: the planner
	// takes the index for the store's query.
	var plan []string
	withConn(t, dsn, func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
			return err
		}
		rows, err := conn.Query(ctx, "EXPLAIN SELECT id, embedding <=> $1::vector FROM conform_t ORDER BY embedding <=> $1::vector LIMIT 10", pgv.NewVector(fixtures.HashEmbedding(queries[0], dim)))
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "Index Scan using conform_t_hnsw") {
		t.Errorf("the plan of the store's query does not use the HNSW index:\n%s", p)
	}
}

// TestUnreachable checks the error for a server that does not answer: it
// names the DSN and the fix and never shows the password.
func TestUnreachable(t *testing.T) {
	const secret = "s3cret-Pa55"
	t.Setenv("PGPASSWORD", secret)
	ctx := ctxFor(t)
	_, err := pgvector.Open(ctx, pgvector.Config{DSN: "postgres://alice@127.0.0.1:1/db?sslmode=disable"})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	for _, w := range []string{"postgres://alice@127.0.0.1:1/db?sslmode=disable", "check that the server runs", "PGPASSWORD"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error %q shows the password", err)
	}
	for _, dsn := range []string{
		"postgres://alice:" + secret + "@127.0.0.1:1/db",
		"postgres://alice@127.0.0.1:1/db?password=" + secret,
		"host=127.0.0.1 port=1 user=alice password=" + secret,
		"host=127.0.0.1 password='" + secret + "' user=alice",
	} {
		_, err := pgvector.Open(ctx, pgvector.Config{DSN: dsn})
		if err == nil || !strings.Contains(err.Error(), "holds a password") || !strings.Contains(err.Error(), "PGPASSWORD") {
			t.Errorf("Open(DSN with a password): err = %v, want the refusal naming PGPASSWORD", err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error %q shows the password", err)
		}
	}
	if _, err := pgvector.Open(ctx, pgvector.Config{}); err == nil || !strings.Contains(err.Error(), "DSN is empty") {
		t.Errorf("Open without a DSN: err = %v", err)
	}
}

// testDrop runs the command a refusal names (with psql, where installed)
// and checks the collection starts anew.
func testDrop(t *testing.T, dsn string) {
	ctx := ctxFor(t)
	s := open(t, dsn, pgvector.Config{})
	c := coll("drop_t", 1)
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []string{"a"}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(ctx, c, 1); err != nil {
		t.Fatal(err)
	}
	cmd := s.DropCommand(c)
	if !strings.HasPrefix(cmd, "psql 'postgres://postgres@") || !strings.HasSuffix(cmd, ` -c 'DROP TABLE IF EXISTS "drop_t"'`) || strings.Contains(cmd, "default_query_exec_mode") {
		t.Fatalf("DropCommand = %s, want psql with the DSN without pgx's parameters and DROP TABLE", cmd)
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not on PATH (Debian: postgresql-client); the drop command was not run")
	}
	if out, err := exec.CommandContext(ctx, "sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	s2 := open(t, dsn, pgvector.Config{})
	st, err := s2.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if st != (vector.State{}) {
		t.Errorf("Open after the drop command = %+v, want the zero State", st)
	}
	if err := s2.Add(ctx, []string{"a"}, [][]float32{{1, 0, 0}}); err != nil {
		t.Errorf("Add of another dimension after the drop: %v", err)
	}
}

package registry

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lasagna-go/lasagna/internal/pgtest"
)

// A registry written by a lasagna with schema version 1 opens: migration 2
// adds a draft's pending source and error, and its benchmarks keep their
// data (a draft lists with no source and no error).
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "registry.db")
	db, d, _, err := openDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := &Registry{db: db, d: d}
	stmts := append([]string{`CREATE TABLE lasagna_schema (version BIGINT PRIMARY KEY, applied TEXT NOT NULL)`}, migrations[1]...)
	stmts = append(stmts,
		`INSERT INTO lasagna_schema (version, applied) VALUES (1, '2026-01-01T00:00:00Z')`,
		`INSERT INTO benchmarks (name, status, created, updated) VALUES ('old', 'draft', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
	for _, s := range stmts {
		s = strings.NewReplacer("{{id}}", d.idType, "{{blob}}", d.blobType).Replace(s)
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	r.Close()

	r, err = Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v int
	if err := r.db.QueryRowContext(ctx, `SELECT MAX(version) FROM lasagna_schema`).Scan(&v); err != nil || v != len(migrations)-1 {
		t.Errorf("schema version %d (%v), want %d", v, err, len(migrations)-1)
	}
	inf, err := r.Get(ctx, "old")
	if err != nil || inf.Status != StatusDraft || inf.Source != nil || inf.Error != "" {
		t.Fatalf("Get(old) = %+v, %v", inf, err)
	}
	if err := r.FailDraft(ctx, "old", "boom"); err != nil {
		t.Fatal(err)
	}
	if inf, _ := r.Get(ctx, "old"); inf.Error != "boom" {
		t.Errorf("after FailDraft: %+v", inf)
	}
}

// A revision stored before schema 3, its files whole in revision_files,
// still rebuilds: Benchmark reads both tables.
func TestWholeFilesStillResolve(t *testing.T) {
	ctx := context.Background()
	r, err := Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	inf, err := r.Create(ctx, "faq", Files{FS: os.DirFS("../.."), Path: "examples/data/faq.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`INSERT INTO revision_files (revision_id, path, data) SELECT revision_id, path, data FROM revision_chunks`,
		`DELETE FROM revision_chunks`,
	} {
		if _, err := r.db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	b, err := r.Resolve(ctx, "faq")
	if err != nil || b.Name != inf.Revision || b.Name != "faq@ea3e86b12545" {
		t.Fatalf("Resolve = %v, %v; want %s", b, err, inf.Revision)
	}
}

// A streamed import that fails after it wrote chunks and entries (a
// problem on the last row, after a full COPY batch on PostgreSQL) leaves
// no row behind: everything ran in the import's transaction.
func TestFailedImportLeavesNoRows(t *testing.T) {
	ctx := context.Background()
	var rows, docs strings.Builder
	for i := range copyBatch + 10 {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"q?","answer":"a","expected_docs":["d%d"]}`+"\n", i, i)
		fmt.Fprintf(&docs, `{"_id":"d%d","text":"passage %d %s"}`+"\n", i, i, strings.Repeat("x", 200))
	}
	rows.WriteString(`{"id":"last","question":"q?","answer":"a","expected_docs":["nowhere"]}` + "\n")
	fsys := fstest.MapFS{"rows.jsonl": {Data: []byte(rows.String())}, "corpus.jsonl": {Data: []byte(docs.String())}}
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") },
		"postgres": func(t *testing.T) string { return pgtest.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(ctx, dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = r.Create(ctx, "m", Files{FS: fsys, Path: "rows.jsonl", Corpus: "corpus.jsonl"})
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rows.jsonl:%d", copyBatch+11)) {
				t.Fatalf("Create = %v, want the problem on the last row", err)
			}
			for _, table := range []string{"benchmarks", "revisions", "revision_chunks", "entries", "entry_text"} {
				var n int
				if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil || n != 0 {
					t.Errorf("%s: %d rows (%v) after a failed import", table, n, err)
				}
			}
		})
	}
}

// A registry of schema 3 (entries without entry_text) opens: migration 4
// fills entry_text from the stored entries, across more than one batch
// and more than one revision, and Search finds what it found before, on
// both backends.
func TestMigrateFillsEntryText(t *testing.T) {
	ctx := context.Background()
	var rows strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&rows, `{"id":"Q%d","question":"Question %d about ÉTÉ","answers":["Answer %d","other"]}`+"\n", i, i, i)
	}
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") },
		"postgres": func(t *testing.T) string { return pgtest.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			dsn := dsn(t)
			r, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "faq", faqFiles()); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "m", Files{FS: fstest.MapFS{"m.jsonl": {Data: []byte(rows.String())}}, Path: "m.jsonl"}); err != nil {
				t.Fatal(err)
			}
			type result struct {
				ids   []string
				total int
			}
			search := func(r *Registry) map[string]result {
				out := map[string]result{}
				for _, q := range []string{"été", "answer 24", "q1", "other", "glass", "?"} {
					for _, ref := range []string{"faq", "m"} {
						res, err := r.Search(ctx, ref, SearchQuery{Text: q, Offset: 10, Limit: 50})
						if err != nil {
							t.Fatal(err)
						}
						var ids []string
						for _, e := range res.Entries {
							ids = append(ids, e.ID)
						}
						out[ref+" "+q] = result{ids, res.Matches}
					}
				}
				return out
			}
			before := search(r)
			for _, s := range append(dropSearchIndex(r), `DROP TABLE entry_text`, `DROP TABLE bundles`, `DELETE FROM lasagna_schema WHERE version >= 4`) {
				if _, err := r.db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			r.Close()
			r, err = Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var n int
			if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM entry_text`).Scan(&n); err != nil || n != 2500+47 {
				t.Fatalf("entry_text holds %d rows (%v), want %d", n, err, 2500+47)
			}
			if after := search(r); !reflect.DeepEqual(after, before) {
				t.Errorf("after the migration:\n%v\nbefore:\n%v", after, before)
			}
			if before["m été"].total != 2500 || before["m answer 24"].total != 111 || before["m other"].total != 0 {
				t.Errorf("searches: %v", before)
			}
		})
	}
}

// A registry of schema 4 (before submitted bundles) opens: migration 5
// adds the bundles table, the benchmarks stay, and a bundle stores. On
// both backends.
func TestMigrateAddsBundles(t *testing.T) {
	ctx := context.Background()
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") },
		"postgres": func(t *testing.T) string { return pgtest.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			dsn := dsn(t)
			r, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "faq", faqFiles()); err != nil {
				t.Fatal(err)
			}
			for _, s := range append(dropSearchIndex(r), `DROP TABLE bundles`, `DELETE FROM lasagna_schema WHERE version >= 5`) {
				if _, err := r.db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			r.Close()
			r, err = Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var v int
			if err := r.db.QueryRowContext(ctx, `SELECT MAX(version) FROM lasagna_schema`).Scan(&v); err != nil || v != len(migrations)-1 {
				t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations)-1)
			}
			if _, err := r.Resolve(ctx, "faq"); err != nil {
				t.Fatalf("the benchmark after the migration: %v", err)
			}
			id := strings.Repeat("0", 64)
			if created, err := r.PutBundle(ctx, id, StoredBundle{Submitter: "s"}, []byte("{}")); err != nil || !created {
				t.Fatalf("PutBundle after the migration = %v, %v", created, err)
			}
			if bs, err := r.Bundles(ctx); err != nil || len(bs) != 1 || bs[0].RunID != id {
				t.Fatalf("Bundles = %v, %v", bs, err)
			}
		})
	}
}

// dropSearchIndex is what takes a registry back to before migration 6:
// the statements that drop Search's index.
func dropSearchIndex(r *Registry) []string {
	if r.searchIndexed() {
		return []string{`DROP TABLE entry_fts`}
	}
	return []string{`DROP INDEX IF EXISTS entry_text_trgm`}
}

// hasSearchIndex reports whether r holds Search's index: entry_fts with
// a row for every entry_text row on SQLite, entry_text_trgm on
// PostgreSQL.
func hasSearchIndex(t *testing.T, r *Registry) bool {
	t.Helper()
	ctx := context.Background()
	var n int
	if r.searchIndexed() {
		if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'entry_fts'`).Scan(&n); err != nil || n == 0 {
			return false
		}
		text, fts := CountSearchRows(t, r)
		if text != fts {
			t.Errorf("%d entry_fts rows for %d entry_text rows", fts, text)
		}
		return true
	}
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'entry_text_trgm'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A registry of schema 5 (before Search's index) opens: migration 6 makes
// the index from the entries there (on SQLite, entry_fts rows for every
// revision; on PostgreSQL, pg_trgm's index), and Search gives what the
// scan gave, on both backends.
func TestMigrateAddsSearchIndex(t *testing.T) {
	ctx := context.Background()
	var rows strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&rows, `{"id":"Q%d","question":"Question %d about ÉTÉ","answers":["Answer %d","other"]}`+"\n", i, i, i)
	}
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") },
		"postgres": func(t *testing.T) string { return pgtest.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			dsn := dsn(t)
			r, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "faq", faqFiles()); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "m", Files{FS: fstest.MapFS{"m.jsonl": {Data: []byte(rows.String())}}, Path: "m.jsonl"}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, "m", Files{FS: fstest.MapFS{"m.jsonl": {Data: []byte(rows.String()[:strings.Index(rows.String(), `{"id":"Q1000"`)])}}, Path: "m.jsonl"}); err != nil {
				t.Fatal(err) // a second revision, not the current one
			}
			if !hasSearchIndex(t, r) {
				t.Fatal("a new registry has no search index")
			}
			for _, s := range append(dropSearchIndex(r), `DELETE FROM lasagna_schema WHERE version >= 6`) {
				if _, err := r.db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			if hasSearchIndex(t, r) {
				t.Fatal("the search index is still there")
			}
			revs, err := r.Revisions(ctx, "m")
			if err != nil || len(revs) != 2 {
				t.Fatalf("Revisions = %v, %v", revs, err)
			}
			queries := []SearchQuery{{Text: "été", Limit: 50}, {Text: "answer 24", Offset: 10, Limit: 50}, {Text: "q1", Limit: 50, FromEnd: true},
				{Text: "other"}, {Text: "question 1", Limit: 20, CountLimit: 100}, {Text: "?"}}
			search := func(r *Registry, scan bool) map[string]SearchResult {
				out := map[string]SearchResult{}
				for _, q := range queries {
					for _, ref := range []string{"faq", revs[0].Revision, revs[1].Revision} {
						res, err := r.search(ctx, ref, q, scan)
						if err != nil {
							t.Fatal(err)
						}
						out[fmt.Sprintf("%s %+v", ref, q)] = res
					}
				}
				return out
			}
			before := search(r, true) // the scan: there is no index
			if res := before[revs[0].Revision+" "+fmt.Sprintf("%+v", queries[0])]; res.Matches == 0 || len(res.Entries) == 0 {
				t.Fatalf("the searches find nothing: %v", before)
			}
			r.Close()
			r, err = Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !hasSearchIndex(t, r) {
				t.Fatal("migration 6 made no search index")
			}
			if after := search(r, false); !reflect.DeepEqual(after, before) {
				t.Errorf("after the migration:\n%v\nbefore:\n%v", after, before)
			}
			// New revisions get their index rows; Delete takes them away.
			if _, err := r.Create(ctx, "m2", Files{FS: fstest.MapFS{"m.jsonl": {Data: []byte(rows.String())}}, Path: "m.jsonl"}); err != nil {
				t.Fatal(err)
			}
			if res, err := r.Search(ctx, "m2", SearchQuery{Text: "about été"}); err != nil || res.Matches != 2500 {
				t.Errorf("Search(m2) = %d, %v", res.Matches, err)
			}
			hasSearchIndex(t, r)
			if err := r.Delete(ctx, "m", true); err != nil {
				t.Fatal(err)
			}
			hasSearchIndex(t, r)
		})
	}
}

// On a PostgreSQL server where the registry's user may not create
// pg_trgm (no CREATE privilege on the database), the registry opens all
// the same: migration 6 goes on without the index, imports work, and
// Search scans, with the same results; once someone who may has made the
// extension and the index (docs/registry.md, "Search"), Search uses it.
func TestSearchWithoutPgTrgm(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	role := fmt.Sprintf("nopriv%d", time.Now().UnixNano())
	for _, s := range []string{`CREATE ROLE ` + role + ` LOGIN`, `GRANT CREATE ON SCHEMA public TO ` + role} {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(ctx, strings.Replace(dsn, "postgres://postgres@", "postgres://"+role+"@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v int
	if err := r.db.QueryRowContext(ctx, `SELECT MAX(version) FROM lasagna_schema`).Scan(&v); err != nil || v != len(migrations)-1 {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations)-1)
	}
	if hasSearchIndex(t, r) {
		t.Fatal("a user without CREATE on the database made the index")
	}
	var rows strings.Builder
	for i := range 300 {
		fmt.Fprintf(&rows, `{"id":"Q%d","question":"Question %d about ÉTÉ 100%%","answer":"Answer_%d"}`+"\n", i, i, i)
	}
	if _, err := r.Create(ctx, "m", Files{FS: fstest.MapFS{"m.jsonl": {Data: []byte(rows.String())}}, Path: "m.jsonl"}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, q := range []SearchQuery{{Text: "été 100%"}, {Text: "answer_1", Limit: 5}, {Text: "R_2", Offset: 3, Limit: 4, FromEnd: true}, {Text: "question 1", Limit: 5, CountLimit: 20}, {Text: "zzz"}} {
			got, err := r.Search(ctx, "m", q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.search(ctx, "m", q, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || (q.Text != "zzz" && want.Matches == 0) {
				t.Errorf("%s: Search(%+v) = %d matches, %d entries; the scan: %d, %d", when, q, got.Matches, len(got.Entries), want.Matches, len(want.Entries))
			}
		}
	}
	check("without the index")
	for _, s := range []string{`CREATE EXTENSION pg_trgm`, pgTrgmIndex} {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if !hasSearchIndex(t, r) {
		t.Fatal("no index after making it by hand")
	}
	check("with the index made by hand")
}

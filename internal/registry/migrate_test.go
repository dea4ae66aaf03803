package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

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
						es, total, err := r.Search(ctx, ref, q, 10, 50)
						if err != nil {
							t.Fatal(err)
						}
						var ids []string
						for _, e := range es {
							ids = append(ids, e.ID)
						}
						out[ref+" "+q] = result{ids, total}
					}
				}
				return out
			}
			before := search(r)
			for _, s := range []string{`DROP TABLE entry_text`, `DROP TABLE bundles`, `DELETE FROM lasagna_schema WHERE version >= 4`} {
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
			for _, s := range []string{`DROP TABLE bundles`, `DELETE FROM lasagna_schema WHERE version = 5`} {
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
			if err := r.db.QueryRowContext(ctx, `SELECT MAX(version) FROM lasagna_schema`).Scan(&v); err != nil || v != 5 {
				t.Fatalf("schema version %d (%v), want 5", v, err)
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

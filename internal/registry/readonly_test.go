package registry

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func faqFiles() Files {
	return Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "faq.jsonl"}
}

// newFAQRegistry makes a SQLite registry holding faq and closes it.
func newFAQRegistry(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "reg", "registry.db")
	r, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, "faq", faqFiles()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// checkReadOnly: r reads (list, show, resolve, download) and refuses every
// change with ErrReadOnly, naming the file and the fix.
func checkReadOnly(t *testing.T, r *Registry, dsn string) {
	t.Helper()
	ctx := context.Background()
	if !r.ReadOnly() {
		t.Fatal("ReadOnly() = false")
	}
	if l, err := r.List(ctx, ListOptions{}); err != nil || len(l) != 1 || l[0].Name != "faq" {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if _, err := r.Revisions(ctx, "faq"); err != nil {
		t.Fatalf("Revisions: %v", err)
	}
	if b, err := r.Resolve(ctx, "registry:faq"); err != nil || len(b.Queries) != 47 {
		t.Fatalf("Resolve: %v", err)
	}
	var buf bytes.Buffer
	if err := r.Download(ctx, "faq", &buf); err != nil || bytes.Count(buf.Bytes(), []byte("\n")) != 47 {
		t.Fatalf("Download: %v (%d bytes)", err, buf.Len())
	}
	for op, err := range map[string]error{
		"create": func() error { _, err := r.Create(ctx, "faq2", faqFiles()); return err }(),
		"draft":  func() error { _, err := r.CreateDraft(ctx, "later"); return err }(),
		"archive": func() error {
			_, err := r.Archive(ctx, "faq")
			return err
		}(),
		"delete": r.Delete(ctx, "faq", true),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s = %v, want ErrReadOnly", op, err)
			continue
		}
		for _, want := range []string{"registry " + dsn + " is read-only", "write permission on " + dsn, "LASAGNA_REGISTRY"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %q, want it to say %q", op, err, want)
			}
		}
	}
}

// TestReadOnlyRegistryReads: a registry file this process cannot write
// opens for reading only; it creates no -wal or -shm file and leaves the
// file's bytes as they were. (readOnlyCheck stands in for the permission
// check, which root passes; TestReadOnlyPermissions checks the real one.)
func TestReadOnlyRegistryReads(t *testing.T) {
	dsn := newFAQRegistry(t)
	before, err := os.ReadFile(dsn)
	if err != nil {
		t.Fatal(err)
	}
	readOnlyCheck = func(string) string { return "no write permission on the file" }
	t.Cleanup(func() { readOnlyCheck = readOnlyReason })
	r, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	checkReadOnly(t, r, dsn)
	r.Close()
	ents, _ := os.ReadDir(filepath.Dir(dsn))
	if len(ents) != 1 {
		t.Errorf("the folder holds %v; a read-only open creates nothing", ents)
	}
	if after, _ := os.ReadFile(dsn); !bytes.Equal(before, after) {
		t.Error("the read-only open changed the file")
	}
}

// TestReadOnlyRegistrySeesAWriter: while a writer has the file open (its
// -wal file exists), the read-only registry reads through the writer's
// WAL and sees each commit.
func TestReadOnlyRegistrySeesAWriter(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "registry.db")
	w, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Create(ctx, "faq", faqFiles()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dsn + "-wal"); err != nil {
		t.Fatalf("no -wal file while a writer has the registry open: %v", err)
	}
	readOnlyCheck = func(string) string { return "no write permission on the file" }
	t.Cleanup(func() { readOnlyCheck = readOnlyReason })
	r, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	if _, err := w.CreateDraft(ctx, "later"); err != nil {
		t.Fatal(err)
	}
	l, err := r.List(ctx, ListOptions{})
	if err != nil || len(l) != 2 {
		t.Fatalf("List after the writer's commit = %+v, %v; want faq and later", l, err)
	}
}

// TestReadOnlyOldSchema: a read-only registry of an older schema cannot
// be upgraded; Open says so and how to upgrade it.
func TestReadOnlyOldSchema(t *testing.T) {
	dsn := newFAQRegistry(t)
	r, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.Exec(`DELETE FROM lasagna_schema WHERE version >= 3`); err != nil {
		t.Fatal(err)
	}
	r.Close()
	readOnlyCheck = func(string) string { return "no write permission on the file" }
	t.Cleanup(func() { readOnlyCheck = readOnlyReason })
	_, err = Open(context.Background(), dsn)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "schema is version 2") || !strings.Contains(err.Error(), dsn) {
		t.Fatalf("Open = %v, want a read-only error naming the file and the schema version", err)
	}
}

// TestReadOnlyPermissions: without write permission on the file, or on
// its folder, the registry opens read-only. Root passes every permission
// check, so the test skips there.
func TestReadOnlyPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, where file permissions do not apply")
	}
	for _, tc := range []struct {
		name              string
		fileMode, dirMode os.FileMode
		reason            string
	}{
		{"file", 0o444, 0o755, "no write permission on the file"},
		{"folder", 0o644, 0o555, "no write permission on its folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := newFAQRegistry(t)
			dir := filepath.Dir(dsn)
			if err := os.Chmod(dsn, tc.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(dsn, 0o644) })
			if got := readOnlyReason(dsn); !strings.HasPrefix(got, tc.reason) {
				t.Fatalf("readOnlyReason = %q, want %q", got, tc.reason)
			}
			r, err := Open(context.Background(), dsn)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			checkReadOnly(t, r, dsn)
		})
	}
}

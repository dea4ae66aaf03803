package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// The suite runs every test against both backends: a SQLite file in a
// temporary folder, and a new database in a throwaway PostgreSQL cluster
// (internal/pgtest: Debian's postgresql package, started once per test
// binary, stopped by PID in TestMain). Where no server binary exists the
// PostgreSQL half skips, saying what to install.

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

type backend struct {
	name string
	dsn  func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Database(t) }},
}

// eachBackend runs fn as a subtest per backend.
func eachBackend(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.dsn(t)) })
	}
}

func bg() context.Context { return context.Background() }

// TestPostgresNotBuiltIn: without the build tag postgres (the default
// lasagna links no pgx), a postgres:// registry is refused with the
// command that builds a lasagna with it, and the password stays out of
// the message. make test also runs this test in the default build.
func TestPostgresNotBuiltIn(t *testing.T) {
	if buildtag.Postgres {
		t.Skip("built with -tags postgres; the default build runs this test (make test does)")
	}
	_, err := registry.Open(context.Background(), "postgres://u:s3cret@127.0.0.1:1/db")
	want := "registry postgres://u:xxxxx@127.0.0.1:1/db: this lasagna was built without PostgreSQL support; build one with it, from a clone of the repository: go install -tags postgres,weaviate,parquet ./cmd/lasagna"
	if err == nil || err.Error() != want {
		t.Errorf("Open = %v, want %q", err, want)
	}
}

// TestNoPasswordInErrors: a registry DSN's password never reaches an
// error, whatever its form, and a key/value DSN is PostgreSQL, never a
// SQLite file named with the whole string (password included). Nothing
// listens on port 1, so the PostgreSQL build fails to connect; the default
// build refuses the DSN.
func TestNoPasswordInErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{
		"postgres://u:s3cr3t@127.0.0.1:1/db?connect_timeout=1",
		"postgres://u@127.0.0.1:1/db?password=s3cr3t&connect_timeout=1",
		"postgres://u:s3@cr3t@127.0.0.1:1/db?connect_timeout=1",
		"host=127.0.0.1 port=1 user=u password=s3cr3t dbname=db connect_timeout=1",
		"host=127.0.0.1 port=1 password='s3 cr3t' dbname=db connect_timeout=1",
	} {
		_, err := registry.Open(context.Background(), dsn)
		if err == nil {
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		if strings.Contains(err.Error(), "cr3t") {
			t.Errorf("Open(%q) = %v: the password shows", dsn, err)
		}
		if ents, _ := os.ReadDir("."); len(ents) != 0 {
			t.Errorf("Open(%q) left %v in the working folder (opened as a SQLite file?)", dsn, ents)
		}
	}
}

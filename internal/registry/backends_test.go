package registry_test

import (
	"context"
	"os"
	"path/filepath"
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

package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lasagna-go/lasagna/internal/pgtest"
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

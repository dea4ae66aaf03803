//go:build postgres

// The test talks to the server through pgx, the PostgreSQL client of the
// postgres build, so it is built with that tag: make test builds with it,
// and make check (the default build) does not compile pgx.

package pglitetest_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lasagna-go/lasagna/internal/pglitetest"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TestStart starts the server, runs a pgvector query through two
// connections, and checks that the cleanup stops the process.
func TestStart(t *testing.T) {
	var pid int
	t.Run("serve", func(t *testing.T) {
		s := pglitetest.Start(t)
		pid = s.PID
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a, err := pgx.Connect(ctx, s.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close(ctx)
		b, err := pgx.Connect(ctx, s.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close(ctx)
		if _, err := a.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
			t.Fatal(err)
		}
		var d float64
		if err := b.QueryRow(ctx, "SELECT '[1,0]'::vector <=> $1::vector", "[0,1]").Scan(&d); err != nil {
			t.Fatal(err)
		}
		if d != 1 {
			t.Errorf("cosine distance of orthogonal vectors = %v, want 1", d)
		}
	})
	if pid == 0 {
		return // skipped
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("node (PID %d) still runs after the test's cleanup", pid)
	}
}

// fakeTB records what Start asks of a test.
type fakeTB struct {
	skipped, fatal string
	cleanups       int
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeTB) Cleanup(func())                 { f.cleanups++ }

// TestStartWithoutNode checks that Start skips where node is missing, and
// fails instead when LASAGNA_REQUIRE_BACKENDS=1.
func TestStartWithoutNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(servertest.RequireEnv, "")
	var f fakeTB
	if s := pglitetest.Start(&f); s != nil || f.fatal != "" || !strings.Contains(f.skipped, pglitetest.InstallCommand) {
		t.Errorf("Start without node: server %v, skip %q, fatal %q; want a skip naming %q", s, f.skipped, f.fatal, pglitetest.InstallCommand)
	}
	t.Setenv(servertest.RequireEnv, "1")
	f = fakeTB{}
	if s := pglitetest.Start(&f); s != nil || f.skipped != "" || !strings.Contains(f.fatal, "LASAGNA_REQUIRE_BACKENDS=1") || !strings.Contains(f.fatal, pglitetest.InstallCommand) {
		t.Errorf("Start without node, backends required: server %v, skip %q, fatal %q; want a failure", s, f.skipped, f.fatal)
	}
}

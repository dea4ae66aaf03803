package pglitetest_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lasagna-go/lasagna/internal/pglitetest"
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

// TestMissing checks the skip message names the install command.
func TestMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	why := pglitetest.Missing()
	if why == "" || !strings.Contains(why, pglitetest.InstallCommand) {
		t.Errorf("Missing() without node on PATH = %q, want a message naming %q", why, pglitetest.InstallCommand)
	}
}

package pgvector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRetry(t *testing.T) {
	s := &Store{}
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		err   error
		calls int
	}{
		{"lost connection, then success", io.ErrUnexpectedEOF, 3},
		{"serialization failure, then success", &pgconn.PgError{Code: "40001"}, 3},
		{"too many connections, then success", &pgconn.PgError{Code: "53300"}, 3},
		{"syntax error: no retry", &pgconn.PgError{Code: "42601"}, 1},
		{"unique violation: no retry", &pgconn.PgError{Code: "23505"}, 1},
		{"lost connection every time: bounded", io.EOF, maxAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := s.retry(ctx, func(context.Context) error {
				calls++
				if calls == 3 && !strings.HasSuffix(tc.name, "bounded") {
					return nil
				}
				return fmt.Errorf("wrapped: %w", tc.err)
			})
			if calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
			if wantErr := tc.calls != 3; (err != nil) != wantErr {
				t.Errorf("err = %v, want an error: %v", err, wantErr)
			}
		})
	}
	t.Run("context done stops the waits", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		calls := 0
		start := time.Now()
		err := s.retry(ctx, func(context.Context) error { calls++; return io.EOF })
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
			t.Errorf("err = %v after %v and %d calls, want the deadline soon", err, time.Since(start), calls)
		}
	})
}

func TestPsqlDSN(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u@h:1/db?sslmode=disable&default_query_exec_mode=exec&pool_max_conns=4", "postgres://u@h:1/db?sslmode=disable"},
		{"host=h default_query_exec_mode=exec user=u", "host=h user=u"},
	} {
		if got := psqlDSN(tc.dsn); got != tc.want {
			t.Errorf("psqlDSN(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}

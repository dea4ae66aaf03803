//go:build postgres

package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPostgresDiskFull: PostgreSQL's disk_full (SQLSTATE 53100) is worded
// as the server's full disk, with the registry's DSN (password hidden).
func TestPostgresDiskFull(t *testing.T) {
	r := &Registry{d: pgDialect, where: redact("postgres://u:s3cret@db.example/reg")}
	err := r.diskFullErr(fmt.Errorf("copy: %w", &pgconn.PgError{Code: "53100", Message: `could not extend file "base/16384/16390": No space left on device`}))
	want := "registry postgres://u:xxxxx@db.example/reg: the PostgreSQL server has no space left on device ("
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "nothing was stored: free space on the server's disk") {
		t.Errorf("diskFullErr = %v\nwant %s…", err, want)
	}
	other := &pgconn.PgError{Code: "23505"}
	if got := r.diskFullErr(other); got != error(other) {
		t.Errorf("diskFullErr(unique violation) = %v, want it unchanged", got)
	}
}

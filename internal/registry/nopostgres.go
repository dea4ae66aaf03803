//go:build !postgres

package registry

import (
	"context"
	"database/sql"
)

// copyRows is never reached: openDB opens no PostgreSQL registry without
// the build tag postgres (package buildtag), which links pgx.
func copyRows(context.Context, *sql.Conn, string, []string, [][]any) error {
	return errNoPostgres
}

// pgDiskFull is never true without PostgreSQL.
func pgDiskFull(error) bool { return false }

// pgUnavailable is never true without PostgreSQL.
func pgUnavailable(error) bool { return false }

//go:build postgres

package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
)

// copyRows loads rows into table with PostgreSQL's COPY, on the
// connection of the running import.
func copyRows(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("registry: PostgreSQL connection is a %T, not pgx's", dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
}

// pgDiskFull reports PostgreSQL's disk_full (SQLSTATE 53100).
func pgDiskFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53100"
}

// pgUnavailable reports a PostgreSQL server that cannot be reached or
// cannot serve now: a failed connection (pgconn.ConnectError), SQLSTATE
// class 08 (connection exception), 53300 (too many connections), 57P01
// to 57P03 (shut down, crash recovery, cannot connect now).
func pgUnavailable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "53300", "57P01", "57P02", "57P03":
		return true
	}
	return len(pe.Code) == 5 && pe.Code[:2] == "08"
}

package registry

import (
	"errors"
	"testing"
)

// TestIsSQLiteBusy: Open retries only SQLite's busy answer.
func TestIsSQLiteBusy(t *testing.T) {
	for err, want := range map[error]bool{
		errors.New("registry r.db: database is locked (5) (SQLITE_BUSY)"): true,
		errors.New("registry r.db: database is locked"):                   true,
		errors.New("registry r.db: no such table: benchmarks"):            false,
	} {
		if got := isSQLiteBusy(err); got != want {
			t.Errorf("isSQLiteBusy(%q) = %v, want %v", err, got, want)
		}
	}
}

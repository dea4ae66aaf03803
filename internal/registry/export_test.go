package registry

import (
	"context"
	"testing"
)

// CountSearchRows returns how many entry_text rows r holds, and on
// SQLite how many entry_fts rows too (-1 on PostgreSQL).
func CountSearchRows(t *testing.T, r *Registry) (text, fts int) {
	t.Helper()
	if err := r.db.QueryRow(`SELECT COUNT(*) FROM entry_text`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	fts = -1
	if r.searchIndexed() {
		if err := r.db.QueryRow(`SELECT COUNT(*) FROM entry_fts`).Scan(&fts); err != nil {
			t.Fatal(err)
		}
	}
	return text, fts
}

// SearchScan is Search scanning entry_text, never an index: the plain
// scan the indexed search is compared with.
func SearchScan(ctx context.Context, r *Registry, ref string, q SearchQuery) (SearchResult, error) {
	return r.search(ctx, ref, q, true)
}

package registry

import "testing"

// CountSearchRows returns how many entry_text rows r holds.
func CountSearchRows(t *testing.T, r *Registry) int {
	t.Helper()
	var n int
	if err := r.db.QueryRow(`SELECT COUNT(*) FROM entry_text`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

package registry

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// StoredBundle describes a results bundle stored in the registry (see
// PutBundle): who submitted it, when, its size in bytes, and the registry
// benchmark it was checked against (Benchmark, a registry name, and
// ContentHash, the 12 hex of the benchmark's content hash the bundle
// names; of its first benchmark, for a bundle of several).
type StoredBundle struct {
	RunID       string
	Submitter   string
	SubmittedAt time.Time
	Size        int64
	Benchmark   string
	ContentHash string
}

// runIDPattern is a bundle's run_id: the hex sha256 of its canonical JSON.
var runIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// IsRunID reports whether s has the form of a bundle's run_id (64
// lower-case hex digits).
func IsRunID(s string) bool { return runIDPattern().MatchString(s) }

// PutBundle stores data, a results bundle's bytes, under runID, with the
// metadata of meta (its RunID and Size are set from runID and data; a
// zero SubmittedAt is now). A stored bundle never changes: a second
// PutBundle of the same runID with identical bytes stores nothing and
// returns created false; with different bytes it is an error wrapping
// ErrExists. The caller checks the bundle first; PutBundle does not read
// it.
func (r *Registry) PutBundle(ctx context.Context, runID string, meta StoredBundle, data []byte) (created bool, err error) {
	if !IsRunID(runID) {
		return false, fmt.Errorf("run_id %q is not 64 lower-case hex digits", runID)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	at := meta.SubmittedAt
	if at.IsZero() {
		at = time.Now()
	}
	err = r.write(ctx, func(tx *sql.Tx) error {
		var have string
		switch err := tx.QueryRowContext(ctx, r.d.q(`SELECT sha256 FROM bundles WHERE run_id = ?`), runID).Scan(&have); {
		case err == nil && have == digest:
			return nil // the same bundle again: nothing to do
		case err == nil:
			return fmt.Errorf("bundle %s: %w with other bytes (sha256 %s, these are %s); a stored bundle never changes", runID, ErrExists, short(have), short(digest))
		case !isNoRows(err):
			return err
		}
		_, err := tx.ExecContext(ctx, r.d.q(`INSERT INTO bundles (run_id, submitter, submitted, size, benchmark, content_hash, sha256, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			runID, meta.Submitter, at.UTC().Format(time.RFC3339Nano), int64(len(data)), meta.Benchmark, meta.ContentHash, digest, data)
		if err == nil {
			created = true
		}
		return err
	})
	if err != nil {
		return false, err
	}
	return created, nil
}

// Bundles returns the metadata of every stored bundle, newest first.
func (r *Registry) Bundles(ctx context.Context) ([]StoredBundle, error) {
	return r.bundles(ctx, `SELECT run_id, submitter, submitted, size, benchmark, content_hash FROM bundles ORDER BY id DESC`)
}

// NewestBundles returns the metadata of the n newest stored bundles,
// newest first, and how many bundles are stored in all.
func (r *Registry) NewestBundles(ctx context.Context, n int) (bs []StoredBundle, total int, err error) {
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM bundles`).Scan(&total); err != nil {
		return nil, 0, err
	}
	bs, err = r.bundles(ctx, r.d.q(`SELECT run_id, submitter, submitted, size, benchmark, content_hash FROM bundles ORDER BY id DESC LIMIT ?`), n)
	return bs, total, err
}

// bundles runs query, which selects the metadata columns of bundles.
func (r *Registry) bundles(ctx context.Context, query string, args ...any) ([]StoredBundle, error) {
	rows, err := r.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []StoredBundle{}
	for rows.Next() {
		var (
			b  StoredBundle
			at string
		)
		if err := rows.Scan(&b.RunID, &b.Submitter, &at, &b.Size, &b.Benchmark, &b.ContentHash); err != nil {
			return nil, err
		}
		b.SubmittedAt = parseTime(at)
		out = append(out, b)
	}
	return out, rows.Err()
}

// Bundle returns the bytes of the bundle stored under runID; one the
// registry does not hold is an error wrapping ErrNotFound.
func (r *Registry) Bundle(ctx context.Context, runID string) ([]byte, error) {
	var data []byte
	err := r.db.QueryRowContext(ctx, r.d.q(`SELECT data FROM bundles WHERE run_id = ?`), runID).Scan(&data)
	switch {
	case isNoRows(err):
		return nil, fmt.Errorf("bundle %s: %w", runID, ErrNotFound)
	case err != nil:
		return nil, err
	}
	return data, nil
}

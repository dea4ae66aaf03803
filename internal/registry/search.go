package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
)

// fold is the case folding of Search: strings.ToLower (Unicode's simple
// lower-case mapping, rune by rune, with no other normalisation), applied
// in Go on both sides, so that SQLite and PostgreSQL compare the same
// strings whatever their own lower() and collations do.
func fold(s string) string { return strings.ToLower(s) }

// searchRow is the entry_text row of an entry: its id, question and
// (first) answer, folded.
func searchRow(revID, ordinal int64, id, question, answer string) []any {
	return []any{revID, ordinal, fold(id), fold(question), fold(answer)}
}

func (r *Registry) newTextWriter(ctx context.Context, conn *sql.Conn, tx *sql.Tx) *batchWriter {
	return r.newBatchWriter(ctx, conn, tx, "entry_text", "revision_id", "ordinal", "id_folded", "question_folded", "answer_folded")
}

// fillEntryText gives every entry stored before schema 4 its entry_text
// row, reading the entries a batch at a time.
func fillEntryText(ctx context.Context, r *Registry, conn *sql.Conn, tx *sql.Tx) error {
	w := r.newTextWriter(ctx, conn, tx)
	defer w.close()
	type row struct {
		rev, ord     int64
		id, question string
		data         []byte
	}
	var (
		lastRev, lastOrd int64 = -1, -1
		batch            []row
	)
	for {
		batch = batch[:0]
		rows, err := tx.QueryContext(ctx, r.d.q(`SELECT revision_id, ordinal, entry_id, question, data FROM entries
			WHERE revision_id > ? OR (revision_id = ? AND ordinal > ?) ORDER BY revision_id, ordinal LIMIT 1000`), lastRev, lastRev, lastOrd)
		if err != nil {
			return err
		}
		for rows.Next() {
			var x row
			if err := rows.Scan(&x.rev, &x.ord, &x.id, &x.question, &x.data); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return w.flush()
		}
		for _, x := range batch {
			var e struct {
				Answer string `json:"answer"`
			}
			if err := json.Unmarshal(x.data, &e); err != nil {
				return err
			}
			if err := w.add(searchRow(x.rev, x.ord, x.id, x.question, e.Answer)...); err != nil {
				return err
			}
		}
		// PostgreSQL's COPY and the next SELECT share the connection: no
		// rows are pending across the query.
		if err := w.flush(); err != nil {
			return err
		}
		lastRev, lastOrd = batch[len(batch)-1].rev, batch[len(batch)-1].ord
	}
}

// Search returns up to limit entries (all when limit ≤ 0), from offset
// on, of the entries of the revision ref names whose id, question or
// answer (the first one: Entry.Answer) contains text, and how many
// entries match in all. Both sides are lower-cased with strings.ToLower
// and compared as plain substrings (no wildcards, no word boundaries, no
// other normalisation); matches come in entry order. Empty text (after
// trimming white space) matches every entry, as Entries. The search runs
// in the database, over a table of the folded fields that import fills,
// so it reads neither the entries' JSON nor more than the page of them.
func (r *Registry) Search(ctx context.Context, ref, text string, offset, limit int) ([]Entry, int, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return r.Entries(ctx, ref, offset, limit)
	}
	inf, err := r.Get(ctx, ref)
	if err != nil || inf.revID == 0 {
		return nil, 0, err
	}
	needle := fold(text)
	where := ` FROM entry_text t WHERE t.revision_id = ? AND (` + r.d.strpos + `(t.id_folded, ?) > 0 OR ` +
		r.d.strpos + `(t.question_folded, ?) > 0 OR ` + r.d.strpos + `(t.answer_folded, ?) > 0)`
	args := []any{inf.revID, needle, needle, needle}
	var total int
	if err := r.db.QueryRowContext(ctx, r.d.q(`SELECT COUNT(*)`+where), args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 || offset >= total {
		return nil, total, nil
	}
	query := `SELECT e.data FROM entries e JOIN (SELECT t.ordinal` + where + ` ORDER BY t.ordinal`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	} else {
		query += ` LIMIT -1` // SQLite wants a LIMIT before OFFSET
		if r.d.name == pgDialect.name {
			query = strings.TrimSuffix(query, ` LIMIT -1`) + ` LIMIT ALL`
		}
	}
	query += ` OFFSET ?) m ON e.ordinal = m.ordinal WHERE e.revision_id = ? ORDER BY e.ordinal`
	args = append(args, max(offset, 0), inf.revID)
	rows, err := r.db.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, 0, err
		}
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

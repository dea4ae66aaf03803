package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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

// searchSep joins an entry's folded id, question and answer in its
// entry_fts row: an upper-case letter, which strings.ToLower never leaves
// in a string (TestFoldNeverLeavesSearchSep), so that no folded needle
// holds it and no match can span two fields.
const searchSep = "A"

// ftsRowID is the entry_fts rowid of entry ordinal of revision revID:
// the revision in the high 32 bits, so that a revision's rows are one
// range of rowids, in entry order.
func ftsRowID(revID, ordinal int64) int64 { return revID<<32 | ordinal }

// maxOrdinal bounds the entries of a revision, for ftsRowID.
const maxOrdinal = 1<<32 - 1

// searchIndexed reports whether the registry keeps the SQLite trigram
// index entry_fts, which import and delete maintain beside entry_text
// (PostgreSQL's index, on entry_text itself, maintains itself).
func (r *Registry) searchIndexed() bool { return r.d.name == sqliteDialect.name }

// deleteEntryRows removes the entries of revision revID and their search
// rows.
func (r *Registry) deleteEntryRows(ctx context.Context, tx *sql.Tx, revID int64) error {
	for _, q := range []string{`DELETE FROM entries WHERE revision_id = ?`, `DELETE FROM entry_text WHERE revision_id = ?`} {
		if _, err := tx.ExecContext(ctx, r.d.q(q), revID); err != nil {
			return err
		}
	}
	if r.searchIndexed() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entry_fts WHERE rowid BETWEEN ? AND ?`, ftsRowID(revID, 0), ftsRowID(revID, maxOrdinal)); err != nil {
			return err
		}
	}
	return nil
}

// ftsRows is the statement that gives entries their entry_fts rows from
// entry_text: each entry's folded id, question and answer joined by
// searchSep, at rowid ftsRowID.
const ftsRows = `INSERT INTO entry_fts (rowid, folded)
	SELECT (revision_id << 32) | ordinal, id_folded || '` + searchSep + `' || question_folded || '` + searchSep + `' || answer_folded FROM entry_text`

// indexRevision gives the new revision revID its place in Search's index,
// once import has written its entries.
//
// SQLite: one statement writes the revision's entry_fts rows from
// entry_text (written as the entries came), then the b-trees (segments)
// FTS5 made of them are merged. Written with the entries, FTS5 would
// write its pending rows to disk each time a statement on another table
// opened a savepoint (every batch of entries), making hundreds of small
// b-trees to merge. entry_fts does not merge as it is written (automerge
// 0, set by migration 6): the b-trees are merged here, levels of 4 or
// more at a time (usermerge 4), in one pass, which costs less than FTS5's
// automerge and leaves fewer b-trees, which searches walk faster
// (BENCHMARKS.md, "Dashboard search").
//
// PostgreSQL: it moves the new rows' entries from the GIN index's pending
// list (fastupdate) into the index proper, which a search would otherwise
// read whole, and updates the planner's statistics of entry_text, by
// which it chooses the index for a rare text and the table's order for a
// common one.
func (r *Registry) indexRevision(ctx context.Context, tx *sql.Tx, revID int64) error {
	if !r.searchIndexed() {
		var has bool
		if err := tx.QueryRowContext(ctx, `SELECT to_regclass('entry_text_trgm') IS NOT NULL`).Scan(&has); err != nil {
			return err
		}
		if has {
			// Only the index's owner may: another user's import leaves
			// the list to autovacuum.
			if err := savepoint(ctx, tx, `SELECT gin_clean_pending_list('entry_text_trgm')`); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `ANALYZE entry_text`)
		return err
	}
	if _, err := tx.ExecContext(ctx, ftsRows+` WHERE revision_id = ?`, revID); err != nil {
		return err
	}
	return r.mergeFTS(ctx, tx)
}

// mergeFTS merges entry_fts's b-trees, levels of usermerge (4) or more at
// a time, until none is left to merge.
func (r *Registry) mergeFTS(ctx context.Context, tx *sql.Tx) error {
	var before, after int64
	for {
		if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
			return err
		}
		// Up to 100,000 pages (of about 4 KB) of merged output a call;
		// the merge is done when a call changes less than two rows.
		if _, err := tx.ExecContext(ctx, `INSERT INTO entry_fts (entry_fts, rank) VALUES ('merge', 100000)`); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
			return err
		}
		if after-before < 2 {
			return nil
		}
	}
}

// savepoint runs the PostgreSQL statements stmts in tx under a savepoint:
// when one fails, what they did is undone and tx goes on. It returns only
// the errors of the savepoint itself.
func savepoint(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT lasagna_try`); err != nil {
		return err
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			_, err = tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT lasagna_try`)
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT lasagna_try`)
	return err
}

// fillSearchIndex is migration 6's step. On SQLite it gives every entry
// its entry_fts row, from entry_text. On PostgreSQL it makes the GIN
// index of pg_trgm on entry_text, when the server has the extension and
// lets this user create it (pg_trgm is a trusted extension: CREATE
// privilege on the database is enough); when it cannot, the migration
// goes on without the index and Search scans entry_text as before
// (docs/registry.md, "Search").
func fillSearchIndex(ctx context.Context, r *Registry, _ *sql.Conn, tx *sql.Tx) error {
	if r.searchIndexed() {
		if _, err := tx.ExecContext(ctx, ftsRows); err != nil {
			return err
		}
		return r.mergeFTS(ctx, tx)
	}
	return savepoint(ctx, tx, `CREATE EXTENSION IF NOT EXISTS pg_trgm`, pgTrgmIndex)
}

// pgJoined is an entry's folded fields joined by searchSep, as in
// entry_fts: the expression of PostgreSQL's index (a LIKE of it is exact:
// no folded needle holds searchSep).
const pgJoined = `(t.id_folded || '` + searchSep + `' || t.question_folded || '` + searchSep + `' || t.answer_folded)`

// pgTrgmIndex is the PostgreSQL index of Search (docs/registry.md tells
// how to make it by hand where the migration could not).
const pgTrgmIndex = `CREATE INDEX entry_text_trgm ON entry_text USING gin ((id_folded || '` + searchSep + `' || question_folded || '` + searchSep + `' || answer_folded) gin_trgm_ops)`

// SearchQuery is what Search looks for and which page of it to return.
type SearchQuery struct {
	// Text is the text searched for, trimmed of white space; empty text
	// matches every entry.
	Text string
	// Offset and Limit select the page: Limit matches (every one when
	// Limit ≤ 0) from the Offset-th (0-based), in entry order.
	Offset, Limit int
	// FromEnd counts Offset from the last match back: the page is the
	// Limit matches that end Offset matches before the end (Offset 0:
	// the last Limit matches), still in entry order. It reaches the end
	// of a search too large to count without walking it.
	FromEnd bool
	// CountLimit caps the count: when more than CountLimit entries
	// match, Search stops counting there and says so (Exact false).
	// 0 counts every match.
	CountLimit int
}

// SearchResult is a page of a search.
type SearchResult struct {
	Entries []Entry
	// Matches is how many entries match in all when Exact; otherwise
	// more than Matches (the query's CountLimit) do.
	Matches int
	Exact   bool
}

// Search returns a page (q.Offset, q.Limit, q.FromEnd) of the entries of
// the revision ref names whose id, question or answer (the first one:
// Entry.Answer) contains q.Text, and how many entries match, counted up
// to q.CountLimit. Both sides are lower-cased with strings.ToLower and
// compared as plain substrings (no wildcards, no word boundaries, no
// other normalisation); matches come in entry order. Empty text (after
// trimming white space) matches every entry, as Entries, counted exactly
// whatever q.CountLimit (the revision's entry count).
//
// The search runs in the database and reads only the page's entries.
// On SQLite it looks the text up in entry_fts, an FTS5 trigram index of
// the folded fields, as a phrase of its trigrams, which is an exact
// substring match; a text the index cannot look up (shorter than three
// characters, or holding NUL or one of U+FFFD, U+FFFE and U+FFFF, which
// the trigram tokenizer reads as one character) scans entry_text
// instead. On PostgreSQL it is a LIKE on entry_text, which the pg_trgm
// GIN index serves when the server has it (a text shorter than three
// characters, which no trigram holds, is an strpos scan).
func (r *Registry) Search(ctx context.Context, ref string, q SearchQuery) (SearchResult, error) {
	return r.search(ctx, ref, q, false)
}

// search is Search; scan makes it scan entry_text even where an index
// could serve (the tests compare the two).
func (r *Registry) search(ctx context.Context, ref string, q SearchQuery, scan bool) (SearchResult, error) {
	inf, err := r.Get(ctx, ref)
	if err != nil {
		return SearchResult{}, err
	}
	text := strings.TrimSpace(q.Text)
	if text == "" {
		total := inf.Questions
		offset, limit, ok := forwardPage(total, q)
		res := SearchResult{Matches: total, Exact: true}
		if !ok {
			return res, nil
		}
		err := r.eachEntry(ctx, inf, offset, limit, func(data string) error {
			var e Entry
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				return err
			}
			res.Entries = append(res.Entries, e)
			return nil
		})
		return res, err
	}
	if inf.revID == 0 {
		return SearchResult{Exact: true}, nil // a draft without entries
	}
	needle := fold(text)
	if r.d.name == pgDialect.name && strings.ContainsRune(needle, 0) {
		return SearchResult{Exact: true}, nil // PostgreSQL text holds no NUL: no entry does
	}
	m := r.matcher(inf.revID, needle, scan)

	offset, limit := max(q.Offset, 0), q.Limit
	dir := ""
	if q.FromEnd {
		dir = " DESC" // from the last match back
	}
	var res SearchResult
	n := 0
	if r.d.name == sqliteDialect.name && limit > 0 && q.CountLimit > 0 && offset+limit <= q.CountLimit+1 {
		// One walk of the matches in the index's order, as far as the
		// count needs (CountLimit + 1), kept aside (w): the first row
		// says how many it holds, the others are the page's entries.
		// A second walk for the count would look every trigram up again,
		// which costs more than the walk for a long text.
		walk := `SELECT ` + m.ordinal + ` AS ordinal FROM ` + m.from + ` ORDER BY ` + m.order + dir + ` LIMIT ?`
		args := append(slices.Clone(m.args), q.CountLimit+1, limit, offset, inf.revID)
		query := `WITH w AS MATERIALIZED (` + walk + `)
			SELECT -1, COUNT(*), NULL FROM w
			UNION ALL
			SELECT e.ordinal, 0, e.data FROM (SELECT ordinal FROM w ORDER BY ordinal` + dir + ` LIMIT ? OFFSET ?) p
				CROSS JOIN entries e WHERE e.revision_id = ? AND e.ordinal = p.ordinal
			ORDER BY 1`
		if err := r.scanEntries(ctx, &res.Entries, &n, query, args...); err != nil {
			return SearchResult{}, err
		}
	} else {
		// The page first: its matches' ordinals in the index's order,
		// then their entries; the count then when the page does not tell
		// it. On PostgreSQL the planner picks the index for the page of
		// a rare text and the table's order for a common one.
		page := `SELECT ` + m.ordinal + ` AS ordinal FROM ` + m.from + ` ORDER BY ` + m.order + dir
		args := slices.Clone(m.args)
		switch {
		case limit > 0:
			page += ` LIMIT ? OFFSET ?`
			args = append(args, limit, offset)
		case r.d.name == pgDialect.name:
			page += ` OFFSET ?`
			args = append(args, offset)
		default:
			page += ` LIMIT -1 OFFSET ?` // SQLite wants a LIMIT before OFFSET
			args = append(args, offset)
		}
		// CROSS JOIN keeps SQLite from walking the revision's entries
		// for each match: the page comes first, then its entries by key.
		query := `SELECT e.ordinal, 0, e.data FROM (` + page + `) p CROSS JOIN entries e WHERE e.revision_id = ? AND e.ordinal = p.ordinal ORDER BY e.ordinal`
		if err := r.scanEntries(ctx, &res.Entries, nil, query, append(args, inf.revID)...); err != nil {
			return SearchResult{}, err
		}
		// A page that ends short of its limit ends at the last match;
		// one that ends past CountLimit says there are more.
		got := len(res.Entries)
		n = offset + got
		switch {
		case q.CountLimit > 0 && n > q.CountLimit:
		case (limit <= 0 || got < limit) && (got > 0 || offset == 0):
		default:
			count := `SELECT COUNT(*) FROM (SELECT 1 FROM ` + m.from
			args := slices.Clone(m.args)
			if q.CountLimit > 0 {
				count += ` LIMIT ?`
				args = append(args, q.CountLimit+1)
			}
			if err := r.db.QueryRowContext(ctx, r.d.q(count+`) c`), args...).Scan(&n); err != nil {
				return SearchResult{}, err
			}
		}
	}
	res.Matches, res.Exact = n, q.CountLimit <= 0 || n <= q.CountLimit
	if !res.Exact {
		res.Matches = q.CountLimit
	}
	return res, nil
}

// scanEntries appends to out the entries query returns, as rows (ordinal,
// count, JSON): a row with a negative ordinal gives *n its count instead.
func (r *Registry) scanEntries(ctx context.Context, out *[]Entry, n *int, query string, args ...any) error {
	rows, err := r.db.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ord, count int64
		var data []byte
		if err := rows.Scan(&ord, &count, &data); err != nil {
			return err
		}
		if ord < 0 {
			*n = int(count)
			continue
		}
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil {
			return err
		}
		*out = append(*out, e)
	}
	return rows.Err()
}

// forwardPage returns the offset and limit (≤ 0: every entry from the
// offset on), counted from the first match, of q's page among total
// matches; ok is false when the page holds no match.
func forwardPage(total int, q SearchQuery) (offset, limit int, ok bool) {
	offset, limit = max(q.Offset, 0), q.Limit
	if !q.FromEnd {
		return offset, limit, offset < total
	}
	end := total - offset // the page ends before the end-th match
	if end <= 0 {
		return 0, 0, false
	}
	if limit <= 0 || limit >= end {
		return 0, end, true
	}
	return end - limit, limit, true
}

// A matcher is the rows of a revision's matches: FROM from (with args),
// each match's ordinal, and order, the expression that puts them in
// entry order (the one the index gives them in).
type matcher struct {
	from, ordinal, order string
	args                 []any
}

// matcher returns the matcher of needle (folded, not empty) in revision
// revID: the trigram index when it can look needle up, else (or with
// scan) a scan of entry_text.
func (r *Registry) matcher(revID int64, needle string, scan bool) matcher {
	long := utf8.RuneCountInString(needle) >= 3
	if r.searchIndexed() && long && !scan && !strings.ContainsAny(needle, "\x00\uFFFD\uFFFE\uFFFF") {
		// A phrase of needle's trigrams matches where they follow each
		// other: where needle is. In an FTS5 string only " is special
		// (doubled).
		return matcher{
			from:    `entry_fts WHERE entry_fts MATCH ? AND rowid BETWEEN ? AND ?`,
			ordinal: `rowid & ` + strconv.FormatInt(maxOrdinal, 10),
			order:   `rowid`,
			args:    []any{`"` + strings.ReplaceAll(needle, `"`, `""`) + `"`, ftsRowID(revID, 0), ftsRowID(revID, maxOrdinal)},
		}
	}
	m := matcher{ordinal: `t.ordinal`, order: `t.ordinal`}
	if r.d.name == pgDialect.name && long && !scan {
		// A LIKE of the fields joined as in entry_fts, the expression
		// pg_trgm's index holds, with LIKE's wildcards and its escape
		// character (backslash) escaped.
		pattern := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(needle) + "%"
		m.from = `entry_text t WHERE t.revision_id = ? AND ` + pgJoined + ` LIKE ?`
		m.args = []any{revID, pattern}
		return m
	}
	m.from = `entry_text t WHERE t.revision_id = ? AND (` + r.d.strpos + `(t.id_folded, ?) > 0 OR ` +
		r.d.strpos + `(t.question_folded, ?) > 0 OR ` + r.d.strpos + `(t.answer_folded, ?) > 0)`
	m.args = []any{revID, needle, needle, needle}
	return m
}

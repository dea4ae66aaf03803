package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"hash/fnv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
)

// dbSpool is the datasets.Spool of an import: temporary tables on the
// import's transaction (dropped when it ends) hold a JSONL file's rows
// (by line, as JSON) and its corpus's documents (by line: id, text and a
// hash of the text), so that the memory of an import does not grow with
// the files. The rules stay package datasets'.
type dbSpool struct {
	r          *Registry
	ctx        context.Context
	tx         *sql.Tx
	rows, docs *batchWriter
	textIndex  bool
}

const (
	spoolRows = "lasagna_import_rows"
	spoolDocs = "lasagna_import_docs"
	// spoolBatch is how many rows Rows hands over at once; lookupBatch
	// how many values one IN list holds.
	spoolBatch  = 1000
	lookupBatch = 500
)

func (r *Registry) newSpool(ctx context.Context, conn *sql.Conn, tx *sql.Tx) (*dbSpool, error) {
	key, after := "INTEGER PRIMARY KEY", "" // SQLite: the rowid
	stmts := []string{`DROP TABLE IF EXISTS temp.` + spoolRows, `DROP TABLE IF EXISTS temp.` + spoolDocs}
	if r.d.name == pgDialect.name {
		key, after, stmts = "BIGINT PRIMARY KEY", " ON COMMIT DROP", nil
	}
	stmts = append(stmts,
		`CREATE TEMP TABLE `+spoolRows+` (line `+key+`, id TEXT NOT NULL, data TEXT NOT NULL)`+after,
		`CREATE TEMP TABLE `+spoolDocs+` (line `+key+`, id TEXT NOT NULL, text TEXT NOT NULL, th BIGINT NOT NULL)`+after)
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	return &dbSpool{r: r, ctx: ctx, tx: tx,
		rows: r.newBatchWriter(ctx, conn, tx, spoolRows, "line", "id", "data"),
		docs: r.newBatchWriter(ctx, conn, tx, spoolDocs, "line", "id", "text", "th")}, nil
}

// drop drops the tables (SQLite keeps temporary tables until the
// connection closes; PostgreSQL drops them at commit).
func (s *dbSpool) drop() error {
	s.rows.close()
	s.docs.close()
	if s.r.d.name == pgDialect.name {
		return nil
	}
	for _, t := range []string{spoolRows, spoolDocs} {
		if _, err := s.tx.ExecContext(s.ctx, `DROP TABLE IF EXISTS temp.`+t); err != nil {
			return err
		}
	}
	return nil
}

func textHash(text string) int64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	return int64(h.Sum64())
}

func (s *dbSpool) AddRow(r datasets.Row) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.rows.add(int64(r.Pos.Line), r.ID, string(data))
}

func (s *dbSpool) AddDoc(d lasagna.Document, line int) error {
	return s.docs.add(int64(line), d.ID, d.Text, textHash(d.Text))
}

func (s *dbSpool) Duplicates(docs bool, limit int) ([]datasets.Duplicate, error) {
	w, t := s.rows, spoolRows
	if docs {
		w, t = s.docs, spoolDocs
	}
	if err := w.flush(); err != nil {
		return nil, err
	}
	if _, err := s.tx.ExecContext(s.ctx, `CREATE INDEX `+t+`_id ON `+t+` (id, line)`); err != nil {
		return nil, err
	}
	if s.r.d.name == pgDialect.name {
		// a temporary table has no statistics until analyzed: without
		// them the planner scans it whole for each lookup
		if _, err := s.tx.ExecContext(s.ctx, `ANALYZE `+t); err != nil {
			return nil, err
		}
	}
	var one int
	err := s.tx.QueryRowContext(s.ctx, `SELECT 1 FROM `+t+` GROUP BY id HAVING COUNT(*) > 1 LIMIT 1`).Scan(&one)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := s.tx.QueryContext(s.ctx, s.r.d.q(`SELECT a.line, a.id, (SELECT MIN(b.line) FROM `+t+` b WHERE b.id = a.id) FROM `+t+` a
		WHERE EXISTS (SELECT 1 FROM `+t+` b WHERE b.id = a.id AND b.line < a.line) ORDER BY a.line LIMIT ?`), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []datasets.Duplicate
	for rows.Next() {
		var d datasets.Duplicate
		if err := rows.Scan(&d.Line, &d.ID, &d.First); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (s *dbSpool) Rows(fn func([]datasets.Row) error) error {
	last := int64(-1)
	batch := make([]datasets.Row, 0, spoolBatch)
	for {
		batch = batch[:0]
		rows, err := s.tx.QueryContext(s.ctx, s.r.d.q(`SELECT line, data FROM `+spoolRows+` WHERE line > ? ORDER BY line LIMIT ?`), last, spoolBatch)
		if err != nil {
			return err
		}
		for rows.Next() {
			var data []byte
			if err := rows.Scan(&last, &data); err != nil {
				rows.Close()
				return err
			}
			var r datasets.Row
			if err := json.Unmarshal(data, &r); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		if err := fn(batch); err != nil {
			return err
		}
	}
}

func (s *dbSpool) Lookup(ids, texts []string) (map[string]string, map[string]string, error) {
	byID, byText := map[string]string{}, map[string]string{}
	err := s.each(`SELECT id, text, line FROM `+spoolDocs+` WHERE id IN `, ids, func(id string) any { return id }, func(id, text string) {
		byID[id] = text
	})
	if err != nil || len(texts) == 0 {
		return byID, byText, err
	}
	if !s.textIndex {
		if _, err := s.tx.ExecContext(s.ctx, `CREATE INDEX `+spoolDocs+`_th ON `+spoolDocs+` (th)`); err != nil {
			return nil, nil, err
		}
		s.textIndex = true
	}
	want := make(map[string]bool, len(texts))
	for _, t := range texts {
		want[t] = true
	}
	first := map[string]int64{}
	err = s.eachLine(`SELECT id, text, line FROM `+spoolDocs+` WHERE th IN `, texts, func(t string) any { return textHash(t) }, func(id, text string, line int64) {
		if !want[text] {
			return // another text with the same hash
		}
		if f, seen := first[text]; !seen || line < f {
			first[text], byText[text] = line, id
		}
	})
	return byID, byText, err
}

func (s *dbSpool) each(q string, keys []string, arg func(string) any, fn func(id, text string)) error {
	return s.eachLine(q, keys, arg, func(id, text string, _ int64) { fn(id, text) })
}

// eachLine runs q (ending in "IN ") over keys, lookupBatch at a time,
// handing fn each document found.
func (s *dbSpool) eachLine(q string, keys []string, arg func(string) any, fn func(id, text string, line int64)) error {
	for len(keys) > 0 {
		n := min(len(keys), lookupBatch)
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = arg(k)
		}
		keys = keys[n:]
		rows, err := s.tx.QueryContext(s.ctx, s.r.d.q(q+"("+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+")"), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var (
				id, text string
				line     int64
			)
			if err := rows.Scan(&id, &text, &line); err != nil {
				rows.Close()
				return err
			}
			fn(id, text, line)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

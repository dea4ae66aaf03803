package registry

import (
	"context"
	"database/sql"
	"hash/fnv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// dbSpool is the datasets.Spool of an import: temporary tables on the
// import's transaction (dropped when it ends) hold a JSONL file's rows
// (by line, as read) and its corpus's documents (by line: id, a hash of
// the text, and the text when a row may need it), so that the memory of an import does not grow with
// the files. The rules stay package datasets'.
type dbSpool struct {
	r          *Registry
	ctx        context.Context
	tx         *sql.Tx
	rows, docs *batchWriter
	textIndex  bool
	need       bloom // the ids and texts rows name
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
	return &dbSpool{r: r, ctx: ctx, tx: tx, need: newBloom(),
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

func (s *dbSpool) AddRow(r datasets.Row, data []byte) error {
	for _, id := range r.ExpectedDocs {
		s.need.add(keyHash('i', id))
	}
	for _, t := range r.Contexts {
		s.need.add(keyHash('t', t))
	}
	return s.rows.add(int64(r.Pos.Line), r.ID, string(data))
}

// AddDoc keeps a document's text only when a row may ask for it (its id
// or its text is in s.need): rows usually name a small part of a corpus.
func (s *dbSpool) AddDoc(d lasagna.Document, line int) error {
	th := textHash(d.Text)
	text := ""
	if s.need.has(keyHash('i', d.ID)) || s.need.has(keyHash('t', d.Text)) {
		text = d.Text
	}
	return s.docs.add(int64(line), d.ID, text, th)
}

// bloom is a Bloom filter of fixed size (bloomBits bits, 3 probes): a
// key added is always found; another one is found now and then (a false
// positive costs a stored text, not a wrong answer).
type bloom []uint64

const bloomBits = 1 << 24 // 2 MiB

func newBloom() bloom { return make(bloom, bloomBits/64) }

func (b bloom) add(h uint64) {
	for i := range 3 {
		k := (h >> (21 * i)) % bloomBits
		b[k/64] |= 1 << (k % 64)
	}
}

func (b bloom) has(h uint64) bool {
	for i := range 3 {
		k := (h >> (21 * i)) % bloomBits
		if b[k/64]&(1<<(k%64)) == 0 {
			return false
		}
	}
	return true
}

// keyHash hashes an id (kind 'i') or a text (kind 't') for bloom.
func keyHash(kind byte, s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte{kind})
	h.Write([]byte(s))
	return mix(h.Sum64())
}

// mix spreads the bits of h (the splitmix64 finalizer), so that each
// probe's 21 bits are independent enough.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

func (s *dbSpool) Duplicates(docs bool, limit int) ([]datasets.Duplicate, error) {
	w, t := s.rows, spoolRows
	if docs {
		w, t = s.docs, spoolDocs
	}
	if err := w.flush(); err != nil {
		return nil, err
	}
	// A unique index on id is built when the ids are unique (the usual
	// case, one sort); when it cannot be, an index on (id, line) finds the
	// duplicates. The savepoint keeps a PostgreSQL transaction usable
	// after the failed statement.
	if _, err := s.tx.ExecContext(s.ctx, `SAVEPOINT lasagna_ids`); err != nil {
		return nil, err
	}
	_, uerr := s.tx.ExecContext(s.ctx, `CREATE UNIQUE INDEX `+t+`_id ON `+t+` (id)`)
	if uerr == nil {
		_, err := s.tx.ExecContext(s.ctx, `RELEASE SAVEPOINT lasagna_ids`)
		return nil, s.analyze(t, err)
	}
	for _, q := range []string{`ROLLBACK TO SAVEPOINT lasagna_ids`, `RELEASE SAVEPOINT lasagna_ids`, `CREATE INDEX ` + t + `_id ON ` + t + ` (id, line)`} {
		if _, err := s.tx.ExecContext(s.ctx, q); err != nil {
			return nil, err
		}
	}
	if err := s.analyze(t, nil); err != nil {
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

// analyze gives PostgreSQL the statistics of table t (a temporary table
// has none until analyzed, and the planner then scans it whole for each
// lookup).
func (s *dbSpool) analyze(t string, err error) error {
	if err != nil || s.r.d.name != pgDialect.name {
		return err
	}
	_, err = s.tx.ExecContext(s.ctx, `ANALYZE `+t)
	return err
}

func (s *dbSpool) Rows(fn func([]datasets.SpooledRow) error) error {
	last := int64(-1)
	batch := make([]datasets.SpooledRow, 0, spoolBatch)
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
			batch = append(batch, datasets.SpooledRow{Line: int(last), Data: data})
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

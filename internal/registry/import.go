package registry

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// Format is an import format.
type Format string

const (
	// FormatAuto chooses by path: a folder is BEIR, .jsonl JSONL, and a
	// .csv file whose header has a chunk_ids, page_nums or source_paths
	// column a Vecta CSV (so an exported CSV imports back), any other
	// .csv the seed-000 CSV.
	FormatAuto  Format = ""
	FormatJSONL Format = "jsonl"
	FormatCSV   Format = "csv"
	FormatVecta Format = "vecta"
	FormatBEIR  Format = "beir"
)

// ParseFormat checks s is auto, jsonl, csv, vecta or beir.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "auto":
		return FormatAuto, nil
	case FormatAuto, FormatJSONL, FormatCSV, FormatVecta, FormatBEIR:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q; want auto, jsonl, csv, vecta or beir", s)
}

// Files names benchmark files to import: Path in FS, as the datasets
// loaders read it, so problems are the ones validate-data reports, with
// the same file:line.
type Files struct {
	FS     fs.FS
	Path   string
	Format Format
	// Split is a BEIR folder's qrels split ("" = test).
	Split string
	// Corpus is a corpus file beside a JSONL or CSV file
	// (datasets.Options.Corpus).
	Corpus string
}

// ImportOptions tune Import.
type ImportOptions struct {
	// Draft leaves the benchmark a draft (a new one is created as a
	// draft; an existing draft is filled but not activated). Without it
	// a new benchmark is active and a filled draft becomes active.
	Draft bool
	// Source, when set, is recorded as the revision's source instead of
	// the files (its SHA256 is set to the revision's digest): an importer
	// that converts a dataset into files the loaders read (registry/hf)
	// names the dataset it converted.
	Source *Source
}

// Create imports files as the benchmark name: a new active benchmark, or
// a new revision (made current) of an existing one. See Import.
func (r *Registry) Create(ctx context.Context, name string, files Files) (Info, error) {
	return r.Import(ctx, name, files, ImportOptions{})
}

// Import validates and stores files as a revision of the benchmark name,
// in one transaction: invalid data (datasets.Problems, with file:line)
// leaves the registry unchanged. The revision is name@<12 hex>, the
// identity the file has when run with name: NAME. Content equal to an
// existing revision adds nothing and makes that revision current again.
// An archived benchmark takes no revision (activate it first).
//
// The import streams: the datasets loader reads each file once, and the
// bytes it reads (and hashes into the identity) are written to the
// database in chunks as they are read, so the stored files are the bytes
// validated, without a second read or a copy of a whole file in memory.
// Entries are inserted in batches. A JSONL file with a corpus keeps its
// rows and ids in temporary tables (datasets.StreamSpooled), and one
// without sorts its ids and passage hashes in bounded memory
// (datasets.StreamPooled), so memory does not grow with the files (rows
// naming their pooled passages, expected_docs without a corpus, are
// still loaded whole).
func (r *Registry) Import(ctx context.Context, name string, files Files, opts ImportOptions) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	if files.FS == nil || files.Path == "" {
		return Info{}, errors.New("import: no file given")
	}
	format, err := detect(files)
	if err != nil {
		return Info{}, err
	}
	var inf Info
	err = r.writeConn(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		// The files are stored under a pending revision, known by its id
		// until the loader has given the digest.
		var revID int64
		if err := tx.QueryRowContext(ctx, r.d.q(`INSERT INTO revisions (benchmark_id, digest, format, split, main_path, corpus_path, source, questions, documents, created)
			VALUES (0, ?, '', '', '', '', '', 0, 0, ?) RETURNING id`), "pending "+now(), now()).Scan(&revID); err != nil {
			return err
		}
		st, err := r.load(ctx, conn, tx, revID, name, files, format)
		if err != nil {
			return err
		}
		if opts.Source != nil {
			src := *opts.Source
			src.SHA256 = st.digest
			st.source = src
		}
		b, err := r.benchByName(ctx, tx, name)
		change := ChangeAdded
		switch {
		case errors.Is(err, ErrNotFound):
			change = ChangeCreated
			status := StatusActive
			if opts.Draft {
				status = StatusDraft
			}
			t := now()
			if err := tx.QueryRowContext(ctx, r.d.q(`INSERT INTO benchmarks (name, status, created, updated) VALUES (?, ?, ?, ?) RETURNING id`), name, string(status), t, t).Scan(&b.id); err != nil {
				return err
			}
			b.name, b.status, b.created = name, status, t
		case err != nil:
			return err
		case b.status == StatusArchived:
			return &StatusError{Name: name, Status: b.status, Op: "take a new revision"}
		}
		var have int64
		err = tx.QueryRowContext(ctx, r.d.q(`SELECT id FROM revisions WHERE benchmark_id = ? AND digest = ?`), b.id, st.digest).Scan(&have)
		switch {
		case isNoRows(err):
			if err := r.finishRevision(ctx, tx, revID, b.id, st); err != nil {
				return err
			}
			if err := r.indexRevision(ctx, tx, revID); err != nil {
				return err
			}
		case err != nil:
			return err
		default: // the same content: drop the copy
			if err := r.deleteEntryRows(ctx, tx, revID); err != nil {
				return err
			}
			for _, q := range []string{`DELETE FROM revision_chunks WHERE revision_id = ?`, `DELETE FROM revisions WHERE id = ?`} {
				if _, err := tx.ExecContext(ctx, r.d.q(q), revID); err != nil {
					return err
				}
			}
			revID = have
			change = ChangeRestored
		}
		status := b.status
		if status == StatusDraft && !opts.Draft {
			status = StatusActive
		}
		if change == ChangeRestored && status == b.status && b.current.Valid && b.current.Int64 == revID {
			change = ChangeUnchanged
		}
		if _, err := tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET status = ?, current_revision = ?, draft_source = '', draft_error = '', updated = ? WHERE id = ?`), string(status), revID, now(), b.id); err != nil {
			return err
		}
		b.status, b.current = status, sql.NullInt64{Int64: revID, Valid: true}
		b.draftSource, b.draftError = "", ""
		inf, err = r.info(ctx, tx, b, "")
		inf.Change = change
		return err
	})
	return inf, err
}

// stored is a validated import ready to write, or a stored revision to
// rebuild.
type stored struct {
	digest     string
	format     Format
	split      string
	mainPath   string
	corpusPath string
	source     Source
	files      map[string][]byte // Benchmark: the stored files
	questions  int
	documents  int
}

// load runs the datasets loader over f (the validation and the identity)
// through a teeFS that writes every byte the loader reads of the files
// making up the benchmark to revision_chunks under revID.
func (r *Registry) load(ctx context.Context, conn *sql.Conn, tx *sql.Tx, revID int64, name string, f Files, format Format) (*stored, error) {
	st := &stored{format: format}
	base := path.Base(f.Path)
	if base == "." || base == "/" || base == "" {
		base = "beir"
	}
	st.mainPath = base
	want := map[string]string{}
	if format == FormatBEIR {
		split := f.Split
		if split == "" {
			split = datasets.DefaultSplit
		}
		for _, p := range []string{"corpus.jsonl", "queries.jsonl", path.Join("qrels", split+".tsv")} {
			want[path.Join(f.Path, p)] = path.Join(base, p)
		}
	} else {
		want[path.Clean(f.Path)] = base
	}
	if f.Corpus != "" {
		st.corpusPath = path.Join("corpus", path.Base(f.Corpus))
		want[path.Clean(f.Corpus)] = st.corpusPath
	}
	ins, err := tx.PrepareContext(ctx, r.d.q(`INSERT INTO revision_chunks (revision_id, path, seq, data) VALUES (?, ?, ?, ?)`))
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	tee := &teeFS{fsys: f.FS, want: want, files: map[string]*teeFile{}, sink: func(dst string, seq int, data []byte) error {
		_, err := ins.ExecContext(ctx, revID, dst, seq, data)
		return err
	}}
	ent := r.newEntryWriter(ctx, conn, tx, revID)
	defer ent.close()
	// A JSONL file with a corpus keeps its rows and ids in temporary
	// tables (dbSpool) instead of memory; one without is streamed
	// (datasets.StreamPooled).
	var sp *dbSpool
	if format == FormatJSONL && f.Corpus != "" {
		if sp, err = r.newSpool(ctx, conn, tx); err != nil {
			return nil, err
		}
	}
	var spool datasets.Spool
	if sp != nil {
		spool = sp
	}
	opts := datasets.Options{Name: name, Split: f.Split, Corpus: f.Corpus}
	add := func(q lasagna.Query, relevant []string) error {
		return ent.add(entryOf(lasagnaFormat(format), q, relevant))
	}
	var sum datasets.Summary
	if format == FormatJSONL && f.Corpus == "" && f.Split == "" {
		sum, err = datasets.StreamPooled(tee, f.Path, opts, add)
	} else {
		sum, err = datasets.StreamSpooled(tee, f.Path, lasagnaFormat(format), opts, spool, add)
	}
	if tee.err != nil {
		// Storing the bytes read failed (a full disk, say): the loader saw
		// it as a read error of the input at some line, which it is not.
		return nil, tee.err
	}
	if errors.Is(err, datasets.ErrNamedPool) {
		// Rows naming their pooled passages: the entries handed over so
		// far are dropped, and the file, read back from its stored chunks,
		// is loaded whole.
		sum, err = r.loadWhole(ctx, tx, revID, ent, f.Path, base, opts, add)
	}
	if err == nil {
		err = ent.flush()
	}
	if err == nil && sp != nil {
		err = sp.drop()
	}
	if err != nil {
		return nil, err
	}
	// Every stored file was read to its end once, so the chunks are the
	// bytes the digest covers.
	for src, dst := range want {
		tf := tee.files[src]
		if tf == nil || !tf.eof {
			return nil, fmt.Errorf("import %s: %s was not read to its end; this is a bug in lasagna", f.Path, dst)
		}
	}
	st.digest, st.split, st.questions, st.documents = sum.Revision, sum.Split, sum.Queries, sum.Documents
	st.source = Source{Kind: "file", Path: f.Path, SHA256: sum.Revision, Format: string(format), Split: sum.Split, Corpus: f.Corpus}
	return st, nil
}

// loadWhole drops the entries ent wrote under revID and streams the
// JSONL file at p (stored as dst) again with datasets.Stream, from its
// stored chunks, so that it is loaded whole, into ent.
func (r *Registry) loadWhole(ctx context.Context, tx *sql.Tx, revID int64, ent *entryWriter, p, dst string, opts datasets.Options, add func(lasagna.Query, []string) error) (datasets.Summary, error) {
	ent.discard()
	if err := r.deleteEntryRows(ctx, tx, revID); err != nil {
		return datasets.Summary{}, err
	}
	rows, err := tx.QueryContext(ctx, r.d.q(`SELECT data FROM revision_chunks WHERE revision_id = ? AND path = ? ORDER BY seq`), revID, dst)
	if err != nil {
		return datasets.Summary{}, err
	}
	var data []byte
	for rows.Next() {
		var chunk []byte
		if err := rows.Scan(&chunk); err != nil {
			rows.Close()
			return datasets.Summary{}, err
		}
		data = append(data, chunk...)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return datasets.Summary{}, err
	}
	return datasets.Stream(oneFileFS{name: p, fsys: fstest.MapFS{"f": {Data: data, Mode: 0o444}}}, p, lasagna.FormatJSONL, opts, add)
}

// oneFileFS serves the file f of fsys under name, which need not be a
// valid fs.FS path (the CLI's paths are the operating system's, "../x"
// say: datasets.OSFS), so that problems name the file as given.
type oneFileFS struct {
	name string
	fsys fs.FS
}

func (o oneFileFS) Open(name string) (fs.File, error) {
	if name != o.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.fsys.Open("f")
}

// lasagnaFormat is the datasets format of an import format.
func lasagnaFormat(f Format) lasagna.Format {
	switch f {
	case FormatJSONL:
		return lasagna.FormatJSONL
	case FormatVecta:
		return lasagna.FormatVecta
	case FormatBEIR:
		return lasagna.FormatBEIR
	case FormatCSV:
		return lasagna.FormatCSV
	}
	return ""
}

// chunkSize is the size of a stored file's chunks.
const chunkSize = 1 << 20

// teeFS is fsys, where the files named in want (source path → stored
// path) are copied to sink, in chunks of chunkSize, as they are read.
type teeFS struct {
	fsys  fs.FS
	want  map[string]string
	files map[string]*teeFile
	sink  func(dst string, seq int, data []byte) error
	err   error // the first sink error
}

func (t *teeFS) Open(name string) (fs.File, error) {
	f, err := t.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	dst, ok := t.want[path.Clean(name)]
	if !ok {
		return f, nil
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return f, err
	}
	if t.files[path.Clean(name)] != nil {
		f.Close()
		return nil, fmt.Errorf("import: %s opened twice; this is a bug in lasagna", name)
	}
	tf := &teeFile{File: f, t: t, dst: dst, buf: make([]byte, 0, chunkSize)}
	t.files[path.Clean(name)] = tf
	return tf, nil
}

// Stat and ReadDir keep fs.Stat and fs.ReadDir from opening files.
func (t *teeFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(t.fsys, name) }

func (t *teeFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(t.fsys, name) }

type teeFile struct {
	fs.File
	t   *teeFS
	dst string
	buf []byte
	seq int
	eof bool
}

func (f *teeFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if f.t.err != nil {
		return n, f.t.err
	}
	data := p[:n]
	for len(data) > 0 {
		k := min(len(data), chunkSize-len(f.buf))
		f.buf = append(f.buf, data[:k]...)
		data = data[k:]
		if len(f.buf) == chunkSize {
			f.flush()
		}
	}
	if err == io.EOF && !f.eof {
		if len(f.buf) > 0 || f.seq == 0 {
			f.flush() // an empty file is one empty chunk
		}
		f.eof = true
	}
	if f.t.err != nil {
		return n, f.t.err
	}
	return n, err
}

func (f *teeFile) flush() {
	if f.t.err == nil {
		f.t.err = f.t.sink(f.dst, f.seq, f.buf)
	}
	f.seq++
	f.buf = f.buf[:0]
}

func (st *stored) rebuild(name string) (*lasagna.Benchmark, error) {
	mfs := fstest.MapFS{}
	for p, data := range st.files {
		mfs[p] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	split := ""
	if st.format == FormatBEIR {
		split = st.split
	}
	return load(mfs, st.mainPath, st.format, datasets.Options{Name: name, Split: split, Corpus: st.corpusPath})
}

func load(fsys fs.FS, p string, format Format, opts datasets.Options) (*lasagna.Benchmark, error) {
	switch format {
	case FormatVecta:
		return datasets.LoadVectaCSV(fsys, p, opts)
	case FormatBEIR:
		return datasets.LoadBEIR(fsys, p, opts)
	case FormatJSONL:
		return datasets.LoadJSONL(fsys, p, opts)
	default:
		return datasets.LoadCSV(fsys, p, opts)
	}
}

// detect resolves FormatAuto and checks an explicit format fits the path.
func detect(f Files) (Format, error) {
	st, err := fs.Stat(f.FS, f.Path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if f.Format != FormatAuto && f.Format != FormatBEIR {
			return "", fmt.Errorf("%s is a folder; --format %s wants a file (a folder is a BEIR benchmark)", f.Path, f.Format)
		}
		return FormatBEIR, nil
	}
	if f.Format == FormatBEIR {
		return "", fmt.Errorf("%s is a file; --format beir wants a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)", f.Path)
	}
	if f.Format != FormatAuto {
		return f.Format, nil
	}
	switch strings.ToLower(path.Ext(f.Path)) {
	case ".jsonl":
		return FormatJSONL, nil
	case ".csv":
		if vectaHeader(f.FS, f.Path) {
			return FormatVecta, nil
		}
		return FormatCSV, nil
	}
	return "", fmt.Errorf("%s: unknown dataset format %q; want a .jsonl or .csv file or a BEIR folder, or give --format", f.Path, path.Ext(f.Path))
}

// vectaHeader reports whether the CSV's header names a Vecta list column.
func vectaHeader(fsys fs.FS, p string) bool {
	file, err := fsys.Open(p)
	if err != nil {
		return false
	}
	defer file.Close()
	cr := csv.NewReader(bufio.NewReader(file))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		return false
	}
	for i, c := range rec {
		if i == 0 {
			c = strings.TrimPrefix(c, "\ufeff")
		}
		switch strings.ToLower(strings.TrimSpace(c)) {
		case "chunk_ids", "page_nums", "source_paths":
			return true
		}
	}
	return false
}

// finishRevision gives the pending revision revID its benchmark, digest,
// source and sizes.
func (r *Registry) finishRevision(ctx context.Context, tx *sql.Tx, revID, benchID int64, st *stored) error {
	src, err := json.Marshal(st.source)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, r.d.q(`UPDATE revisions SET benchmark_id = ?, digest = ?, format = ?, split = ?, main_path = ?, corpus_path = ?, source = ?, questions = ?, documents = ?, created = ? WHERE id = ?`),
		benchID, st.digest, string(st.format), st.split, st.mainPath, st.corpusPath, string(src), st.questions, st.documents, now(), revID)
	return err
}

// entryBatch is how many entries one INSERT statement writes;
// copyBatch how many one PostgreSQL COPY does.
const (
	entryBatch = 200
	copyBatch  = 5000
)

// entryWriter inserts a revision's entries as they come (batchWriters
// on the entries table and on entry_text, their searched fields; the
// search index is made from entry_text at the end: indexRevision).
type entryWriter struct {
	w, text *batchWriter
	revID   int64
	n       int // entries so far
	buf     bytes.Buffer
}

func (r *Registry) newEntryWriter(ctx context.Context, conn *sql.Conn, tx *sql.Tx, revID int64) *entryWriter {
	return &entryWriter{w: r.newBatchWriter(ctx, conn, tx, "entries", "revision_id", "ordinal", "entry_id", "question", "data"),
		text: r.newTextWriter(ctx, conn, tx), revID: revID}
}

func (w *entryWriter) add(e Entry) error {
	w.buf.Reset()
	if err := encodeEntry(&w.buf, e); err != nil {
		return err
	}
	n := int64(w.n)
	if n > maxOrdinal {
		return fmt.Errorf("registry: more than %d entries in one revision", int64(maxOrdinal)+1)
	}
	w.n++
	if err := w.w.add(w.revID, n, e.ID, e.Question, strings.TrimSuffix(w.buf.String(), "\n")); err != nil {
		return err
	}
	return w.text.add(searchRow(w.revID, n, e.ID, e.Question, e.Answer)...)
}

// discard forgets the entries not yet written and starts the ordinals
// again.
func (w *entryWriter) discard() {
	for _, b := range []*batchWriter{w.w, w.text} {
		clear(b.args)
		b.args = b.args[:0]
		clear(b.rows)
		b.rows = b.rows[:0]
	}
	w.n = 0
}

func (w *entryWriter) flush() error {
	if err := w.w.flush(); err != nil {
		return err
	}
	return w.text.flush()
}

func (w *entryWriter) close() {
	w.w.close()
	w.text.close()
}

// batchWriter inserts rows into a table as they come: on SQLite
// entryBatch rows per INSERT statement, on PostgreSQL copyBatch rows per
// COPY (pgx CopyFrom on the transaction's connection).
type batchWriter struct {
	r     *Registry
	ctx   context.Context
	conn  *sql.Conn
	tx    *sql.Tx
	table string
	cols  []string
	args  []any             // SQLite: the next statement's arguments
	rows  [][]any           // PostgreSQL: the next COPY's rows
	stmts map[int]*sql.Stmt // by row count
}

func (r *Registry) newBatchWriter(ctx context.Context, conn *sql.Conn, tx *sql.Tx, table string, cols ...string) *batchWriter {
	return &batchWriter{r: r, ctx: ctx, conn: conn, tx: tx, table: table, cols: cols, stmts: map[int]*sql.Stmt{}}
}

func (w *batchWriter) add(row ...any) error {
	if len(row) != len(w.cols) {
		return fmt.Errorf("registry: %d values for the %d columns of %s; this is a bug in lasagna", len(row), len(w.cols), w.table)
	}
	if w.r.d.name == pgDialect.name {
		w.rows = append(w.rows, row)
		if len(w.rows) == copyBatch {
			return w.flush()
		}
		return nil
	}
	w.args = append(w.args, row...)
	if len(w.args) == len(w.cols)*entryBatch {
		return w.flush()
	}
	return nil
}

func (w *batchWriter) flush() error {
	if len(w.rows) > 0 {
		err := copyRows(w.ctx, w.conn, w.table, w.cols, w.rows)
		clear(w.rows)
		w.rows = w.rows[:0]
		return err
	}
	n := len(w.args) / len(w.cols)
	if n == 0 {
		return nil
	}
	s := w.stmts[n]
	if s == nil {
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(w.cols)), ", ") + ")"
		q := `INSERT INTO ` + w.table + ` (` + strings.Join(w.cols, ", ") + `) VALUES ` + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		var err error
		if s, err = w.tx.PrepareContext(w.ctx, w.r.d.q(q)); err != nil {
			return err
		}
		w.stmts[n] = s
	}
	_, err := s.ExecContext(w.ctx, w.args...)
	clear(w.args)
	w.args = w.args[:0]
	return err
}

func (w *batchWriter) close() {
	for _, s := range w.stmts {
		s.Close()
	}
}

// Resolve returns the benchmark ref names (registry:NAME, NAME or
// NAME@hash) rebuilt from its stored files, ready to evaluate. Only an
// active benchmark resolves: a draft or archived one is a *StatusError.
func (r *Registry) Resolve(ctx context.Context, ref string) (*lasagna.Benchmark, error) {
	inf, err := r.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	if inf.Status != StatusActive {
		return nil, &StatusError{Name: inf.Name, Status: inf.Status, Op: "be evaluated", Empty: inf.Revision == ""}
	}
	return r.Benchmark(ctx, inf)
}

// Benchmark rebuilds the revision inf describes, whatever its status.
func (r *Registry) Benchmark(ctx context.Context, inf Info) (*lasagna.Benchmark, error) {
	if inf.revID == 0 {
		return nil, &StatusError{Name: inf.Name, Status: inf.Status, Op: "be loaded", Empty: true}
	}
	st := &stored{files: map[string][]byte{}}
	var format string
	if err := r.db.QueryRowContext(ctx, r.d.q(`SELECT digest, format, split, main_path, corpus_path FROM revisions WHERE id = ?`), inf.revID).
		Scan(&st.digest, &format, &st.split, &st.mainPath, &st.corpusPath); err != nil {
		return nil, err
	}
	st.format = Format(format)
	// Files stored whole (before schema 3), then files stored in chunks.
	rows, err := r.db.QueryContext(ctx, r.d.q(`SELECT path, 0, data FROM revision_files WHERE revision_id = ?
		UNION ALL SELECT path, seq, data FROM revision_chunks WHERE revision_id = ? ORDER BY 1, 2`), inf.revID, inf.revID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p    string
			seq  int64
			data []byte
		)
		if err := rows.Scan(&p, &seq, &data); err != nil {
			return nil, err
		}
		st.files[p] = append(st.files[p], data...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	b, err := st.rebuild(inf.Name)
	if err != nil {
		return nil, fmt.Errorf("registry revision %s does not load: %w", inf.Revision, err)
	}
	if b.Revision != st.digest {
		return nil, fmt.Errorf("registry revision %s is damaged: its stored files hash to %s", inf.Revision, b.Name)
	}
	return b, nil
}

// hexDigest matches a lower-case hex digest or prefix.
var hexDigest = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{12,64}$`) })

// FindRevision returns the benchmark of a revision whose content digest
// is digest (the full hex sha256 or a prefix of at least 12 digits),
// whatever its name and status: the data a bundle ran on, found by its
// content whether it ran as registry:NAME or as the file the revision
// was imported from. ErrNotFound when no revision holds it.
func (r *Registry) FindRevision(ctx context.Context, digest string) (*lasagna.Benchmark, error) {
	if !hexDigest().MatchString(digest) {
		return nil, fmt.Errorf("revision digest %q: give 12 to 64 lower-case hex digits", digest)
	}
	var name, full string
	err := r.db.QueryRowContext(ctx, r.d.q(`SELECT b.name, r.digest FROM revisions r JOIN benchmarks b ON b.id = r.benchmark_id
		WHERE r.digest LIKE ? ORDER BY r.id LIMIT 1`), digest+"%").Scan(&name, &full)
	if isNoRows(err) {
		return nil, fmt.Errorf("no revision of the registry has digest %s: %w", digest, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	inf, err := r.Get(ctx, name+"@"+full)
	if err != nil {
		return nil, err
	}
	return r.Benchmark(ctx, inf)
}

// Stamp returns a value that changes whenever a revision is added or
// removed (the count and the highest id of the stored revisions), for
// caches of what FindRevision found.
func (r *Registry) Stamp(ctx context.Context) (string, error) {
	var n, top int64
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(id), 0) FROM revisions WHERE benchmark_id <> 0`).Scan(&n, &top); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d", n, top), nil
}

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
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
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
func (r *Registry) Import(ctx context.Context, name string, files Files, opts ImportOptions) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	st, err := prepare(name, files)
	if err != nil {
		return Info{}, err
	}
	if opts.Source != nil {
		src := *opts.Source
		src.SHA256 = st.digest
		st.source = src
	}
	var inf Info
	err = r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		switch {
		case errors.Is(err, ErrNotFound):
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
		var revID int64
		err = tx.QueryRowContext(ctx, r.d.q(`SELECT id FROM revisions WHERE benchmark_id = ? AND digest = ?`), b.id, st.digest).Scan(&revID)
		if isNoRows(err) {
			revID, err = r.insertRevision(ctx, tx, b.id, st)
		}
		if err != nil {
			return err
		}
		status := b.status
		if status == StatusDraft && !opts.Draft {
			status = StatusActive
		}
		if _, err := tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET status = ?, current_revision = ?, draft_source = '', draft_error = '', updated = ? WHERE id = ?`), string(status), revID, now(), b.id); err != nil {
			return err
		}
		b.status, b.current = status, sql.NullInt64{Int64: revID, Valid: true}
		b.draftSource, b.draftError = "", ""
		inf, err = r.info(ctx, tx, b, "")
		return err
	})
	return inf, err
}

// stored is a validated import ready to write.
type stored struct {
	digest     string
	format     Format
	split      string
	mainPath   string
	corpusPath string
	source     Source
	files      map[string][]byte
	bench      *lasagna.Benchmark // rebuilt from files
}

// prepare loads files with the datasets loaders (the validation), reads
// their bytes and rebuilds the benchmark from the bytes, which must give
// the same identity.
func prepare(name string, f Files) (*stored, error) {
	if f.FS == nil || f.Path == "" {
		return nil, errors.New("import: no file given")
	}
	format, err := detect(f)
	if err != nil {
		return nil, err
	}
	opts := datasets.Options{Name: name, Split: f.Split, Corpus: f.Corpus}
	b, err := load(f.FS, f.Path, format, opts)
	if err != nil {
		return nil, err
	}
	st := &stored{digest: b.Revision, format: format, split: b.Split, files: map[string][]byte{}}
	read := func(src, dst string) error {
		data, err := fs.ReadFile(f.FS, src)
		if err != nil {
			return err
		}
		st.files[dst] = data
		return nil
	}
	base := path.Base(f.Path)
	if base == "." || base == "/" || base == "" {
		base = "beir"
	}
	if format == FormatBEIR {
		for _, p := range []string{"corpus.jsonl", "queries.jsonl", path.Join("qrels", b.Split+".tsv")} {
			if err := read(path.Join(f.Path, p), path.Join(base, p)); err != nil {
				return nil, err
			}
		}
	} else if err := read(f.Path, base); err != nil {
		return nil, err
	}
	st.mainPath = base
	if f.Corpus != "" {
		st.corpusPath = path.Join("corpus", path.Base(f.Corpus))
		if err := read(f.Corpus, st.corpusPath); err != nil {
			return nil, err
		}
	}
	st.bench, err = st.rebuild(name)
	if err != nil {
		return nil, fmt.Errorf("%s changed while it was imported (%v); import it again", f.Path, err)
	}
	if st.bench.Name != b.Name {
		return nil, fmt.Errorf("%s changed while it was imported (%s, then %s); import it again", f.Path, b.Name, st.bench.Name)
	}
	st.source = Source{Kind: "file", Path: f.Path, SHA256: b.Revision, Format: string(format), Split: b.Split, Corpus: f.Corpus}
	return st, nil
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

func (r *Registry) insertRevision(ctx context.Context, tx *sql.Tx, benchID int64, st *stored) (int64, error) {
	src, err := json.Marshal(st.source)
	if err != nil {
		return 0, err
	}
	var revID int64
	if err := tx.QueryRowContext(ctx, r.d.q(`INSERT INTO revisions (benchmark_id, digest, format, split, main_path, corpus_path, source, questions, documents, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		benchID, st.digest, string(st.format), st.split, st.mainPath, st.corpusPath, string(src), len(st.bench.Queries), len(st.bench.Corpus), now()).Scan(&revID); err != nil {
		return 0, err
	}
	for p, data := range st.files {
		if _, err := tx.ExecContext(ctx, r.d.q(`INSERT INTO revision_files (revision_id, path, data) VALUES (?, ?, ?)`), revID, p, data); err != nil {
			return 0, err
		}
	}
	ins, err := tx.PrepareContext(ctx, r.d.q(`INSERT INTO entries (revision_id, ordinal, entry_id, question, data) VALUES (?, ?, ?, ?, ?)`))
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	var buf bytes.Buffer
	for i, e := range EntriesOf(st.bench) {
		buf.Reset()
		if err := encodeEntry(&buf, e); err != nil {
			return 0, err
		}
		if _, err := ins.ExecContext(ctx, revID, i, e.ID, e.Question, strings.TrimSuffix(buf.String(), "\n")); err != nil {
			return 0, err
		}
	}
	return revID, nil
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
	rows, err := r.db.QueryContext(ctx, r.d.q(`SELECT path, data FROM revision_files WHERE revision_id = ?`), inf.revID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p    string
			data []byte
		)
		if err := rows.Scan(&p, &data); err != nil {
			return nil, err
		}
		st.files[p] = data
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

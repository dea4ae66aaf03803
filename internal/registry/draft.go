package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"testing/fstest"

	public "github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// SourceKindSynthesis is the Source.Kind of a benchmark written by
// `lasagna benchmark synthesize --into`.
const SourceKindSynthesis = "synthesis"

// Synthesis is the source of a synthesized benchmark: what reproduces it
// (the same documents, seed and model give the same plan and prompts).
// It holds no path of the machine it ran on, so a registry or a bundle
// can be shared: documents are named by their path inside the
// synthesized folder, as the rows' source_doc_ids name them.
type Synthesis struct {
	Model string `json:"model"`
	// N is the number of questions planned (--n); fewer rows may have
	// passed verification.
	N    int    `json:"n"`
	Mix  string `json:"mix"`
	Seed int64  `json:"seed"`
	// Documents are the synthesized folder's documents with the sha256
	// of their bytes.
	Documents []SourceDocument `json:"documents"`
	// Dropped counts the questions dropped, by reason.
	Dropped map[string]int `json:"dropped,omitempty"`
}

// SourceDocument is one document of a synthesized folder.
type SourceDocument struct {
	// ID is the document's slash-separated path inside the folder.
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// DocumentDigests returns the sha256 of each file ids names in fsys (the
// synthesized folder), in the order given.
func DocumentDigests(fsys fs.FS, ids []string) ([]SourceDocument, error) {
	out := make([]SourceDocument, 0, len(ids))
	for _, id := range ids {
		data, err := fs.ReadFile(fsys, id)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		out = append(out, SourceDocument{ID: id, SHA256: hex.EncodeToString(sum[:])})
	}
	return out, nil
}

// draftSource is the pending source StartDraft recorded, or nil.
func draftSource(b benchRow) *Source {
	if b.draftSource == "" {
		return nil
	}
	var src Source
	if err := json.Unmarshal([]byte(b.draftSource), &src); err != nil {
		return nil
	}
	return &src
}

// StartDraft makes name a draft that is about to be filled from src (for
// example while synthesis runs): a new draft, or an existing draft, whose
// last error is cleared. The draft lists with src as its source until a
// revision is imported. A name registered as an active or archived
// benchmark is ErrExists: a fill never takes an evaluated benchmark back
// to draft.
func (r *Registry) StartDraft(ctx context.Context, name string, src Source) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	data, err := json.Marshal(src)
	if err != nil {
		return Info{}, err
	}
	var inf Info
	err = r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		switch {
		case errors.Is(err, ErrNotFound):
			t := now()
			if err := tx.QueryRowContext(ctx, r.d.q(`INSERT INTO benchmarks (name, status, created, updated, draft_source) VALUES (?, ?, ?, ?, ?) RETURNING id`),
				name, string(StatusDraft), t, t, string(data)).Scan(&b.id); err != nil {
				return err
			}
			b.name, b.status, b.created = name, StatusDraft, t
		case err != nil:
			return err
		case b.status != StatusDraft:
			return fmt.Errorf("benchmark %s is %s: %w; fill a new name, or delete it first (`lasagna benchmark delete %s --force`)", name, b.status, ErrExists, name)
		default:
			if _, err := tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET draft_source = ?, draft_error = '', updated = ? WHERE id = ?`), string(data), now(), b.id); err != nil {
				return err
			}
		}
		b.draftSource, b.draftError = string(data), ""
		inf, err = r.info(ctx, tx, b, "")
		return err
	})
	return inf, err
}

// FailDraft records why the fill of the draft name failed; the benchmark
// stays a draft and lists with the message (Info.Error) until a fill
// succeeds. A benchmark that is no longer a draft is left alone.
func (r *Registry) FailDraft(ctx context.Context, name, msg string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if msg == "" {
		msg = "failed"
	}
	return r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		if err != nil {
			return err
		}
		if b.status != StatusDraft {
			return nil
		}
		_, err = tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET draft_error = ?, updated = ? WHERE id = ?`), msg, now(), b.id)
		return err
	})
}

// ImportRows imports rows (as datasets.WriteJSONL writes them) as a
// revision of the benchmark name, like Import of a JSONL file named
// file: with the same validation, identity and activation. The file name
// is what the revision stores and lists; give opts.Source to record
// where the rows came from (its Format defaults to jsonl).
func (r *Registry) ImportRows(ctx context.Context, name, file string, rows []datasets.Row, opts ImportOptions) (Info, error) {
	if opts.Source != nil && opts.Source.Format == "" {
		src := *opts.Source
		src.Format = string(FormatJSONL)
		opts.Source = &src
	}
	var buf bytes.Buffer
	if err := public.WriteJSONL(&buf, rows); err != nil {
		return Info{}, err
	}
	fsys := fstest.MapFS{file: &fstest.MapFile{Data: buf.Bytes(), Mode: 0o444}}
	return r.Import(ctx, name, Files{FS: fsys, Path: file, Format: FormatJSONL}, opts)
}

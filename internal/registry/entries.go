package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sort"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// Entry is one benchmark entry (docs/registry.md's BenchmarkEntry plus the richer
// fields of docs/data.md). Its JSON form is one line of Download's output.
type Entry struct {
	ID           string   `json:"id"`
	Question     string   `json:"question"`
	Answer       string   `json:"answer,omitempty"`
	Answers      []string `json:"answers,omitempty"` // every reference answer when there are several
	Unanswerable bool     `json:"unanswerable,omitempty"`
	// ChunkIDs, PageNums and SourcePaths are the ground-truth citations
	// of a Vecta benchmark.
	ChunkIDs    []string `json:"chunk_ids,omitempty"`
	PageNums    []int    `json:"page_nums,omitempty"`
	SourcePaths []string `json:"source_paths,omitempty"`
	Contexts    []string `json:"contexts,omitempty"`
	// ExpectedDocs are the corpus documents judged relevant (grade > 0),
	// sorted; for a Vecta benchmark they are its ChunkIDs and are left out.
	ExpectedDocs []string       `json:"expected_docs,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
}

// citationKeys are the Vecta citation fields datasets.LoadVectaCSV keeps
// in a query's metadata.
var citationKeys = []string{"chunk_ids", "page_nums", "source_paths"}

// EntriesOf returns b's entries, in query order.
func EntriesOf(b *lasagna.Benchmark) []Entry {
	out := make([]Entry, len(b.Queries))
	for i, q := range b.Queries {
		var relevant []string
		if b.Format != lasagna.FormatVecta {
			relevant = b.Qrels.Relevant(q.ID)
		}
		out[i] = entryOf(b.Format, q, relevant)
	}
	return out
}

// entryOf returns the entry of query q of a benchmark in format, whose
// relevant documents are relevant (sorted).
func entryOf(format lasagna.Format, q lasagna.Query, relevant []string) Entry {
	e := Entry{ID: q.ID, Question: q.Text, Unanswerable: q.Unanswerable, Contexts: q.Contexts}
	if len(q.Answers) > 0 {
		e.Answer = q.Answers[0]
	}
	if len(q.Answers) > 1 {
		e.Answers = q.Answers
	}
	md := maps.Clone(q.Metadata)
	if format == lasagna.FormatVecta {
		e.ChunkIDs, _ = md["chunk_ids"].([]string)
		e.PageNums, _ = md["page_nums"].([]int)
		e.SourcePaths, _ = md["source_paths"].([]string)
		for _, k := range citationKeys {
			delete(md, k)
		}
	} else {
		e.ExpectedDocs = relevant
	}
	if len(md) > 0 {
		e.Metadata = md
	}
	return e
}

func encodeEntry(w io.Writer, e Entry) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(e)
}

// Entries returns up to limit entries (all when limit ≤ 0) of the
// revision ref names, from offset on, and the revision's entry count.
func (r *Registry) Entries(ctx context.Context, ref string, offset, limit int) ([]Entry, int, error) {
	inf, err := r.Get(ctx, ref)
	if err != nil {
		return nil, 0, err
	}
	var out []Entry
	err = r.eachEntry(ctx, inf, offset, limit, func(data string) error {
		var e Entry
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, inf.Questions, err
}

func (r *Registry) eachEntry(ctx context.Context, inf Info, offset, limit int, fn func(data string) error) error {
	if inf.revID == 0 {
		return nil // a draft without entries
	}
	query := `SELECT data FROM entries WHERE revision_id = ? AND ordinal >= ? ORDER BY ordinal`
	args := []any{inf.revID, max(offset, 0)}
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := r.db.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return err
		}
		if err := fn(data); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Download writes the entries of the revision ref names as JSONL, one
// Entry per line, whatever its status.
func (r *Registry) Download(ctx context.Context, ref string, w io.Writer) error {
	inf, err := r.Get(ctx, ref)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if err := r.eachEntry(ctx, inf, 0, 0, func(data string) error {
		bw.WriteString(data)
		return bw.WriteByte('\n')
	}); err != nil {
		return err
	}
	return bw.Flush()
}

// Export writes the entries of the revision ref names as a Vecta
// benchmark CSV (id, question, answer, chunk_ids, page_nums,
// source_paths; datasets.WriteVectaCSV). Importing the CSV gives the same
// entries at those six fields (for a benchmark that is not a Vecta CSV,
// chunk_ids are its expected documents), and exporting that benchmark
// gives the same bytes. Contexts, answers beyond the first and metadata
// are not CSV columns: Download keeps them. An entry without an answer (an
// unanswerable question) cannot be written: it is an error naming the
// entry, unless opts.SkipUnanswerable, when the ids of the entries left
// out are returned.
func (r *Registry) Export(ctx context.Context, ref string, w io.Writer, opts ExportOptions) (skipped []string, err error) {
	es, _, err := r.Entries(ctx, ref, 0, 0)
	if err != nil {
		return nil, err
	}
	ves := make([]datasets.VectaEntry, 0, len(es))
	for _, e := range es {
		if e.Answer == "" {
			if opts.SkipUnanswerable {
				skipped = append(skipped, e.ID)
				continue
			}
			return nil, &NoAnswerError{ID: e.ID, Unanswerable: e.Unanswerable}
		}
		ve := datasets.VectaEntry{ID: e.ID, Question: e.Question, Answer: e.Answer, ChunkIDs: e.ChunkIDs, PageNums: e.PageNums, SourcePaths: e.SourcePaths}
		if len(ve.ChunkIDs) == 0 {
			ve.ChunkIDs = e.ExpectedDocs
		}
		ves = append(ves, ve)
	}
	return skipped, datasets.WriteVectaCSV(w, ves)
}

// ExportOptions tune Export.
type ExportOptions struct {
	// SkipUnanswerable leaves out entries without an answer instead of
	// failing; Export returns their ids.
	SkipUnanswerable bool
}

// Lossy reports which fields of entries a Vecta CSV export drops, sorted.
func Lossy(entries []Entry) []string {
	seen := map[string]bool{}
	for _, e := range entries {
		if len(e.Answers) > 1 {
			seen["answers beyond the first"] = true
		}
		if len(e.Contexts) > 0 {
			seen["contexts"] = true
		}
		if len(e.Metadata) > 0 {
			seen["metadata"] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NoAnswerError is Export's refusal of an entry without an answer: a
// Vecta CSV needs one on every entry. Callers phrase the fix for their
// surface from it (the CLI's Error text names its flag).
type NoAnswerError struct {
	ID           string
	Unanswerable bool
}

// Problem says what is wrong, without a fix.
func (e *NoAnswerError) Problem() string {
	return fmt.Sprintf("entry %q has no answer (unanswerable: %v), and a Vecta CSV needs an answer on every entry", e.ID, e.Unanswerable)
}

func (e *NoAnswerError) Error() string {
	return e.Problem() + "; leave such entries out with --skip-unanswerable, or use download for JSONL"
}

package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/lasagna-go/lasagna"
	public "github.com/lasagna-go/lasagna/datasets"
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
// line per entry, whatever its status. A JSONL or CSV benchmark (without a
// corpus file: its corpus is pooled from its rows) is written
// as docs/data.md rows (datasets.WriteJSONL: id, question, answer or
// answers, contexts, expected_docs, metadata, with metadata.unanswerable on
// an unanswerable row) that `create --from` loads back as the same
// benchmark: the same queries, ids, passages and passage ids (the
// expected_docs of every row, an unanswerable one's too, whenever a
// passage's id is not the one its text would get) and judgements. Another
// format (a BEIR folder's graded judgements, a Vecta CSV's citations) is
// written as one Entry per line, as is a JSONL or CSV benchmark with a
// corpus file (whose documents may share a text, so that a passage cannot
// name its document).
func (r *Registry) Download(ctx context.Context, ref string, w io.Writer) error {
	inf, err := r.Get(ctx, ref)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if inf.Source != nil && inf.revID != 0 {
		var format, corpus string
		if err := r.db.QueryRowContext(ctx, r.d.q(`SELECT format, corpus_path FROM revisions WHERE id = ?`), inf.revID).Scan(&format, &corpus); err != nil {
			return err
		}
		if f := Format(format); (f == FormatJSONL || f == FormatCSV) && corpus == "" {
			b, err := r.Benchmark(ctx, inf)
			if err != nil {
				return err
			}
			rows, err := rowsOf(b)
			if err != nil {
				return fmt.Errorf("download %s: %w", inf.Revision, err)
			}
			if err := public.WriteJSONL(bw, rows); err != nil {
				return fmt.Errorf("download %s: %w", inf.Revision, err)
			}
			return bw.Flush()
		}
	}
	if err := r.eachEntry(ctx, inf, 0, 0, func(data string) error {
		bw.WriteString(data)
		return bw.WriteByte('\n')
	}); err != nil {
		return err
	}
	return bw.Flush()
}

// rowsOf returns the docs/data.md rows of a JSONL or CSV benchmark b, which
// load back (datasets.BuildBenchmark, or with b's corpus file) as b: each
// query's id, question, answers, passages and metadata (with
// unanswerable: true on an unanswerable query), and as expected_docs the
// corpus id of each passage (the first document with its text) when one of
// them is not the id the passage's text gets (datasets.PassageID); a query
// without passages names its relevant documents. A query whose judgements
// a row cannot state (a grade other than 1, a judged non-relevant
// document, relevant documents other than its passages) is an error
// naming it.
func rowsOf(b *lasagna.Benchmark) ([]datasets.Row, error) {
	byText := make(map[string]string, len(b.Corpus))
	for _, d := range b.Corpus {
		if _, seen := byText[d.Text]; !seen {
			byText[d.Text] = d.ID
		}
	}
	rows := make([]datasets.Row, len(b.Queries))
	for i, q := range b.Queries {
		row := datasets.Row{ID: q.ID, Question: q.Text, Answers: q.Answers, Contexts: q.Contexts, Metadata: q.Metadata}
		if q.Unanswerable && row.Metadata["unanswerable"] != true {
			row.Metadata = maps.Clone(row.Metadata)
			if row.Metadata == nil {
				row.Metadata = map[string]any{}
			}
			row.Metadata["unanswerable"] = true
		}
		for id, g := range b.Qrels[q.ID] {
			if g != 1 {
				return nil, fmt.Errorf("query %q judges document %q with grade %d, which a JSONL row cannot state (its passages are relevant with grade 1); use the source file", q.ID, id, g)
			}
		}
		relevant := b.Qrels.Relevant(q.ID)
		if len(q.Contexts) == 0 {
			row.ExpectedDocs = relevant
			rows[i] = row
			continue
		}
		names := make([]string, len(q.Contexts))
		own := true // every passage has the id its text gets
		for j, text := range q.Contexts {
			id, ok := byText[text]
			if !ok {
				return nil, fmt.Errorf("query %q: its passage %d is no document of the corpus, so a row cannot name it; use the source file", q.ID, j+1)
			}
			names[j] = id
			own = own && id == datasets.PassageID(text)
		}
		if len(relevant) > 0 || !q.Unanswerable {
			set := slices.Clone(names)
			slices.Sort(set)
			if set = slices.Compact(set); !slices.Equal(set, relevant) {
				return nil, fmt.Errorf("query %q: its relevant documents %v are not its passages' %v, which a JSONL row cannot state; use the source file", q.ID, relevant, set)
			}
		}
		if !own {
			row.ExpectedDocs = names
		}
		rows[i] = row
	}
	return rows, nil
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

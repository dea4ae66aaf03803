package datasets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	ids "github.com/lasagna-go/lasagna/internal/datasets"
)

// Options say what to read and which queries to keep. The zero value
// reads a file under its local name (local/<stem>@<12 hex>), a BEIR
// folder's test split, and keeps every query.
type Options struct {
	// Name, when set, names the benchmark <Name>@<12 hex> instead of
	// local/<stem>@<12 hex>.
	Name string
	// Corpus, for a JSONL or CSV file, is the path in the same fs.FS of a
	// corpus file in the BEIR corpus.jsonl layout ({"_id", "title",
	// "text"} per line) that the rows' expected_docs name; retrieval then
	// searches it instead of a pool of the rows' own passages. The name
	// covers both files.
	Corpus string
	// Split is a BEIR folder's qrels split (qrels/<Split>.tsv); "" means
	// test. A file has no splits: a Split given for one is an error.
	Split string
	// Format is "" to choose by the path (a folder is a BEIR folder, a
	// name ending in .jsonl a JSONL file, .csv a CSV file or, when its
	// header names chunk_ids, page_nums or source_paths, a Vecta CSV), or
	// lasagna.FormatVecta to read a .csv file as a Vecta benchmark CSV.
	Format lasagna.Format
	// Filters keep the queries whose metadata has, for every key, the
	// value given (numbers compare as numbers, a list keeps a query whose
	// value is any of its items), as a sweep entry's filters: do.
	Filters map[string]any
	// NSamples > 0 keeps that many of the filtered queries, chosen by Seed
	// from their sorted ids alone (not from the order of the rows).
	NSamples int
	// Seed is the sampling seed; 0 means 42, a sweep's default.
	Seed uint64
}

// Report is what Check finds: the benchmark's name and sizes and the
// tracks it supports, or its problems.
type Report struct {
	// Name is the name the benchmark evaluates under, as validate-data
	// prints it: local/<stem>@<first 12 hex digits of Revision>, or
	// <Options.Name>@<12 hex>. "" when there are problems.
	Name string
	// Revision is the sha256 (hex) of the data's bytes (a BEIR folder:
	// of what `sha256sum corpus.jsonl queries.jsonl qrels/<split>.tsv`
	// prints in it).
	Revision string
	Format   lasagna.Format
	Split    string
	// Queries are the queries kept (after Options' filters and sample),
	// Documents the size of the corpus.
	Queries, Documents int
	// Tracks has one entry per track, in lasagna.Tracks() order; nil when
	// there are problems.
	Tracks []Capability
	// Problems are every problem of every file, in file order (up to 50
	// per benchmark: the last then says that reading stopped).
	Problems []Problem
}

// Err returns the report's problems as a Problems error, or nil.
func (r Report) Err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	return Problems(r.Problems)
}

// Capability says whether a benchmark supports a track and, when it does
// not, why and what to change.
type Capability struct {
	Track     lasagna.Track
	Supported bool
	Reason    string // why not; "" when supported
	Fix       string // what to change; "" when supported
}

// Problem is one thing wrong with the data: where (file and line; line 0
// is the file as a whole), which field or column ("" when it is not about
// one), what is wrong and, when the message says it, what to do.
type Problem struct {
	File    string
	Line    int
	Field   string
	Message string
	Fix     string
}

// Error formats p as file:line: message; fix, the way validate-data
// prints it.
func (p Problem) Error() string {
	s := p.Message
	if p.Fix != "" {
		s += "; " + p.Fix
	}
	if pos := (lasagna.Pos{File: p.File, Line: p.Line}).String(); pos != "" {
		return pos + ": " + s
	}
	return s
}

// Problems is the error of Load and Stream for invalid data: every problem
// found, one per line of its Error.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Row is one row of a JSONL or CSV benchmark file (docs/data.md): ID,
// Question, Answers (one answer is a list of one), Contexts (the passages
// that answer it), ExpectedDocs (their names, or documents of a corpus
// file), Metadata (metadata.unanswerable true marks an unanswerable row)
// and Pos (where it was read; zero for rows built in memory).
type Row = ids.Row

// WriteJSONL writes rows as JSONL, one object per line, in the field order
// id, question, answer (one) or answers (several), contexts,
// expected_docs, metadata; empty fields are left out. Load reads what it
// writes back as the same rows. A row that would not load back (no
// question, an answer on an unanswerable row, a duplicate id,
// expected_docs of another length than contexts) is an error naming it.
func WriteJSONL(w io.Writer, rows []Row) error { return ids.WriteJSONL(w, rows) }

// Load reads the benchmark at path in fsys (a JSONL or CSV file, a BEIR
// folder, a Vecta CSV; see Options.Format) and keeps the queries Options'
// filters and sample choose; the corpus and judgements stay whole.
// Benchmark.Name is the name validate-data prints. Invalid data is a
// Problems error listing every problem (Check returns them as a Report);
// a path that cannot be read or named is an ordinary error.
func Load(fsys fs.FS, path string, opts Options) (*lasagna.Benchmark, error) {
	format, err := formatOf(fsys, path, opts.Format)
	if err != nil {
		return nil, err
	}
	b, err := load(fsys, path, format, internal(opts))
	if err != nil {
		return nil, convert(err)
	}
	if len(opts.Filters) == 0 && opts.NSamples == 0 {
		return b, nil
	}
	sel, _, err := ids.Select(b, selection(opts))
	return sel, err
}

// Check reads the benchmark at path as Load does and reports on it: its
// name, sizes and tracks, or every problem of every file of it. Problems
// with the data are in Report.Problems, not the error, which is for a path
// that cannot be read or named or filters that keep no query. Check
// streams as Stream does, so it checks files larger than memory.
func Check(fsys fs.FS, path string, opts Options) (Report, error) {
	r, err := Stream(fsys, path, opts, nil)
	var ps Problems
	if errors.As(err, &ps) {
		return r, nil
	}
	return r, err
}

// Stream reads the benchmark at path as Load does and hands fn each query
// kept by Options, in file order, with the sorted ids of the documents
// judged relevant to it; fn may be nil. It returns what Check reports,
// and, for invalid data, its Problems as the error too; an error from fn
// stops it and is returned.
//
// fn is called only for valid data: a JSONL file (or a JSONL or CSV file
// with a corpus) is read twice, once to check it and choose the sample,
// once to hand its queries over, in memory that does not grow with the
// size of a JSONL file without a corpus (its ids and passages are sorted
// in temporary files), nor with that of a corpus (only the documents the
// rows need are kept). A BEIR folder, a CSV file without a corpus or a
// Vecta CSV is read whole, once.
func Stream(fsys fs.FS, path string, opts Options, fn func(q lasagna.Query, relevant []string) error) (Report, error) {
	format, err := formatOf(fsys, path, opts.Format)
	if err != nil {
		return Report{}, err
	}
	iopts := internal(opts)
	sel := selection(opts)
	pooled := format == lasagna.FormatJSONL && opts.Corpus == "" && opts.Split == ""
	twoPass := pooled || (format == lasagna.FormatJSONL || format == lasagna.FormatCSV) && opts.Corpus != ""
	if !twoPass {
		b, err := load(fsys, path, format, iopts)
		if err != nil {
			return problemReport(err)
		}
		kept := b
		if len(opts.Filters) > 0 || opts.NSamples > 0 {
			if kept, _, err = ids.Select(b, sel); err != nil {
				return Report{}, err
			}
		}
		r := Report{Name: b.Name, Revision: b.Revision, Format: b.Format, Split: b.Split, Queries: len(kept.Queries), Documents: len(b.Corpus)}
		facts := ids.TrackFacts{Format: b.Format, Documents: len(b.Corpus)}
		for _, q := range kept.Queries {
			rel := b.Qrels.Relevant(q.ID)
			facts.Add(q, rel)
			if fn != nil {
				if err := fn(q, rel); err != nil {
					return Report{}, err
				}
			}
		}
		r.Tracks = capabilities(facts)
		return r, nil
	}

	// Pass 1: check the data and gather the ids the filters keep.
	var (
		matched []string
		keys    = map[string]bool{}
		facts   ids.TrackFacts
	)
	read := func(fn func(q lasagna.Query, relevant []string) error) (ids.Summary, error) {
		if pooled {
			return ids.StreamPooled(fsys, path, iopts, fn)
		}
		return ids.Stream(fsys, path, format, iopts, fn)
	}
	collect := func(q lasagna.Query, rel []string) error {
		if len(matched) == 0 {
			for k := range q.Metadata {
				keys[k] = true
			}
		}
		if sel.Match(q) {
			matched = append(matched, q.ID)
			facts.Add(q, rel)
		}
		return nil
	}
	first, err := read(collect)
	if errors.Is(err, ids.ErrNamedPool) {
		// The rows name their passages, which decides ids across rows:
		// read the file whole.
		pooled = false
		matched, facts, keys = nil, ids.TrackFacts{}, map[string]bool{}
		first, err = read(collect)
	}
	if err != nil {
		return problemReport(err)
	}
	if len(matched) == 0 && len(opts.Filters) > 0 {
		return Report{}, ids.NoMatch(first.Name, opts.Filters, slices.Sorted(maps.Keys(keys)))
	}
	chosen := sel.Sample(slices.Clone(matched))
	r := Report{Name: first.Name, Revision: first.Revision, Format: first.Format, Split: first.Split, Queries: len(matched), Documents: first.Documents}
	if chosen != nil {
		r.Queries = len(chosen)
	}
	if fn == nil && chosen == nil {
		facts.Format, facts.Documents = r.Format, r.Documents
		r.Tracks = capabilities(facts)
		return r, nil
	}

	// Pass 2: hand the kept queries over.
	facts = ids.TrackFacts{Format: r.Format, Documents: r.Documents}
	var ferr error
	second, err := read(func(q lasagna.Query, rel []string) error {
		if !sel.Match(q) || chosen != nil && !chosen[q.ID] {
			return nil
		}
		facts.Add(q, rel)
		if fn != nil {
			ferr = fn(q, rel)
		}
		return ferr
	})
	switch {
	case ferr != nil:
		return Report{}, ferr
	case err != nil:
		return Report{}, fmt.Errorf("%s: read again: %w", path, err)
	case second.Revision != first.Revision:
		return Report{}, fmt.Errorf("%s: changed while it was read (revision %s, then %s)", path, first.Revision, second.Revision)
	}
	r.Tracks = capabilities(facts)
	return r, nil
}

// formatOf returns the format of the benchmark at p: format when set,
// else chosen by the path as internal Load does.
func formatOf(fsys fs.FS, p string, format lasagna.Format) (lasagna.Format, error) {
	switch format {
	case "":
	case lasagna.FormatJSONL, lasagna.FormatCSV, lasagna.FormatBEIR, lasagna.FormatVecta:
		return format, nil
	default:
		return "", fmt.Errorf("%s: unknown format %q; want %q (by the path), %s, %s, %s or %s", p, format, "", lasagna.FormatJSONL, lasagna.FormatCSV, lasagna.FormatBEIR, lasagna.FormatVecta)
	}
	st, err := ids.Stat(fsys, p)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return lasagna.FormatBEIR, nil
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".jsonl":
		return lasagna.FormatJSONL, nil
	case ".csv":
		vecta, err := ids.IsVectaCSV(fsys, p)
		if err != nil {
			return "", err
		}
		if vecta {
			return lasagna.FormatVecta, nil
		}
		return lasagna.FormatCSV, nil
	}
	// internal Load words the error.
	_, err = ids.Load(fsys, p, ids.Options{})
	return "", err
}

func load(fsys fs.FS, p string, format lasagna.Format, opts ids.Options) (*lasagna.Benchmark, error) {
	switch format {
	case lasagna.FormatJSONL:
		return ids.LoadJSONL(fsys, p, opts)
	case lasagna.FormatCSV:
		return ids.LoadCSV(fsys, p, opts)
	case lasagna.FormatVecta:
		return ids.LoadVectaCSV(fsys, p, opts)
	default:
		return ids.LoadBEIR(fsys, p, opts)
	}
}

func internal(o Options) ids.Options {
	return ids.Options{Name: o.Name, Split: o.Split, Corpus: o.Corpus}
}

func selection(o Options) ids.Selection {
	seed := o.Seed
	if seed == 0 {
		seed = ids.DefaultSeed
	}
	return ids.Selection{Filters: o.Filters, NSamples: o.NSamples, Seed: &seed}
}

func capabilities(f ids.TrackFacts) []Capability {
	cs := ids.CapabilitiesOf(f)
	out := make([]Capability, len(cs))
	for i, c := range cs {
		out[i] = Capability(c)
	}
	return out
}

// problemReport returns the Report of a loader's error: its problems, or
// the error when it is not about the data.
func problemReport(err error) (Report, error) {
	err = convert(err)
	var ps Problems
	if errors.As(err, &ps) {
		return Report{Problems: ps}, ps
	}
	return Report{}, err
}

// convert turns the internal Problems in err into Problems.
func convert(err error) error {
	var ips ids.Problems
	if !errors.As(err, &ips) {
		return err
	}
	ps := make(Problems, len(ips))
	for i, p := range ips {
		msg, fix := splitFix(p.Msg)
		ps[i] = Problem{File: p.Pos.File, Line: p.Pos.Line, Field: p.Field, Message: msg, Fix: fix}
	}
	return ps
}

// splitFix splits a loader's message "what is wrong; what to do" at its
// first "; " outside quotes and brackets.
func splitFix(msg string) (string, string) {
	depth, quoted := 0, false
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[' || c == '{':
			depth++
		case (c == ')' || c == ']' || c == '}') && depth > 0:
			depth--
		case c == ';' && depth == 0 && strings.HasPrefix(msg[i:], "; "):
			return msg[:i], msg[i+2:]
		}
	}
	return msg, ""
}

package datasets

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Options are the benchmark-entry settings a loader needs. The zero value
// loads a file under its local name and a BEIR folder's "test" split.
type Options struct {
	// Name, when set, registers the benchmark as <Name>@<12 hex> instead of
	// local/<stem>@<12 hex>.
	Name string
	// Split is the BEIR qrels split (qrels/<Split>.tsv); "" means "test".
	// Files have no splits: a Split given for a file is an error.
	Split string
	// Corpus, for a JSONL or CSV file, is the path in the same fs.FS of a
	// corpus file in the BEIR corpus.jsonl layout ({"_id", "title",
	// "text"} per line). It replaces the pool of the rows' passages: the
	// rows' expected_docs name its documents (an id missing from it is an
	// error naming file:line and the id), rows' contexts stay their
	// generation contexts, Provenance is lasagna.ProvenanceProvided, and
	// the identity covers both files (see LoadJSONL). A BEIR folder has its
	// own corpus.jsonl: a Corpus given for one is an error.
	Corpus string
}

// DefaultSplit is the BEIR split read when Options.Split is empty.
const DefaultSplit = "test"

// Load reads the benchmark at path in fsys, choosing the format from the
// path: a directory is a BEIR folder, a name ending in .jsonl a JSONL file,
// .csv a CSV file, or a Vecta benchmark CSV when its header names
// chunk_ids, page_nums or source_paths (see IsVectaCSV). Invalid data gives Problems (each with file:line); an
// unreadable path or an unknown extension an ordinary error. Only regular
// files and folders are read (see Open).
func Load(fsys fs.FS, p string, opts Options) (*lasagna.Benchmark, error) {
	st, err := Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return LoadBEIR(fsys, p, opts)
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".jsonl":
		return LoadJSONL(fsys, p, opts)
	case ".csv":
		if vecta, err := IsVectaCSV(fsys, p); err != nil {
			return nil, err
		} else if vecta {
			return LoadVectaCSV(fsys, p, opts)
		}
		return LoadCSV(fsys, p, opts)
	default:
		return nil, fmt.Errorf("%s: unknown dataset format %q; want a .jsonl or .csv file or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)", p, path.Ext(p))
	}
}

// LoadJSONL reads a JSONL benchmark file (docs/data.md): its rows (ReadJSONL),
// the pooled-gold corpus and judgements built from their contexts
// (BuildBenchmark), and its identity (Identity over the file's bytes).
//
// With opts.Corpus, the corpus is that file instead (see Options.Corpus)
// and Revision is the sha256 of the two lines `sha256sum FILE CORPUS | cut
// -d' ' -f1` prints: the hex sha256 of the dataset file's bytes, a
// newline, the hex sha256 of the corpus file's bytes, a newline. An edit
// to either file makes a different benchmark.
func LoadJSONL(fsys fs.FS, p string, opts Options) (*lasagna.Benchmark, error) {
	return loadRows(fsys, p, opts, lasagna.FormatJSONL, readJSONL)
}

// LoadCSV reads a CSV benchmark file (docs/data.md) as LoadJSONL does a JSONL
// file.
func LoadCSV(fsys fs.FS, p string, opts Options) (*lasagna.Benchmark, error) {
	return loadRows(fsys, p, opts, lasagna.FormatCSV, readCSV)
}

func loadRows(fsys fs.FS, p string, opts Options, format lasagna.Format, read func(fs.FS, string) ([]Row, string, error)) (*lasagna.Benchmark, error) {
	if opts.Split != "" {
		return nil, fmt.Errorf("%s: split %q given for a %s file; splits exist only for BEIR folders (qrels/<split>.tsv)", p, opts.Split, format)
	}
	rows, digest, err := read(fsys, p)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: p}, Msg: "no rows; a benchmark needs at least one question"}}
	}
	var (
		c collector
		b *lasagna.Benchmark
	)
	if opts.Corpus != "" {
		docs, corpusDigest, err := readCorpus(fsys, opts.Corpus)
		if err != nil {
			return nil, err
		}
		b = buildWithCorpus(rows, docs, opts.Corpus, &c)
		digest = pairDigest(digest, corpusDigest)
	} else {
		b = buildPool(rows, &c)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	b.Name = Identity(p, opts.Name, digest)
	b.Revision = digest
	b.Format = format
	b.Source = p
	return b, nil
}

// Identity returns the registered name of a benchmark (docs/data.md) read from
// path with the given sha256 hex digest: "<name>@<first 12 hex>" when name
// is set, else "local/<stem>@<first 12 hex>", where stem is the last path
// element without its extension. LoadBEIR names a folder by its whole last
// path element (a folder at the root of an fs.FS, path ".", is "beir";
// through OSFS, "." and ".." are named by the folder they stand for).
func Identity(p, name, digest string) string {
	base := path.Base(p)
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return identity(base, name, digest)
}

func identity(stem, name, digest string) string {
	short := digest
	if len(short) > 12 {
		short = short[:12]
	}
	if name != "" {
		return name + "@" + short
	}
	return "local/" + stem + "@" + short
}

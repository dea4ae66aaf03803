package datasets

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/lasagna-go/lasagna"
)

// Summary describes a benchmark Stream read: its identity (as Load gives
// it in Benchmark.Name and Revision), format, split and sizes.
type Summary struct {
	Name      string
	Revision  string
	Format    lasagna.Format
	Split     string
	Queries   int
	Documents int
}

// Stream reads the benchmark at p in fsys in the given format ("" chooses
// by path, as Load does) with the loader of that format — the same
// validation, Problems (file:line) and identity — and hands fn each query,
// in order, with the sorted ids of the documents judged relevant to it,
// instead of returning the benchmark. Each file is read once.
//
// A JSONL or CSV file with opts.Corpus is streamed: the corpus's documents
// are not kept, only their ids and the texts of the documents the rows
// need (those named by rows without contexts, whose contexts they fill,
// and those matched by the contexts of rows without expected_docs);
// StreamSpooled keeps not even those, nor the rows, in memory. Any other
// benchmark is loaded whole, then handed over.
//
// fn may be called before a problem further on is found: when Stream
// returns an error, discard what fn was given. Once a problem is found fn
// is not called again; an error from fn stops Stream and is returned.
func Stream(fsys fs.FS, p string, format lasagna.Format, opts Options, fn func(q lasagna.Query, relevant []string) error) (Summary, error) {
	var read func(fs.FS, string) ([]Row, string, error)
	switch format {
	case lasagna.FormatJSONL:
		read = readJSONL
	case lasagna.FormatCSV:
		read = readCSV
	}
	if read == nil || opts.Corpus == "" || opts.Split != "" {
		var b *lasagna.Benchmark
		var err error
		switch format {
		case "":
			b, err = Load(fsys, p, opts)
		case lasagna.FormatJSONL:
			b, err = LoadJSONL(fsys, p, opts)
		case lasagna.FormatCSV:
			b, err = LoadCSV(fsys, p, opts)
		case lasagna.FormatVecta:
			b, err = LoadVectaCSV(fsys, p, opts)
		case lasagna.FormatBEIR:
			b, err = LoadBEIR(fsys, p, opts)
		default:
			return Summary{}, fmt.Errorf("%s: unknown format %q", p, format)
		}
		if err != nil {
			return Summary{}, err
		}
		for _, q := range b.Queries {
			if err := fn(q, b.Qrels.Relevant(q.ID)); err != nil {
				return Summary{}, err
			}
		}
		return Summary{Name: b.Name, Revision: b.Revision, Format: b.Format, Split: b.Split, Queries: len(b.Queries), Documents: len(b.Corpus)}, nil
	}

	// As loadRows and buildWithCorpus, keeping only what the rows need of
	// the corpus.
	rows, digest, err := read(fsys, p)
	if err != nil {
		return Summary{}, err
	}
	if len(rows) == 0 {
		return Summary{}, Problems{{Pos: lasagna.Pos{File: p}, Msg: "no rows; a benchmark needs at least one question"}}
	}
	needIDs := map[string]struct{}{}
	needTexts := map[string]struct{}{}
	for _, r := range rows {
		if len(r.Contexts) == 0 {
			for _, id := range r.ExpectedDocs {
				needIDs[id] = struct{}{}
			}
		} else if len(r.ExpectedDocs) == 0 && !r.Unanswerable() {
			for _, t := range r.Contexts {
				needTexts[t] = struct{}{}
			}
		}
	}
	cx := &corpusIndex{texts: map[string]string{}, byText: map[string]string{}}
	ids, corpusDigest, err := scanCorpus(fsys, opts.Corpus, func(d lasagna.Document, _ int) {
		if _, ok := needIDs[d.ID]; ok {
			cx.texts[d.ID] = d.Text
		}
		if _, ok := needTexts[d.Text]; ok {
			if _, seen := cx.byText[d.Text]; !seen {
				cx.byText[d.Text] = d.ID // the first document with a text wins
			}
		}
	})
	if err != nil {
		return Summary{}, err
	}
	cx.ids = ids
	var (
		c    collector
		ferr error
	)
	eachWithCorpus(rows, cx, opts.Corpus, &c, func(q lasagna.Query, relevant []string) bool {
		if len(c.list) > 0 {
			return true // validate on; hand nothing more over
		}
		slices.Sort(relevant)
		ferr = fn(q, slices.Compact(relevant))
		return ferr == nil
	})
	return pairedSummary(&c, ferr, p, opts.Name, format, digest, corpusDigest, len(rows), len(ids))
}

// pairedSummary ends a streamed read of a file with a corpus: the
// collector's problems, else the callback's error ferr, else the summary
// whose revision pairs the two files' digests.
func pairedSummary(c *collector, ferr error, p, name string, format lasagna.Format, digest, corpusDigest string, queries, documents int) (Summary, error) {
	if err := c.err(); err != nil {
		return Summary{}, err
	}
	if ferr != nil {
		return Summary{}, ferr
	}
	revision := pairDigest(digest, corpusDigest)
	return Summary{Name: Identity(p, name, revision), Revision: revision, Format: format,
		Queries: queries, Documents: documents}, nil
}

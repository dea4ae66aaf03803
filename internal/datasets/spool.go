package datasets

import (
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/lasagna-go/lasagna"
)

// A Spool keeps, outside memory (a database, for example), what Stream
// must remember of a JSONL file with a corpus beside it: the rows until the
// corpus has been read, and the ids of both files. The rules stay
// Stream's: the Spool stores, finds duplicates and looks documents up.
type Spool interface {
	// AddRow keeps a row read without problems, in file order: its line
	// (r.Pos.Line), its id and the line's bytes, data (reused after the
	// call), which Rows hands back. Lookup is asked for no id but those of
	// the rows' ExpectedDocs, and no text but those of their Contexts.
	AddRow(r Row, data []byte) error
	// AddDoc keeps a corpus document read without problems, in file
	// order, with its line.
	AddDoc(d lasagna.Document, line int) error
	// Duplicates returns, in line order, up to limit rows (docs false) or
	// documents (docs true) kept with an id an earlier one of them has:
	// each one's line and id, and the line of the first one with the id.
	Duplicates(docs bool, limit int) ([]Duplicate, error)
	// Rows hands fn the kept rows back, in file order, in batches.
	Rows(fn func(rows []SpooledRow) error) error
	// Lookup returns, of the kept documents, the texts of those with the
	// given ids (an id absent from byID is not in the corpus) and, for
	// each of texts that is the text of a document, the id of the first
	// such document in file order.
	Lookup(ids, texts []string) (byID, byText map[string]string, err error)
}

// SpooledRow is a row kept by a Spool: its line number and bytes.
type SpooledRow struct {
	Line int
	Data []byte
}

// Duplicate is an id used again: at Line, first used at First.
type Duplicate struct {
	Line, First int
	ID          string
}

// StreamSpooled is Stream, keeping what it must remember of a JSONL file
// with a corpus beside it (Options.Corpus) in sp instead of memory, so
// that memory does not grow with the size of the files. The queries, the
// identity and the Problems (file:line, order, the MaxProblems cap) are
// Stream's and the loader's. Any other benchmark is streamed as Stream
// does, without sp (StreamPooled streams a JSONL file without a corpus).
func StreamSpooled(fsys fs.FS, p string, format lasagna.Format, opts Options, sp Spool, fn func(q lasagna.Query, relevant []string) error) (Summary, error) {
	if sp == nil || format != lasagna.FormatJSONL || opts.Corpus == "" || opts.Split != "" {
		return Stream(fsys, p, format, opts, fn)
	}
	var serr error // the first error from sp
	nRows := 0
	_, digest, err := readHashed(fsys, p, func(r io.Reader, path string, c *collector) struct{} {
		l := &jlex{}
		for pos, line := range nonBlankLines(r, path, c) {
			row, ok := parseRow(l, line, pos, c)
			if c.full {
				break
			}
			if ok && serr == nil {
				serr = sp.AddRow(row, line)
				nRows++
			}
		}
		if serr == nil {
			serr = addDuplicates(sp, false, path, c, "id", "duplicate id %q (first used at line %d); ids must be unique")
		}
		return struct{}{}
	})
	if serr != nil {
		return Summary{}, serr
	}
	if err != nil {
		return Summary{}, err
	}
	if nRows == 0 {
		return Summary{}, Problems{{Pos: lasagna.Pos{File: p}, Msg: "no rows; a benchmark needs at least one question"}}
	}
	nDocs := 0
	_, corpusDigest, err := readHashed(fsys, opts.Corpus, func(r io.Reader, file string, c *collector) struct{} {
		eachBEIRDoc(r, file, nil, nil, c, func(d lasagna.Document, line int) {
			if serr == nil {
				serr = sp.AddDoc(d, line)
				nDocs++
			}
		})
		if serr == nil {
			serr = addDuplicates(sp, true, file, c, "_id", "duplicate document id %q (first at line %d)")
		}
		return struct{}{}
	})
	if serr != nil {
		return Summary{}, serr
	}
	if err != nil {
		return Summary{}, err
	}
	if nDocs == 0 {
		return Summary{}, Problems{{Pos: lasagna.Pos{File: opts.Corpus}, Msg: "no documents; a corpus file holds one {\"_id\", \"title\", \"text\"} object per line"}}
	}
	var (
		c    collector
		ferr error
	)
	l := &jlex{}
	var rows []Row
	err = sp.Rows(func(spooled []SpooledRow) error {
		// the rows parse as they did when read
		rows = rows[:0]
		var pc collector
		for _, sr := range spooled {
			row, ok := parseRow(l, sr.Data, lasagna.Pos{File: p, Line: sr.Line}, &pc)
			if !ok {
				return fmt.Errorf("%s:%d: the row kept does not parse again: %v", p, sr.Line, pc.err())
			}
			rows = append(rows, row)
		}
		var ids, texts []string
		for _, r := range rows {
			ids = append(ids, r.ExpectedDocs...)
			texts = append(texts, r.Contexts...)
		}
		byID, byText, err := sp.Lookup(ids, texts)
		if err != nil {
			return err
		}
		cx := &corpusIndex{ids: make(map[string]int, len(byID)), texts: byID, byText: byText}
		for id := range byID {
			cx.ids[id] = 0
		}
		if cx.byText == nil {
			cx.byText = map[string]string{}
		}
		eachWithCorpus(rows, cx, opts.Corpus, &c, func(q lasagna.Query, relevant []string) bool {
			if len(c.list) > 0 {
				return true // validate on; hand nothing more over
			}
			slices.Sort(relevant)
			ferr = fn(q, slices.Compact(relevant))
			return ferr == nil
		})
		if ferr != nil || c.full {
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		return Summary{}, err
	}
	return pairedSummary(&c, ferr, p, opts.Name, format, digest, corpusDigest, nRows, nDocs)
}

var errStop = fmt.Errorf("datasets: stop")

// addDuplicates merges into c, in line order, the duplicate ids sp found
// in path (found after the file was read, where the loader finds each on
// its line), keeping the loader's MaxProblems cap.
func addDuplicates(sp interface {
	Duplicates(docs bool, limit int) ([]Duplicate, error)
}, docs bool, path string, c *collector, field, format string) error {
	dups, err := sp.Duplicates(docs, MaxProblems)
	if err != nil || len(dups) == 0 {
		return err
	}
	list := c.list
	if c.full {
		// the "too many problems" line; the MaxProblems problems before it
		// fill m again, with those of the duplicates before them
		list = list[:len(list)-1]
	}
	var m collector
	i := 0
	addDup := func(d Duplicate) bool {
		return m.add(lasagna.Pos{File: path, Line: d.Line}, field, format, d.ID, d.First)
	}
	for _, p := range list {
		for ; p.Pos.Line > 0 && i < len(dups) && dups[i].Line < p.Pos.Line; i++ {
			if !addDup(dups[i]) {
				*c = m
				return nil
			}
		}
		if !m.addProblem(p) {
			*c = m
			return nil
		}
	}
	for ; i < len(dups); i++ {
		if !addDup(dups[i]) {
			break
		}
	}
	*c = m
	return nil
}

package datasets

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"unsafe"

	"github.com/lasagna-go/lasagna"
)

// ErrNamedPool is StreamPooled's answer for a JSONL
// file whose rows name their passages (expected_docs) without a corpus
// beside it, once the file was read without problems: such names decide
// ids across rows (a name given after a passage was first seen unnamed
// renames it for every row), so the file must be loaded whole
// (LoadJSONL, or Stream). fn may have been called: discard what it was
// given.
var ErrNamedPool = errors.New("datasets: the rows name their pooled passages; load the file whole")

// StreamPooled is Stream for a JSONL file without a corpus, whose corpus
// is pooled from the rows' contexts (BuildBenchmark), with memory that
// does not grow with the file: each row is handed over as it is read,
// with the ids of its passages (PassageID), and what the rules need at
// the end (the rows' ids, to find duplicates; the sha256 of each passage,
// to count the distinct ones and find two with one id) is sorted in
// bounded memory, spilled to temporary files. The queries, identity and
// Problems are LoadJSONL's. Rows naming their passages (expected_docs)
// give ErrNamedPool once the file was read without problems.
func StreamPooled(fsys fs.FS, p string, opts Options, fn func(q lasagna.Query, relevant []string) error) (Summary, error) {
	if opts.Corpus != "" || opts.Split != "" {
		return Stream(fsys, p, lasagna.FormatJSONL, opts, fn)
	}
	ids, passages := newSpillSet(), newSpillSet()
	defer ids.close()
	defer passages.close()
	var (
		serr, ferr error // the first error from a spill, from fn
		nRows      int
		seq        int64
		named      bool
		sum        [sha256.Size]byte
		relevant   []string
	)
	_, digest, err := readHashed(fsys, p, func(r io.Reader, path string, c *collector) struct{} {
		l := &jlex{}
		for pos, line := range nonBlankLines(r, path, c) {
			row, ok := parseRow(l, line, pos, c)
			if c.full {
				break
			}
			if !ok || serr != nil {
				continue
			}
			if serr = ids.add(unsafe.Slice(unsafe.StringData(row.ID), len(row.ID)), int64(pos.Line), int64(pos.Line)); serr != nil {
				continue
			}
			nRows++
			named = named || len(row.ExpectedDocs) > 0
			relevant = relevant[:0]
			for _, text := range row.Contexts {
				sum = sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
				if serr = passages.add(sum[:], seq, int64(pos.Line)); serr != nil {
					break
				}
				seq++
				relevant = append(relevant, "p"+hex.EncodeToString(sum[:6]))
			}
			if serr != nil || named || len(c.list) > 0 || ferr != nil {
				continue // validate on; hand nothing more over
			}
			q := row.query()
			var rel []string
			if len(relevant) > 0 && !q.Unanswerable {
				slices.Sort(relevant)
				rel = slices.Clone(slices.Compact(relevant))
			}
			ferr = fn(q, rel)
		}
		if serr == nil {
			serr = addDuplicates(spillDups{ids}, false, path, c, "id", "duplicate id %q (first used at line %d); ids must be unique")
		}
		return struct{}{}
	})
	if serr != nil {
		return Summary{}, fmt.Errorf("%s: sorting its ids and passages in a temporary file (in %s; set TMPDIR to use another folder): %w", p, os.TempDir(), serr)
	}
	if err != nil {
		return Summary{}, err
	}
	if nRows == 0 {
		return Summary{}, Problems{{Pos: lasagna.Pos{File: p}, Msg: "no rows; a benchmark needs at least one question"}}
	}
	if ferr != nil {
		return Summary{}, ferr
	}
	if named {
		return Summary{}, ErrNamedPool
	}
	// The distinct passages, in sum order: two whose sums share the first
	// 6 bytes have the same PassageID (BuildBenchmark's "used by two
	// different passages", reported in the order the passages first
	// appear).
	type doc struct {
		seq  int64
		line int
		id   string
	}
	var (
		nDocs   int
		prev    []byte
		prevDoc doc
		clashes [][]doc // groups of passages with one id
	)
	err = passages.each(func(s []byte, seq, line int64) error {
		if prev != nil && bytes.Equal(prev, s) {
			return nil // the same text again
		}
		nDocs++
		d := doc{seq: seq, line: int(line)}
		if prev != nil && bytes.Equal(prev[:6], s[:6]) {
			d.id = "p" + hex.EncodeToString(s[:6])
			if n := len(clashes); n > 0 && clashes[n-1][0].id == d.id {
				clashes[n-1] = append(clashes[n-1], d)
			} else {
				prevDoc.id = d.id
				clashes = append(clashes, []doc{prevDoc, d})
			}
		}
		prev, prevDoc = append(prev[:0], s...), d
		return nil
	})
	if err != nil {
		return Summary{}, fmt.Errorf("%s: reading back its passages from a temporary file (in %s): %w", p, os.TempDir(), err)
	}
	if len(clashes) > 0 {
		type problem struct {
			d, before doc
		}
		var list []problem
		for _, g := range clashes {
			slices.SortFunc(g, func(a, b doc) int { return cmp.Compare(a.seq, b.seq) })
			for i := 1; i < len(g); i++ {
				list = append(list, problem{g[i], g[i-1]})
			}
		}
		slices.SortFunc(list, func(a, b problem) int { return cmp.Compare(a.d.seq, b.d.seq) })
		var c collector
		for _, pr := range list {
			if !c.add(lasagna.Pos{File: p, Line: pr.d.line}, "expected_docs", "passage id %q is used by two different passages (%s and %s); rename the expected_docs entry",
				pr.d.id, lasagna.Pos{File: p, Line: pr.before.line}, lasagna.Pos{File: p, Line: pr.d.line}) {
				break
			}
		}
		return Summary{}, c.err()
	}
	return Summary{Name: Identity(p, opts.Name, digest), Revision: digest, Format: lasagna.FormatJSONL, Queries: nRows, Documents: nDocs}, nil
}

// spillDups finds the duplicate ids of a spillSet of ids (seq and line
// both the line).
type spillDups struct{ s *spillSet }

func (d spillDups) Duplicates(_ bool, limit int) ([]Duplicate, error) {
	var (
		out   []Duplicate
		prev  []byte
		first int64
	)
	err := d.s.each(func(id []byte, _, line int64) error {
		if prev != nil && bytes.Equal(prev, id) {
			out = append(out, Duplicate{Line: int(line), First: int(first), ID: string(id)})
			if len(out) >= 2*limit+64 { // keep the first limit in line order
				slices.SortFunc(out, func(a, b Duplicate) int { return cmp.Compare(a.Line, b.Line) })
				out = out[:limit]
			}
			return nil
		}
		prev, first = append(prev[:0], id...), line
		return nil
	})
	slices.SortFunc(out, func(a, b Duplicate) int { return cmp.Compare(a.Line, b.Line) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

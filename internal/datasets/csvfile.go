package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// csvColumns are the columns of a benchmark CSV file.
var csvColumns = []string{"id", "question", "answer", "contexts"}

// ContextSeparator separates passages in a CSV contexts cell.
const ContextSeparator = "|||"

// ReadCSV reads the rows of a benchmark CSV file from fsys: a header row
// naming the columns question (required), answer, contexts (passages
// separated by "|||") and id, in any order. An unknown column, a missing
// question, a duplicate id or a malformed record is a Problem with its line.
// A CSV file cannot mark a row unanswerable.
func ReadCSV(fsys fs.FS, path string) ([]Row, error) {
	rows, _, err := readCSV(fsys, path)
	return rows, err
}

func readCSV(fsys fs.FS, path string) ([]Row, string, error) {
	return readHashed(fsys, path, parseCSVRows)
}

// csvReader returns an encoding/csv reader that strips a UTF-8 byte order
// mark.
func csvReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(&bomSkipper{r: r})
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 0
	return cr
}

type bomSkipper struct {
	r    io.Reader
	done bool
	head []byte
}

func (b *bomSkipper) Read(p []byte) (int, error) {
	if !b.done {
		b.done = true
		var h [3]byte
		n, err := io.ReadFull(b.r, h[:])
		if !(n == 3 && string(h[:]) == "\xef\xbb\xbf") {
			b.head = append(b.head, h[:n]...)
		}
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return 0, err
		}
	}
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	return b.r.Read(p)
}

// csvError turns an encoding/csv error on r into a Problem. A problem
// r's text guard found (see textGuard) comes first: encoding/csv may report
// a quoting error in the part of a line read before it.
func csvError(r io.Reader, path string, err error) Problem {
	if te := guardProblem(r); te != nil {
		return te.problem(path)
	}
	var te *textError
	if errors.As(err, &te) {
		return te.problem(path)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return csvParseProblem(path, pe)
	}
	return Problem{Pos: lasagna.Pos{File: path}, Msg: fmt.Sprintf("read error: %v", err)}
}

// csvParseProblem explains an encoding/csv parse error. An unbalanced
// quote is reported where its record starts: encoding/csv notices it only
// where the quoted text ends (often at the end of the file), lines after
// the quote that opened it.
func csvParseProblem(path string, pe *csv.ParseError) Problem {
	const fix = `close the quote, and write a quote inside a quoted field as "" ("say ""hi""")`
	at := lasagna.Pos{File: path, Line: pe.Line}
	switch {
	case errors.Is(pe.Err, csv.ErrQuote) && pe.StartLine > 0 && pe.StartLine < pe.Line:
		at.Line = pe.StartLine
		return Problem{Pos: at, Msg: fmt.Sprintf("malformed CSV: unbalanced quote: a quoted field opened in the record starting on this line is not closed before line %d, column %d, so every line up to there was read as part of it; %s", pe.Line, pe.Column, fix)}
	case errors.Is(pe.Err, csv.ErrQuote):
		return Problem{Pos: at, Msg: fmt.Sprintf("malformed CSV at column %d: unbalanced quote in a quoted field; %s", pe.Column, fix)}
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return Problem{Pos: at, Msg: fmt.Sprintf("malformed CSV at column %d: a quote inside a field that does not start with one; quote the whole field and double the inner quote (\"say \"\"hi\"\"\")", pe.Column)}
	}
	return Problem{Pos: at, Msg: fmt.Sprintf("malformed CSV at column %d: %v", pe.Column, pe.Err)}
}

// csvHeader reads the header row and maps known column names to indexes.
// It returns nil after recording problems.
// vectaHint adds, for Vecta-only columns, a pointer to LoadVectaCSV.
func csvHeader(r io.Reader, cr *csv.Reader, path string, known, required []string, vectaHint bool, c *collector) map[string]int {
	rec, err := cr.Read()
	if err == io.EOF {
		c.add(lasagna.Pos{File: path, Line: 1}, "", "empty file; want a header row naming the columns (%s)", strings.Join(known, ","))
		return nil
	}
	if err != nil {
		c.addProblem(csvError(r, path, err))
		return nil
	}
	cols := make(map[string]int, len(rec))
	pos := lasagna.Pos{File: path, Line: 1}
	ok := true
	for i, name := range rec {
		name = strings.TrimSpace(name)
		isKnown := false
		for _, k := range known {
			if k == name {
				isKnown = true
			}
		}
		switch {
		case !isKnown:
			tail := ""
			if vectaHint && (name == "chunk_ids" || name == "page_nums" || name == "source_paths") {
				tail = "; this looks like a Vecta benchmark CSV: read it with LoadVectaCSV (validate-data --format vecta)"
			}
			c.add(pos, name, "%s", unknownMsg("column", name, known, tail))
			ok = false
		case hasCol(cols, name):
			c.add(pos, name, "column %q appears twice in the header", name)
			ok = false
		default:
			cols[name] = i
		}
	}
	for _, r := range required {
		if !hasCol(cols, r) {
			ok = false
			c.add(pos, r, "the header has no %q column (required); the first row must name the columns (%s)", r, strings.Join(known, ","))
		}
	}
	if !ok {
		return nil
	}
	return cols
}

func hasCol(cols map[string]int, name string) bool {
	_, ok := cols[name]
	return ok
}

// csvRecord is one record of a CSV file whose header has been read.
type csvRecord struct {
	pos  lasagna.Pos
	rec  []string
	cols map[string]int
}

// cell returns the record's cell in the named column, or "" when the header
// has no such column or the record is short.
func (r csvRecord) cell(name string) string {
	if i, ok := r.cols[name]; ok && i < len(r.rec) {
		return r.rec[i]
	}
	return ""
}

// csvRecords reads the header of a CSV file (see csvHeader) and yields its
// records, skipping blank lines. A malformed record is a problem in c: one
// with the wrong number of fields is skipped, and a quoting error ends the
// records (the reader is then at an unknown place). When the header is bad,
// nothing is yielded; the records also end when c fills up, so callers check
// c.full after the loop.
func csvRecords(r io.Reader, path string, known, required []string, vectaHint bool, c *collector) iter.Seq[csvRecord] {
	return func(yield func(csvRecord) bool) {
		cr := csvReader(r)
		cols := csvHeader(r, cr, path, known, required, vectaHint, c)
		if cols == nil {
			return
		}
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !c.addProblem(csvError(r, path, err)) {
					return
				}
				var pe *csv.ParseError
				if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) && guardProblem(r) == nil {
					continue
				}
				return
			}
			line, _ := cr.FieldPos(0)
			if len(rec) == 1 && rec[0] == "" {
				continue // a blank line
			}
			if !yield(csvRecord{pos: lasagna.Pos{File: path, Line: line}, rec: rec, cols: cols}) {
				return
			}
		}
	}
}

func parseCSVRows(r io.Reader, path string, c *collector) []Row {
	var rows []Row
	seen := make(map[string]int)
	for rec := range csvRecords(r, path, csvColumns, []string{"question"}, true, c) {
		pos := rec.pos
		row := Row{Pos: pos, ID: strings.TrimSpace(rec.cell("id")), Question: rec.cell("question")}
		ok := true
		if blankString(row.Question) {
			c.add(pos, "question", "the question cell is empty")
			ok = false
		}
		if a := rec.cell("answer"); a != "" {
			row.Answers = []string{a}
		}
		if cx := rec.cell("contexts"); cx != "" {
			row.Contexts = strings.Split(cx, ContextSeparator)
			for i, p := range row.Contexts {
				if blankString(p) {
					c.add(pos, "contexts", "passage %d of the contexts cell is empty (check the %q separators)", i+1, ContextSeparator)
					ok = false
				}
			}
		}
		if row.ID == "" {
			row.ID = "row" + strconv.Itoa(pos.Line)
		}
		if first, dup := seen[row.ID]; dup {
			c.add(pos, "id", "duplicate id %q (first used at line %d); ids must be unique", row.ID, first)
			ok = false
		}
		if c.full {
			return nil
		}
		if !ok {
			continue
		}
		seen[row.ID] = pos.Line
		rows = append(rows, row)
	}
	if c.full {
		return nil
	}
	return rows
}

package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/lasagna-go/lasagna"
)

// Row is one row of a JSONL or CSV benchmark file (docs/data.md format).
//
// ID is the row's id as written, or row<line> when the row gave none.
// Answers are the reference answers (a single "answer" is a list of one);
// Contexts the row's passages and ExpectedDocs their names (same length as
// Contexts, or naming passages another row gives the text of when Contexts
// is empty). Metadata is the row's metadata object (numbers decoded as
// float64); metadata.unanswerable true marks an unanswerable row. Pos is
// where the row was read (zero for rows built in memory).
type Row struct {
	ID           string
	Question     string
	Answers      []string
	Contexts     []string
	ExpectedDocs []string
	Metadata     map[string]any
	Pos          lasagna.Pos
}

// Unanswerable reports whether the row's metadata marks it unanswerable.
func (r Row) Unanswerable() bool {
	v, _ := r.Metadata["unanswerable"].(bool)
	return v
}

// jsonlFields are the fields a JSONL row may have.
var jsonlFields = []string{"id", "question", "answer", "answers", "context", "contexts", "expected_docs", "metadata"}

// ReadJSONL reads the rows of a JSONL benchmark file from fsys, checking
// every rule of the format. On invalid data it returns Problems naming
// file:line, field and fix. It does not build a corpus; see LoadJSONL.
func ReadJSONL(fsys fs.FS, path string) ([]Row, error) {
	rows, _, err := readJSONL(fsys, path)
	return rows, err
}

func readJSONL(fsys fs.FS, path string) ([]Row, string, error) {
	return readHashed(fsys, path, parseJSONLRows)
}

func parseJSONLRows(r io.Reader, path string, c *collector) []Row {
	return uniqueLines(r, path, c, parseRow, func(row Row) string { return row.ID },
		"duplicate id %q (first used at line %d); ids must be unique")
}

// parseRow parses one JSONL line; problems go to c and ok is false.
func parseRow(l *jlex, line []byte, pos lasagna.Pos, c *collector) (Row, bool) {
	row := Row{Pos: pos}
	ok := true
	bad := func(field, format string, args ...any) {
		ok = false
		c.add(pos, field, format, args...)
	}
	seen := 0 // bit set of seen fields
	var questionIsString bool
	var answerGiven, answersGiven, contextGiven, contextsGiven, unanswerable bool
	err := l.objectLine(line, func(key string) error {
		idx := -1
		for i, f := range jsonlFields {
			if f == key {
				idx = i
				break
			}
		}
		if idx < 0 {
			if _, err := l.raw(); err != nil {
				return err
			}
			bad(key, "%s", unknownMsg("field", key, jsonlFields, "; put fields of your own under \"metadata\""))
			return nil
		}
		if seen&(1<<idx) != 0 {
			if _, err := l.raw(); err != nil {
				return err
			}
			bad(key, "field %q is given twice", key)
			return nil
		}
		seen |= 1 << idx
		switch key {
		case "id":
			text, k, err := l.scalarText()
			if err != nil {
				return err
			}
			switch {
			case k != '"' && text == "":
				bad(key, "field \"id\" must be a string or a number, got %s", kindName(k))
			case text == "":
				bad(key, "field \"id\" is empty; give a non-empty id or leave the field out (the default is row<line>)")
			default:
				row.ID = text
			}
		case "question":
			k := l.kind()
			if k != '"' {
				if _, err := l.raw(); err != nil {
					return err
				}
				bad(key, "field \"question\" must be a string, got %s", kindName(k))
				return nil
			}
			s, err := l.str()
			if err != nil {
				return err
			}
			row.Question, questionIsString = s, true
		case "answer", "answers", "context", "contexts", "expected_docs":
			list, err := strOrList(l, key, bad)
			if err != nil {
				return err
			}
			switch key {
			case "answer", "answers":
				answerGiven = answerGiven || key == "answer"
				answersGiven = answersGiven || key == "answers"
				if len(list) == 1 && list[0] == "" {
					list = nil // "answer": "" means no answer
				}
				for i, s := range list {
					if s == "" {
						bad(key, "%s[%d] is empty; remove it", key, i)
					}
				}
				row.Answers = list
			case "context", "contexts":
				contextGiven = contextGiven || key == "context"
				contextsGiven = contextsGiven || key == "contexts"
				for i, s := range list {
					if blankString(s) {
						bad(key, "%s[%d] is an empty passage; remove it", key, i)
					}
				}
				row.Contexts = list
			default:
				for i, s := range list {
					if s == "" {
						bad(key, "expected_docs[%d] is empty; give every passage a name", i)
					}
				}
				row.ExpectedDocs = list
			}
		case "metadata":
			k := l.kind()
			if k != '{' {
				if _, err := l.raw(); err != nil {
					return err
				}
				if k != 'n' {
					bad(key, "field \"metadata\" must be an object, got %s", kindName(k))
				}
				return nil
			}
			v, err := l.value(0)
			if err != nil {
				return err
			}
			m := v.(map[string]any)
			if v, has := m["unanswerable"]; has {
				b, isBool := v.(bool)
				if !isBool {
					bad(key, "metadata.unanswerable must be true or false, got %s", jsonKind(v))
				}
				unanswerable = b
			}
			for _, msg := range typeCitations(m) {
				bad(key, "%s", msg)
			}
			if len(m) > 0 {
				row.Metadata = m
			}
		}
		return nil
	})
	if err != nil {
		lineProblem(c, pos, err)
		return row, false
	}
	if seen&(1<<1) == 0 {
		bad("question", "missing field \"question\" (the only required field)")
	} else if questionIsString && blankString(row.Question) {
		bad("question", "field \"question\" is empty")
	}
	if answerGiven && answersGiven {
		bad("answers", "both \"answer\" and \"answers\" are given; use one (\"answers\" takes a list)")
	}
	if contextGiven && contextsGiven {
		bad("contexts", "both \"context\" and \"contexts\" are given; use one (\"contexts\" takes a list)")
	}
	if unanswerable && len(row.Answers) > 0 {
		bad("answer", "row is marked metadata.unanswerable but has an answer %q; remove the answer or the mark", truncate(row.Answers[0], 40))
	}
	if len(row.ExpectedDocs) > 0 && len(row.Contexts) > 0 && len(row.ExpectedDocs) != len(row.Contexts) {
		bad("expected_docs", "expected_docs has %d names for %d contexts; give one name per passage, in the same order", len(row.ExpectedDocs), len(row.Contexts))
	}
	if ok && row.ID == "" {
		row.ID = "row" + strconv.Itoa(pos.Line)
	}
	return row, ok
}

// strOrList reads a string or a list of strings.
func strOrList(l *jlex, key string, bad func(field, format string, args ...any)) ([]string, error) {
	switch k := l.kind(); k {
	case '"':
		s, err := l.str()
		if err != nil {
			return nil, err
		}
		return []string{s}, nil
	case '[':
		list, err := l.strList(func(i int, kind byte) {
			bad(key, "%s[%d] must be a string, got %s", key, i, kindName(kind))
		})
		if len(list) == 0 {
			list = nil
		}
		return list, err
	case 'n':
		_, err := l.raw()
		return nil, err
	default:
		if _, err := l.raw(); err != nil {
			return nil, err
		}
		bad(key, "field %q must be a string or a list of strings, got %s", key, kindName(k))
		return nil, nil
	}
}

func blankString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	default:
		return "an object"
	}
}

// WriteJSONL writes rows as JSONL, one object per line, in the field order
// id, question, answer (one) or answers (several), contexts, expected_docs,
// metadata; empty fields are left out. What it writes loads back (ReadJSONL)
// as the same rows, apart from Pos. A row that would not load back (no
// question, an answer on an unanswerable row, a duplicate id, expected_docs
// of another length than contexts) is an error naming the row.
func WriteJSONL(w io.Writer, rows []Row) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	seen := make(map[string]int, len(rows))
	for i, r := range rows {
		if r.ID == "" {
			return fmt.Errorf("row %d: empty id", i)
		}
		if j, dup := seen[r.ID]; dup {
			return fmt.Errorf("row %d: duplicate id %q (also row %d)", i, r.ID, j)
		}
		seen[r.ID] = i
		if blankString(r.Question) {
			return fmt.Errorf("row %d (id %q): empty question", i, r.ID)
		}
		if r.Unanswerable() && len(r.Answers) > 0 {
			return fmt.Errorf("row %d (id %q): marked unanswerable but has an answer", i, r.ID)
		}
		if len(r.ExpectedDocs) > 0 && len(r.Contexts) > 0 && len(r.ExpectedDocs) != len(r.Contexts) {
			return fmt.Errorf("row %d (id %q): %d expected_docs for %d contexts", i, r.ID, len(r.ExpectedDocs), len(r.Contexts))
		}
		for _, a := range r.Answers {
			if a == "" {
				return fmt.Errorf("row %d (id %q): empty answer", i, r.ID)
			}
		}
		for _, p := range r.Contexts {
			if blankString(p) {
				return fmt.Errorf("row %d (id %q): empty passage", i, r.ID)
			}
		}
		buf.Reset()
		buf.WriteString(`{"id":`)
		enc.Encode(r.ID)
		trimNL(&buf)
		buf.WriteString(`,"question":`)
		enc.Encode(r.Question)
		trimNL(&buf)
		switch len(r.Answers) {
		case 0:
		case 1:
			buf.WriteString(`,"answer":`)
			enc.Encode(r.Answers[0])
			trimNL(&buf)
		default:
			buf.WriteString(`,"answers":`)
			enc.Encode(r.Answers)
			trimNL(&buf)
		}
		if len(r.Contexts) > 0 {
			buf.WriteString(`,"contexts":`)
			enc.Encode(r.Contexts)
			trimNL(&buf)
		}
		if len(r.ExpectedDocs) > 0 {
			buf.WriteString(`,"expected_docs":`)
			enc.Encode(r.ExpectedDocs)
			trimNL(&buf)
		}
		if len(r.Metadata) > 0 {
			buf.WriteString(`,"metadata":`)
			if err := enc.Encode(r.Metadata); err != nil {
				return fmt.Errorf("row %d (id %q): metadata: %w", i, r.ID, err)
			}
			trimNL(&buf)
		}
		buf.WriteString("}\n")
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func trimNL(b *bytes.Buffer) {
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

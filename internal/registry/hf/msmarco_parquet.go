//go:build parquet

package hf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// noAnswer is MS MARCO's answer for a query its passages do not answer.
const noAnswer = "No Answer Present."

// msRow is one MS MARCO row as converted.
type msRow struct {
	ID           string         `json:"id"`
	Question     string         `json:"question"`
	Answer       string         `json:"answer,omitempty"`
	Answers      []string       `json:"answers,omitempty"`
	ExpectedDocs []string       `json:"expected_docs,omitempty"`
	Metadata     map[string]any `json:"metadata"`
}

type corpusDoc struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
}

func convertMSMARCO(ctx context.Context, root string, o Options, out string) (Converted, error) {
	files, err := parquetFiles(root, o.Dataset, o.Config, o.Split)
	if err != nil {
		return Converted{}, err
	}
	conv := Converted{Main: "ms_marco-" + o.Config + "-" + o.Split + ".jsonl", Corpus: "corpus.jsonl"}
	mainOut, err := create(out, conv.Main)
	if err != nil {
		return conv, err
	}
	defer mainOut.Close()
	corpusOut, err := create(out, conv.Corpus)
	if err != nil {
		return conv, err
	}
	defer corpusOut.Close()
	c := &msConverter{
		main: json.NewEncoder(mainOut), corpus: json.NewEncoder(corpusOut),
		docs: map[[8]byte][8]byte{}, ids: map[int64]int{}, limit: o.Limit,
	}
	c.main.SetEscapeHTML(false)
	c.corpus.SetEscapeHTML(false)
	for _, f := range files {
		if o.Limit > 0 && c.rows >= o.Limit {
			break
		}
		if err := c.file(ctx, f); err != nil {
			return conv, err
		}
	}
	if c.rows == 0 {
		return conv, fmt.Errorf("%s: no rows in %s", MSMARCO, strings.Join(files, ", "))
	}
	if err := mainOut.Close(); err != nil {
		return conv, err
	}
	if err := corpusOut.Close(); err != nil {
		return conv, err
	}
	conv.Rows, conv.Documents = c.rows, c.ndocs
	return conv, nil
}

type msConverter struct {
	main, corpus *json.Encoder
	// docs maps the first 8 bytes of a passage's sha256 (its name) to
	// the next 8, which tell two passages with one name apart (an error,
	// never a silent merge).
	docs map[[8]byte][8]byte
	// ids maps each query id to the row (of the split) that used it.
	ids         map[int64]int
	rows, ndocs int
	limit       int
}

// file converts the rows of one parquet file, a row group at a time,
// reading the values of each row column by column (no reflection: the
// columns are found by name, whatever the file calls its list elements).
func (c *msConverter) file(ctx context.Context, name string) error {
	return withParquet(name, func(pf *parquet.File) error { return c.read(ctx, name, pf) })
}

// read converts the rows of the opened parquet file pf.
func (c *msConverter) read(ctx context.Context, name string, pf *parquet.File) error {
	cols, err := msColumnsOf(name, pf.Schema())
	if err != nil {
		return err
	}
	buf := make([]parquet.Row, 128)
	var vals msValues
	row := 0
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return err
			}
			n, rerr := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				if c.limit > 0 && c.rows >= c.limit {
					return rows.Close()
				}
				row++
				if err := vals.split(cols, r); err != nil {
					rows.Close()
					return rowError(name, row, err.col, "%s", err.msg)
				}
				if err := c.row(name, row, &vals); err != nil {
					rows.Close()
					return err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rows.Close()
				return fmt.Errorf("%s: after row %d: %w", name, row, rerr)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// leaf is one column the conversion reads.
type leaf struct {
	name   string // the column's name in messages
	index  int    // its column index; -1 when the file has no such column
	maxDef int
	// nullElem is the definition level of a null list element (-1 when
	// elements cannot be null).
	nullElem int
}

// The columns, in msColumns order.
const (
	colQuery = iota
	colQueryID
	colQueryType
	colAnswers
	colWellFormed
	colSelected
	colText
	colURL
	nCols
)

var msColumnNames = [nCols][]string{
	{"query"}, {"query_id"}, {"query_type"}, {"answers"}, {"wellFormedAnswers"},
	{"passages", "is_selected"}, {"passages", "passage_text"}, {"passages", "url"},
}

type msColumns struct {
	leaves [nCols]leaf
	byCol  []int // column index → position in leaves, or -1
}

// msColumnsOf finds the columns in the file's schema; query, query_id,
// answers and the three passages columns are required.
func msColumnsOf(name string, s *parquet.Schema) (*msColumns, error) {
	cols := &msColumns{byCol: make([]int, len(s.Columns()))}
	for i := range cols.byCol {
		cols.byCol[i] = -1
	}
	var missing []string
	for i, want := range msColumnNames {
		l := leaf{name: strings.Join(want, "."), index: -1, nullElem: -1}
		for _, path := range s.Columns() {
			if len(path) < len(want) || !slices.Equal(path[:len(want)], want) {
				continue
			}
			lc, _ := s.Lookup(path...)
			l.index, l.maxDef = lc.ColumnIndex, lc.MaxDefinitionLevel
			if lc.MaxRepetitionLevel > 0 && lc.Node.Optional() {
				l.nullElem = l.maxDef - 1
			}
			cols.byCol[lc.ColumnIndex] = i
			break
		}
		if l.index < 0 && i != colQueryType && i != colWellFormed {
			missing = append(missing, l.name)
		}
		cols.leaves[i] = l
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing column(s) %s; an %s parquet file has query, query_id, query_type, answers, wellFormedAnswers and passages {is_selected, passage_text, url}", name, strings.Join(missing, ", "), MSMARCO)
	}
	return cols, nil
}

// msValues holds one row's values, column by column (buffers reused).
type msValues struct {
	query     string
	queryNull bool
	queryID   int64
	idNull    bool
	queryType string
	lists     [nCols][]string // answers, wellFormedAnswers, passage_text, url
	selected  []int64
}

type colError struct{ col, msg string }

// split sorts a row's values into v.
func (v *msValues) split(cols *msColumns, r parquet.Row) *colError {
	v.queryNull, v.idNull, v.query, v.queryType = true, true, "", ""
	for i := range v.lists {
		v.lists[i] = v.lists[i][:0]
	}
	v.selected = v.selected[:0]
	for _, val := range r {
		ci := val.Column()
		if ci >= len(cols.byCol) || cols.byCol[ci] < 0 {
			continue
		}
		i := cols.byCol[ci]
		l := &cols.leaves[i]
		def := val.DefinitionLevel()
		switch i {
		case colQuery, colQueryType:
			if def < l.maxDef {
				continue
			}
			if val.Kind() != parquet.ByteArray {
				return &colError{l.name, fmt.Sprintf("%s is %v, want a string", l.name, val.Kind())}
			}
			s := string(val.ByteArray())
			if strings.IndexByte(s, 0) >= 0 {
				return &colError{l.name, l.name + " " + nulMsg}
			}
			if i == colQuery {
				v.query, v.queryNull = s, false
			} else {
				v.queryType = s
			}
		case colQueryID:
			if def < l.maxDef {
				continue
			}
			switch val.Kind() {
			case parquet.Int32:
				v.queryID = int64(val.Int32())
			case parquet.Int64:
				v.queryID = val.Int64()
			default:
				return &colError{l.name, fmt.Sprintf("query_id is %v, want an integer", val.Kind())}
			}
			v.idNull = false
		default: // a list column
			if def < l.maxDef {
				if def == l.nullElem {
					return &colError{l.name, fmt.Sprintf("%s has a null element; every element needs a value", l.name)}
				}
				continue // an empty or null list
			}
			if i == colSelected {
				switch val.Kind() {
				case parquet.Int32:
					v.selected = append(v.selected, int64(val.Int32()))
				case parquet.Int64:
					v.selected = append(v.selected, val.Int64())
				case parquet.Boolean:
					b := int64(0)
					if val.Boolean() {
						b = 1
					}
					v.selected = append(v.selected, b)
				default:
					return &colError{l.name, fmt.Sprintf("%s is a list of %v, want integers", l.name, val.Kind())}
				}
				continue
			}
			if val.Kind() != parquet.ByteArray {
				return &colError{l.name, fmt.Sprintf("%s is a list of %v, want strings", l.name, val.Kind())}
			}
			s := string(val.ByteArray())
			if !utf8.ValidString(s) {
				return &colError{l.name, fmt.Sprintf("%s[%d] is not valid UTF-8", l.name, len(v.lists[i]))}
			}
			if strings.IndexByte(s, 0) >= 0 {
				return &colError{l.name, fmt.Sprintf("%s[%d] %s", l.name, len(v.lists[i]), nulMsg)}
			}
			v.lists[i] = append(v.lists[i], s)
		}
	}
	return nil
}

func (c *msConverter) row(file string, n int, v *msValues) error {
	bad := func(col, format string, args ...any) error { return rowError(file, n, col, format, args...) }
	q := v.query
	if v.queryNull || strings.TrimSpace(q) == "" {
		return bad("query", "empty or missing query; every row needs one")
	}
	if !utf8.ValidString(q) {
		return bad("query", "not valid UTF-8")
	}
	if v.idNull {
		return bad("query_id", "missing query_id; every row needs one")
	}
	qid := v.queryID
	if first, dup := c.ids[qid]; dup {
		return bad("query_id", "duplicate query_id %d (also row %d of the split); query ids must be unique within a split", qid, first)
	}
	c.ids[qid] = c.rows + 1
	id := strconv.FormatInt(qid, 10)
	out := msRow{ID: id, Question: q, Metadata: map[string]any{"query_id": json.Number(id)}}
	if v.queryType != "" {
		out.Metadata["query_type"] = v.queryType
	}
	var all []string
	for _, a := range slices.Concat(v.lists[colAnswers], v.lists[colWellFormed]) {
		if a == noAnswer || strings.TrimSpace(a) == "" || slices.Contains(all, a) {
			continue
		}
		all = append(all, a)
	}
	switch len(all) {
	case 0:
		out.Metadata["unanswerable"] = true
	case 1:
		out.Answer = all[0]
	default:
		out.Answers = all
	}
	sel, texts, urls := v.selected, v.lists[colText], v.lists[colURL]
	if len(sel) != len(texts) || len(urls) != len(texts) {
		return bad("passages", "is_selected has %d values, passage_text %d and url %d; they must have one per passage", len(sel), len(texts), len(urls))
	}
	for i, s := range sel {
		if s != 0 && s != 1 {
			return bad("passages.is_selected", "is_selected[%d] is %d; MS MARCO marks each passage 0 (not selected) or 1 (selected): fix the value, or download the dataset again", i, s)
		}
	}
	for i, text := range texts {
		if strings.TrimSpace(text) == "" {
			return bad("passages.passage_text", "passage_text[%d] is empty", i)
		}
		docID, err := c.doc(text, urls[i])
		if err != nil {
			return bad("passages.passage_text", "passage_text[%d]: %v", i, err)
		}
		if sel[i] == 1 && len(all) > 0 && !slices.Contains(out.ExpectedDocs, docID) {
			out.ExpectedDocs = append(out.ExpectedDocs, docID)
		}
	}
	c.rows++
	return c.main.Encode(out)
}

// doc returns the corpus id of a passage, writing it to the corpus the
// first time it is seen.
func (c *msConverter) doc(text, url string) (string, error) {
	sum := sha256.Sum256([]byte(text))
	var name, rest [8]byte
	copy(name[:], sum[:8])
	copy(rest[:], sum[8:16])
	id := "p" + hex.EncodeToString(name[:])
	if prev, ok := c.docs[name]; ok {
		if prev != rest {
			return "", fmt.Errorf("two different passages have the id %s (a sha256 prefix collision); please report this", id)
		}
		return id, nil
	}
	if !utf8.ValidString(text) || !utf8.ValidString(url) {
		return "", errors.New("not valid UTF-8")
	}
	c.docs[name] = rest
	c.ndocs++
	return id, c.corpus.Encode(corpusDoc{ID: id, Text: text, URL: url})
}

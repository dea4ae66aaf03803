package datasets

import (
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// VectaEntry is one entry of a Vecta benchmark (docs/registry.md): a question, its
// answer and its ground-truth citations at three levels.
type VectaEntry struct {
	ID          string
	Question    string
	Answer      string
	ChunkIDs    []string
	PageNums    []int
	SourcePaths []string
	Pos         lasagna.Pos // where it was read; zero for entries built in memory
}

// vectaColumns are the columns of a Vecta benchmark CSV, in the order
// WriteVectaCSV writes them.
var vectaColumns = []string{"id", "question", "answer", "chunk_ids", "page_nums", "source_paths"}

// VectaListSeparator separates the items of a list cell in a Vecta CSV.
const VectaListSeparator = "|"

// ReadVectaCSV reads a Vecta benchmark CSV: a header naming the columns
// question and answer (required) and id, chunk_ids, page_nums, source_paths
// (optional), in any order; list cells hold items separated by "|" (spaces
// around items are trimmed). A missing or empty id becomes row<line>. One
// leading apostrophe of a cell is dropped, as a spreadsheet hides it (see
// WriteVectaCSV).
// Problems name file:line and column.
func ReadVectaCSV(fsys fs.FS, path string) ([]VectaEntry, error) {
	es, _, err := readVectaCSV(fsys, path)
	return es, err
}

func readVectaCSV(fsys fs.FS, path string) ([]VectaEntry, string, error) {
	return readHashed(fsys, path, parseVectaRows)
}

func parseVectaRows(r io.Reader, path string, c *collector) []VectaEntry {
	var out []VectaEntry
	seen := make(map[string]int)
	for rec := range csvRecords(r, path, vectaColumns, []string{"question", "answer"}, false, c) {
		pos := rec.pos
		cell := func(name string) string { return restore(rec.cell(name)) }
		e := VectaEntry{Pos: pos, ID: strings.TrimSpace(cell("id")), Question: cell("question"), Answer: cell("answer")}
		ok := true
		fail := func(field, format string, args ...any) {
			ok = false
			c.add(pos, field, format, args...)
		}
		if blankString(e.Question) {
			fail("question", "the question cell is empty")
		}
		if blankString(e.Answer) {
			fail("answer", "the answer cell is empty (a Vecta benchmark needs an answer on every entry)")
		}
		var bad string
		e.ChunkIDs, bad = splitList(cell("chunk_ids"))
		if bad != "" {
			fail("chunk_ids", "chunk_ids: %s", bad)
		}
		e.SourcePaths, bad = splitList(cell("source_paths"))
		if bad != "" {
			fail("source_paths", "source_paths: %s", bad)
		}
		pages, bad := splitList(cell("page_nums"))
		if bad != "" {
			fail("page_nums", "page_nums: %s", bad)
		}
		for _, p := range pages {
			n, err := strconv.Atoi(p)
			if err != nil {
				fail("page_nums", "page_nums: %q is not a whole number", p)
				continue
			}
			e.PageNums = append(e.PageNums, n)
		}
		if e.ID == "" {
			e.ID = "row" + strconv.Itoa(pos.Line)
		}
		if first, dup := seen[e.ID]; dup {
			fail("id", "duplicate id %q (first used at line %d); ids must be unique", e.ID, first)
		}
		if c.full {
			return nil
		}
		if ok {
			seen[e.ID] = pos.Line
			out = append(out, e)
		}
	}
	if c.full {
		return nil
	}
	return out
}

// splitList splits a "|"-separated cell; an empty cell is no items. bad
// describes an empty item.
func splitList(cell string) (items []string, bad string) {
	if strings.TrimSpace(cell) == "" {
		return nil, ""
	}
	items = strings.Split(cell, VectaListSeparator)
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
		if items[i] == "" {
			return nil, fmt.Sprintf("item %d is empty (check the %q separators)", i+1, VectaListSeparator)
		}
	}
	return items, ""
}

// WriteVectaCSV writes entries as a Vecta benchmark CSV with the header
// id,question,answer,chunk_ids,page_nums,source_paths; ReadVectaCSV reads it
// back as the same entries (apart from Pos). A cell that would start a
// formula in a spreadsheet (=, +, -, @, tab, carriage return), or that
// starts with an apostrophe, is written with one apostrophe in front, which
// ReadVectaCSV drops. An entry without an id, a
// duplicate id, an empty question or answer, or a list item that contains
// "|" or is empty (it could not be read back) is an error naming the entry.
func WriteVectaCSV(w io.Writer, entries []VectaEntry) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(vectaColumns); err != nil {
		return err
	}
	seen := make(map[string]int, len(entries))
	rec := make([]string, len(vectaColumns))
	for i, e := range entries {
		if strings.TrimSpace(e.ID) == "" || strings.TrimSpace(e.ID) != e.ID {
			return fmt.Errorf("entry %d: id %q is empty or has surrounding spaces", i, e.ID)
		}
		if j, dup := seen[e.ID]; dup {
			return fmt.Errorf("entry %d: duplicate id %q (also entry %d)", i, e.ID, j)
		}
		seen[e.ID] = i
		if blankString(e.Question) || blankString(e.Answer) {
			return fmt.Errorf("entry %d (id %q): empty question or answer", i, e.ID)
		}
		pages := make([]string, len(e.PageNums))
		for k, p := range e.PageNums {
			pages[k] = strconv.Itoa(p)
		}
		rec[0], rec[1], rec[2] = e.ID, e.Question, e.Answer
		for k, list := range [][]string{e.ChunkIDs, pages, e.SourcePaths} {
			for _, item := range list {
				if item == "" || strings.Contains(item, VectaListSeparator) || strings.TrimSpace(item) != item {
					return fmt.Errorf("entry %d (id %q): %s item %q cannot be written (empty, surrounding spaces, or contains %q)", i, e.ID, vectaColumns[3+k], item, VectaListSeparator)
				}
			}
			rec[3+k] = strings.Join(list, VectaListSeparator)
		}
		for k := range rec {
			rec[k] = neutralise(rec[k])
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// LoadVectaCSV reads a Vecta benchmark CSV as a benchmark: one query per
// entry with its answer; chunk ids become judgements (grade 1, against the
// user's own chunk ids: the file has no corpus, so Provenance is
// ProvenanceNone); Metadata holds "chunk_ids" ([]string), "page_nums"
// ([]int) and "source_paths" ([]string) when given, for page- and
// document-level metrics. Identity is as for LoadCSV.
func LoadVectaCSV(fsys fs.FS, path string, opts Options) (*lasagna.Benchmark, error) {
	if opts.Split != "" {
		return nil, fmt.Errorf("%s: split %q given for a Vecta CSV file; splits exist only for BEIR folders", path, opts.Split)
	}
	if opts.Corpus != "" {
		return nil, fmt.Errorf("%s: corpus %q given for a Vecta CSV file, whose chunk_ids name chunks of your own store; score your pipeline with an arm that searches its own index", path, opts.Corpus)
	}
	es, digest, err := readVectaCSV(fsys, path)
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: path}, Msg: "no entries; a benchmark needs at least one question"}}
	}
	b := &lasagna.Benchmark{
		Name: Identity(path, opts.Name, digest), Revision: digest, Format: lasagna.FormatVecta,
		Source: path, Qrels: lasagna.Qrels{}, Queries: make([]lasagna.Query, len(es)),
	}
	for i, e := range es {
		q := lasagna.Query{ID: e.ID, Text: e.Question, Answers: []string{e.Answer}, Pos: e.Pos}
		md := map[string]any{}
		if len(e.ChunkIDs) > 0 {
			md["chunk_ids"] = e.ChunkIDs
		}
		if len(e.PageNums) > 0 {
			md["page_nums"] = e.PageNums
		}
		if len(e.SourcePaths) > 0 {
			md["source_paths"] = e.SourcePaths
		}
		if len(md) > 0 {
			q.Metadata = md
		}
		for _, id := range e.ChunkIDs {
			b.Qrels.Add(e.ID, id, 1)
		}
		b.Queries[i] = q
	}
	return b, nil
}

// IsVectaCSV reports whether the header of the CSV file p in fsys names a
// Vecta list column (chunk_ids, page_nums or source_paths), which no
// seed-000 CSV has: Load reads such a file as a Vecta benchmark CSV. A
// header that cannot be read is false, left to the loader to report with
// its position.
func IsVectaCSV(fsys fs.FS, p string) (bool, error) {
	f, err := Open(fsys, p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return false, nil
	}
	for _, h := range header {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) {
		case "chunk_ids", "page_nums", "source_paths":
			return true, nil
		}
	}
	return false, nil
}

// typeCitations checks the Vecta citation keys of a JSONL row's metadata
// (chunk_ids and source_paths: lists of non-empty strings; page_nums: a
// list of whole numbers) and stores them typed ([]string, []int), as
// LoadVectaCSV does, so runs, the registry and exports read them alike.
// It returns a message per malformed key.
func typeCitations(m map[string]any) []string {
	var msgs []string
	for _, key := range []string{"chunk_ids", "page_nums", "source_paths"} {
		v, has := m[key]
		if !has {
			continue
		}
		list, isList := v.([]any)
		if !isList {
			msgs = append(msgs, fmt.Sprintf("metadata.%s must be a list, got %s", key, jsonKind(v)))
			continue
		}
		if key == "page_nums" {
			pages := make([]int, 0, len(list))
			for i, e := range list {
				f, isNum := e.(float64)
				if !isNum || f != float64(int(f)) {
					msgs = append(msgs, fmt.Sprintf("metadata.page_nums[%d] must be a whole number, got %s", i, jsonKind(e)))
					pages = nil
					break
				}
				pages = append(pages, int(f))
			}
			if pages != nil {
				m[key] = pages
			}
			continue
		}
		items := make([]string, 0, len(list))
		for i, e := range list {
			str, isStr := e.(string)
			if !isStr || str == "" {
				msgs = append(msgs, fmt.Sprintf("metadata.%s[%d] must be a non-empty string, got %s", key, i, jsonKind(e)))
				items = nil
				break
			}
			items = append(items, str)
		}
		if items != nil {
			m[key] = items
		}
	}
	return msgs
}

// formulaStart holds the first characters that make a spreadsheet read a
// cell as a formula (OWASP, "CSV Injection"): = + - @, tab and carriage
// return.
const formulaStart = "=+-@\t\r"

// neutralise returns a cell that a spreadsheet shows as text: a cell that
// starts a formula, or starts with an apostrophe, gets one more apostrophe
// in front, which spreadsheets hide. restore undoes it, so an exported CSV
// imports back as the same text.
func neutralise(s string) string {
	if s != "" && (s[0] == '\'' || strings.IndexByte(formulaStart, s[0]) >= 0) {
		return "'" + s
	}
	return s
}

// restore drops the one leading apostrophe neutralise adds (a spreadsheet
// hides it too, so a cell typed as '=1 reads as =1).
func restore(s string) string { return strings.TrimPrefix(s, "'") }

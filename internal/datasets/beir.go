package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/suggest"
)

// LoadBEIR reads a folder in the BEIR layout from fsys:
//
//	dir/corpus.jsonl     {"_id": "d1", "title": "...", "text": "..."}
//	dir/queries.jsonl    {"_id": "q1", "text": "..."}
//	dir/qrels/<split>.tsv  query-id <TAB> corpus-id <TAB> score
//
// The split is opts.Split (default "test"). Only queries judged in the split
// are kept, in queries.jsonl order. Qrels keep every judgement with its
// grade: above 0 is relevant (graded for nDCG), 0 or below is judged
// non-relevant. The qrels file may start with a header row and may use CRLF
// line ends. Fields beyond _id, title and text are kept: in Document.Extra
// for the corpus; for queries, the keys of a "metadata" object (and any
// other extra field) go to Query.Metadata. Judgements naming documents or
// queries missing from the folder are one Problem each (count and first
// ids).
//
// Identity: Revision is the sha256 of the three lines that `sha256sum
// corpus.jsonl queries.jsonl qrels/<split>.tsv` prints in that folder
// ("<hex>  <file>\n" each, in that order), and Name is
// local/<folder>@<12 hex> (or <opts.Name>@<12 hex>).
func LoadBEIR(fsys fs.FS, dir string, opts Options) (*lasagna.Benchmark, error) {
	if opts.Corpus != "" {
		return nil, fmt.Errorf("%s: corpus %q given for a BEIR folder, which has its own corpus.jsonl; a corpus file goes beside a JSONL or CSV file", dir, opts.Corpus)
	}
	split := opts.Split
	if split == "" {
		split = DefaultSplit
	}
	if strings.ContainsAny(split, "/\\") || split == "." || split == ".." {
		return nil, fmt.Errorf("%s: bad split %q; a split is the name of a file qrels/<split>.tsv", dir, split)
	}
	corpusPath := path.Join(dir, "corpus.jsonl")
	queriesPath := path.Join(dir, "queries.jsonl")
	qrelsPath := path.Join(dir, "qrels", split+".tsv")
	if err := beirFilesExist(fsys, dir, corpusPath, queriesPath); err != nil {
		return nil, err
	}
	if _, err := Stat(fsys, qrelsPath); err != nil {
		return nil, missingSplit(fsys, dir, split, qrelsPath, err)
	}
	b := &lasagna.Benchmark{Format: lasagna.FormatBEIR, Source: dir, Split: split, Provenance: lasagna.ProvenanceNative}
	var c collector
	var sums strings.Builder

	// corpus
	hf, err := openHashed(fsys, corpusPath)
	if err != nil {
		return nil, err
	}
	docIDs := make(map[string]int)
	var brokenDocs, brokenQueries brokenIDs
	b.Corpus = parseBEIRCorpus(hf.r, corpusPath, docIDs, &brokenDocs, &c)
	sum, err := hf.finish()
	if err != nil && c.err() == nil {
		return nil, fmt.Errorf("read %s: %w", corpusPath, err)
	}
	fmt.Fprintf(&sums, "%s  corpus.jsonl\n", sum)
	if c.full {
		return nil, c.err()
	}

	// queries
	hf, err = openHashed(fsys, queriesPath)
	if err != nil {
		return nil, err
	}
	queries := parseBEIRQueries(hf.r, queriesPath, &brokenQueries, &c)
	sum, err = hf.finish()
	if err != nil && c.err() == nil {
		return nil, fmt.Errorf("read %s: %w", queriesPath, err)
	}
	fmt.Fprintf(&sums, "%s  queries.jsonl\n", sum)
	if c.full {
		return nil, c.err()
	}
	qIndex := make(map[string]int, len(queries))
	for i, q := range queries {
		qIndex[q.ID] = i
	}

	// qrels
	hf, err = openHashed(fsys, qrelsPath)
	if err != nil {
		return nil, err
	}
	// Judged ids are checked against the good lines of each file, so that
	// every problem of the folder is found in one pass; an id on a line
	// with a problem (read leniently from the line) counts as present, so
	// that one bad line is not reported again as missing judged ids. A
	// file with a bad line whose id cannot be read is not checked.
	docRefs := idRefs{ids: docIDs, broken: brokenDocs.ids}
	queryRefs := idRefs{ids: qIndex, broken: brokenQueries.ids}
	if brokenDocs.lost {
		docRefs.ids = nil
	}
	if brokenQueries.lost {
		queryRefs.ids = nil
	}
	b.Qrels = parseBEIRQrels(hf.r, qrelsPath, docRefs, queryRefs, &c)
	sum, err = hf.finish()
	if err != nil && c.err() == nil {
		return nil, fmt.Errorf("read %s: %w", qrelsPath, err)
	}
	fmt.Fprintf(&sums, "%s  qrels/%s.tsv\n", sum, split)
	if err := c.err(); err != nil {
		return nil, err
	}

	for _, q := range queries {
		if _, ok := b.Qrels[q.ID]; ok {
			b.Queries = append(b.Queries, q)
		}
	}
	total := sha256.Sum256([]byte(sums.String()))
	b.Revision = hex.EncodeToString(total[:])
	stem := path.Base(dir)
	if _, isOS := fsys.(OSFS); isOS && (stem == "." || stem == "..") {
		// The working directory or its parent: its own name.
		if abs, err := filepath.Abs(filepath.FromSlash(dir)); err == nil {
			stem = filepath.Base(abs)
		}
	}
	if stem == "." || stem == "/" || stem == ".." {
		stem = "beir"
	}
	b.Name = identity(stem, opts.Name, b.Revision)
	return b, nil
}

// beirFiles describes the files of a BEIR folder, for messages.
const beirFiles = "a BEIR folder holds corpus.jsonl ({\"_id\", \"title\", \"text\"} per line), queries.jsonl ({\"_id\", \"text\"} per line) and qrels/<split>.tsv (query-id, corpus-id, score)"

// beirFilesExist reports a missing corpus.jsonl or queries.jsonl of the
// BEIR folder dir as Problems naming each file and the fix.
func beirFilesExist(fsys fs.FS, dir string, files ...string) error {
	var c collector
	for _, f := range files {
		_, err := Stat(fsys, f)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			c.add(lasagna.Pos{File: f}, "", "missing: %s; add %s, or name a .jsonl or .csv file instead of the folder", beirFiles, path.Base(f))
		default:
			return err
		}
	}
	return c.err()
}

// missingSplit explains a missing qrels/<split>.tsv, listing the splits
// that exist.
func missingSplit(fsys fs.FS, dir, split, qrelsPath string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries, derr := fs.ReadDir(fsys, path.Join(dir, "qrels"))
	if derr != nil {
		return Problems{{Pos: lasagna.Pos{File: qrelsPath}, Msg: fmt.Sprintf("missing (no qrels folder): %s; add qrels/%s.tsv", beirFiles, split)}}
	}
	var splits []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".tsv") {
			splits = append(splits, strings.TrimSuffix(n, ".tsv"))
		}
	}
	if len(splits) == 0 {
		return fmt.Errorf("%s: no split %q (the qrels folder has no .tsv file); add qrels/%s.tsv (query-id, corpus-id, score per line)", qrelsPath, split, split)
	}
	return fmt.Errorf("%s: no split %q; splits here: %s (choose one: split: in a sweep entry, or the split option of the command or API that loads it)", qrelsPath, split, strings.Join(splits, ", "))
}

// brokenIDs are the ids of the lines of a BEIR file that have a problem,
// as far as they can be read (see lenientID); lost is set when a line
// with a problem has no id that can be read.
type brokenIDs struct {
	ids  map[string]bool
	lost bool
}

// add records the line of a BEIR file with a problem whose "_id" was
// read as id ("" when it was not), reading the line leniently then.
func (b *brokenIDs) add(id string, line []byte) {
	if b == nil {
		return
	}
	if id == "" {
		id = lenientID(line)
	}
	if id == "" {
		b.lost = true
		return
	}
	if b.ids == nil {
		b.ids = make(map[string]bool)
	}
	b.ids[id] = true
}

// lenientID finds the value of "_id" on a line that does not parse: the
// first "_id" key followed by a colon and a string without escapes or a
// number; "" when there is none.
func lenientID(line []byte) string {
	s := string(line)
	for {
		i := strings.Index(s, `"_id"`)
		if i < 0 {
			return ""
		}
		s = s[i+len(`"_id"`):]
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ":") {
			continue
		}
		t = strings.TrimLeft(t[1:], " \t")
		if strings.HasPrefix(t, `"`) {
			end := strings.IndexAny(t[1:], `"\`)
			if end <= 0 || t[1+end] != '"' {
				return ""
			}
			return t[1 : 1+end]
		}
		end := strings.IndexFunc(t, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r == '-' || r == '.' || r == 'e' || r == 'E' || r == '+')
		})
		if end < 0 {
			end = len(t)
		}
		return t[:end]
	}
}

// idRefs are the ids that judgements may name: those of the good lines
// (ids; nil means no check) and those of lines with a problem (broken).
type idRefs struct {
	ids    map[string]int
	broken map[string]bool
}

// missing reports whether no line of the file has id.
func (r idRefs) missing(id string) bool {
	if r.ids == nil {
		return false
	}
	_, ok := r.ids[id]
	return !ok && !r.broken[id]
}

func parseBEIRCorpus(r interface{ Read([]byte) (int, error) }, file string, ids map[string]int, broken *brokenIDs, c *collector) []lasagna.Document {
	var docs []lasagna.Document
	if !eachBEIRDoc(r, file, ids, broken, c, func(d lasagna.Document, _ int) { docs = append(docs, d) }) {
		return nil
	}
	return docs
}

// eachBEIRDoc parses a BEIR corpus, handing each good document to keep in
// file order with its line and recording its index (the count of good
// documents before it) in ids; it returns false when c fills up. With ids
// nil it does not check that ids are unique (a Spool does, see
// StreamSpooled). The ids of lines with a problem go to broken (when not
// nil).
func eachBEIRDoc(r interface{ Read([]byte) (int, error) }, file string, ids map[string]int, broken *brokenIDs, c *collector, keep func(d lasagna.Document, line int)) bool {
	l := &jlex{}
	var lines []int32 // line of each document, for messages
	for pos, line := range nonBlankLines(r, file, c) {
		var d lasagna.Document
		var hasID, hasText bool
		lineOK := true
		err := l.objectLine(line, func(key string) error {
			switch key {
			case "_id":
				id, ok, err := beirID(l, pos, c)
				if err != nil {
					return err
				}
				lineOK = lineOK && ok
				d.ID, hasID = id, true
			case "title", "text":
				if l.kind() == 'n' {
					_, err := l.raw()
					if key == "text" {
						hasText = true
					}
					return err
				}
				s, ok, err := beirString(l, key, pos, c)
				if !ok {
					// A text of the wrong kind is that problem only, not
					// also a missing text.
					hasText = hasText || key == "text"
					lineOK = false
					return err
				}
				if key == "title" {
					d.Title = s
				} else {
					d.Text, hasText = s, true
				}
			default:
				v, err := rawValue(l)
				if err != nil {
					return err
				}
				if d.Extra == nil {
					d.Extra = make(map[string]any, 1)
				}
				d.Extra[key] = v
			}
			return nil
		})
		if err != nil {
			broken.add("", line)
			if !lineProblem(c, pos, err) {
				return false
			}
			continue
		}
		if !beirRequired(pos, hasID, hasText, "BEIR corpus lines are {\"_id\", \"title\", \"text\"}", slices.Sorted(maps.Keys(d.Extra)), c) {
			lineOK = false
		}
		if lineOK && ids != nil {
			if first, dup := ids[d.ID]; dup {
				lineOK = false
				c.add(pos, "_id", "duplicate document id %q (first at line %d)", d.ID, lines[first])
			}
		}
		if !lineOK {
			broken.add(d.ID, line)
		}
		if c.full {
			return false
		}
		if lineOK {
			if ids != nil {
				ids[d.ID] = len(lines)
				lines = append(lines, int32(pos.Line))
			}
			keep(d, pos.Line)
		}
	}
	return true
}

// beirID reads the value of "_id" on a BEIR line; an empty id (or one that
// is not a string or a number) is a problem in c and ok is false.
func beirID(l *jlex, pos lasagna.Pos, c *collector) (id string, ok bool, err error) {
	text, k, err := l.scalarText()
	if err != nil {
		return "", false, err
	}
	if text == "" {
		c.add(pos, "_id", "field \"_id\" must be a non-empty string, got %s", kindName(k))
		return text, false, nil
	}
	return text, true, nil
}

// beirString reads the value of field key on a BEIR line as a string; any
// other kind of value is consumed and is a problem in c. ok is false then,
// and on a syntax error (err).
func beirString(l *jlex, key string, pos lasagna.Pos, c *collector) (s string, ok bool, err error) {
	if k := l.kind(); k != '"' {
		if _, err := l.raw(); err != nil {
			return "", false, err
		}
		c.add(pos, key, "field %q must be a string, got %s", key, kindName(k))
		return "", false, nil
	}
	s, err = l.str()
	return s, err == nil, err
}

// beirRequired records a problem for each of "_id" and "text" that a BEIR
// line lacks (shape describes such lines), with the line's other key the
// missing one was likely meant as (others: "txt" for "text"), and reports
// whether it has both.
func beirRequired(pos lasagna.Pos, hasID, hasText bool, shape string, others []string, c *collector) bool {
	missing := func(field string) {
		hint := ""
		if k, ok := suggest.Nearest(field, others); ok {
			hint = fmt.Sprintf("; the line has %q: did you mean %q?", k, field)
		}
		c.add(pos, field, "missing field %q (%s)%s", field, shape, hint)
	}
	if !hasID {
		missing("_id")
	}
	if !hasText {
		missing("text")
	}
	return hasID && hasText
}

// rawValue decodes any JSON value as encoding/json would into an any.
func rawValue(l *jlex) (any, error) {
	return l.value(0)
}

func parseBEIRQueries(r interface{ Read([]byte) (int, error) }, file string, broken *brokenIDs, c *collector) []lasagna.Query {
	l := &jlex{}
	var qs []lasagna.Query
	seen := make(map[string]int)
	for pos, line := range nonBlankLines(r, file, c) {
		q := lasagna.Query{Pos: pos}
		var hasID, hasText bool
		var extra map[string]any
		lineOK := true
		err := l.objectLine(line, func(key string) error {
			switch key {
			case "_id":
				id, ok, err := beirID(l, pos, c)
				if err != nil {
					return err
				}
				lineOK = lineOK && ok
				q.ID, hasID = id, true
			case "text":
				s, ok, err := beirString(l, key, pos, c)
				if !ok {
					hasText = true // that problem only, not also a missing text
					lineOK = false
					return err
				}
				q.Text, hasText = s, true
			default:
				v, err := rawValue(l)
				if err != nil {
					return err
				}
				if m, isObj := v.(map[string]any); isObj && key == "metadata" {
					if len(m) == 0 {
						return nil
					}
					if q.Metadata == nil {
						q.Metadata = m
					} else {
						for k, v := range m {
							q.Metadata[k] = v
						}
					}
					return nil
				}
				if extra == nil {
					extra = make(map[string]any)
				}
				extra[key] = v
			}
			return nil
		})
		if err != nil {
			broken.add("", line)
			if !lineProblem(c, pos, err) {
				return nil
			}
			continue
		}
		for k, v := range extra {
			if q.Metadata == nil {
				q.Metadata = make(map[string]any)
			}
			if _, taken := q.Metadata[k]; !taken {
				q.Metadata[k] = v
			}
		}
		if !beirRequired(pos, hasID, hasText, "BEIR query lines are {\"_id\", \"text\"}", slices.Sorted(maps.Keys(extra)), c) {
			lineOK = false
		}
		if lineOK {
			if first, dup := seen[q.ID]; dup {
				lineOK = false
				c.add(pos, "_id", "duplicate query id %q (first at line %d)", q.ID, first)
			}
		}
		if !lineOK {
			broken.add(q.ID, line)
		}
		if c.full {
			return nil
		}
		if lineOK {
			seen[q.ID] = pos.Line
			qs = append(qs, q)
		}
	}
	return qs
}

// missingRef collects judgements naming an id that does not exist.
type missingRef struct {
	count     int
	firstLine int
	ids       []string // distinct, first few
	seen      map[string]bool
}

func (m *missingRef) add(id string, line int) {
	if m.count == 0 {
		m.firstLine = line
		m.seen = make(map[string]bool)
	}
	m.count++
	if !m.seen[id] && len(m.ids) < 5 {
		m.seen[id] = true
		m.ids = append(m.ids, id)
	}
}

// ParseBEIRQrels reads a BEIR qrels file (query-id, corpus-id, score per
// line, tab-separated; an optional header row whose third column is a name
// such as "score"; CRLF tolerated) without
// checking the ids against a corpus. It is what LoadBEIR uses for a split.
func ParseBEIRQrels(fsys fs.FS, file string) (lasagna.Qrels, error) {
	f, err := openText(fsys, file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c collector
	q := parseBEIRQrels(f, file, idRefs{}, idRefs{}, &c)
	if err := c.err(); err != nil {
		return nil, err
	}
	return q, nil
}

// parseBEIRQrels reads a qrels file; docs and queries are the ids that
// judgements must name (see idRefs).
func parseBEIRQrels(r interface{ Read([]byte) (int, error) }, file string, docs, queries idRefs, c *collector) lasagna.Qrels {
	qrels := lasagna.Qrels{}
	var missDocs, missQueries missingRef
	n := 0
	for pos, line := range nonBlankLines(r, file, c) {
		s := string(line)
		cols := strings.Split(s, "\t")
		if len(cols) != 3 {
			cols = strings.Fields(s)
		}
		if len(cols) != 3 {
			if !c.add(pos, "", "want 3 tab-separated columns (query-id, corpus-id, score), got %d", len(cols)) {
				return nil
			}
			continue
		}
		qid, did, score := strings.TrimSpace(cols[0]), strings.TrimSpace(cols[1]), strings.TrimSpace(cols[2])
		grade, err := strconv.Atoi(score)
		if err != nil {
			if f, ferr := strconv.ParseFloat(score, 64); ferr == nil && f == float64(int(f)) && f >= -1e9 && f <= 1e9 {
				grade, err = int(f), nil
			}
		}
		if err != nil {
			if pos.Line == 1 && isHeaderWord(score) {
				continue // a header row, such as "query-id corpus-id score"
			}
			if !c.add(pos, "score", "score %q is not an integer (want query-id, corpus-id, integer score)", truncate(score, 20)) {
				return nil
			}
			continue
		}
		if qid == "" || did == "" {
			if !c.add(pos, "", "empty query id or corpus id") {
				return nil
			}
			continue
		}
		n++
		lineOK := true
		if docs.missing(did) {
			missDocs.add(did, pos.Line)
			lineOK = false
		}
		if queries.missing(qid) {
			missQueries.add(qid, pos.Line)
			lineOK = false
		}
		if !lineOK {
			continue
		}
		if old, dup := qrels[qid][did]; dup && old != grade {
			if !c.add(pos, "score", "query %q, document %q judged twice with different scores (%d and %d); keep one", qid, did, old, grade) {
				return nil
			}
			continue
		}
		qrels.Add(qid, did, grade)
	}
	if missDocs.count > 0 {
		c.add(lasagna.Pos{File: file, Line: missDocs.firstLine}, "corpus-id", "%d judgement(s) name documents missing from corpus.jsonl (first: %s); fix the ids or add the documents", missDocs.count, describeIDs(missDocs.ids, 5))
	}
	if missQueries.count > 0 {
		c.add(lasagna.Pos{File: file, Line: missQueries.firstLine}, "query-id", "%d judgement(s) name queries missing from queries.jsonl (first: %s); fix the ids or add the queries", missQueries.count, describeIDs(missQueries.ids, 5))
	}
	if n == 0 && len(c.list) == 0 {
		c.add(lasagna.Pos{File: file}, "", "no judgements; a qrels file holds query-id, corpus-id, score per line")
	}
	return qrels
}

// isHeaderWord reports whether the score column of line 1 names a column,
// so that the line is a header: score, relevance, rel, grade, label,
// judgement or judgment (any case).
func isHeaderWord(s string) bool {
	switch strings.ToLower(s) {
	case "score", "relevance", "rel", "grade", "label", "judgement", "judgment":
		return true
	}
	return false
}

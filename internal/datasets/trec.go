package datasets

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// TREC files are whitespace-separated text, one record a line:
//
//	qrels: qid iter docno rel                (exactly 4 fields)
//	run:   qid Q0 docno rank score run_id    (6 fields; more are ignored)
//
// as trec_eval reads them. Fields are separated by spaces, tabs, "\r", "\v"
// or "\f"; blank lines and lines whose first non-blank byte is '#' are
// skipped (a '#' inside a field, as in MS MARCO v2.1 docnos, is data).

// RunTag is the run id written when WriteRun is given an empty tag.
const RunTag = "lasagna"

// Run is a TREC run file: for each query id, the retrieved documents in
// trec_eval's rank order — score descending, equal scores by document id
// descending, compared byte-wise. The rank column and the order of lines in
// the file play no part (trec_eval ignores them too). Tag is the run id of
// the file's last line, the one trec_eval prints as runid. Lines counts the
// records read.
type Run struct {
	Tag   string
	Hits  map[string][]lasagna.Hit
	Lines int
}

// QueryIDs returns the run's query ids sorted byte-wise.
func (r *Run) QueryIDs() []string {
	ids := make([]string, 0, len(r.Hits))
	for id := range r.Hits {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ReadQrels reads a TREC qrels file (qid iter docno rel) from fsys. The iter
// field is ignored; rel must be an integer (a negative grade marks a pooled
// but unjudged document, as in trec_eval). A line with other than four
// fields, a grade that is not an integer, or the same (qid, docno) pair twice
// is an error naming file:line; up to [MaxProblems] problems are reported as
// [Problems].
func ReadQrels(fsys fs.FS, name string) (lasagna.Qrels, error) {
	data, err := ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return ParseQrels(name, data)
}

// ParseQrels parses the bytes of a qrels file as [ReadQrels] does; name is
// used in error positions. The returned ids share data's memory: data must
// not be modified afterwards.
func ParseQrels(name string, data []byte) (lasagna.Qrels, error) {
	// Files without problems are split in one pass and each query's map
	// is made at its final size; any problem (or none of the lines a
	// judgement) sends the file to the line-by-line parser, which reports.
	if js, ok := trecparse.QrelsLines(data); ok && len(js) > 0 {
		if qrels, ok := groupQrels(js); ok {
			return qrels, nil
		}
	}
	return parseQrelsLines(name, data)
}

// groupQrels builds the qrels of well-formed judgements, sizing each
// query's map by its consecutive lines; ok is false when a (qid, docno)
// pair is judged twice.
func groupQrels(js []trecparse.Judgement) (lasagna.Qrels, bool) {
	qrels := lasagna.Qrels{}
	for i := 0; i < len(js); {
		qid := js[i].Qid
		j := i + 1
		for j < len(js) && js[j].Qid == qid {
			j++
		}
		judged := qrels[qid]
		if judged == nil {
			judged = make(map[string]int, j-i)
			qrels[qid] = judged
		}
		for _, x := range js[i:j] {
			if _, dup := judged[x.Doc]; dup {
				return nil, false
			}
			judged[x.Doc] = x.Grade
		}
		i = j
	}
	return qrels, true
}

// parseQrelsLines is ParseQrels line by line, with problems.
func parseQrelsLines(name string, data []byte) (lasagna.Qrels, error) {
	qrels := lasagna.Qrels{}
	all := data
	var c collector
	var f [5][]byte
	line := 0
	for len(data) > 0 && !c.full {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		n := trecparse.Fields(l, f[:])
		if n == 0 || f[0][0] == '#' {
			continue
		}
		pos := lasagna.Pos{File: name, Line: line}
		if n != 4 {
			got := strconv.Itoa(n)
			if n > 4 {
				got = "more than 4"
			}
			c.add(pos, "", "want 4 whitespace-separated fields (qid iter docno rel), got %s; fix the line (ids cannot contain spaces)", got)
			continue
		}
		grade, err := strconv.Atoi(string(f[3]))
		if err != nil || grade != int(int32(grade)) {
			c.add(pos, "rel", "field 4 (rel) %q is not an integer grade; write the relevance grade as 0, 1, 2, …", f[3])
			continue
		}
		qid, doc := trecparse.AliasString(f[0]), trecparse.AliasString(f[2])
		judged := qrels[qid]
		if judged == nil {
			judged = map[string]int{}
			qrels[qid] = judged
		}
		if _, dup := judged[doc]; dup {
			first, _ := trecparse.FindDuplicateLines(all, qid, doc, 2)
			c.add(pos, "docno", "document %q is judged twice for query %q (first at line %d); keep one judgement (trec_eval rejects duplicates)", doc, qid, first)
			continue
		}
		judged[doc] = grade
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if len(qrels) == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: name}, Msg: "no judgements: the qrels file has no qid iter docno rel line"}}
	}
	return qrels, nil
}

// ReadRun reads a TREC run file (qid Q0 docno rank score run_id …) from fsys.
// Only qid, docno, score and run_id are used; fields after run_id are
// ignored. A line with fewer than six fields, a score that is not a finite
// or infinite decimal number (NaN is refused), or a document retrieved
// twice for one query is an error naming file:line (trec_eval also rejects
// duplicates). Up to [MaxProblems] problems are reported as [Problems].
//
// Large files are parsed on all CPUs. The returned strings share one
// read-only copy of the file's bytes, which stays in memory as long as any
// of them does.
func ReadRun(fsys fs.FS, name string) (*Run, error) {
	data, err := ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return parseRun(name, data)
}

// ParseRun parses the bytes of a run file as [ReadRun] does; name is used in
// error positions. It copies data once, so the returned run stays valid
// whatever the caller does with data afterwards; its strings share that
// one copy, which stays in memory as long as any of them does.
func ParseRun(name string, data []byte) (*Run, error) {
	return parseRun(name, bytes.Clone(data))
}

// parseRun is ParseRun without the copy: the returned strings alias data,
// which the caller owns and never modifies (ReadRun's fresh buffer).
func parseRun(name string, data []byte) (*Run, error) {
	run, probs := trecparse.ParseRun(name, data, MaxProblems)
	if probs != nil {
		return nil, runProblems(probs)
	}
	out := &Run{Tag: run.Tag, Lines: run.Lines, Hits: make(map[string][]lasagna.Hit, len(run.Hits))}
	all := make([]lasagna.Hit, 0, run.Lines) // one allocation for every list
	for qid, l := range run.Hits {
		start := len(all)
		for _, h := range l {
			all = append(all, lasagna.Hit{ID: h.ID, Score: h.Score})
		}
		out.Hits[qid] = all[start:len(all):len(all)]
	}
	return out, nil
}

// runProblems converts the parser's problems into Problems.
func runProblems(probs []trecparse.Problem) Problems {
	ps := make(Problems, len(probs))
	for i, p := range probs {
		ps[i] = Problem(p)
	}
	return ps
}

// WriteRun writes a TREC run: for each query (in byte-wise id order) its
// hits in the given order, one line "qid Q0 docid rank score tag" with rank
// = position (1-based) and the score in the shortest form that reads back
// exactly. All hits are written (the depth is the caller's). An empty tag
// writes [RunTag]. trec_eval ranks by score, not by the rank column, so give
// the hits in score-descending order (ties by id descending) if the file is
// to rank as written.
//
// It returns an error, before writing anything, when a query id, document
// id or the tag is empty or contains whitespace (it would not read back), or
// a score is NaN.
func WriteRun(w io.Writer, tag string, hits map[string][]lasagna.Hit) error {
	if tag == "" {
		tag = RunTag
	}
	if err := checkToken("run tag", tag); err != nil {
		return err
	}
	qids := make([]string, 0, len(hits))
	for q, hs := range hits {
		if err := checkToken("query id", q); err != nil {
			return err
		}
		if q[0] == '#' {
			return fmt.Errorf("query id %q starts with '#', which would read back as a comment line", q)
		}
		for i, h := range hs {
			if err := checkToken(fmt.Sprintf("document id at rank %d of query %q", i+1, q), h.ID); err != nil {
				return err
			}
			if math.IsNaN(h.Score) {
				return fmt.Errorf("score of document %q for query %q is NaN; a run needs comparable scores", h.ID, q)
			}
		}
		qids = append(qids, q)
	}
	slices.Sort(qids)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for _, q := range qids {
		for i, h := range hits[q] {
			buf = buf[:0]
			buf = append(buf, q...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, h.ID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, h.Score, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// checkToken rejects values a whitespace-separated TREC file cannot hold.
func checkToken(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty; TREC files need a non-empty token", what)
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && trecparse.IsSpace(byte(r)) }) >= 0 {
		return fmt.Errorf("%s %q contains whitespace; TREC files separate fields by whitespace", what, s)
	}
	return nil
}

package trecparse

import (
	"bytes"
	"math"
	"strconv"

	"github.com/lasagna-go/lasagna"
)

// Pref is one judgement of a preference file: document Doc has relevance
// level Level in judgement sub-group JSG of judgement group JG (trec_eval
// -R prefs: qid jg jsg docno rel_level; -R qrels_prefs: qid jg docno
// rel_level, where every JG has the one sub-group "0"). The ids alias the
// parsed bytes.
type Pref struct {
	JG, JSG, Doc string
	Level        float64
}

// JGJudgement is one line of a -R qrels_jg file (qid jg docno rel): the
// grade of document Doc in judgement group JG. The ids alias the parsed
// bytes.
type JGJudgement struct {
	JG, Doc string
	Grade   int
}

// relLines calls line for every line of data that is not blank or a
// comment (first non-blank byte '#'), with its 1-based number and its
// fields (n is their count, len(f)+1 when there are more than len(f)).
// It stops early when line returns false.
func relLines(data []byte, f [][]byte, line func(no, n int) bool) {
	no := 0
	for len(data) > 0 {
		no++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		n := Fields(l, f)
		if n == 0 || f[0][0] == '#' {
			continue
		}
		if !line(no, n) {
			return
		}
	}
}

// fieldCount describes a line's number of fields for a problem message.
func fieldCount(n, max int) string {
	if n > max {
		return "more than " + strconv.Itoa(max)
	}
	return strconv.Itoa(n)
}

// ParsePrefs parses a trec_eval preference file: with qrelsPrefs false the
// -R prefs format (qid jg jsg docno rel_level, five fields), with it true
// the -R qrels_prefs format (qid jg docno rel_level, four fields: a qrels
// file whose iter field names the judgement group). Blank lines and lines
// whose first non-blank byte is '#' are skipped. rel_level is a decimal
// number (negative levels count as non-relevant, as 0 does). It returns
// each query's judgements in file order, or up to maxProblems problems
// naming file:line and field: a line with the wrong number of fields, a
// level that is not a finite number, or no judgement at all.
func ParsePrefs(name string, data []byte, maxProblems int, qrelsPrefs bool) (map[string][]Pref, []Problem) {
	want, form := 5, "qid jg jsg docno rel_level"
	if qrelsPrefs {
		want, form = 4, "qid jg docno rel_level"
	}
	c := collector{max: maxProblems}
	out := map[string][]Pref{}
	var f [6][]byte
	relLines(data, f[:], func(no, n int) bool {
		pos := lasagna.Pos{File: name, Line: no}
		if n != want {
			return c.add(pos, "", "want %d whitespace-separated fields (%s), got %s; fix the line (ids cannot contain spaces)", want, form, fieldCount(n, len(f)))
		}
		lv := f[want-1]
		level, err := strconv.ParseFloat(string(lv), 64)
		if err != nil || math.IsNaN(level) || math.IsInf(level, 0) {
			return c.add(pos, "rel_level", "field %d (rel_level) %q is not a number; write the relevance level as a decimal number such as 0, 1 or 2.5 (0 is non-relevant)", want, lv)
		}
		p := Pref{JG: AliasString(f[1]), JSG: "0", Doc: AliasString(f[want-2]), Level: level}
		if !qrelsPrefs {
			p.JSG = AliasString(f[2])
		}
		qid := AliasString(f[0])
		out[qid] = append(out[qid], p)
		return true
	})
	if c.list != nil {
		return nil, c.list
	}
	if len(out) == 0 {
		return nil, []Problem{{Pos: lasagna.Pos{File: name}, Msg: "no judgements: the file has no " + form + " line"}}
	}
	return out, nil
}

// ParseQrelsJG parses a trec_eval -R qrels_jg file: qrels lines (qid jg
// docno rel) whose second field names the judgement group (a user's set
// of judgements). Blank lines and lines whose first non-blank byte is '#'
// are skipped. It returns each query's judgements in file order, or up to
// maxProblems problems naming file:line and field: a line without four
// fields, a grade that is not an integer, a document judged twice in one
// group of one query (trec_eval refuses it too), or no judgement at all.
func ParseQrelsJG(name string, data []byte, maxProblems int) (map[string][]JGJudgement, []Problem) {
	c := collector{max: maxProblems}
	out := map[string][]JGJudgement{}
	type key struct{ qid, jg, doc string }
	seen := map[key]int{}
	var f [5][]byte
	relLines(data, f[:], func(no, n int) bool {
		pos := lasagna.Pos{File: name, Line: no}
		if n != 4 {
			return c.add(pos, "", "want 4 whitespace-separated fields (qid jg docno rel), got %s; fix the line (ids cannot contain spaces)", fieldCount(n, len(f)))
		}
		grade, err := strconv.Atoi(string(f[3]))
		if err != nil || grade != int(int32(grade)) {
			return c.add(pos, "rel", "field 4 (rel) %q is not an integer grade; write the relevance grade as 0, 1, 2, … (-1: in the pool, unjudged)", f[3])
		}
		qid, jg, doc := AliasString(f[0]), AliasString(f[1]), AliasString(f[2])
		k := key{qid, jg, doc}
		if first, dup := seen[k]; dup {
			return c.add(pos, "docno", "document %q is judged twice for query %q in judgement group %q (first at line %d); keep one judgement (trec_eval rejects duplicates)", doc, qid, jg, first)
		}
		seen[k] = no
		out[qid] = append(out[qid], JGJudgement{JG: jg, Doc: doc, Grade: grade})
		return true
	})
	if c.list != nil {
		return nil, c.list
	}
	if len(out) == 0 {
		return nil, []Problem{{Pos: lasagna.Pos{File: name}, Msg: "no judgements: the file has no qid jg docno rel line"}}
	}
	return out, nil
}

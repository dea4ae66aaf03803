package trecparse

import (
	"bytes"
	"strconv"
)

// Judgement is one qrels line: query id, document id and grade (the iter
// field is not kept). The ids alias the parsed bytes.
type Judgement struct {
	Qid, Doc string
	Grade    int
}

// QrelsLines splits a qrels file (qid iter docno rel, blank and comment
// lines skipped) into its judgements, in file order, when every line is
// well formed: exactly four fields and a grade that strconv.Atoi reads and
// int32 holds. ok is false otherwise; the caller then parses the file line
// by line to report the problems. Separators are found eight bytes at a
// time (sepScanner), as in StreamRun.
func QrelsLines(data []byte) (js []Judgement, ok bool) {
	js = make([]Judgement, 0, bytes.Count(data, []byte{'\n'})+1)
	d := data
	var sc sepScanner
	sc.reset(0)
	var f [6][2]int
	for off := 0; off < len(d); {
		n, next, ok := sc.line(d, off, len(d), &f)
		if !ok {
			return nil, false // a control byte
		}
		off = next
		if n == 0 || d[f[0][0]] == '#' {
			continue // blank line or comment
		}
		if n != 4 {
			return nil, false
		}
		g, ok := parseGrade(d[f[3][0]:f[3][1]])
		if !ok {
			return nil, false
		}
		js = append(js, Judgement{AliasString(d[f[0][0]:f[0][1]]), AliasString(d[f[2][0]:f[2][1]]), g})
	}
	return js, true
}

// parseGrade reads a grade as strconv.Atoi does, refusing values int32
// does not hold. Up to nine digits after an optional '-' take a quick
// path.
func parseGrade(b []byte) (int, bool) {
	i, neg := 0, false
	if len(b) > 1 && b[0] == '-' {
		i, neg = 1, true
	}
	if n := len(b) - i; n >= 1 && n <= 9 {
		v := 0
		for _, c := range b[i:] {
			if c-'0' > 9 {
				goto slow
			}
			v = v*10 + int(c-'0')
		}
		if neg {
			v = -v
		}
		return v, true
	}
slow:
	v, err := strconv.Atoi(string(b))
	if err != nil || v != int(int32(v)) {
		return 0, false
	}
	return v, true
}

package datasets

import (
	"io"
	"io/fs"

	"github.com/lasagna-go/lasagna"
)

// JudgeLabel is one line of a judge labels file (docs/metrics.md,
// "Calibrating the judge"): an answer a person labelled true or false.
type JudgeLabel struct {
	ID, Question, Reference, Answer string
	Passages                        []string
	Label                           bool
	Pos                             lasagna.Pos
}

var judgeLabelFields = []string{"id", "question", "reference", "answer", "passages", "label"}

// ReadJudgeLabels reads a labels JSONL file: one object per line with
// "id" (a string or a number, unique), "question", "answer" and
// "reference" (strings), "passages" (a string or a list of strings) and
// "label" (true or false, required). check, when set, is called on each
// line that parses and its error becomes a Problem of that line (the
// metric's own needs, such as a reference). Every problem names the file,
// the line and the field.
func ReadJudgeLabels(fsys fs.FS, path string, check func(JudgeLabel) error) ([]JudgeLabel, error) {
	f, err := openText(fsys, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c collector
	parse := func(l *jlex, line []byte, pos lasagna.Pos, c *collector) (JudgeLabel, bool) {
		jl, ok := parseJudgeLabel(l, line, pos, c)
		if ok && check != nil {
			if err := check(jl); err != nil {
				c.add(pos, "", "%v", err)
				return jl, false
			}
		}
		return jl, ok
	}
	labels := uniqueLines(io.Reader(f), path, &c, parse, func(jl JudgeLabel) string { return jl.ID },
		"duplicate id %q (first at line %d); give each label its own id")
	if err := c.err(); err != nil {
		return nil, err
	}
	if len(labels) == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: path}, Msg: "no labels: the file has no lines; write one JSON object per line"}}
	}
	return labels, nil
}

func parseJudgeLabel(l *jlex, line []byte, pos lasagna.Pos, c *collector) (JudgeLabel, bool) {
	jl := JudgeLabel{Pos: pos}
	ok := true
	bad := func(field, format string, args ...any) {
		ok = false
		c.add(pos, field, format, args...)
	}
	seen, err := l.fieldsLine(line, judgeLabelFields, bad, func(key string) error {
		switch key {
		case "id":
			id, err := l.requiredID(key, bad)
			if err != nil {
				return err
			}
			jl.ID = id
		case "question", "reference", "answer":
			k := l.kind()
			if k != '"' {
				if _, err := l.raw(); err != nil {
					return err
				}
				bad(key, "field %q must be a string, got %s", key, kindName(k))
				return nil
			}
			s, err := l.str()
			if err != nil {
				return err
			}
			switch key {
			case "question":
				jl.Question = s
			case "reference":
				jl.Reference = s
			default:
				jl.Answer = s
			}
		case "passages":
			list, err := strOrList(l, key, bad)
			if err != nil {
				return err
			}
			jl.Passages = list
		case "label":
			k := l.kind()
			raw, err := l.raw()
			if err != nil {
				return err
			}
			switch string(raw) {
			case "true":
				jl.Label = true
			case "false":
			default:
				bad(key, "field \"label\" must be true or false (the person's verdict), got %s", kindName(k))
			}
		}
		return nil
	})
	if err != nil {
		lineProblem(c, pos, err)
		return jl, false
	}
	if !seen["id"] {
		bad("id", "missing field \"id\"; give each label a unique id")
	}
	if !seen["label"] {
		bad("label", "missing field \"label\"; add \"label\": true when the answer is right, false when it is not")
	}
	return jl, ok
}

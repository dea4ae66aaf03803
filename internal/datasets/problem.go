package datasets

import (
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/suggest"
)

// MaxProblems is how many problems a loader collects before it stops reading.
const MaxProblems = 50

// Problem is one thing wrong with a dataset file: where (file and line),
// which field or column (empty when the problem is not about one field), and
// what is wrong with the fix.
type Problem struct {
	Pos   lasagna.Pos
	Field string
	Msg   string
}

// Error formats p as "file:line: msg".
func (p Problem) Error() string {
	if s := p.Pos.String(); s != "" {
		return s + ": " + p.Msg
	}
	return p.Msg
}

// Problems is the error a loader returns when the data is invalid: every
// problem found, in file order, up to MaxProblems (the last entry then says
// that reading stopped).
type Problems []Problem

// Error joins the problems one per line.
func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// collector gathers problems up to MaxProblems.
type collector struct {
	list Problems
	full bool
}

// add records a problem and reports whether the caller may keep reading.
func (c *collector) add(pos lasagna.Pos, field, format string, args ...any) bool {
	if c.full {
		return false
	}
	if len(c.list) == MaxProblems-1 {
		c.list = append(c.list, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
		c.list = append(c.list, Problem{Pos: lasagna.Pos{File: pos.File}, Msg: fmt.Sprintf("too many problems; stopped reading after %d", MaxProblems)})
		c.full = true
		return false
	}
	c.list = append(c.list, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
	return true
}

func (c *collector) addProblem(p Problem) bool {
	return c.add(p.Pos, p.Field, "%s", p.Msg)
}

// err returns the collected problems as an error, or nil.
func (c *collector) err() error {
	if len(c.list) == 0 {
		return nil
	}
	return c.list
}

// unknownMsg formats the message for an unknown field or column.
func unknownMsg(what, name string, known []string, tail string) string {
	msg := fmt.Sprintf("unknown %s %q", what, name)
	if h := suggest.Hint(name, known); h != "" {
		msg += h
	} else {
		msg += fmt.Sprintf(" (known %ss: %s)", what, strings.Join(known, ", "))
	}
	return msg + tail
}

package datasets

import (
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
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

// suggest returns the known name nearest to name (edit distance at most 2,
// or a case-insensitive match), or "".
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k
		}
		if d := editDistance(strings.ToLower(name), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// unknownMsg formats the message for an unknown field or column.
func unknownMsg(what, name string, known []string, tail string) string {
	msg := fmt.Sprintf("unknown %s %q", what, name)
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		msg += fmt.Sprintf(" (known %ss: %s)", what, strings.Join(known, ", "))
	}
	return msg + tail
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance between a and b, over bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

package results

import (
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Finding is one integrity finding of a bundle: its code, where it was
// raised ("benchmark", "benchmark/arm" or "benchmark/arm/query"), what was
// found, and the code's fix. In the bundle's JSON (integrity.warnings and
// integrity.blocking) it is one line, "CODE at where: detail (fix: …)":
// String, MarshalText and UnmarshalText are the one place that form is
// written and read. A line read that does not start with an integrity
// code has an empty Code; any line read is written back byte for byte.
type Finding struct {
	Code   lasagna.Code
	Where  string
	Detail string
	Fix    string
	// line is the line read, when String would not write it back as it
	// was (a line edited by hand, or written by another release).
	line string
}

// newFinding returns the bundle's form of f: its detail (the code's
// meaning when f has none) and the fix from the code catalogue.
func newFinding(f lasagna.Finding) Finding {
	out := Finding{Code: f.Code, Where: f.Where, Detail: f.Detail}
	if info, ok := f.Code.Info(); ok {
		if out.Detail == "" {
			out.Detail = info.Meaning
		}
		out.Fix = info.Fix
	}
	return out
}

// Blocking reports whether f's code is a blocking one.
func (f Finding) Blocking() bool { return f.Code.Level() == lasagna.LevelBlocking }

// String returns the finding's line: "CODE at where: detail (fix: …)",
// each part present when set.
func (f Finding) String() string {
	if f.line != "" {
		return f.line
	}
	var b strings.Builder
	b.WriteString(string(f.Code))
	if f.Where != "" {
		b.WriteString(" at ")
		b.WriteString(f.Where)
	}
	if f.Detail != "" {
		b.WriteString(": ")
		b.WriteString(f.Detail)
	}
	if f.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(f.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// MarshalText returns the finding's line (String).
func (f Finding) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads a finding's line; it never fails (see Finding).
func (f *Finding) UnmarshalText(text []byte) error {
	*f = parseFinding(string(text))
	return nil
}

// parseFinding reads a finding's line, as UnmarshalText does: the code,
// where, detail and fix; Code is empty when the line does not start with
// an upper-case integrity code.
func parseFinding(line string) Finding {
	code, rest := line, ""
	if i := strings.IndexAny(line, " :"); i >= 0 {
		code, rest = line[:i], line[i:]
	}
	if code == "" || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != "" {
		return Finding{line: line}
	}
	f := Finding{Code: lasagna.Code(code)}
	if w, ok := strings.CutPrefix(rest, " at "); ok {
		if i := strings.Index(w, ": "); i >= 0 {
			f.Where, rest = w[:i], w[i:]
		} else {
			f.Where, rest = w, ""
		}
	}
	detail := strings.TrimPrefix(rest, ": ")
	if info, ok := f.Code.Info(); ok {
		if d, ok := strings.CutSuffix(detail, " (fix: "+info.Fix+")"); ok {
			detail, f.Fix = d, info.Fix
		}
	} else if i := strings.LastIndex(detail, " (fix: "); i >= 0 && strings.HasSuffix(detail, ")") {
		detail, f.Fix = detail[:i], detail[i+len(" (fix: "):len(detail)-1]
	}
	f.Detail = detail
	if f.String() != line {
		f.line = line
	}
	return f
}

// Package redact is the one redaction primitive of secrets (API keys,
// tokens, passwords) in text that a server, a driver or a model wrote: every
// run of MinRun or more consecutive bytes of a secret that the text holds,
// whether the whole secret or only a part of it (a server quoting "the key
// sk-proj-abc… is invalid" or its last characters), is replaced by a
// marker, also where the text quotes the secret JSON-escaped (\u0026, \/,
// \") or percent-encoded. A secret shorter than MinRun is replaced where it
// occurs whole.
//
// Redaction happens where server text enters the program (errors, answers,
// refusals, log lines), so that nothing printed, cached, journaled or
// written into a bundle afterwards can carry a secret.
package redact

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Marker replaces a secret, or a run of one, in what New's Redactor
// returns.
const Marker = "[REDACTED]"

// MinRun is the shortest run of a secret's bytes that is redacted: a run
// this long of a random key or token is never ordinary text.
const MinRun = 8

// Redactor masks the runs of its secrets. Its zero value and a nil
// *Redactor mask nothing; a Redactor is safe for concurrent use.
type Redactor struct {
	marker string
	// grams holds every MinRun-byte substring of every secret of at least
	// MinRun bytes (in each of its written forms), packed in a uint64;
	// filter is a one-bit-per-slot prefilter of grams.
	grams  map[uint64]struct{}
	filter *[filterBits / 64]uint64
	// whole are the secrets shorter than MinRun (in each written form),
	// longest first: masked where they occur whole.
	whole []string
}

const filterBits = 1 << 16

// New returns a Redactor masking every run of secrets with Marker. Empty
// secrets are ignored; with none left, it masks nothing.
func New(secrets ...string) *Redactor { return NewMarked(Marker, secrets...) }

// NewMarked is New with marker in place of Marker.
func NewMarked(marker string, secrets ...string) *Redactor {
	r := &Redactor{marker: marker}
	seenWhole := map[string]bool{}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range forms(s) {
			if len(s) < MinRun {
				if !seenWhole[f] {
					seenWhole[f] = true
					r.whole = append(r.whole, f)
				}
				continue
			}
			if r.grams == nil {
				r.grams = map[uint64]struct{}{}
				r.filter = new([filterBits / 64]uint64)
			}
			for i := 0; i+MinRun <= len(f); i++ {
				g := pack(f[i : i+MinRun])
				r.grams[g] = struct{}{}
				h := slot(g)
				r.filter[h/64] |= 1 << (h % 64)
			}
		}
	}
	slices.SortFunc(r.whole, func(a, b string) int { return len(b) - len(a) })
	return r
}

// Empty reports whether r masks nothing (no secret was given).
func (r *Redactor) Empty() bool { return r == nil || (len(r.grams) == 0 && len(r.whole) == 0) }

// String returns s with every run of a secret replaced by the marker;
// overlapping and adjacent runs become one marker.
func (r *Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	spans := r.spans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(r.marker)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Bytes is String for a byte slice; it returns p itself when nothing is
// masked.
func (r *Redactor) Bytes(p []byte) []byte {
	if r.Empty() {
		return p
	}
	s := string(p)
	if out := r.String(s); out != s {
		return []byte(out)
	}
	return p
}

// Error returns err with its message redacted; errors.Is and errors.As
// still see the cause. An error with nothing to mask is returned as is.
func (r *Redactor) Error(err error) error {
	if err == nil || r.Empty() {
		return err
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return &redactedError{msg: red, cause: err}
	}
	return err
}

type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// Writer returns a writer that redacts what each Write passes on to w (for
// a log, which writes a line at a time). It reports len(p) written when w
// took the whole redacted text.
func (r *Redactor) Writer(w io.Writer) io.Writer {
	if r.Empty() {
		return w
	}
	return writer{r, w}
}

type writer struct {
	r *Redactor
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	out := w.r.Bytes(p)
	n, err := w.w.Write(out)
	if err == nil && n < len(out) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return min(n, len(p)), err
	}
	return len(p), nil
}

// spans returns the byte ranges of s to mask, sorted and merged, each
// widened to whole UTF-8 characters.
func (r *Redactor) spans(s string) [][2]int {
	var spans [][2]int
	add := func(a, b int) {
		for a > 0 && !utf8.RuneStart(s[a]) {
			a--
		}
		for b < len(s) && !utf8.RuneStart(s[b]) {
			b++
		}
		if n := len(spans); n > 0 && a <= spans[n-1][1] {
			spans[n-1][0] = min(spans[n-1][0], a)
			spans[n-1][1] = max(spans[n-1][1], b)
			return
		}
		spans = append(spans, [2]int{a, b})
	}
	if len(r.grams) > 0 && len(s) >= MinRun {
		var g uint64
		for i := 0; i < len(s); i++ {
			g = g<<8 | uint64(s[i])
			if i < MinRun-1 {
				continue
			}
			if h := slot(g); r.filter[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			if _, ok := r.grams[g]; ok {
				add(i+1-MinRun, i+1)
			}
		}
	}
	if len(r.whole) > 0 {
		var more [][2]int
		for _, w := range r.whole {
			for from := 0; ; {
				i := strings.Index(s[from:], w)
				if i < 0 {
					break
				}
				more = append(more, [2]int{from + i, from + i + len(w)})
				from += i + len(w)
			}
		}
		if len(more) > 0 {
			more = append(more, spans...)
			slices.SortFunc(more, func(a, b [2]int) int { return a[0] - b[0] })
			spans = spans[:0:0]
			for _, sp := range more {
				add(sp[0], sp[1])
			}
		}
	}
	return spans
}

// pack packs MinRun bytes into a uint64, as spans' rolling value does.
func pack(s string) uint64 {
	var g uint64
	for i := 0; i < len(s); i++ {
		g = g<<8 | uint64(s[i])
	}
	return g
}

func slot(g uint64) uint64 { return (g * 0x9E3779B97F4A7C15) >> (64 - 16) }

// forms returns the ways a text may write s: as is, JSON-escaped by the
// common encoders (Go's, with & < > as \u0026…, Python's and
// JavaScript's, with non-ASCII as \uXXXX or not, "/" as "\/" or not,
// either case of hex digits) and percent-encoded.
func forms(s string) []string {
	out := []string{s}
	addForm := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, html := range []bool{false, true} {
		for _, slash := range []bool{false, true} {
			for _, ascii := range []bool{false, true} {
				for _, upper := range []bool{false, true} {
					addForm(jsonEscape(s, html, slash, ascii, upper))
				}
			}
		}
	}
	addForm(url.QueryEscape(s))
	addForm(url.PathEscape(s))
	return out
}

// jsonEscape writes s as the inside of a JSON string: html escapes & < >
// (and U+2028, U+2029), slash escapes "/", ascii escapes every non-ASCII
// character, upper writes hex digits in upper case.
func jsonEscape(s string, html, slash, ascii, upper bool) string {
	u := func(r rune) string {
		if upper {
			return fmt.Sprintf(`\u%04X`, r)
		}
		return fmt.Sprintf(`\u%04x`, r)
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(u(c))
		case c == '/' && slash:
			b.WriteString(`\/`)
		case (c == '&' || c == '<' || c == '>' || c == '\u2028' || c == '\u2029') && html:
			b.WriteString(u(c))
		case c > 0x7e && ascii:
			if c > 0xffff {
				r1, r2 := utf16Pair(c)
				b.WriteString(u(r1) + u(r2))
			} else {
				b.WriteString(u(c))
			}
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func utf16Pair(c rune) (rune, rune) {
	c -= 0x10000
	return 0xd800 + (c>>10)&0x3ff, 0xdc00 + c&0x3ff
}

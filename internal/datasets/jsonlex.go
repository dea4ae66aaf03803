package datasets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lasagna-go/lasagna"
)

// jlex is a small JSON reader for one line holding one object. It decodes
// the common case (plain strings, flat objects) without the reflection of
// encoding/json, and hands nested values and escaped strings to
// encoding/json, so that what it accepts is exactly valid JSON.
type jlex struct {
	b       []byte
	i       int
	scratch []byte // for unquoting
}

// syntaxError is malformed JSON at a byte offset of the line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.off+1, e.msg)
}

// nulError is a string holding NUL (U+0000), escaped as \u0000 or raw,
// which no text may hold (docs/data.md, "Text"). field is the member of
// the line's object it is in ("" until object knows).
type nulError struct {
	off   int
	field string
}

func (e *nulError) Error() string {
	at := ""
	if e.field != "" {
		at = fmt.Sprintf("field %q: ", e.field)
	}
	return fmt.Sprintf("%sthe string at column %d holds a NUL (\\u0000); %s: remove the \\u0000 escape", at, e.off+1, nulRule)
}

// lineProblem adds the error of reading a line's object to c: a
// nulError under its field, anything else as it is.
func lineProblem(c *collector, pos lasagna.Pos, err error) bool {
	field := ""
	if ne, ok := err.(*nulError); ok {
		field = ne.field
	}
	return c.add(pos, field, "%v", err)
}

// reset starts reading line, keeping the scratch buffer.
func (l *jlex) reset(line []byte) {
	l.b, l.i = line, 0
}

func (l *jlex) fail(format string, args ...any) error {
	return &syntaxError{off: l.i, msg: fmt.Sprintf(format, args...)}
}

func (l *jlex) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\r', '\n':
			l.i++
		default:
			return
		}
	}
}

// kind returns the first byte of the next value after white space, or 0 at
// the end of the line.
func (l *jlex) kind() byte {
	l.ws()
	if l.i >= len(l.b) {
		return 0
	}
	return l.b[l.i]
}

// kindName names a JSON value kind for messages.
func kindName(k byte) string {
	switch k {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	default:
		return "a number"
	}
}

// object reads an object, calling member for each key with the lexer
// positioned at the value; member must consume the value.
func (l *jlex) object(member func(key string) error) error {
	if l.kind() != '{' {
		if l.i >= len(l.b) {
			return l.fail("unexpected end of line, want an object")
		}
		return l.fail("want an object, got %s", kindName(l.b[l.i]))
	}
	l.i++
	if l.kind() == '}' {
		l.i++
		return nil
	}
	for {
		if l.kind() != '"' {
			return l.fail("want a quoted field name")
		}
		key, err := l.str()
		if err != nil {
			return err
		}
		if l.kind() != ':' {
			return l.fail("want ':' after field name %q", key)
		}
		l.i++
		if err := member(key); err != nil {
			if ne, ok := err.(*nulError); ok && ne.field == "" {
				ne.field = key
			}
			return err
		}
		switch l.kind() {
		case ',':
			l.i++
		case '}':
			l.i++
			return nil
		case 0:
			return l.fail("unexpected end of line inside an object")
		default:
			return l.fail("want ',' or '}' after the value of %q", key)
		}
	}
}

// objectLine reads line as one object (see object) followed only by white
// space.
func (l *jlex) objectLine(line []byte, member func(key string) error) error {
	l.reset(line)
	if err := l.object(member); err != nil {
		return err
	}
	return l.end()
}

// fieldsLine reads line as one object whose members must be among fields,
// each at most once: an unknown or repeated member is skipped and reported
// through bad (naming the nearest known field), the others go to member.
// seen holds the members read.
func (l *jlex) fieldsLine(line []byte, fields []string, bad func(field, format string, args ...any), member func(key string) error) (seen map[string]bool, err error) {
	seen = map[string]bool{}
	return seen, l.objectLine(line, func(key string) error {
		known := slices.Contains(fields, key)
		if !known || seen[key] {
			if _, err := l.raw(); err != nil {
				return err
			}
			if !known {
				bad(key, "%s", unknownMsg("field", key, fields, ""))
			} else {
				bad(key, "field %q is given twice", key)
			}
			return nil
		}
		seen[key] = true
		return member(key)
	})
}

// end checks that only white space follows.
func (l *jlex) end() error {
	if l.ws(); l.i < len(l.b) {
		return l.fail("unexpected text after the object")
	}
	return nil
}

// SWAR constants: one bit per byte.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// special reports whether any byte of w (8 bytes of a string) may be a
// quote, a backslash, a control character or non-ASCII. False positives
// only send the word to the byte loop.
func special(w uint64) bool {
	q := w ^ (swarLo * '"')
	bs := w ^ (swarLo * '\\')
	m := ((q - swarLo) &^ q) | ((bs - swarLo) &^ bs) | (w - swarLo*0x20) | w
	return m&swarHi != 0
}

// str reads a string value (the lexer is at its opening quote).
func (l *jlex) str() (string, error) {
	if l.kind() != '"' {
		return "", l.fail("want a string")
	}
	start := l.i + 1
	plain, ascii := true, true
	b := l.b
	j := start
	for {
		for j+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[j:])) {
			j += 8
		}
		if j >= len(b) {
			break
		}
		c := b[j]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			j++
			continue
		}
		switch {
		case c == '"':
			l.i = j + 1
			seg := b[start:j]
			if plain && (ascii || utf8.Valid(seg)) {
				return string(seg), nil
			}
			s, bad := l.unquote(seg)
			if bad >= 0 {
				return "", &syntaxError{off: start + bad, msg: "bad string: invalid escape (want \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u and 4 hex digits)"}
			}
			if strings.IndexByte(s, 0) >= 0 {
				return "", &nulError{off: start - 1}
			}
			return s, nil
		case c == '\\':
			plain = false
			j += 2
		case c == 0:
			return "", &nulError{off: start - 1}
		case c < 0x20:
			return "", &syntaxError{off: j, msg: "control character in string (write it as an escape such as \\n)"}
		default:
			ascii = false
			j++
		}
	}
	return "", &syntaxError{off: start - 1, msg: "unterminated string"}
}

// strings reads a list of strings; a non-string item is reported through
// bad (with its index and kind) and skipped.
func (l *jlex) strList(bad func(i int, kind byte)) ([]string, error) {
	l.i++ // '['
	var out []string
	if l.kind() == ']' {
		l.i++
		return out, nil
	}
	for n := 0; ; n++ {
		if k := l.kind(); k == '"' {
			s, err := l.str()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		} else {
			if _, err := l.raw(); err != nil {
				return nil, err
			}
			bad(n, k)
		}
		switch l.kind() {
		case ',':
			l.i++
		case ']':
			l.i++
			return out, nil
		default:
			return nil, l.fail("want ',' or ']' in a list")
		}
	}
}

// raw consumes any value and returns its bytes, checked to be valid JSON.
func (l *jlex) raw() ([]byte, error) {
	k := l.kind()
	start := l.i
	switch k {
	case 0:
		return nil, l.fail("unexpected end of line, want a value")
	case '"':
		if _, err := l.str(); err != nil {
			return nil, err
		}
		return l.b[start:l.i], nil
	case '{', '[':
		depth := 0
		for l.i < len(l.b) {
			c := l.b[l.i]
			switch c {
			case '"':
				if _, err := l.str(); err != nil {
					return nil, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			l.i++
			if depth == 0 {
				v := l.b[start:l.i]
				if !json.Valid(v) {
					var x any
					err := json.Unmarshal(v, &x)
					return nil, &syntaxError{off: start, msg: trimJSONErr(err)}
				}
				return v, nil
			}
		}
		return nil, &syntaxError{off: start, msg: "unterminated " + kindName(k)[3:]}
	default:
		for l.i < len(l.b) {
			c := l.b[l.i]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				break
			}
			l.i++
		}
		v := l.b[start:l.i]
		if len(v) == 0 || !json.Valid(v) {
			return nil, &syntaxError{off: start, msg: fmt.Sprintf("invalid value %q", truncate(string(v), 20))}
		}
		return v, nil
	}
}

// trimJSONErr strips encoding/json's prefix from an error message.
func trimJSONErr(err error) string {
	if err == nil {
		return "invalid value"
	}
	s := err.Error()
	if len(s) > 6 && s[:6] == "json: " {
		s = s[6:]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// requiredID reads the value of a required "id" member (key): a non-empty
// string or a number, as text; anything else is a problem reported
// through bad, and the id is then "".
func (l *jlex) requiredID(key string, bad func(field, format string, args ...any)) (string, error) {
	text, k, err := l.scalarText()
	if err != nil {
		return "", err
	}
	if text == "" {
		bad(key, "field \"id\" must be a non-empty string or a number, got %s", kindName(k))
	}
	return text, nil
}

// scalarText returns the text of a string or number value (ids); ok is
// false for other kinds, which are consumed.
func (l *jlex) scalarText() (text string, kind byte, err error) {
	kind = l.kind()
	switch {
	case kind == '"':
		text, err = l.str()
		return text, kind, err
	case kind == '-' || (kind >= '0' && kind <= '9'):
		v, err := l.raw()
		return string(v), kind, err
	default:
		_, err = l.raw()
		return "", kind, err
	}
}

// unquote decodes the content of a JSON string with escapes or non-ASCII
// bytes exactly as encoding/json does (an invalid UTF-8 byte or a lone
// surrogate becomes U+FFFD). bad is the offset of an invalid escape in seg,
// or -1.
func (l *jlex) unquote(seg []byte) (s string, bad int) {
	out := l.scratch[:0]
	if cap(out) < len(seg) {
		out = make([]byte, 0, len(seg)+len(seg)/4)
	}
	for i := 0; i < len(seg); {
		k := bytes.IndexByte(seg[i:], '\\')
		run := seg[i:]
		if k >= 0 {
			run = seg[i : i+k]
		}
		if utf8.Valid(run) {
			out = append(out, run...)
		} else {
			for r := 0; r < len(run); {
				c, size := utf8.DecodeRune(run[r:])
				if c == utf8.RuneError && size == 1 {
					out = utf8.AppendRune(out, utf8.RuneError)
				} else {
					out = append(out, run[r:r+size]...)
				}
				r += size
			}
		}
		if k < 0 {
			break
		}
		i += k
		if i+1 >= len(seg) {
			return "", i
		}
		switch seg[i+1] {
		case '"', '\\', '/':
			out = append(out, seg[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(seg[i+2:])
			if !ok {
				return "", i
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+1 < len(seg) && seg[i] == '\\' && seg[i+1] == 'u' {
					r2, ok = hex4(seg[i+2:])
					if !ok {
						return "", i
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					i += 6
					out = utf8.AppendRune(out, dec)
					continue
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", i
		}
		i += 2
	}
	l.scratch = out
	return string(out), -1
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// maxDepth is the deepest nesting value accepts (encoding/json's limit).
const maxDepth = 10000

// value decodes any JSON value as encoding/json decodes into an any:
// objects as map[string]any (a repeated key keeps the last value), lists as
// []any, numbers as float64, and strings, booleans and null.
func (l *jlex) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, l.fail("nested too deeply")
	}
	switch k := l.kind(); k {
	case '"':
		return l.str()
	case '{':
		l.i++
		m := make(map[string]any)
		if l.kind() == '}' {
			l.i++
			return m, nil
		}
		for {
			if l.kind() != '"' {
				return nil, l.fail("want a quoted field name")
			}
			key, err := l.str()
			if err != nil {
				return nil, err
			}
			if l.kind() != ':' {
				return nil, l.fail("want ':' after field name %q", key)
			}
			l.i++
			v, err := l.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[key] = v
			switch l.kind() {
			case ',':
				l.i++
			case '}':
				l.i++
				return m, nil
			default:
				return nil, l.fail("want ',' or '}' in an object")
			}
		}
	case '[':
		l.i++
		list := make([]any, 0)
		if l.kind() == ']' {
			l.i++
			return list, nil
		}
		for {
			v, err := l.value(depth + 1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			switch l.kind() {
			case ',':
				l.i++
			case ']':
				l.i++
				return list, nil
			default:
				return nil, l.fail("want ',' or ']' in a list")
			}
		}
	case 't':
		return true, l.literal("true")
	case 'f':
		return false, l.literal("false")
	case 'n':
		return nil, l.literal("null")
	case 0:
		return nil, l.fail("unexpected end of line, want a value")
	default:
		start := l.i
		if !l.number() {
			l.i = start
			return nil, l.fail("invalid value")
		}
		f, err := strconv.ParseFloat(string(l.b[start:l.i]), 64)
		if err != nil {
			return nil, &syntaxError{off: start, msg: fmt.Sprintf("number %s is out of range", l.b[start:l.i])}
		}
		return f, nil
	}
}

func (l *jlex) literal(word string) error {
	if !bytes.HasPrefix(l.b[l.i:], []byte(word)) {
		return l.fail("invalid value")
	}
	l.i += len(word)
	return nil
}

// number consumes a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (l *jlex) number() bool {
	b, i := l.b, l.i
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	l.i = i
	return true
}

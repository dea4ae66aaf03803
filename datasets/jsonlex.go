package datasets

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// jlex is a small JSON reader for one line holding one object. It decodes
// the common case (plain strings, flat objects) without the reflection of
// encoding/json, and hands nested values and escaped strings to
// encoding/json, so that what it accepts is exactly valid JSON.
type jlex struct {
	b []byte
	i int
}

// syntaxError is malformed JSON at a byte offset of the line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.off+1, e.msg)
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

// end checks that only white space follows.
func (l *jlex) end() error {
	if l.kind() != 0 {
		return l.fail("unexpected text after the object")
	}
	return nil
}

// str reads a string value (the lexer is at its opening quote).
func (l *jlex) str() (string, error) {
	if l.kind() != '"' {
		return "", l.fail("want a string")
	}
	start := l.i + 1
	plain, ascii := true, true
	b := l.b
	for j := start; j < len(b); j++ {
		c := b[j]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			continue
		}
		switch {
		case c == '"':
			l.i = j + 1
			seg := b[start:j]
			if plain && (ascii || utf8.Valid(seg)) {
				return string(seg), nil
			}
			var s string
			if err := json.Unmarshal(b[start-1:j+1], &s); err != nil {
				return "", &syntaxError{off: start - 1, msg: "bad string: " + trimJSONErr(err)}
			}
			return s, nil
		case c == '\\':
			plain = false
			j++
		case c < 0x20:
			return "", &syntaxError{off: j, msg: "control character in string (write it as an escape such as \\n)"}
		default:
			ascii = false
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

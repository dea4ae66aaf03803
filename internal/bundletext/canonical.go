package bundletext

import (
	"bytes"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// canonicalizer appends the RFC 8785 form of a JSON value (a bundle's row)
// without going through jsontext for what is already canonical: whitespace
// is dropped, strings of printable ASCII without escapes, literals and
// numbers already in ECMAScript form are copied as they are, and an
// object's members are reordered only when their names are out of order.
// Everything else, a string with an escape or a byte above 0x7f, or a
// number in another form, is canonicalized alone by jsontext (the form of
// a string or a number does not depend on where it is). What it does not
// handle (a member name with an escape or a non-ASCII byte, a duplicate
// name, invalid JSON, deep nesting) it reports as not done, and the caller
// canonicalizes the whole value with jsontext, which then also gives its
// error. TestFastCanonicalIsJSONText holds it to jsontext.
type canonicalizer struct {
	members []member // the open objects' members, innermost last
	scratch []byte   // a copy of an object's members while reordering them
	one     []byte   // one string or number being canonicalized by jsontext
}

// member is one object member as appended: its name (quotes excluded) and
// the span [start, end) of `"name":value` in the output.
type member struct {
	name       []byte
	start, end int
}

// maxFastDepth bounds the nesting this path follows; deeper values go to
// jsontext.
const maxFastDepth = 64

// appendCanonical appends the canonical form of the JSON value in src
// (optionally surrounded by whitespace) to dst. ok is false when it
// cannot; dst is then to be discarded.
func (c *canonicalizer) appendCanonical(dst, src []byte) (out []byte, ok bool) {
	dst, i, ok := c.value(dst, src, skipSpace(src, 0), 0)
	if !ok || skipSpace(src, i) != len(src) {
		return dst, false
	}
	return dst, true
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// value appends the canonical form of the value at src[i:] and returns the
// offset just after it.
func (c *canonicalizer) value(dst, src []byte, i, depth int) ([]byte, int, bool) {
	if i >= len(src) {
		return dst, i, false
	}
	switch b := src[i]; {
	case b == '"':
		return c.str(dst, src, i)
	case b == '-' || '0' <= b && b <= '9':
		return c.number(dst, src, i)
	case b == '[':
		if depth >= maxFastDepth {
			return dst, i, false
		}
		dst = append(dst, '[')
		i = skipSpace(src, i+1)
		if i < len(src) && src[i] == ']' {
			return append(dst, ']'), i + 1, true
		}
		for {
			var ok bool
			if dst, i, ok = c.value(dst, src, i, depth+1); !ok {
				return dst, i, false
			}
			i = skipSpace(src, i)
			if i >= len(src) {
				return dst, i, false
			}
			switch src[i] {
			case ',':
				dst = append(dst, ',')
				i = skipSpace(src, i+1)
			case ']':
				return append(dst, ']'), i + 1, true
			default:
				return dst, i, false
			}
		}
	case b == '{':
		if depth >= maxFastDepth {
			return dst, i, false
		}
		return c.object(dst, src, i, depth)
	case b == 't':
		return literal(dst, src, i, "true")
	case b == 'f':
		return literal(dst, src, i, "false")
	case b == 'n':
		return literal(dst, src, i, "null")
	}
	return dst, i, false
}

func literal(dst, src []byte, i int, lit string) ([]byte, int, bool) {
	if len(src)-i < len(lit) || string(src[i:i+len(lit)]) != lit {
		return dst, i, false
	}
	return append(dst, lit...), i + len(lit), true
}

// object appends the object at src[i:] with its members in the order of
// their names' UTF-16 code units; names are plain ASCII here, where that
// order is the bytes' order.
func (c *canonicalizer) object(dst, src []byte, i, depth int) ([]byte, int, bool) {
	open := len(dst)
	dst = append(dst, '{')
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		return append(dst, '}'), i + 1, true
	}
	sorted := true
	for {
		if i >= len(src) || src[i] != '"' {
			return dst, i, false
		}
		// The name: printable ASCII without escapes, else not handled.
		j := i + 1
		for j < len(src) && src[j] != '"' {
			if b := src[j]; b < 0x20 || b >= 0x80 || b == '\\' {
				return dst, i, false
			}
			j++
		}
		if j >= len(src) {
			return dst, i, false
		}
		name := src[i+1 : j]
		if n := len(c.members); n > base {
			switch bytes.Compare(c.members[n-1].name, name) {
			case 0:
				return dst, i, false // a duplicate: jsontext's error
			case 1:
				sorted = false
			}
		}
		start := len(dst)
		if len(c.members) > base {
			start++ // the comma before it
			dst = append(dst, ',')
		}
		dst = append(dst, src[i:j+1]...)
		i = skipSpace(src, j+1)
		if i >= len(src) || src[i] != ':' {
			return dst, i, false
		}
		dst = append(dst, ':')
		var ok bool
		if dst, i, ok = c.value(dst, src, skipSpace(src, i+1), depth+1); !ok {
			return dst, i, false
		}
		c.members = append(c.members, member{name: name, start: start, end: len(dst)})
		i = skipSpace(src, i)
		if i >= len(src) {
			return dst, i, false
		}
		if src[i] == '}' {
			i++
			break
		}
		if src[i] != ',' {
			return dst, i, false
		}
		i = skipSpace(src, i+1)
	}
	if !sorted {
		ms := c.members[base:]
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.name, b.name) })
		for k := 1; k < len(ms); k++ {
			if bytes.Equal(ms[k-1].name, ms[k].name) {
				return dst, i, false
			}
		}
		c.scratch = append(c.scratch[:0], dst[open+1:]...)
		dst = dst[:open+1]
		for k, m := range ms {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, c.scratch[m.start-open-1:m.end-open-1]...)
		}
	}
	return append(dst, '}'), i, true
}

// str appends the string at src[i:]: as it is when it is printable ASCII
// without escapes (its canonical form), else as jsontext canonicalizes it.
func (c *canonicalizer) str(dst, src []byte, i int) ([]byte, int, bool) {
	j := i + 1
	plain := true
	for j < len(src) {
		b := src[j]
		if b == '"' {
			break
		}
		if b < 0x20 {
			return dst, i, false
		}
		if b == '\\' {
			plain = false
			j += 2
			continue
		}
		if b >= 0x80 {
			plain = false
		}
		j++
	}
	if j >= len(src) {
		return dst, i, false
	}
	if plain {
		return append(dst, src[i:j+1]...), j + 1, true
	}
	dst, ok := c.alone(dst, src[i:j+1])
	return dst, j + 1, ok
}

// number appends the number at src[i:]: as it is when it is already in
// ECMAScript form, else as jsontext canonicalizes it.
//
// A decimal of at most 15 significant digits is the shortest text of the
// float64 nearest to it (any two such decimals are at least one unit of
// the 15th digit apart, and a float64 tells 15 digits apart), so it is its
// own ECMAScript form when it is written as ECMAScript writes a number of
// its magnitude: no exponent, no leading zeros, no trailing zeros after
// the point, and for a value below 1 at most 5 zeros after the point
// (ECMAScript uses an exponent from 1e-7 down); -0 is written 0.
func (c *canonicalizer) number(dst, src []byte, i int) ([]byte, int, bool) {
	j := i
	if src[j] == '-' {
		j++
	}
	intStart := j
	for j < len(src) && '0' <= src[j] && src[j] <= '9' {
		j++
	}
	intDigits := j - intStart
	if intDigits == 0 || intDigits > 1 && src[intStart] == '0' {
		return dst, i, false
	}
	fast := true
	digits := intDigits // significant digits
	if src[intStart] == '0' {
		digits = 0
	}
	if j < len(src) && src[j] == '.' {
		j++
		fracStart := j
		for j < len(src) && '0' <= src[j] && src[j] <= '9' {
			j++
		}
		if j == fracStart {
			return dst, i, false
		}
		frac := src[fracStart:j]
		if frac[len(frac)-1] == '0' {
			fast = false
		}
		if digits == 0 {
			zeros := 0
			for zeros < len(frac) && frac[zeros] == '0' {
				zeros++
			}
			if zeros > 5 {
				fast = false
			}
			digits = len(frac) - zeros
		} else {
			digits += len(frac)
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		expStart := j
		for j < len(src) && '0' <= src[j] && src[j] <= '9' {
			j++
		}
		if j == expStart {
			return dst, i, false
		}
		fast = false
	}
	if digits > 15 || digits == 0 && src[i] == '-' {
		fast = false
	}
	if fast {
		return append(dst, src[i:j]...), j, true
	}
	dst, ok := c.alone(dst, src[i:j])
	return dst, j, ok
}

// alone appends the canonical form of the one string or number v, by
// jsontext.
func (c *canonicalizer) alone(dst, v []byte) ([]byte, bool) {
	c.one = append(c.one[:0], v...)
	jv := jsontext.Value(c.one)
	if err := jv.Canonicalize(); err != nil {
		return dst, false
	}
	c.one = jv
	return append(dst, jv...), true
}

package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// decodeTree decodes one JSON value with numbers kept as json.Number, and
// fails on trailing data.
func decodeTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the json value")
	}
	return v, nil
}

// appendCanonical appends the RFC 8785 (JCS) serialization of v, a value
// decoded by decodeTree (objects as map[string]any, numbers as json.Number):
// object members sorted by the UTF-16 code units of their names, numbers in
// ECMAScript form (jcs.NumberToJSON), strings with only '"', '\' and
// control characters escaped, no whitespace. It agrees with
// jcs.Transform, which the tests check; it exists because serializing the
// already parsed tree is several times faster than re-parsing the text.
func appendCanonical(buf []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, v), nil
	case string:
		return appendCanonicalString(buf, v), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err)
		}
		s, err := jcs.NumberToJSON(f)
		if err != nil {
			return nil, err
		}
		return append(buf, s...), nil
	case float64:
		s, err := jcs.NumberToJSON(v)
		if err != nil {
			return nil, err
		}
		return append(buf, s...), nil
	case []any:
		buf = append(buf, '[')
		for i, x := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendCanonical(buf, x); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendCanonicalString(buf, k)
			buf = append(buf, ':')
			var err error
			if buf, err = appendCanonical(buf, v[k]); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	}
	return nil, fmt.Errorf("canonical json: unexpected %T", v)
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts member names. Byte order of UTF-8 is code point order, which agrees
// except that code points above U+FFFF (surrogate pairs, 0xD800…) sort
// before U+E000…U+FFFF in UTF-16.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if ra < 0x10000 && rb < 0x10000 {
				return int(ra) - int(rb)
			}
			return slices.Compare(utf16.AppendRune(nil, ra), utf16.AppendRune(nil, rb))
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// appendCanonicalString appends s as an RFC 8785 JSON string.
func appendCanonicalString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

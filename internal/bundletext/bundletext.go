// Package bundletext reads the JSON text of a results bundle in one
// streaming pass, without decoding it into a tree of Go values: the
// per-query rows (results[i].per_sample_scores[j]) as byte spans of the
// text, the skeleton (the text with every rows array emptied, small enough
// to decode whole), and the span of the top-level run_id member. A depth-1000
// bundle of a million ranked hits is tens of megabytes of text; as a tree
// of maps it is gigabytes. Package results validates and hashes bundles
// this way, and results/schema checks them against the JSON Schema row by
// row.
package bundletext

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// Row is one row of a bundle: its result's index, its index among that
// result's rows, and its JSON text (a subslice of the bundle's text).
type Row struct {
	Result, Index int
	Text          []byte
}

// Text is a bundle's text split by Split.
type Text struct {
	// Skeleton is the bundle's text with each per_sample_scores array
	// emptied ("[]"); every other byte is kept.
	Skeleton []byte
	// Rows are the rows, in the order of the text.
	Rows []Row
	// RunID is the span [start, end) of the top-level run_id member in
	// the bundle's text, with one adjacent comma, so that removing it
	// leaves the object without that member; {-1, -1} when absent.
	RunID [2]int
	// Arrays are the spans [start, end) of the per_sample_scores arrays
	// in the bundle's text, brackets included, with the rows each holds
	// (Rows[First:First+N]).
	Arrays []Array
}

// Array is one per_sample_scores array of a bundle's text.
type Array struct {
	Start, End int
	First, N   int
}

// Split reads raw, which must be one JSON value (a bundle is an object),
// and returns its parts. An error is a syntax error of the text, with its
// byte offset (use encoding/json for a line and column).
func Split(raw []byte) (*Text, error) {
	if t := shared(raw); t != nil {
		return t, nil
	}
	t := &Text{RunID: [2]int{-1, -1}}
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	var skel bytes.Buffer
	skel.Grow(min(len(raw), 1<<20))
	copied := 0 // raw[:copied] is in skel
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		if err := skipRest(d, tok); err != nil {
			return nil, err
		}
		t.Skeleton = raw
		return t, nil
	}
	for d.PeekKind() != '}' {
		before := int(d.InputOffset())
		name, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		switch name.String() {
		case "results":
			if d.PeekKind() != '[' {
				if err := d.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
			for res := 0; d.PeekKind() != ']'; res++ {
				if d.PeekKind() != '{' {
					if err := d.SkipValue(); err != nil {
						return nil, err
					}
					continue
				}
				if _, err := d.ReadToken(); err != nil {
					return nil, err
				}
				for d.PeekKind() != '}' {
					member, err := d.ReadToken()
					if err != nil {
						return nil, err
					}
					if member.String() != "per_sample_scores" || d.PeekKind() != '[' {
						if err := d.SkipValue(); err != nil {
							return nil, err
						}
						continue
					}
					if _, err := d.ReadToken(); err != nil {
						return nil, err
					}
					open := int(d.InputOffset()) // just after '['
					first := len(t.Rows)
					for i := 0; d.PeekKind() != ']'; i++ {
						start := int(d.InputOffset())
						if err := d.SkipValue(); err != nil {
							return nil, err
						}
						end := int(d.InputOffset())
						t.Rows = append(t.Rows, Row{Result: res, Index: i, Text: trimLead(raw[start:end])})
					}
					if _, err := d.ReadToken(); err != nil {
						return nil, err
					}
					closing := int(d.InputOffset()) - 1 // the ']'
					skel.Write(raw[copied:open])
					copied = closing
					t.Arrays = append(t.Arrays, Array{Start: open - 1, End: closing + 1, First: first, N: len(t.Rows) - first})
				}
				if _, err := d.ReadToken(); err != nil {
					return nil, err
				}
			}
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
		case "run_id":
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
			if t.RunID[0] < 0 {
				t.RunID = memberSpan(raw, before, int(d.InputOffset()))
			}
		default:
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("unexpected data after the json value at byte %d", d.InputOffset())
		}
		return nil, err
	}
	if copied == 0 {
		t.Skeleton = raw
	} else {
		skel.Write(raw[copied:])
		t.Skeleton = skel.Bytes()
	}
	return t, nil
}

// sharing holds the texts Share made known, by the bytes they split.
var sharing struct {
	sync.Mutex
	texts map[textKey]*sharedText
}

type textKey struct {
	data *byte
	n    int
}

type sharedText struct {
	t    *Text
	refs int
}

// Share makes Split(raw) return t, without reading raw again, until
// release is called: a validation splits the bundle once and the checks it
// runs on the same bytes (the schema's) reuse the split. raw must not be
// modified meanwhile, and the Text, shared, is not to be modified.
func Share(raw []byte, t *Text) (release func()) {
	if len(raw) == 0 {
		return func() {}
	}
	k := textKey{unsafe.SliceData(raw), len(raw)}
	sharing.Lock()
	defer sharing.Unlock()
	if sharing.texts == nil {
		sharing.texts = map[textKey]*sharedText{}
	}
	st := sharing.texts[k]
	if st == nil {
		st = &sharedText{t: t}
		sharing.texts[k] = st
	}
	st.refs++
	return sync.OnceFunc(func() {
		sharing.Lock()
		defer sharing.Unlock()
		if st.refs--; st.refs == 0 {
			delete(sharing.texts, k)
		}
	})
}

// shared returns the Text shared for raw, or nil.
func shared(raw []byte) *Text {
	if len(raw) == 0 {
		return nil
	}
	sharing.Lock()
	defer sharing.Unlock()
	if st := sharing.texts[textKey{unsafe.SliceData(raw), len(raw)}]; st != nil {
		return st.t
	}
	return nil
}

// skipRest reads the rest of a value whose first token is tok, and checks
// that nothing follows it.
func skipRest(d *jsontext.Decoder, tok jsontext.Token) error {
	if k := tok.Kind(); k == '[' {
		for d.PeekKind() != ']' {
			if err := d.SkipValue(); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return fmt.Errorf("unexpected data after the json value at byte %d", d.InputOffset())
		}
		return err
	}
	return nil
}

// memberSpan returns the span of the member whose name starts after
// offset from (after the previous token) and whose value ends at end,
// with the comma that separates it from the next member or, when it is the
// last, from the previous one.
func memberSpan(raw []byte, from, end int) [2]int {
	start := from
	for start < end && (isSpace(raw[start]) || raw[start] == ',') {
		start++
	}
	p := end
	for p < len(raw) && isSpace(raw[p]) {
		p++
	}
	if p < len(raw) && raw[p] == ',' {
		p++
		for p < len(raw) && isSpace(raw[p]) {
			p++
		}
		return [2]int{start, p}
	}
	// The last member: take the comma before it, if any.
	q := start - 1
	for q >= 0 && isSpace(raw[q]) {
		q--
	}
	if q >= 0 && raw[q] == ',' {
		return [2]int{q, end}
	}
	return [2]int{start, end}
}

func trimLead(b []byte) []byte {
	i := 0
	for i < len(b) && (isSpace(b[i]) || b[i] == ',') {
		i++
	}
	return b[i:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Cut returns the JSON object obj without its members named in names, and
// the texts of their values (nil for a name obj lacks). obj must be one
// valid JSON object, as a Row's Text is.
func Cut(obj []byte, names ...string) (rest []byte, values [][]byte, err error) {
	if rest, values, ok := cutPlain(obj, names); ok {
		return rest, values, nil
	}
	return cutDecode(obj, names)
}

// cutDecode is Cut by jsontext's decoder.
func cutDecode(obj []byte, names []string) (rest []byte, values [][]byte, err error) {
	values = make([][]byte, len(names))
	d := jsontext.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, nil, fmt.Errorf("not a json object")
	}
	var kept [][]byte
	cut := false
	for d.PeekKind() != '}' {
		before := int(d.InputOffset())
		tok, err := d.ReadToken()
		if err != nil {
			return nil, nil, err
		}
		name := tok.String()
		start := int(d.InputOffset())
		if err := d.SkipValue(); err != nil {
			return nil, nil, err
		}
		end := int(d.InputOffset())
		i := slices.Index(names, name)
		if i < 0 {
			kept = append(kept, trimLead(obj[before:end]))
			continue
		}
		values[i] = bytes.TrimLeft(obj[start:end], " \t\r\n:")
		cut = true
	}
	if !cut {
		return obj, values, nil
	}
	rest = append(rest, '{')
	rest = append(rest, bytes.Join(kept, []byte{','})...)
	return append(rest, '}'), values, nil
}

// CanonicalHash writes to h the RFC 8785 canonical form of the bundle text
// raw (split into t) without its run_id member, the form a bundle's run_id
// hashes, without building it whole: the text around the rows is
// canonicalized with each rows array replaced by a marker string, and each
// row is canonicalized alone where its array's marker is, copying the
// parts already in canonical form (see canonicalizer).
func CanonicalHash(h io.Writer, raw []byte, t *Text) error {
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	marker := func(i int) string { return fmt.Sprintf("\"\\u0000rows-%x-%d\"", nonce, i) }
	// cuts: the run_id member (removed) and each array (a marker), in
	// text order.
	type cut struct {
		start, end int
		with       string
	}
	var cuts []cut
	if t.RunID[0] >= 0 {
		cuts = append(cuts, cut{t.RunID[0], t.RunID[1], ""})
	}
	for i, a := range t.Arrays {
		cuts = append(cuts, cut{a.Start, a.End, marker(i)})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.start - b.start })
	var outer []byte
	prev := 0
	for _, c := range cuts {
		if c.start < prev {
			return errors.New("overlapping spans in the bundle text") // cannot happen
		}
		outer = append(outer, raw[prev:c.start]...)
		outer = append(outer, c.with...)
		prev = c.end
	}
	outer = append(outer, raw[prev:]...)
	v := jsontext.Value(outer)
	if err := v.Canonicalize(); err != nil {
		return err
	}
	var row jsontext.Value
	var fast canonicalizer
	rest := []byte(v)
	for i, a := range t.Arrays {
		// JCS writes U+0000 as \u0000, so the marker reads back as written.
		m := []byte(marker(i))
		at := bytes.Index(rest, m)
		if at < 0 {
			return errors.New("a rows marker is missing from the canonical bundle") // cannot happen
		}
		if _, err := h.Write(rest[:at]); err != nil {
			return err
		}
		if _, err := io.WriteString(h, "["); err != nil {
			return err
		}
		for j, r := range t.Rows[a.First : a.First+a.N] {
			if j > 0 {
				if _, err := io.WriteString(h, ","); err != nil {
					return err
				}
			}
			// The fast path copies what is already canonical; what it
			// does not handle, jsontext canonicalizes (or refuses).
			var ok bool
			if row, ok = fast.appendCanonical(row[:0], r.Text); !ok {
				row = append(row[:0], r.Text...)
				if err := row.Canonicalize(); err != nil {
					return err
				}
			}
			if _, err := h.Write(row); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(h, "]"); err != nil {
			return err
		}
		rest = rest[at+len(m):]
	}
	_, err := h.Write(rest)
	return err
}

// cutPlain is Cut by a scan of the bytes instead of a decoder, for an
// object whose member names are printable ASCII without escapes (a row as
// written). It relies on obj being valid JSON, as Cut's doc requires and
// Split's rows are, and gives up (ok false) on anything else it meets.
func cutPlain(obj []byte, names []string) (rest []byte, values [][]byte, ok bool) {
	values = make([][]byte, len(names))
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(obj, i+1)
	var kept [][2]int
	var seenBuf [8][]byte
	seen := seenBuf[:0]
	cut := false
	if i < len(obj) && obj[i] == '}' {
		return obj, values, true
	}
	for {
		start := i
		if i >= len(obj) || obj[i] != '"' {
			return nil, nil, false
		}
		j := i + 1
		for j < len(obj) && obj[j] != '"' {
			if b := obj[j]; b < 0x20 || b >= 0x80 || b == '\\' {
				return nil, nil, false
			}
			j++
		}
		if j >= len(obj) {
			return nil, nil, false
		}
		name := obj[i+1 : j]
		i = skipSpace(obj, j+1)
		if i >= len(obj) || obj[i] != ':' {
			return nil, nil, false
		}
		vstart := skipSpace(obj, i+1)
		end, ok := skipPlain(obj, vstart)
		if !ok || end == vstart {
			return nil, nil, false
		}
		for _, m := range seen {
			if bytes.Equal(m, name) {
				return nil, nil, false // a duplicate: the decoder's error
			}
		}
		seen = append(seen, name)
		if k := slices.IndexFunc(names, func(n string) bool { return n == string(name) }); k >= 0 {
			values[k] = obj[vstart:end]
			cut = true
		} else {
			kept = append(kept, [2]int{start, end})
		}
		i = skipSpace(obj, end)
		if i >= len(obj) {
			return nil, nil, false
		}
		if obj[i] == '}' {
			if skipSpace(obj, i+1) != len(obj) {
				return nil, nil, false
			}
			break
		}
		if obj[i] != ',' {
			return nil, nil, false
		}
		i = skipSpace(obj, i+1)
	}
	if !cut {
		return obj, values, true
	}
	n := 2
	for _, k := range kept {
		n += k[1] - k[0] + 1
	}
	rest = make([]byte, 0, n)
	rest = append(rest, '{')
	for k, span := range kept {
		if k > 0 {
			rest = append(rest, ',')
		}
		rest = append(rest, obj[span[0]:span[1]]...)
	}
	return append(rest, '}'), values, true
}

// skipPlain returns the end of the valid JSON value that starts at b[i]:
// it follows strings and brackets only, for text already known valid.
func skipPlain(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return i, false
			}
			i++
			if depth == 0 {
				return i, true
			}
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, i > 0
			}
			depth--
			i++
			if depth == 0 {
				return i, true
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
	}
	return i, depth == 0
}

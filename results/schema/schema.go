package schema

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	santhosh "github.com/lasagna-go/lasagna/internal/jsonschema"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/bundletext"
	"github.com/lasagna-go/lasagna/results"
)

// URL is the location under which the bundle schema is compiled. It is a
// relative name, not a network address: nothing is ever fetched.
const URL = "run-schema.json"

// JSON returns the JSON Schema (draft 2020-12) of a bundle, generated from
// the Go types of package results and the constants the writer uses, as
// indented JSON. Objects accept members the schema does not name, so that a
// bundle of a later 1.y version validates. Each call returns a new copy.
//
// The schema is generated when the types change, not when a program runs:
// TestSchemaFile generates it from the types (with invopop/jsonschema, a
// test dependency only) and fails when run-schema.json, the file embedded
// here, differs; LASAGNA_UPDATE_GOLDEN=1 rewrites the file.
func JSON() []byte { return bytes.Clone(schemaJSON) }

//go:embed run-schema.json
var schemaJSON []byte

// Validate checks the bundle raw as [results.Validate] does and also
// against the JSON Schema of [JSON]: a violation is an INVALID_BUNDLE
// problem whose Where is the field path (results[0].per_sample_scores[3])
// and whose Detail is the schema's message. The report lists the version
// problems, then the schema's, then those of results.Validate. Validate
// never panics on any input.
func Validate(raw []byte) results.Report {
	return results.ValidateWith(raw, Check)
}

// Check returns the JSON Schema violations of the bundle text raw, in a
// stable order. It is the check [Validate] adds to results.Validate. It
// streams: the skeleton of the bundle (its text without the per-query
// rows) is checked against the whole schema, then each row alone against
// the schema of a row, so no tree of the whole bundle is ever built.
func Check(raw []byte) []results.Problem {
	sch, err := compiled()
	if err != nil {
		return []results.Problem{{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: "schema", Detail: err.Error()}}
	}
	rowSch, err := compiledRow()
	if err != nil {
		return []results.Problem{{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: "schema", Detail: err.Error()}}
	}
	text, err := bundletext.Split(raw)
	if err != nil {
		return []results.Problem{{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: "bundle", Detail: err.Error()}}
	}
	var found []results.Problem
	check := func(s *santhosh.Schema, text []byte, prefix []string) {
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			found = append(found, results.Problem{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: pointerPath(prefix), Detail: err.Error()})
			return
		}
		err = s.Validate(doc)
		if err == nil {
			return
		}
		var ve *santhosh.ValidationError
		if !errors.As(err, &ve) {
			found = append(found, results.Problem{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: pointerPath(prefix), Detail: err.Error()})
			return
		}
		for _, leaf := range leaves(ve) {
			found = append(found, results.Problem{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking,
				Where: pointerPath(append(slices.Clone(prefix), leaf.InstanceLocation...)), Detail: leafMessage(leaf)})
		}
	}
	check(sch, text.Skeleton, nil)
	for _, row := range text.Rows {
		at := []string{"results", strconv.Itoa(row.Result), "per_sample_scores", strconv.Itoa(row.Index)}
		// The ranked lists are most of a row: they are checked by
		// listsValid, and the rest of the row by the schema. A list
		// listsValid cannot vouch for goes to the schema with its row, so
		// the schema's verdict and message stand.
		rest, lists, err := bundletext.Cut(row.Text, "_retrieved", "_retrieved_ids")
		if err == nil && hitsValid(lists[0]) && idsValid(lists[1]) {
			check(rowSch, rest, at)
			continue
		}
		check(rowSch, row.Text, at)
	}
	slices.SortStableFunc(found, func(a, b results.Problem) int {
		return strings.Compare(a.Where+"\x00"+a.Detail, b.Where+"\x00"+b.Detail)
	})
	return slices.Compact(found)
}

// compiled returns the compiled bundle schema, compiled once on first use.
var compiled = sync.OnceValues(func() (*santhosh.Schema, error) { return compile("") })

// compiledRow returns the compiled schema of one per-query row.
var compiledRow = sync.OnceValues(func() (*santhosh.Schema, error) { return compile("#/$defs/Sample") })

// compile compiles the bundle schema, or the definition at fragment of it.
func compile(fragment string) (*santhosh.Schema, error) {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("read the bundle schema: %w", err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource(URL, doc); err != nil {
		return nil, fmt.Errorf("load the bundle schema: %w", err)
	}
	return c.Compile(URL + fragment)
}

// leafMessage returns the English message of a leaf validation error.
func leafMessage(leaf *santhosh.ValidationError) string {
	if u := leaf.BasicOutput(); u != nil && u.Error != nil {
		return u.Error.String()
	}
	return fmt.Sprintf("fails the schema keyword %s", strings.Join(leaf.ErrorKind.KeywordPath(), "/"))
}

// leaves returns the innermost errors of a schema validation error tree.
func leaves(ve *santhosh.ValidationError) []*santhosh.ValidationError {
	if len(ve.Causes) == 0 {
		return []*santhosh.ValidationError{ve}
	}
	var out []*santhosh.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// pointerPath formats an instance location as a field path such as
// results[0].per_sample_scores[3].scores.
func pointerPath(tokens []string) string {
	if len(tokens) == 0 {
		return "bundle"
	}
	var b strings.Builder
	for _, t := range tokens {
		if _, err := strconv.Atoi(t); err == nil {
			fmt.Fprintf(&b, "[%s]", t)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// hitsValid reports whether v (absent when nil) is a valid _retrieved by
// the schema of a row: null, or an array of objects with a string id, a
// number score and an integer rank of at least 1, and any other members.
// It is sound, not complete: a rank written other than as plain digits
// (1.0, 1e0) is left to the schema, which reads numbers exactly.
// TestListsValidAgreesWithSchema holds it to the schema.
func hitsValid(v []byte) bool {
	if hitsPlain(v) {
		return true
	}
	return arrayValid(v, func(d *jsontext.Decoder) bool {
		if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
			return false
		}
		var id, score, rank bool
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return false
			}
			switch name := tok.String(); name {
			case "id", "score", "rank":
				val, err := d.ReadToken()
				if err != nil || val.Kind() == '{' || val.Kind() == '[' {
					return false
				}
				switch name {
				case "id":
					id = val.Kind() == '"'
				case "score":
					score = val.Kind() == '0'
				case "rank":
					rank = val.Kind() == '0' && plainPositive(val.String())
				}
			default:
				if err := d.SkipValue(); err != nil {
					return false
				}
			}
		}
		_, err := d.ReadToken()
		return err == nil && id && score && rank
	})
}

// idsValid reports whether v (absent when nil) is a valid _retrieved_ids:
// null or an array of strings.
func idsValid(v []byte) bool {
	if idsPlain(v) {
		return true
	}
	return arrayValid(v, func(d *jsontext.Decoder) bool {
		tok, err := d.ReadToken()
		return err == nil && tok.Kind() == '"'
	})
}

// arrayValid reports whether v is absent (nil), null, or an array each of
// whose items item reads and accepts.
func arrayValid(v []byte, item func(d *jsontext.Decoder) bool) bool {
	if v == nil || string(v) == "null" {
		return true
	}
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	for d.PeekKind() != ']' {
		if !item(d) {
			return false
		}
	}
	_, err := d.ReadToken()
	return err == nil
}

// plainPositive reports whether a number's text is a positive integer in
// plain digits, short enough to be exact.
func plainPositive(s string) bool {
	if len(s) == 0 || len(s) > 15 || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hitsPlain reports whether v is a _retrieved list as the writer lays it
// out, [{"id":"…","score":N,"rank":R},…] without whitespace, with ids of
// printable ASCII without escapes, scores JSON numbers and ranks plain
// digits from 1: a list valid by the schema, read without a decoder
// (most of a depth-1000 bundle is such lists). Anything else, valid or
// not, it leaves to hitsValid's decoder.
func hitsPlain(v []byte) bool {
	const (
		idKey    = `{"id":`
		scoreKey = `,"score":`
		rankKey  = `,"rank":`
	)
	if len(v) < 2 || v[0] != '[' {
		return false
	}
	i := 1
	if v[i] == ']' {
		return i+1 == len(v)
	}
	for {
		if !bytes.HasPrefix(v[i:], []byte(idKey)) {
			return false
		}
		if i = plainString(v, i+len(idKey)); i < 0 || !bytes.HasPrefix(v[i:], []byte(scoreKey)) {
			return false
		}
		if i = plainNumber(v, i+len(scoreKey)); i < 0 || !bytes.HasPrefix(v[i:], []byte(rankKey)) {
			return false
		}
		i += len(rankKey)
		start := i
		for i < len(v) && '0' <= v[i] && v[i] <= '9' {
			i++
		}
		if !plainPositive(string(v[start:i])) || i+1 >= len(v) || v[i] != '}' {
			return false
		}
		switch v[i+1] {
		case ',':
			i += 2
		case ']':
			return i+2 == len(v)
		default:
			return false
		}
	}
}

// idsPlain reports whether v is a _retrieved_ids list as the writer lays
// it out, ["…","…"] without whitespace, of strings of printable ASCII
// without escapes: valid by the schema. Anything else it leaves to
// idsValid's decoder.
func idsPlain(v []byte) bool {
	if len(v) < 2 || v[0] != '[' {
		return false
	}
	i := 1
	if v[i] == ']' {
		return i+1 == len(v)
	}
	for {
		if i = plainString(v, i); i < 0 || i >= len(v) {
			return false
		}
		switch v[i] {
		case ',':
			i++
		case ']':
			return i+1 == len(v)
		default:
			return false
		}
	}
}

// plainString returns the offset just after the string that starts at
// v[i] when it is printable ASCII without escapes, else -1.
func plainString(v []byte, i int) int {
	if i >= len(v) || v[i] != '"' {
		return -1
	}
	for i++; i < len(v); i++ {
		switch b := v[i]; {
		case b == '"':
			return i + 1
		case b < 0x20 || b >= 0x80 || b == '\\':
			return -1
		}
	}
	return -1
}

// plainNumber returns the offset just after the JSON number that starts
// at v[i], else -1.
func plainNumber(v []byte, i int) int {
	digits := func() int {
		start := i
		for i < len(v) && '0' <= v[i] && v[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(v) && v[i] == '-' {
		i++
	}
	if i < len(v) && v[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

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

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	lasagna "github.com/lasagna-go/lasagna"
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

// Check returns the JSON Schema violations of doc, a bundle decoded with
// numbers as json.Number (the form [results.ValidateWith] passes), in a
// stable order. It is the check [Validate] adds to results.Validate.
func Check(doc any) []results.Problem {
	sch, err := compiled()
	if err != nil {
		return []results.Problem{{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: "schema", Detail: err.Error()}}
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *santhosh.ValidationError
	if !errors.As(err, &ve) {
		return []results.Problem{{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking, Where: "bundle", Detail: err.Error()}}
	}
	var found []results.Problem
	for _, leaf := range leaves(ve) {
		found = append(found, results.Problem{Code: lasagna.InvalidBundle, Level: lasagna.LevelBlocking,
			Where: pointerPath(leaf.InstanceLocation), Detail: leafMessage(leaf)})
	}
	slices.SortStableFunc(found, func(a, b results.Problem) int {
		return strings.Compare(a.Where+"\x00"+a.Detail, b.Where+"\x00"+b.Detail)
	})
	return slices.Compact(found)
}

// compiled returns the compiled bundle schema, compiled once on first use.
var compiled = sync.OnceValues(func() (*santhosh.Schema, error) {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("read the bundle schema: %w", err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource(URL, doc); err != nil {
		return nil, fmt.Errorf("load the bundle schema: %w", err)
	}
	return c.Compile(URL)
})

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

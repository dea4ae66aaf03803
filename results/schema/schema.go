package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
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
func JSON() []byte {
	build()
	return bytes.Clone(schemaJSON)
}

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

var (
	once        sync.Once
	schemaJSON  []byte
	schemaSaved *santhosh.Schema
	schemaErr   error
)

// build generates and compiles the schema once.
func build() { once.Do(generate) }

// compiled returns the compiled bundle schema.
func compiled() (*santhosh.Schema, error) {
	build()
	return schemaSaved, schemaErr
}

var determinismType = reflect.TypeFor[results.Determinism]()

// determinism is the schema of results.Determinism; its enum is generated
// from results.Determinisms().
func determinism() *jsonschema.Schema {
	ds := results.Determinisms()
	enum := make([]any, len(ds))
	for i, d := range ds {
		enum[i] = string(d)
	}
	return &jsonschema.Schema{Type: "string", Enum: enum,
		Description: "How the run was seeded; never \"reproducible\""}
}

// extendBundle adds the schema version pattern the reader applies.
func extendBundle(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("schema_version"); ok {
		p.Pattern = results.SchemaVersionPattern
	}
}

// extendHeldFixed adds the enums of corpus_provenance and resolved_mode.
func extendHeldFixed(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("corpus_provenance"); ok {
		p.Enum = nil
		for _, v := range results.Provenances() {
			p.Enum = append(p.Enum, string(v))
		}
		p.Default = string(lasagna.ProvenanceNative)
	}
	if p, ok := s.Properties.Get("resolved_mode"); ok {
		p.Enum = nil
		for _, v := range results.Modes() {
			p.Enum = append(p.Enum, string(v))
		}
	}
}

// extendSample states that a failed query carries no scores.
func extendSample(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("answer"); ok {
		p.Description = "The generated answer; \"\" is an abstention, null or absent means the arm produced none"
	}
	one := uint64(1)
	cond := jsonschema.NewProperties()
	cond.Set("error", &jsonschema.Schema{Type: "string", MinLength: &one})
	s.If = &jsonschema.Schema{Required: []string{"error"}, Properties: cond}
	s.Then = &jsonschema.Schema{Not: &jsonschema.Schema{Required: []string{"scores"}}}
}

// nullableOptionals lets every optional property of s also be null: other
// writers may spell "not applicable" as null where this one leaves the
// field out, and the reader treats both as absent.
func nullableOptionals(s *jsonschema.Schema) {
	if s.Properties == nil {
		return
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		if slices.Contains(s.Required, pair.Key) {
			continue
		}
		p := *pair.Value
		nullable := &jsonschema.Schema{AnyOf: []*jsonschema.Schema{&p, {Type: "null"}}, Description: p.Description, Default: p.Default}
		p.Description, p.Default = "", nil
		s.Properties.Set(pair.Key, nullable)
	}
}

func generate() {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		AllowAdditionalProperties: true,
		ExpandedStruct:            true,
		// Determinism is a definition of its own, referred to by the
		// field that holds it.
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == determinismType {
				return &jsonschema.Schema{Ref: "#/$defs/Determinism"}
			}
			return nil
		},
	}
	s := r.Reflect(&results.Bundle{})
	s.Definitions["Determinism"] = determinism()
	extendBundle(s)
	for name, extend := range map[string]func(*jsonschema.Schema){"HeldFixed": extendHeldFixed, "Sample": extendSample} {
		def, ok := s.Definitions[name]
		if !ok {
			schemaErr = fmt.Errorf("generate bundle schema: no definition of %s", name)
			return
		}
		extend(def)
	}
	nullableOptionals(s)
	for _, def := range s.Definitions {
		nullableOptionals(def)
	}
	s.Title = "lasagna results bundle"
	s.Description = fmt.Sprintf("A results bundle, schema version %s (readers accept 1.0 <= v < 2.0), metrics version %s.", results.SchemaVersion, results.MetricsVersion)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		schemaErr = fmt.Errorf("generate bundle schema: %w", err)
		return
	}
	schemaJSON = buf.Bytes()
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		schemaErr = fmt.Errorf("read generated bundle schema: %w", err)
		return
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource(URL, doc); err != nil {
		schemaErr = fmt.Errorf("load generated bundle schema: %w", err)
		return
	}
	schemaSaved, schemaErr = c.Compile(URL)
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

package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// The generator of run-schema.json. It lives in a test so that programs
// validating bundles do not link the generator library; TestSchemaFile
// keeps the embedded file equal to what it generates.

var determinismType = reflect.TypeFor[results.Determinism]()
var findingType = reflect.TypeFor[results.Finding]()

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

// generate returns the bundle schema generated from the Go types of
// package results, as JSON() returns it.
func generate() ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		AllowAdditionalProperties: true,
		ExpandedStruct:            true,
		// Determinism is a definition of its own, referred to by the
		// field that holds it.
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch t {
			case determinismType:
				return &jsonschema.Schema{Ref: "#/$defs/Determinism"}
			case findingType:
				// A finding is one line in the bundle (results.Finding's
				// MarshalText).
				return &jsonschema.Schema{Type: "string"}
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
			return nil, fmt.Errorf("generate bundle schema: no definition of %s", name)
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
		return nil, fmt.Errorf("generate bundle schema: %w", err)
	}
	return buf.Bytes(), nil
}

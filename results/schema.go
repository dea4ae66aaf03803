package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/invopop/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	lasagna "github.com/lasagna-go/lasagna"
)

// SchemaURL is the location under which the bundle schema is compiled. It is
// a relative name, not a network address: nothing is ever fetched.
const SchemaURL = "run-schema.json"

// JSONSchema implements invopop/jsonschema's customisation hook: the enum
// is generated from Determinisms.
func (Determinism) JSONSchema() *jsonschema.Schema {
	enum := make([]any, len(Determinisms))
	for i, d := range Determinisms {
		enum[i] = string(d)
	}
	return &jsonschema.Schema{Type: "string", Enum: enum,
		Description: "How the run was seeded; never \"reproducible\""}
}

// JSONSchemaExtend adds the schema version pattern the reader applies.
func (Bundle) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("schema_version"); ok {
		p.Pattern = schemaVersionPattern
	}
}

// JSONSchemaExtend adds the enums of corpus_provenance and resolved_mode.
func (HeldFixed) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("corpus_provenance"); ok {
		p.Enum = nil
		for _, v := range Provenances {
			p.Enum = append(p.Enum, string(v))
		}
		p.Default = string(lasagna.ProvenanceNative)
	}
	if p, ok := s.Properties.Get("resolved_mode"); ok {
		p.Enum = nil
		for _, v := range Modes {
			p.Enum = append(p.Enum, string(v))
		}
	}
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

// JSONSchemaExtend states that a failed query carries no scores.
func (Sample) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("answer"); ok {
		p.Description = "The generated answer; \"\" is an abstention, null or absent means the arm produced none"
	}
	one := uint64(1)
	cond := jsonschema.NewProperties()
	cond.Set("error", &jsonschema.Schema{Type: "string", MinLength: &one})
	s.If = &jsonschema.Schema{Required: []string{"error"}, Properties: cond}
	s.Then = &jsonschema.Schema{Not: &jsonschema.Schema{Required: []string{"scores"}}}
}

// Schema returns the JSON Schema (draft 2020-12) of a bundle, generated
// from the Go types of this package and the constants the writer uses, as
// indented JSON. Objects accept members the schema does not name, so that a
// bundle of a later 1.y version validates.
func Schema() []byte {
	schemaOnce.Do(buildSchema)
	return schemaJSON
}

var (
	schemaOnce     sync.Once
	schemaJSON     []byte
	schemaCompiled *santhosh.Schema
	schemaErr      error
)

func buildSchema() {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		AllowAdditionalProperties: true,
		ExpandedStruct:            true,
	}
	s := r.Reflect(&Bundle{})
	nullableOptionals(s)
	for _, def := range s.Definitions {
		nullableOptionals(def)
	}
	s.Title = "lasagna results bundle"
	s.Description = fmt.Sprintf("A results bundle, schema version %s (readers accept 1.0 <= v < 2.0), metrics version %s.", SchemaVersion, MetricsVersion)
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
	if err := c.AddResource(SchemaURL, doc); err != nil {
		schemaErr = fmt.Errorf("load generated bundle schema: %w", err)
		return
	}
	schemaCompiled, schemaErr = c.Compile(SchemaURL)
}

// compiledSchema returns the compiled bundle schema.
func compiledSchema() (*santhosh.Schema, error) {
	schemaOnce.Do(buildSchema)
	return schemaCompiled, schemaErr
}

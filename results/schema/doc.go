// Package schema is the JSON Schema (draft 2020-12) of a results bundle:
// JSON generates it from the Go types of package results, and Validate
// checks a bundle against it on top of results.Validate's version, hash
// and structural checks.
//
// It is a package of its own so that a program that writes, reads or
// compares bundles through package results links no JSON Schema library;
// only the programs that publish or check the schema import this one, such
// as `lasagna results schema` and `lasagna results validate`, and they link
// the validator (internal/jsonschema, a copy of santhosh-tekuri/jsonschema
// that compiles the drafts' meta-schemas on first use rather than at init,
// so a program that links this package and never validates does not pay for
// them). The schema itself is
// generated from the Go types by a test (invopop/jsonschema, a test
// dependency) into run-schema.json, which the package embeds.
//
// The schema is compiled once, on first use; every function is safe for
// concurrent use.
package schema

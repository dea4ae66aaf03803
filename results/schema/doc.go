// Package schema is the JSON Schema (draft 2020-12) of a results bundle:
// JSON generates it from the Go types of package results, and Validate
// checks a bundle against it on top of results.Validate's version, hash
// and structural checks.
//
// It is a package of its own so that a program that writes, reads or
// compares bundles through package results links neither JSON Schema
// library (invopop/jsonschema generates, santhosh-tekuri/jsonschema
// validates); only the programs that publish or check the schema import
// this one, such as `lasagna results schema` and `lasagna results
// validate`.
//
// The schema is generated and compiled once, on first use; every function
// is safe for concurrent use.
package schema

// Package results is the results bundle, schema 1.0: the Go types of a
// bundle (Bundle and the types it holds), canonical JSON and its hashes
// (RFC 8785 via Canonical, checked against the gowebpki/jcs library and the
// RFC's test vectors; run_id and comparability_key), validation
// (Validate), paired comparisons between arms (Compare, Comparison.Verdict)
// and the joining of shard bundles (Merge). The JSON Schema generated from
// those types, and validation against it, live in package results/schema,
// so that importing results links no JSON Schema library.
//
// A bundle is data: Write finalizes and writes one deterministically
// (write → read → write is byte-identical), Read parses one, and Validate
// checks the bytes of one: the version rule (1.0 ≤ v < 2.0), both hashes
// recomputed over the bundle as written, and the integrity checks a bundle
// alone allows (schema.Validate adds the JSON Schema). Integrity codes and
// their fixes come from lasagna.Catalogue(); catalogueMarkdown renders that
// table for the docs.
//
// Bundles never hold paths, host names, user names or credential names:
// Environment records only the lasagna version, GOOS/GOARCH and the Go
// version.
//
// The package holds no mutable state; all functions are safe for
// concurrent use on distinct values.
package results

// Package buildtag says which optional parts this build of lasagna links.
// The default build links no vector-engine client, no PostgreSQL driver
// and no parquet reader, so that its first build is light; the build tags
// postgres (the PostgreSQL registry and the pgvector backend, through pgx),
// weaviate (the Weaviate backend, through its client, gRPC and protobuf)
// and parquet (the Hugging Face importer's parquet reader) add them:
//
//	go install -tags postgres,weaviate,parquet ./cmd/lasagna
//
// make test builds every test with all three.
package buildtag

// All is the -tags value that builds every optional part.
const All = "postgres,weaviate,parquet"

// Install is the command that builds a lasagna with every optional part,
// from a clone of the repository.
const Install = "go install -tags " + All + " ./cmd/lasagna"

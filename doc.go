// Package lasagna is the vocabulary of lasagna for Go: the benchmark model
// (Benchmark, Query, Document, Qrels), the values a pipeline returns (Hit,
// Output), the stage interfaces with their function adapters (Retriever,
// Generator, Pipeline, …), tracks and modes, and the integrity codes with
// their catalogue.
//
// The package imports nothing of this module and holds no mutable package
// state; every other package builds on it. Loading data lives in package
// datasets, scoring in metrics, bundles in results, and the bridge to
// `go test` in evaltest.
package lasagna

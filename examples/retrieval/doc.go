// Package retrieval is an example of a user's own retrieval system
// evaluated as a Go test: Keyword, a toy keyword-overlap retriever written
// here as any team would write its search, is run beside lasagna's
// built-in BM25 baseline on the shipped FAQ dataset (../data/faq.jsonl),
// with thresholds and a committed baseline bundle (testdata/baseline.json)
// that gates regressions. See retrieval_test.go; run it with
//
//	go test -v ./examples/retrieval
//
// Packages ../ginkgo and ../testify evaluate the same retriever from a
// Ginkgo suite and a testify suite.
package retrieval

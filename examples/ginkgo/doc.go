// Package ginkgo is an example of a lasagna evaluation run from a Ginkgo
// suite: the keyword retriever of package retrieval beside the BM25
// baseline on the shipped FAQ dataset, asserted with the Gomega matchers
// of evaltest/evalgomega, one table entry per question
// (evaltest/evalginkgo), and the bundle reported when the suite ends.
// Run it with
//
//	go test ./examples/ginkgo -v -args -ginkgo.v
//
// or with the ginkgo CLI (ginkgo -v ./examples/ginkgo, or
// --junit-report=report.xml for Ginkgo's own JUnit file, whose test cases
// carry the lasagna.* report entries as properties; under go test,
// -args -ginkgo.junit-report=/abs/report.xml writes the same file, as make
// junit does). Under go test and gotestsum a Ginkgo suite is one Go test
// (TestFAQ).
package ginkgo

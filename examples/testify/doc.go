// Package testify is an example of a lasagna evaluation asserted with
// testify: a suite.Suite evaluates the keyword retriever of package
// retrieval beside the BM25 baseline once (SetupSuite, evaltest.Evaluate),
// then its test methods read the results — plain values — with assert and
// require, and re-create one subtest per question carrying the question's
// lasagna.* attrs, so gotestsum's JUnit file has them as properties. Run
// it with
//
//	go test -v ./examples/testify
//
// testify suites are not safe with t.Parallel(): the suite's methods
// share s.T(), so none of them calls it.
package testify

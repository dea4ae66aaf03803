// Command checkjunit checks a JUnit file written by gotestsum --junitfile
// from lasagna evaluations: every query test case (a test case nested at
// least -depth subtests deep, such as TestRAG/faq/keyword/glass-01) must
// carry the lasagna.query_id property naming the query its name ends with,
// every lasagna.* metric property must be a number, and at least -min
// query test cases must carry a metric. It prints a one-line summary, or
// the problems and exits 1.
//
//	go run ./checkjunit [-depth 3] [-min 1] junit.xml
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	depth := flag.Int("depth", 3, "`levels` of subtests below the top-level test at which a test case is a query")
	minimum := flag.Int("min", 1, "the fewest query test cases with a metric property that pass the check")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: checkjunit [-depth n] [-min n] junit.xml\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *depth, *minimum, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "checkjunit: %v\n", err)
		os.Exit(1)
	}
}

func run(path string, depth, minimum int, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := Check(f, depth)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if s.WithMetrics < minimum {
		return fmt.Errorf("%s: %d query test cases carry metrics, want at least %d; did the evaluations run (go test -json) and record attrs?", path, s.WithMetrics, minimum)
	}
	fmt.Fprintf(w, "%s: %d query test cases, each with lasagna.query_id; %d with metrics (%d lasagna.* properties in all)\n", path, s.Queries, s.WithMetrics, s.Properties)
	return nil
}

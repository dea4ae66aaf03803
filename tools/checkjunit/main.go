// Command checkjunit checks the JUnit files of lasagna evaluations: those
// gotestsum --junitfile writes from go test -json, and those Ginkgo's
// reporter writes (go test … -args -ginkgo.junit-report=FILE, or ginkgo
// --junit-report). Every query test case — a Go subtest at least -depth
// levels below its top-level test (TestRAG/faq/keyword/glass-01), or a
// Ginkgo spec of evalginkgo.Entries ("[It] … faq/keyword/glass-01") — must
// carry the lasagna.query_id property naming its query and at least one
// lasagna.* metric property, every metric a number. Together the files
// must hold at least -min query test cases, and at least one of each
// package -want names (an import path, a suite's folder, or a suffix of
// either: examples/testify). It prints a summary, or every problem, each
// naming its test case, and exits 1.
//
//	go run ./checkjunit [-depth 3] [-min 1] [-want pkg,…] junit.xml…
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	depth := flag.Int("depth", 3, "`levels` of subtests below the top-level test at which a Go test case is a query")
	minimum := flag.Int("min", 1, "the fewest query test cases, in all the files, that pass the check")
	want := flag.String("want", "", "comma-separated `packages` each of which must have query test cases (an import path, a Ginkgo suite's folder, or a suffix: examples/testify)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: checkjunit [-depth n] [-min n] [-want pkg,…] junit.xml…\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var pkgs []string
	if *want != "" {
		pkgs = strings.Split(*want, ",")
	}
	if err := run(flag.Args(), *depth, *minimum, pkgs, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "checkjunit: %v\n", err)
		os.Exit(1)
	}
}

// run checks the files at paths and prints one line per file, then the
// query test cases of each wanted package.
func run(paths []string, depth, minimum int, want []string, w io.Writer) error {
	suites := map[string]int{}
	total := 0
	var errs []error
	for _, path := range paths {
		s, err := checkFile(path, depth)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		ginkgo := ""
		if s.Ginkgo > 0 {
			ginkgo = fmt.Sprintf(" (%d Ginkgo specs)", s.Ginkgo)
		}
		fmt.Fprintf(w, "%s: %d query test cases%s, each with lasagna.query_id and metrics (%d lasagna.* properties in all)\n", path, s.Queries, ginkgo, s.Properties)
		for pkg, n := range s.Suites {
			suites[pkg] += n
		}
		total += s.Queries
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if total < minimum {
		return fmt.Errorf("%d query test cases in all, want at least %d; did the evaluations run (go test -json) and record attrs?", total, minimum)
	}
	return checkWanted(suites, want, w)
}

// checkWanted checks that each package of want has query test cases in
// suites and prints their numbers.
func checkWanted(suites map[string]int, want []string, w io.Writer) error {
	if len(want) == 0 {
		return nil
	}
	var counts, missing []string
	for _, pkg := range want {
		n := 0
		for key, c := range suites {
			if key == pkg || strings.HasSuffix(key, "/"+pkg) {
				n += c
			}
		}
		if n == 0 {
			missing = append(missing, pkg)
		}
		counts = append(counts, fmt.Sprintf("%s %d", pkg, n))
	}
	if len(missing) > 0 {
		var have []string
		for key := range suites {
			have = append(have, key)
		}
		slices.Sort(have)
		return fmt.Errorf("no query test case of %s (the packages with query test cases are %s); did its tests run and record the lasagna.* attrs? A Ginkgo suite is one Go test in gotestsum's file: give its JUnit report too (go test … -args -ginkgo.junit-report=FILE)",
			strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	fmt.Fprintf(w, "query test cases: %s\n", strings.Join(counts, ", "))
	return nil
}

// checkFile runs Check on the file at path.
func checkFile(path string, depth int) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	return Check(f, depth)
}

package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// junit is the part of a JUnit file Check reads. Two writers are read
// alike: gotestsum --junitfile (one testsuite per package, named by its
// import path; a test case per Go test and subtest) and Ginkgo's JUnit
// reporter (ginkgo --junit-report, or go test … -args
// -ginkgo.junit-report=FILE: one testsuite per suite, its package attribute
// the suite's folder; a test case per spec, named "[It] container texts
// spec text").
type junit struct {
	Suites []struct {
		Name    string     `xml:"name,attr"`
		Package string     `xml:"package,attr"`
		Cases   []testCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type testCase struct {
	Name       string `xml:"name,attr"`
	Classname  string `xml:"classname,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
}

// Summary counts what Check found.
type Summary struct {
	// Queries is the number of query test cases, Ginkgo those of them
	// that are Ginkgo specs, Properties the lasagna.* properties of all
	// of them.
	Queries, Ginkgo, Properties int
	// Suites is the number of query test cases of each testsuite that has
	// any, keyed by its package: the import path for gotestsum, the
	// suite's folder for Ginkgo.
	Suites map[string]int
}

// Check reads a JUnit file and checks its query test cases. A Go test case
// is a query when its name holds at least depth '/' (a subtest depth
// levels below a top-level test, TestRAG/faq/keyword/glass-01); a Ginkgo
// spec is one when it carries a lasagna.* property or its text ends with
// a word of depth-1 '/' (the evalginkgo.Entries description
// faq/keyword/glass-01). Each must carry lasagna.query_id naming the query
// its name ends with (for Go, up to the '_' substitutions of subtest names;
// Ginkgo writes the value as JSON, "glass-01" with its quotes) and at
// least one other lasagna.* property, a metric, whose value is a number.
// The error lists every problem, each naming its test case.
func Check(r io.Reader, depth int) (Summary, error) {
	var j junit
	if err := xml.NewDecoder(r).Decode(&j); err != nil {
		return Summary{}, fmt.Errorf("not a JUnit file: %v", err)
	}
	s := Summary{Suites: map[string]int{}}
	var problems []string
	for _, suite := range j.Suites {
		pkg := suite.Package
		if pkg == "" {
			pkg = suite.Name
		}
		for _, c := range suite.Cases {
			ginkgo := isGinkgo(c.Name)
			if !isQuery(c, ginkgo, depth) {
				continue
			}
			s.Queries++
			s.Suites[pkg]++
			if ginkgo {
				s.Ginkgo++
			}
			problems = append(problems, checkCase(c, ginkgo, &s)...)
		}
	}
	if s.Queries == 0 {
		return s, fmt.Errorf("no test case is %d subtests deep, nor a Ginkgo spec with lasagna.* properties; is this the JUnit file of lasagna evaluations?", depth)
	}
	if len(problems) > 0 {
		return s, errors.New(strings.Join(problems, "\n"))
	}
	return s, nil
}

// checkCase returns the problems of query test case c and adds its
// lasagna.* properties to s.
func checkCase(c testCase, ginkgo bool, s *Summary) []string {
	where := c.Classname + " " + c.Name
	var problems []string
	id, hasID, metrics := "", false, 0
	for _, p := range c.Properties {
		name, ok := strings.CutPrefix(p.Name, "lasagna.")
		if !ok {
			continue
		}
		s.Properties++
		if name == "query_id" {
			id, hasID = p.Value, true
			if ginkgo {
				id = jsonString(id)
			}
			continue
		}
		if _, err := strconv.ParseFloat(p.Value, 64); err != nil {
			problems = append(problems, fmt.Sprintf("%s: property %s = %q is not a number", where, p.Name, p.Value))
			continue
		}
		metrics++
	}
	why := "the test did not record its attrs, or the JUnit file was not written from go test -json"
	if ginkgo {
		why = "the spec did not call evalginkgo's Query.Record"
	}
	switch {
	case !hasID:
		problems = append(problems, fmt.Sprintf("%s: no lasagna.query_id property (%s)", where, why))
	case id == "":
		problems = append(problems, fmt.Sprintf("%s: lasagna.query_id is empty", where))
	case ginkgo && !strings.HasSuffix(c.Name, "/"+id):
		problems = append(problems, fmt.Sprintf("%s: lasagna.query_id is %q, which does not name this spec", where, id))
	case !ginkgo && !sameName(id, c.Name[strings.LastIndex(c.Name, "/")+1:]):
		problems = append(problems, fmt.Sprintf("%s: lasagna.query_id is %q, which does not name this test case", where, id))
	}
	if metrics == 0 {
		problems = append(problems, fmt.Sprintf("%s: no lasagna.* metric property (lasagna.latency_ms, lasagna.ndcg@10, …) beside lasagna.query_id", where))
	}
	return problems
}

// isGinkgo reports whether a test case name is a Ginkgo spec's: it starts
// with the node type in brackets ("[It] …").
func isGinkgo(name string) bool {
	typ, _, ok := strings.Cut(name, "] ")
	return ok && strings.HasPrefix(typ, "[") && !strings.ContainsAny(typ, " /")
}

// isQuery reports whether c is a query test case (see Check).
func isQuery(c testCase, ginkgo bool, depth int) bool {
	if !ginkgo {
		return strings.Count(c.Name, "/") >= depth
	}
	for _, p := range c.Properties {
		if strings.HasPrefix(p.Name, "lasagna.") {
			return true
		}
	}
	words := strings.Fields(c.Name)
	return strings.HasPrefix(c.Name, "[It] ") && strings.Count(words[len(words)-1], "/") >= depth-1
}

// jsonString returns the string a JSON string literal holds, or v itself
// when it is not one.
func jsonString(v string) string {
	var s string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return v
	}
	return s
}

// sameName reports whether the subtest name last can stand for the query
// id: equal once '/', spaces and non-printing characters of id become '_',
// or with the _2, _3 … suffix that makes colliding names unique.
func sameName(id, last string) bool {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '_'
		}
		return r
	}, id)
	if last == safe {
		return true
	}
	rest, ok := strings.CutPrefix(last, safe+"_")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// junit is the part of a JUnit file Check reads.
type junit struct {
	Suites []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name       string `xml:"name,attr"`
			Classname  string `xml:"classname,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// Summary counts what Check found.
type Summary struct {
	// Queries is the number of query test cases, WithMetrics those with at
	// least one metric property (queries without judgements carry none),
	// Properties the lasagna.* properties of all of them.
	Queries, WithMetrics, Properties int
}

// Check reads a JUnit file and checks its query test cases: those whose
// name holds at least depth '/' (subtests depth levels below a top-level
// test). Each must carry lasagna.query_id, equal to the last element of
// its name up to the '_' substitutions of subtest names, and each other
// lasagna.* property must be a number. The error lists every problem.
func Check(r io.Reader, depth int) (Summary, error) {
	var j junit
	if err := xml.NewDecoder(r).Decode(&j); err != nil {
		return Summary{}, fmt.Errorf("not a JUnit file: %v", err)
	}
	var s Summary
	var problems []string
	for _, suite := range j.Suites {
		for _, c := range suite.Cases {
			if strings.Count(c.Name, "/") < depth {
				continue
			}
			s.Queries++
			where := c.Classname + " " + c.Name
			id, metrics := "", 0
			for _, p := range c.Properties {
				name, ok := strings.CutPrefix(p.Name, "lasagna.")
				if !ok {
					continue
				}
				s.Properties++
				if name == "query_id" {
					id = p.Value
					continue
				}
				if _, err := strconv.ParseFloat(p.Value, 64); err != nil {
					problems = append(problems, fmt.Sprintf("%s: property %s = %q is not a number", where, p.Name, p.Value))
					continue
				}
				metrics++
			}
			last := c.Name[strings.LastIndex(c.Name, "/")+1:]
			switch {
			case id == "":
				problems = append(problems, fmt.Sprintf("%s: no lasagna.query_id property (the test did not record its attrs, or the JUnit file was not written from go test -json)", where))
			case !sameName(id, last):
				problems = append(problems, fmt.Sprintf("%s: lasagna.query_id is %q, which does not name this test case", where, id))
			}
			if metrics > 0 {
				s.WithMetrics++
			}
		}
	}
	if s.Queries == 0 {
		return s, fmt.Errorf("no test case is %d subtests deep; is this the JUnit file of lasagna evaluations?", depth)
	}
	if len(problems) > 0 {
		return s, errors.New(strings.Join(problems, "\n"))
	}
	return s, nil
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

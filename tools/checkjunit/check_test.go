package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// good is an excerpt of the JUnit file gotestsum v1.13.0 wrote for
// ./examples/... (make junit): the Ginkgo suite as its one Go test, plain
// go test queries (examples/retrieval) and testify's (examples/testify).
const good = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="6" failures="0" errors="0" time="1.0">
	<testsuite tests="1" failures="0" time="0.3" name="github.com/lasagna-go/lasagna/examples/ginkgo" timestamp="2026-11-30T02:50:56Z">
		<properties><property name="go.version" value="go1.26.8 linux/amd64"></property></properties>
		<testcase classname="github.com/lasagna-go/lasagna/examples/ginkgo" name="TestFAQ" time="0.310000"></testcase>
	</testsuite>
	<testsuite tests="3" failures="0" time="0.6" name="github.com/lasagna-go/lasagna/examples/retrieval" timestamp="2026-11-30T02:50:56Z">
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/glass-01" time="0.000000">
			<properties>
				<property name="lasagna.latency_ms" value="0.006"></property>
				<property name="lasagna.mrr" value="1"></property>
				<property name="lasagna.ndcg@10" value="1"></property>
				<property name="lasagna.query_id" value="glass-01"></property>
				<property name="lasagna.recall@10" value="1"></property>
			</properties>
		</testcase>
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/glass-23" time="0.000000">
			<properties>
				<property name="lasagna.latency_ms" value="0.004"></property>
				<property name="lasagna.query_id" value="glass-23"></property>
			</properties>
		</testcase>
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/what_is_2" time="0.000000">
			<properties>
				<property name="lasagna.ndcg@10" value="0.6131"></property>
				<property name="lasagna.query_id" value="what is"></property>
			</properties>
		</testcase>
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword" time="0.000000"></testcase>
	</testsuite>
	<testsuite tests="2" failures="0" time="0.04" name="github.com/lasagna-go/lasagna/examples/testify" timestamp="2026-11-30T02:50:56Z">
		<testcase classname="github.com/lasagna-go/lasagna/examples/testify" name="TestFAQ/TestQueries/faq/keyword/coin-08" time="0.000000">
			<properties>
				<property name="lasagna.latency_ms" value="0.005"></property>
				<property name="lasagna.mrr" value="0.5"></property>
				<property name="lasagna.query_id" value="coin-08"></property>
			</properties>
		</testcase>
		<testcase classname="github.com/lasagna-go/lasagna/examples/testify" name="TestFAQ/TestQueries" time="0.000000"></testcase>
	</testsuite>
</testsuites>`

// goodGinkgo is an excerpt of the JUnit file Ginkgo v2.34.0 wrote for
// go test ./examples/ginkgo -args -ginkgo.junit-report=FILE (make junit):
// a spec that is no query, and two of evalginkgo.Entries' specs, whose
// Query.Record wrote the report entries as JSON values.
const goodGinkgo = `<?xml version="1.0" encoding="UTF-8"?>
  <testsuites tests="3" disabled="0" errors="0" failures="0" time="0.003320267">
      <testsuite name="FAQ retrieval" package="/work/lasagna/examples/ginkgo" tests="3" disabled="0" skipped="0" errors="0" failures="0" time="0.003320267" timestamp="2026-12-06T18:32:09">
          <properties>
              <property name="SuiteSucceeded" value="true"></property>
              <property name="RandomSeed" value="1796581929"></property>
          </properties>
          <testcase name="[It] the keyword retriever on the FAQ ranks well" classname="FAQ retrieval" status="passed" time="3.9659e-05">
              <system-err>&gt; Enter [It] ranks well</system-err>
          </testcase>
          <testcase name="[It] the keyword retriever on the FAQ finds the documents of every question faq/keyword/coin-24" classname="FAQ retrieval" status="passed" time="9.1385e-05">
              <system-err>&gt; Enter [It] faq/keyword/coin-24</system-err>
              <properties>
                  <property name="lasagna.query_id" value="&#34;coin-24&#34;"></property>
                  <property name="lasagna.latency_ms" value="0.006"></property>
                  <property name="lasagna.ndcg@10" value="1"></property>
              </properties>
          </testcase>
          <testcase name="[It] the keyword retriever on the FAQ finds the documents of every question faq/keyword/what is" classname="FAQ retrieval" status="passed" time="9.1385e-05">
              <properties>
                  <property name="lasagna.query_id" value="&#34;what is&#34;"></property>
                  <property name="lasagna.latency_ms" value="0.004"></property>
              </properties>
          </testcase>
      </testsuite>
  </testsuites>`

func TestCheck(t *testing.T) {
	s, err := Check(strings.NewReader(good), 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Queries != 4 || s.Ginkgo != 0 || s.Properties != 12 {
		t.Errorf("Check = %+v, want 4 queries, 0 Ginkgo specs, 12 properties", s)
	}
	retrieval, testify := "github.com/lasagna-go/lasagna/examples/retrieval", "github.com/lasagna-go/lasagna/examples/testify"
	if len(s.Suites) != 2 || s.Suites[retrieval] != 3 || s.Suites[testify] != 1 {
		t.Errorf("Suites = %v, want %s 3 and %s 1", s.Suites, retrieval, testify)
	}
}

func TestCheckGinkgo(t *testing.T) {
	s, err := Check(strings.NewReader(goodGinkgo), 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Queries != 2 || s.Ginkgo != 2 || s.Properties != 5 {
		t.Errorf("Check = %+v, want 2 queries, 2 Ginkgo specs, 5 properties", s)
	}
	if dir := "/work/lasagna/examples/ginkgo"; len(s.Suites) != 1 || s.Suites[dir] != 2 {
		t.Errorf("Suites = %v, want %s 2", s.Suites, dir)
	}
}

// TestCheckProblems: each problem names the test case and the property.
func TestCheckProblems(t *testing.T) {
	const (
		glass01 = "github.com/lasagna-go/lasagna/examples/retrieval TestRAG/faq/keyword/glass-01: "
		coin08  = "github.com/lasagna-go/lasagna/examples/testify TestFAQ/TestQueries/faq/keyword/coin-08: "
		coin24  = "FAQ retrieval [It] the keyword retriever on the FAQ finds the documents of every question faq/keyword/coin-24: "
	)
	for name, tc := range map[string]struct {
		in, old, new string
		want         []string
	}{
		"no query id": {good, `<property name="lasagna.query_id" value="glass-23"></property>`, "",
			[]string{"TestRAG/faq/keyword/glass-23: no lasagna.query_id property (the test did not record its attrs"}},
		"empty query id": {good, `value="glass-01"`, `value=""`,
			[]string{glass01 + "lasagna.query_id is empty"}},
		"wrong id": {good, `value="glass-01"`, `value="glass-02"`,
			[]string{glass01 + `lasagna.query_id is "glass-02", which does not name this test case`}},
		"not numeric": {good, `name="lasagna.mrr" value="1"`, `name="lasagna.mrr" value="high"`,
			[]string{glass01 + `property lasagna.mrr = "high" is not a number`}},
		"no metric": {good, `<property name="lasagna.latency_ms" value="0.004"></property>`, "",
			[]string{"TestRAG/faq/keyword/glass-23: no lasagna.* metric property (lasagna.latency_ms, lasagna.ndcg@10, …) beside lasagna.query_id"}},
		"testify without attrs": {good, `<property name="lasagna.latency_ms" value="0.005"></property>
				<property name="lasagna.mrr" value="0.5"></property>
				<property name="lasagna.query_id" value="coin-08"></property>`, "",
			[]string{coin08 + "no lasagna.query_id property", coin08 + "no lasagna.* metric property"}},
		"ginkgo no query id": {goodGinkgo, `<property name="lasagna.query_id" value="&#34;coin-24&#34;"></property>`, "",
			[]string{coin24 + "no lasagna.query_id property (the spec did not call evalginkgo's Query.Record)"}},
		"ginkgo wrong id": {goodGinkgo, `&#34;coin-24&#34;`, `&#34;coin-2&#34;`,
			[]string{coin24 + `lasagna.query_id is "coin-2", which does not name this spec`}},
		"ginkgo not numeric": {goodGinkgo, `name="lasagna.ndcg@10" value="1"`, `name="lasagna.ndcg@10" value="&#34;1&#34;"`,
			[]string{coin24 + `property lasagna.ndcg@10 = "\"1\"" is not a number`}},
		"ginkgo no record": {goodGinkgo, `<properties>
                  <property name="lasagna.query_id" value="&#34;coin-24&#34;"></property>
                  <property name="lasagna.latency_ms" value="0.006"></property>
                  <property name="lasagna.ndcg@10" value="1"></property>
              </properties>`, "",
			[]string{coin24 + "no lasagna.query_id property", coin24 + "no lasagna.* metric property"}},
	} {
		t.Run(name, func(t *testing.T) {
			in := strings.Replace(tc.in, tc.old, tc.new, 1)
			if in == tc.in {
				t.Fatal("the edit changed nothing")
			}
			_, err := Check(strings.NewReader(in), 3)
			if err == nil {
				t.Fatalf("Check passed, want errors containing %q", tc.want)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Check error = %v\nwant one containing %q", err, want)
				}
			}
		})
	}
	if _, err := Check(strings.NewReader(good), 5); err == nil || !strings.Contains(err.Error(), "no test case is 5 subtests deep") {
		t.Errorf("depth 5: error = %v", err)
	}
	if _, err := Check(strings.NewReader("{}"), 3); err == nil || !strings.Contains(err.Error(), "not a JUnit file") {
		t.Errorf("JSON input: error = %v", err)
	}
}

func TestIsGinkgo(t *testing.T) {
	for name, want := range map[string]bool{
		"[It] a b faq/keyword/q1":                 true,
		"[ReportAfterSuite] lasagna results":      true,
		"[BeforeSuite]":                           false,
		"TestRAG/faq/keyword/glass-01":            false,
		"TestRAG/faq/keyword/[a] b":               false,
		"[It] the keyword retriever ranks well":   true,
		"[not a node] text":                       false,
		"TestFAQ/TestQueries/faq/keyword/coin-08": false,
	} {
		if got := isGinkgo(name); got != want {
			t.Errorf("isGinkgo(%q) = %t, want %t", name, got, want)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	gotestsum, ginkgo := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "ginkgo.xml")
	if err := os.WriteFile(gotestsum, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ginkgo, []byte(goodGinkgo), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"examples/retrieval", "examples/testify", "examples/ginkgo"}
	var out bytes.Buffer
	if err := run([]string{gotestsum, ginkgo}, 3, 6, want, &out); err != nil {
		t.Fatal(err)
	}
	if want := gotestsum + ": 4 query test cases, each with lasagna.query_id and metrics (12 lasagna.* properties in all)\n" +
		ginkgo + ": 2 query test cases (2 Ginkgo specs), each with lasagna.query_id and metrics (5 lasagna.* properties in all)\n" +
		"query test cases: examples/retrieval 3, examples/testify 1, examples/ginkgo 2\n"; out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
	if err := run([]string{gotestsum, ginkgo}, 3, 7, nil, &out); err == nil || !strings.Contains(err.Error(), "6 query test cases in all, want at least 7") {
		t.Errorf("-min 7: error = %v", err)
	}
	// Without Ginkgo's own report the suite has no query test case.
	err := run([]string{gotestsum}, 3, 1, want, &out)
	if err == nil || !strings.Contains(err.Error(), "no query test case of examples/ginkgo (the packages with query test cases are github.com/lasagna-go/lasagna/examples/retrieval, github.com/lasagna-go/lasagna/examples/testify)") ||
		!strings.Contains(err.Error(), "-ginkgo.junit-report=FILE") {
		t.Errorf("no Ginkgo report: error = %v", err)
	}
	// A suffix matches whole path elements only.
	if err := run([]string{gotestsum, ginkgo}, 3, 1, []string{"testify", "ify"}, &out); err == nil || !strings.Contains(err.Error(), "no query test case of ify (") {
		t.Errorf("-want ify: error = %v", err)
	}
	// Every file's problems are reported, each with its file.
	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte(strings.Replace(goodGinkgo, `&#34;coin-24&#34;`, `&#34;x&#34;`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{bad, filepath.Join(dir, "missing.xml"), gotestsum}, 3, 1, nil, &out)
	if err == nil || !strings.Contains(err.Error(), bad+": FAQ retrieval [It]") || !strings.Contains(err.Error(), "missing.xml: open ") {
		t.Errorf("bad and missing files: error = %v", err)
	}
}

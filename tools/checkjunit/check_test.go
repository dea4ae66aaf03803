package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// good is an excerpt of the JUnit file gotestsum v1.13.0 wrote for
// ./examples/... (make junit).
const good = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" failures="0" errors="0" time="1.0">
	<testsuite tests="1" failures="0" time="0.3" name="github.com/lasagna-go/lasagna/examples/ginkgo" timestamp="2026-11-30T02:50:56Z">
		<properties><property name="go.version" value="go1.26.8 linux/amd64"></property></properties>
		<testcase classname="github.com/lasagna-go/lasagna/examples/ginkgo" name="TestFAQ" time="0.310000"></testcase>
	</testsuite>
	<testsuite tests="3" failures="0" time="0.6" name="github.com/lasagna-go/lasagna/examples/retrieval" timestamp="2026-11-30T02:50:56Z">
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/glass-01" time="0.000000">
			<properties>
				<property name="lasagna.mrr" value="1"></property>
				<property name="lasagna.ndcg@10" value="1"></property>
				<property name="lasagna.query_id" value="glass-01"></property>
				<property name="lasagna.recall@10" value="1"></property>
			</properties>
		</testcase>
		<testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/glass-23" time="0.000000">
			<properties>
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
</testsuites>`

func TestCheck(t *testing.T) {
	s, err := Check(strings.NewReader(good), 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Summary{Queries: 3, WithMetrics: 2, Properties: 7}); s != want {
		t.Errorf("Check = %+v, want %+v", s, want)
	}
}

func TestCheckProblems(t *testing.T) {
	for name, tc := range map[string]struct{ edit, want string }{
		"no query id": {`<property name="lasagna.query_id" value="glass-23"></property>`, `TestRAG/faq/keyword/glass-23: no lasagna.query_id property`},
		"wrong id":    {`value="glass-01"`, `TestRAG/faq/keyword/glass-01: lasagna.query_id is "glass-02", which does not name this test case`},
		"not numeric": {`name="lasagna.mrr" value="1"`, `TestRAG/faq/keyword/glass-01: property lasagna.mrr = "high" is not a number`},
	} {
		t.Run(name, func(t *testing.T) {
			repl := map[string]string{"no query id": "", "wrong id": `value="glass-02"`, "not numeric": `name="lasagna.mrr" value="high"`}[name]
			in := strings.Replace(good, tc.edit, repl, 1)
			if in == good {
				t.Fatal("the edit changed nothing")
			}
			_, err := Check(strings.NewReader(in), 3)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check error = %v, want one containing %q", err, tc.want)
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

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(path, 3, 2, &out); err != nil {
		t.Fatal(err)
	}
	if want := path + ": 3 query test cases, each with lasagna.query_id; 2 with metrics (7 lasagna.* properties in all)\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if err := run(path, 3, 3, &out); err == nil || !strings.Contains(err.Error(), "2 query test cases carry metrics, want at least 3") {
		t.Errorf("-min 3: error = %v", err)
	}
}

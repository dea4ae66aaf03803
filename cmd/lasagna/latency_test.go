package main

import (
	"path/filepath"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// TestBenchmarkRunLatency: --latency records each query's pipeline time in
// the bundle rows; without it the rows carry none (so reruns give the same
// bytes).
func TestBenchmarkRunLatency(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flag []string
		want bool
	}{{nil, false}, {[]string{"--latency"}, true}} {
		out := filepath.Join(dir, "b.json")
		args := append([]string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "speed", "-o", out}, c.flag...)
		if _, errOut, code := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		b, err := results.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		rows := b.Results[0].PerSampleScores
		with := 0
		for _, r := range rows {
			if r.LatencyMS != nil {
				with++
			}
		}
		if c.want && with != len(rows) || !c.want && with != 0 {
			t.Errorf("%v: %d of %d rows carry latency_ms", c.flag, with, len(rows))
		}
	}
}

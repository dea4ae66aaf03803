package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// TestPlanSizeLimit: a plan of more than MaxQueryRuns query runs is
// refused by Check, before any pipeline call, with the shards to split it
// into; the same plan in enough shards passes.
func TestPlanSizeLimit(t *testing.T) {
	const q = 20_001
	b := &lasagna.Benchmark{Name: "local/big@000000000000", Corpus: []lasagna.Document{{ID: "d1", Text: "x"}}, Qrels: lasagna.Qrels{}}
	for i := range q {
		id := fmt.Sprintf("q%d", i)
		b.Queries = append(b.Queries, lasagna.Query{ID: id, Text: "x"})
		b.Qrels[id] = map[string]int{"d1": 1}
	}
	br := &BenchmarkRun{Benchmark: b}
	built := false
	var arms []Arm
	for i := range MaxQueryRuns/q + 1 {
		a := goldArm(fmt.Sprintf("a%d", i))
		inner := a.Retriever
		a.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			built = true
			return inner(ctx, b)
		}
		arms = append(arms, a)
	}
	p := &Plan{Benchmarks: []*BenchmarkRun{br}, Arms: arms}
	err := p.Check()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d queries", MaxQueryRuns)) || !strings.Contains(err.Error(), "--shard i/2") {
		t.Fatalf("Check = %v, want the size limit and 2 shards", err)
	}
	if _, err := Execute(Discard(t.Context()), p); err == nil || built {
		t.Fatalf("Execute = %v (a pipeline built: %v), want the refusal before any build", err, built)
	}
	p.Options.Shard = Shard{Index: 1, Count: 2}
	if err := p.Check(); err != nil {
		t.Errorf("the plan in 2 shards: %v", err)
	}
}

// TestSweepLimitsAndZeros: a sweep of more than MaxBenchmarks entries is
// refused before any data is read, and an explicit top_k: 0 or
// repeats: 0 is an error, not the default.
func TestSweepLimitsAndZeros(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("benchmarks:\n")
	for i := range MaxBenchmarks + 1 {
		fmt.Fprintf(&sb, "  - {path: missing-%d.jsonl}\n", i)
	}
	sb.WriteString("arms:\n  - {name: bm25, retriever: bm25}\n")
	s, err := ParseSweep([]byte(sb.String()), "big.yaml")
	if err == nil {
		err = s.Check()
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("lists %d benchmarks", MaxBenchmarks+1)) {
		t.Errorf("a sweep of %d entries: %v", MaxBenchmarks+1, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"top_k: 0\n", "big.yaml:1: top_k is 0; it must be positive (omit it for the default depth, 100)"},
		{"arms:\n  - {name: a, retriever: bm25, top_k: 0}\n", "big.yaml:2: arm a: top_k is 0"},
		{"arms:\n  - {name: a, retriever: bm25, repeats: 0}\n", "big.yaml:2: arm a: repeats is 0; it must be positive (omit it for one run of each query)"},
	} {
		doc := "benchmarks:\n  - {path: x.jsonl}\n" + tc.yaml
		if !strings.Contains(tc.yaml, "arms:") {
			doc += "arms:\n  - {name: a, retriever: bm25}\n"
		}
		_, err := ParseSweep([]byte(doc), "big.yaml")
		if err == nil || !strings.Contains(err.Error(), strings.Replace(tc.want, "big.yaml:1:", "big.yaml:3:", 1)) && !strings.Contains(err.Error(), strings.Replace(tc.want, "big.yaml:2:", "big.yaml:4:", 1)) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

package llmarms_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
)

// BenchmarkGenerationThroughput measures the engine with an LLM generator
// at a fixed latency: a closed-book arm on the fake OpenAI-compatible
// server answering every call after 50 ms, with C queries in flight
// (Options.Concurrency), no cache and no judge. BENCHMARKS.md asks for a
// throughput within 10% of C / latency; the benchmark reports queries/s
// and the ratio to that ideal ("of_ideal").
func BenchmarkGenerationThroughput(b *testing.B) {
	const latency = 50 * time.Millisecond
	for _, conc := range []int{8, 16} {
		b.Run(fmt.Sprintf("C=%d", conc), func(b *testing.B) {
			n := 8 * conc // 8 waves of C calls per run
			var sb strings.Builder
			for i := range n {
				fmt.Fprintf(&sb, `{"id": "q%d", "question": "question %d", "answer": "answer %d"}`+"\n", i, i, i)
			}
			runs, err := engine.LoadBenchmarks(fstest.MapFS{"qa.jsonl": {Data: []byte(sb.String())}}, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: "qa.jsonl"}}})
			if err != nil {
				b.Fatal(err)
			}
			f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Latency: latency,
				Reply: func(c fixtures.ChatCall) string { return `{"answer": "answer", "abstained": false}` }})
			defer f.Close()
			arms, err := llmarms.Deps(newLLM(b, f, "gpt-test", 0)).Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "cb", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorClosedBook}}}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				rep, err := engine.Run(b.Context(), runs, arms, engine.Options{Concurrency: conc})
				if err != nil {
					b.Fatal(err)
				}
				if fs := rep.Findings; len(fs) != 1 {
					b.Fatalf("findings = %v; want SINGLE_RUN only", fs)
				}
			}
			qps := float64(n*b.N) / b.Elapsed().Seconds()
			b.ReportMetric(qps, "queries/s")
			b.ReportMetric(qps/(float64(conc)/latency.Seconds()), "of_ideal")
		})
	}
}

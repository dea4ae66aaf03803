package llmarms_test

import (
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/engine"
)

// tinyJSONL has 6 answerable rows (d1..d6 named by expected_docs; q5 and q6
// share d5) and one unanswerable row. It is engine's own test benchmark
// (engine/engine_test.go), which an external test cannot reach.
const tinyJSONL = `{"id": "q1", "question": "What lowers the melting point of silica?", "answer": "soda", "contexts": ["Soda lowers the melting point of silica sand."], "expected_docs": ["d1"]}
{"id": "q2", "question": "Who introduced the solidus?", "answer": "Constantine", "contexts": ["The solidus was introduced by Constantine the Great."], "expected_docs": ["d2"]}
{"id": "q3", "question": "What replaced the solidus?", "answer": "the hyperpyron", "contexts": ["The hyperpyron replaced the debased solidus in 1092."], "expected_docs": ["d3"]}
{"id": "q4", "question": "Where was glassblowing invented?", "answer": "Syria", "contexts": ["Glassblowing was invented on the Syrian coast."], "expected_docs": ["d4"]}
{"id": "q5", "question": "What is lead glass called?", "answer": "crystal", "contexts": ["Lead glass is sold as crystal."], "expected_docs": ["d5"]}
{"id": "q6", "question": "Why is lead glass bright?", "answer": "high refractive index", "contexts": ["Lead glass is sold as crystal."], "expected_docs": ["d5"]}
{"id": "q7", "question": "What did the solidus cost to mint?", "contexts": ["Mints struck coins in gold."], "expected_docs": ["d7"], "metadata": {"unanswerable": true}}
`

func tinyBench(t testing.TB) *engine.BenchmarkRun {
	t.Helper()
	fsys := fstest.MapFS{"tiny.jsonl": {Data: []byte(tinyJSONL)}}
	runs, err := engine.LoadBenchmarks(fsys, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: "tiny.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

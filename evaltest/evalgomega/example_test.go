package evalgomega_test

import (
	"fmt"

	"github.com/onsi/gomega"

	"github.com/lasagna-go/lasagna/evaltest/evalgomega"
	"github.com/lasagna-go/lasagna/results"
)

func ExampleHaveMetric() {
	b := &results.Bundle{Results: []results.Result{
		{BenchmarkName: "local/faq@ea3e86b12545", ConfigName: "mine", Metrics: map[string]float64{"ndcg@10": 0.55}},
		{BenchmarkName: "local/faq@ea3e86b12545", ConfigName: "bm25", Metrics: map[string]float64{"ndcg@10": 0.71}},
	}}
	m := evalgomega.HaveMetric("ndcg@10", gomega.BeNumerically(">=", 0.6)).ForArm("mine").ForBenchmark("faq")
	ok, _ := m.Match(b)
	fmt.Println(ok)
	fmt.Println(m.FailureMessage(b))
	// Output:
	// false
	// Expected ndcg@10 to match:
	// arm mine on local/faq@ea3e86b12545: ndcg@10 = 0.55
	//     Expected
	//         <float64>: 0.55
	//     to be >=
	//         <float64>: 0.6
}

func ExampleHaveNoBlockingIntegrity() {
	in := results.Integrity{Blocking: []results.Finding{
		finding(`UNKNOWN_DOC_ID at local/faq@ea3e86b12545/mine: 1 ranked lists hold ids missing from the corpus of 38 documents: coin-07 ("solidus-2") (fix: return the corpus ids the benchmark defines (chunk ids must map to them), or index the same corpus the benchmark ships)`),
	}}
	m := evalgomega.HaveNoBlockingIntegrity()
	ok, _ := m.Match(in)
	fmt.Println(ok)
	fmt.Println(m.FailureMessage(in))
	// Output:
	// false
	// Expected no blocking integrity finding, found 1:
	//   UNKNOWN_DOC_ID (blocking)
	//     where: local/faq@ea3e86b12545/mine
	//     what:  1 ranked lists hold ids missing from the corpus of 38 documents: coin-07 ("solidus-2")
	//     fix:   return the corpus ids the benchmark defines (chunk ids must map to them), or index the same corpus the benchmark ships
}

// finding reads an integrity line as a bundle's JSON holds it.
func finding(line string) results.Finding {
	var f results.Finding
	_ = f.UnmarshalText([]byte(line))
	return f
}

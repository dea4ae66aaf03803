package reporters_test

import (
	"context"
	"fmt"
	"os"

	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// A small finished bundle: two arms on one benchmark.
func exampleBundle() *results.Bundle {
	b := &results.Bundle{
		SchemaVersion:  results.SchemaVersion,
		MetricsVersion: results.MetricsVersion,
		Experiment:     results.Experiment{NothingSamples: true, Determinism: results.Seeded},
		Results: []results.Result{
			{BenchmarkName: "local/faq@0123456789ab", ConfigName: "bm25",
				Metrics:         map[string]float64{"ndcg@10": 0.7123, "recall@10": 0.9},
				MetricStats:     map[string]results.MetricStat{"ndcg@10": {N: 20, Mean: 0.7123, CILow: 0.61, CIHigh: 0.8}},
				PerSampleScores: []results.Sample{{QueryID: "q1"}, {QueryID: "q2"}}},
			{BenchmarkName: "local/faq@0123456789ab", ConfigName: "mine",
				Metrics:         map[string]float64{"ndcg@10": 0.5},
				PerSampleScores: []results.Sample{{QueryID: "q1"}, {QueryID: "q2", Error: "timeout"}}},
		},
		Integrity: results.Integrity{
			Blocking: []results.Finding{finding("PIPELINE_ERRORS at local/faq@0123456789ab/mine: 1 of 2 queries failed")},
			Warnings: []results.Finding{},
		},
	}
	return b
}

func Example() {
	var r reporters.Reporter = reporters.Text{W: os.Stdout}
	if err := r.Report(context.Background(), exampleBundle()); err != nil {
		panic(err)
	}
	// Output:
	// benchmark               arm   queries  failed  ndcg@10               recall@10
	// local/faq@0123456789ab  bm25  2        0       0.712 [0.610, 0.800]  0.900
	// local/faq@0123456789ab  mine  2        1       0.500                 -
	// integrity: 1 blocking, 0 warnings
}

func ExampleMarkdownSummary() {
	os.Stdout.WriteString(reporters.MarkdownSummary(exampleBundle(), []string{"ndcg@10"}))
	// Output:
	// ### lasagna results
	//
	// | benchmark | arm | queries | failed | ndcg@10 |
	// | --- | --- | ---: | ---: | ---: |
	// | local/faq@0123456789ab | bm25 | 2 | 0 | 0.712 (0.610–0.800) |
	// | local/faq@0123456789ab | mine | 2 | 1 | 0.500 |
	//
	// **Integrity:** 1 blocking, 0 warnings
	//
	// - **blocking:** PIPELINE\_ERRORS at local/faq@0123456789ab/mine: 1 of 2 queries failed
}

// ExampleFormatP shows how reports write numbers: fixed decimals without a
// negative zero, signed differences, and p-values with two significant
// digits or as a power of ten.
func ExampleFormatP() {
	fmt.Println(reporters.FormatNumber(-0.0001, 3), reporters.FormatSigned(0.0042, 3))
	fmt.Println(reporters.FormatP(0.0123), reporters.FormatP(0.00025))
	// Output:
	// 0.000 +0.004
	// 0.012 2.5e-4
}

// finding reads an integrity line as a bundle's JSON holds it.
func finding(line string) results.Finding {
	var f results.Finding
	_ = f.UnmarshalText([]byte(line))
	return f
}

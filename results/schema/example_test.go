package schema_test

import (
	"bytes"
	"fmt"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

// ExampleValidate shows a bundle that reads as a results.Bundle but breaks
// the JSON Schema: a determinism the schema's enum does not allow.
func ExampleValidate() {
	b := &results.Bundle{
		Experiment: results.Experiment{
			Environment:    results.Environment{LasagnaVersion: "v0.1.0", Platform: "linux/amd64", Go: "go1.26.8"},
			NothingSamples: true,
			Determinism:    "reproducible",
		},
		Configs: []results.Config{{Name: "bm25", Benchmark: "local/faq@0123456789ab", HeldFixed: results.HeldFixed{
			MetricsVersion: results.MetricsVersion, Benchmark: "local/faq@0123456789ab", NSamples: 1, SamplingSeed: 42,
			ResolvedMode: lasagna.ModeRetrieval}}},
		Results: []results.Result{{BenchmarkName: "local/faq@0123456789ab", ConfigName: "bm25",
			Metrics: map[string]float64{"ndcg@10": 0.5}}},
	}
	var buf bytes.Buffer
	if err := results.Write(&buf, b); err != nil {
		panic(err)
	}
	fmt.Println("results.Validate:", results.Validate(buf.Bytes()).OK(true))
	for _, p := range schema.Validate(buf.Bytes()).Problems {
		fmt.Println(p.Code, "at", p.Where)
	}
	// Output:
	// results.Validate: true
	// INVALID_BUNDLE at experiment.determinism
}

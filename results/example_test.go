package results_test

import (
	"bytes"
	"fmt"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// Example builds a two-arm retrieval bundle, writes it, validates the
// written bytes and compares the arms.
func Example() {
	bench := &lasagna.Benchmark{Name: "local/faq@0123456789ab", Revision: "0123456789ab", Provenance: lasagna.ProvenanceNative}
	var sampled []string
	for i := range 30 {
		sampled = append(sampled, fmt.Sprintf("q%02d", i))
	}
	hf := results.NewHeldFixed(bench, lasagna.ModeRetrieval, 30, 42, results.SampleIDDigest(sampled))
	b := &results.Bundle{
		Experiment: results.Experiment{
			Environment:    results.Environment{LasagnaVersion: "v0.1.0", Platform: "linux/amd64", Go: "go1.26.8"},
			NothingSamples: true,
			Determinism:    results.Seeded,
			StatsSeed:      1, // the bootstrap seed, recorded so validate can recompute the intervals
		},
	}
	for arm, shift := range map[string]float64{"bm25": 0.2, "dense": 0} {
		b.Configs = append(b.Configs, results.Config{Name: arm, Benchmark: bench.Name, HeldFixed: hf,
			VariedDimensions: []string{"retriever"}, VariedLevels: map[string]string{"retriever": arm}})
		r := results.Result{BenchmarkName: bench.Name, ConfigName: arm}
		for i, id := range sampled {
			r.PerSampleScores = append(r.PerSampleScores, results.Sample{
				QueryID: id,
				Scores:  map[string]float64{"ndcg@10": float64(i%10)/20 + shift*(1+float64(i%4)/4)},
			})
		}
		if err := results.Aggregate(&r, b.StatsOptions()); err != nil {
			panic(err)
		}
		b.Results = append(b.Results, r)
	}
	// Order configs and results by name so the bundle is the same every run.
	if b.Configs[0].Name != "bm25" {
		b.Configs[0], b.Configs[1] = b.Configs[1], b.Configs[0]
		b.Results[0], b.Results[1] = b.Results[1], b.Results[0]
	}

	var buf bytes.Buffer
	if err := results.Write(&buf, b); err != nil {
		panic(err)
	}
	report := results.Validate(buf.Bytes())
	fmt.Println("valid:", report.OK(true))

	pairs, _ := results.PairWithin(results.Arms(b, ""), "dense")
	for _, c := range results.Compare(pairs, results.CompareOptions{Seed: 1}).Comparisons {
		fmt.Println(c.Verdict())
	}
	// Output:
	// valid: true
	// bm25 beats dense by +0.272 ndcg@10 (d_z 4.79, Holm p = 1e-4 over 1 comparison) on 30 queries; smallest detectable difference 0.03 at n=30
}

// ExampleValidate shows that an edited number no longer matches the
// bundle's run_id.
func ExampleValidate() {
	b := &results.Bundle{
		Experiment: results.Experiment{
			Environment:    results.Environment{LasagnaVersion: "v0.1.0", Platform: "linux/amd64", Go: "go1.26.8"},
			NothingSamples: true,
			Determinism:    results.Seeded,
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
	fmt.Println(results.Validate(buf.Bytes()).OK(true))

	edited := bytes.Replace(buf.Bytes(), []byte(`"ndcg@10": 0.5`), []byte(`"ndcg@10": 0.7`), 1)
	for _, p := range results.Validate(edited).Problems {
		fmt.Println(p.Code, "at", p.Where)
	}
	// Output:
	// true
	// RUN_ID_MISMATCH at run_id
}

package results

import (
	"fmt"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
)

// bigBundle is two arms × queries rows × 100 hits each.
func bigBundle(b testing.TB, queries int) *Bundle {
	hf := testHeldFixed()
	bun := &Bundle{Experiment: Experiment{Environment: CurrentEnvironmentFixed(), NothingSamples: true, Determinism: Seeded}}
	for a, name := range []string{"bm25", "dense"} {
		bun.Configs = append(bun.Configs, retrievalConfig(hf, name, name))
		r := Result{BenchmarkName: hf.Benchmark, ConfigName: name, Metrics: map[string]float64{}}
		for q := range queries {
			row := Sample{QueryID: fmt.Sprintf("q%06d", q), Scores: map[string]float64{
				"ndcg@10": float64((q*37+a)%100) / 100, "recall@100": float64((q*11+a)%100) / 100, "mrr@10": float64(q%7) / 7}}
			for k := range 100 {
				id := fmt.Sprintf("doc%07d", (q*131+k*7+a)%1000000)
				row.RetrievedIDs = append(row.RetrievedIDs, id)
				row.Retrieved = append(row.Retrieved, Retrieved{ID: id, Score: 30 - float64(k)*0.25, Rank: k + 1})
			}
			r.PerSampleScores = append(r.PerSampleScores, row)
		}
		if err := Aggregate(&r, bun.StatsOptions()); err != nil {
			b.Fatal(err)
		}
		bun.Results = append(bun.Results, r)
	}
	bun.Integrity.Add(lasagna.Finding{Code: lasagna.SmallSample, Where: hf.Benchmark})
	return bun
}

func BenchmarkWrite(b *testing.B) {
	bun := bigBundle(b, 1000)
	raw := encode(b, bun)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		encode(b, bun)
	}
}

func BenchmarkRead(b *testing.B) {
	raw := encode(b, bigBundle(b, 1000))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	raw := encode(b, bigBundle(b, 1000))
	if r := Validate(raw); !r.OK(false) {
		b.Fatalf("bench bundle invalid: %v", r.Problems)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		Validate(raw)
	}
}

func BenchmarkCompare(b *testing.B) {
	bun := bigBundle(b, 1000)
	pairs, err := PairWithin(Arms(bun, ""), "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Compare(pairs, CompareOptions{})
	}
}

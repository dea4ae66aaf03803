package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/sampleid"
)

func ptr[T any](v T) *T { return &v }

// testSeed is the bootstrap seed the test bundles record
// (experiment.stats_seed) and aggregate with (testStats).
const testSeed = 7

var testStats = StatsOptions{Seed: testSeed}

// testBenchmark is a benchmark as datasets would load it, including a
// Source path that must never reach a bundle.
func testBenchmark(source string, prov lasagna.Provenance) *lasagna.Benchmark {
	return &lasagna.Benchmark{
		Name:       "local/faq@0123456789ab",
		Revision:   "0123456789ab" + strings.Repeat("cd", 26),
		Format:     lasagna.FormatBEIR,
		Source:     source,
		Split:      "test",
		Provenance: prov,
	}
}

// retrievalRows builds n deterministic retrieval rows. shift is added to
// every ndcg so arms differ; failed names queries that errored.
func retrievalRows(n int, shift float64, failed map[int]bool) []Sample {
	rows := make([]Sample, n)
	for i := range rows {
		q := fmt.Sprintf("q%02d", i+1)
		if failed[i] {
			rows[i] = Sample{QueryID: q, Error: "retriever: context deadline exceeded after 30s"}
			continue
		}
		base := float64((i*37)%100) / 100
		nd := min(1, base*0.8+shift*(1+float64(i%4)/4))
		recall := float64(i%3+1) / 3
		if nd == 0 {
			recall = 0 // no relevant id in the top 10
		}
		ids := []string{fmt.Sprintf("d%d", (i*7)%50), fmt.Sprintf("d%d", (i*7+1)%50), fmt.Sprintf("d%d", (i*7+2)%50)}
		hits := []Retrieved{{ids[0], 12.5, 1}, {ids[1], 9.25, 2}, {ids[2], 9.25, 3}} // a tie: rank decides
		rows[i] = Sample{QueryID: q,
			Scores:       map[string]float64{"ndcg@10": nd, "recall@10": recall},
			RetrievedIDs: ids, Retrieved: hits}
	}
	return rows
}

// rowsDigest is the sample_id_digest of rows' query ids.
func rowsDigest(rows []Sample) string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.QueryID
	}
	slices.Sort(ids)
	return sampleid.Digest(ids)
}

func retrievalConfig(hf HeldFixed, name, retriever string) Config {
	return Config{Name: name, Benchmark: hf.Benchmark, HeldFixed: hf,
		VariedDimensions: []string{"retriever"}, VariedLevels: map[string]string{"retriever": retriever}}
}

func mustAggregate(t testing.TB, r Result) Result {
	t.Helper()
	if err := Aggregate(&r, testStats); err != nil {
		t.Fatal(err)
	}
	return r
}

// retrievalBundle is a clean two-arm retrieval bundle.
func retrievalBundle(t testing.TB) *Bundle {
	b := testBenchmark("/home/alice/data/faq", lasagna.ProvenanceNative)
	hf := NewHeldFixed(b, lasagna.ModeRetrieval, 20, 42, rowsDigest(retrievalRows(20, 0, nil)))
	hf.Chunker = ptr("fixed-200-words")
	hf.RetrieverTopK = ptr(100)
	hf.FixedStages = map[string]string{"chunker": "fixed words=200", "reranker": "none"}
	return &Bundle{
		Experiment: Experiment{
			Environment:    Environment{LasagnaVersion: "v0.1.0", Platform: "linux/amd64", Go: "go1.26.8"},
			NothingSamples: true,
			Determinism:    Seeded,
			StatsSeed:      testSeed,
		},
		Configs: []Config{retrievalConfig(hf, "bm25", "bm25 k1=0.9 b=0.4 stemming=on"), retrievalConfig(hf, "dense", "dense cosine")},
		Results: []Result{
			mustAggregate(t, Result{BenchmarkName: hf.Benchmark, ConfigName: "bm25", Metrics: map[string]float64{}, PerSampleScores: retrievalRows(20, 0.1, nil)}),
			mustAggregate(t, Result{BenchmarkName: hf.Benchmark, ConfigName: "dense", Metrics: map[string]float64{}, PerSampleScores: retrievalRows(20, 0, nil)}),
		},
	}
}

// ragBundle is a RAG bundle with answers, a judge, an abstention, a failed
// query and the integrity lines they raise.
func ragBundle(t testing.TB) *Bundle {
	b := testBenchmark("/home/alice/data/faq.jsonl", lasagna.ProvenancePooledGold)
	b.Split = ""
	hf := NewHeldFixed(b, lasagna.ModeRAG, 4, 42, sampleid.Digest([]string{"1", "2", "3", "4 <&> \"quoted\""}))
	hf.EmbedderModel = ptr("text-embedding-3-small")
	hf.EmbedderDim = ptr(0) // present and zero: not the same as absent
	hf.VectorBackend = ptr("embedded exact cosine")
	hf.JudgeModel = ptr("gpt-4o-2024-08-06")
	hf.BM25Stemming = ptr(false)
	hf.CorpusIngestGap = ptr(0)
	hf.SimilarityModel = ptr("none")
	rows := []Sample{
		{QueryID: "1", Scores: map[string]float64{"exact_match": 1, "token_f1": 1, "judge_correctness": 1}, Answer: ptr("Paris"),
			RetrievedIDs: []string{"p1", "p2"}, Retrieved: []Retrieved{{"p1", 0.91, 1}, {"p2", 0.5, 2}}},
		{QueryID: "2", Scores: map[string]float64{"exact_match": 1, "token_f1": 1}, Answer: ptr(""), JudgeError: "judge: unparseable verdict \"maybe\"",
			RetrievedIDs: []string{}, Retrieved: []Retrieved{}},
		{QueryID: "3", Error: "generator: 429 too many requests after 3 retries"},
		{QueryID: "4 <&> \"quoted\"", Scores: map[string]float64{"exact_match": 0, "token_f1": 0.4, "judge_correctness": 0}, Answer: ptr("1e21 ü"),
			RetrievedIDs: []string{"p3"}, Retrieved: []Retrieved{{"p3", -1e-7, 1}}},
	}
	where := hf.Benchmark + "/full"
	bun := &Bundle{
		Submitter: &Submitter{Name: "Alice Example", Affiliation: "Example Lab"},
		Experiment: Experiment{
			Environment: Environment{LasagnaVersion: "v0.1.0", Platform: "linux/arm64", Go: "go1.26.8"},
			Components: map[string]Component{
				"bm25":   {Paper: "Robertson and Zaragoza 2009", ClaimedMetrics: map[string]float64{"ndcg@10": 0.6789}},
				"hybrid": {},
			},
			Determinism: SeededPerTask,
			StatsSeed:   testSeed,
		},
		Configs: []Config{{Name: "full", Benchmark: hf.Benchmark, HeldFixed: hf,
			VariedDimensions: []string{"generator", "temperature"}, VariedLevels: map[string]string{"generator": "gpt-4o-mini", "temperature": "0"}}},
		Results: []Result{mustAggregate(t, Result{BenchmarkName: hf.Benchmark, ConfigName: "full", Metrics: map[string]float64{}, PerSampleScores: rows})},
	}
	bun.Integrity.Add(lasagna.Finding{Code: lasagna.PooledGoldCorpus, Where: hf.Benchmark})
	bun.Integrity.Add(lasagna.Finding{Code: lasagna.SingleRun, Where: where, Detail: "1 repeat of a sampled generator"})
	bun.Integrity.Add(lasagna.Finding{Code: lasagna.PipelineErrors, Where: where + "/3", Detail: "generator: 429 too many requests after 3 retries"})
	bun.Integrity.Add(lasagna.Finding{Code: lasagna.JudgeErrors, Where: where + "/2", Detail: "judge: unparseable verdict \"maybe\""})
	if f, ok := findings.SmallSample(where, 3); ok {
		bun.Integrity.Add(f)
	}
	return bun
}

// minimalBundle has only the required fields.
func minimalBundle(testing.TB) *Bundle {
	hf := HeldFixed{MetricsVersion: MetricsVersion, Benchmark: "squad-dev@fedcba987654", NSamples: 0, SamplingSeed: 42,
		ResolvedMode: lasagna.ModeClosedBook, CorpusProvenance: provenanceNone}
	return &Bundle{
		Experiment: Experiment{Environment: CurrentEnvironmentFixed(), Determinism: SeededGlobalConcurrent},
		Configs:    []Config{{Name: "closed", Benchmark: hf.Benchmark, HeldFixed: hf}},
		Results:    []Result{{BenchmarkName: hf.Benchmark, ConfigName: "closed", Metrics: map[string]float64{"exact_match": 0.25}}},
	}
}

// CurrentEnvironmentFixed is an environment that does not change with the
// machine, for goldens.
func CurrentEnvironmentFixed() Environment {
	return Environment{LasagnaVersion: "dev", Platform: "linux/amd64", Go: "go1.26.8"}
}

var goldens = map[string]func(testing.TB) *Bundle{
	"retrieval.json": retrievalBundle,
	"rag.json":       ragBundle,
	"minimal.json":   minimalBundle,
}

// encode writes b through Write.
func encode(t testing.TB, b *Bundle) []byte {
	t.Helper()
	var sb strings.Builder
	if err := Write(&sb, b); err != nil {
		t.Fatal(err)
	}
	return []byte(sb.String())
}

// edit decodes raw, applies f to the generic value and re-encodes it.
func edit(t testing.TB, raw []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// obj and arr walk generic JSON values.
func obj(v any, key string) map[string]any { return v.(map[string]any)[key].(map[string]any) }
func arr(v any, key string) []any          { return v.(map[string]any)[key].([]any) }

// rehash recomputes every hash of the generic bundle m over its content
// as it is (a careful tamperer, or a later 1.y writer).
func rehash(t testing.TB, m map[string]any) {
	t.Helper()
	for _, c := range arr(m, "configs") {
		hf, err := json.Marshal(c.(map[string]any)["held_fixed"])
		if err != nil {
			t.Fatal(err)
		}
		key, err := hashJSON(hf)
		if err != nil {
			t.Fatal(err)
		}
		c.(map[string]any)["comparability_key"] = key
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	id, err := RunIDOf(raw)
	if err != nil {
		t.Fatal(err)
	}
	m["run_id"] = id
}

func codes(r Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, string(p.Code))
	}
	return out
}

func problemLines(r Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString("\n  " + p.String())
	}
	return b.String()
}

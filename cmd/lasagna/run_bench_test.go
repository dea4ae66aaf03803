package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// fakeEmbedder gives the test a fresh response cache and points the CLI at
// a fake OpenAI server that takes the key "test-key" (closed when the test
// ends), so dense arms with embedder toy-embed run offline.
func fakeEmbedder(t *testing.T) *fixtures.FakeOpenAI {
	t.Helper()
	return useFakeOpenAI(t, fixtures.FakeOpenAIOptions{APIKey: "test-key"})
}

// useFakeOpenAI starts a fake OpenAI-compatible server with opts, points
// the CLI at it (OPENAI_BASE_URL, OPENAI_API_KEY test-key) with a fresh
// cache, and stops it when the test ends.
func useFakeOpenAI(t *testing.T, opts fixtures.FakeOpenAIOptions) *fixtures.FakeOpenAI {
	t.Helper()
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	srv := fixtures.NewFakeOpenAI(opts)
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	return srv
}

// faqDir returns a temporary directory holding a copy of
// examples/data/faq.jsonl, for sweeps that name it as faq.jsonl.
func faqDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../../examples/data/faq.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "faq.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBenchmarkRunSpeedProfile(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.json")
	runFile := filepath.Join(dir, "run.trec")
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "speed", "-o", bundle, "--run-out", runFile)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"local/faq@", "bm25", "ndcg@10", "95% CI", "bundle: " + bundle, "run file: " + runFile, "warning: POOLED_GOLD_CORPUS",
		"index: bm25 on local/faq@"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	raw, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if r := results.Validate(raw); r.Blocking() > 0 {
		t.Errorf("the written bundle does not validate: %v", r.Problems)
	}
	b, err := results.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The printed corpus statistics are the bundle's.
	cs := b.Configs[0].CorpusStats
	if cs == nil || cs.Documents == 0 || cs.UniqueTerms == 0 || cs.TotalTerms < cs.UniqueTerms ||
		!strings.Contains(out, fmt.Sprintf(": %d documents, %d unique terms, %d total terms\n", cs.Documents, cs.UniqueTerms, cs.TotalTerms)) {
		t.Errorf("corpus_stats %+v not printed as such:\n%s", cs, out)
	}
	run, err := datasets.ReadRun(os.DirFS(dir), "run.trec")
	if err != nil {
		t.Fatal(err)
	}
	// The run file holds the bundle's ranked lists, at depth top_k.
	for _, row := range b.Results[0].PerSampleScores {
		if got := len(run.Hits[row.QueryID]); got != len(row.RetrievedIDs) || got == 0 || got > 100 {
			t.Errorf("%s: run file has %d hits, bundle %d", row.QueryID, got, len(row.RetrievedIDs))
		}
	}

	// The same command again, resumed: every query is restored.
	out, _, code = runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "-o", bundle+"2", "--resume")
	if code != 0 || !strings.Contains(out, "resumed") {
		t.Fatalf("resume: exit %d\n%s", code, out)
	}
	raw2, _ := os.ReadFile(bundle + "2")
	if !bytes.Equal(raw, raw2) {
		t.Error("a fully resumed run wrote a different bundle")
	}
}

func TestBenchmarkRunHybridProfileOnFakeServer(t *testing.T) {
	srv := fakeEmbedder(t)
	bundle := filepath.Join(t.TempDir(), "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "hybrid", "--embedding-model", "toy-embed", "-o", bundle)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	hf := b.Configs[0].HeldFixed
	if hf.EmbedderModel == nil || *hf.EmbedderModel != "toy-embed" || hf.EmbedderDim == nil || *hf.EmbedderDim != fixtures.DefaultEmbeddingDim {
		t.Errorf("held_fixed embedder = %v / %v", hf.EmbedderModel, hf.EmbedderDim)
	}
	if b.Results[0].Metrics["ndcg@10"] < 0.5 {
		t.Errorf("hybrid ndcg@10 = %v on an easy pooled corpus", b.Results[0].Metrics["ndcg@10"])
	}
	calls := srv.Count("embeddings")
	// A rerun is answered from the response cache: no request at all.
	if _, _, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "hybrid", "--embedding-model", "toy-embed", "-o", bundle+"2"); code != 0 {
		t.Fatal("rerun failed")
	}
	if got := srv.Count("embeddings"); got != calls {
		t.Errorf("the rerun made %d new embedding requests, want 0", got-calls)
	}
}

func TestBenchmarkRunSweepAndErrors(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	for _, v := range []string{"CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "CI_NODE_INDEX", "CI_NODE_TOTAL"} {
		t.Setenv(v, "") // --shard ci on a machine that is no CI runner's parallel job
	}
	dir := t.TempDir()
	data, err := os.ReadFile("../../examples/data/faq.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "faq.jsonl"), data, 0o644)
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte(`benchmarks:
  - {path: data/faq.jsonl, n_samples: 10}
arms:
  - {name: stem, retriever: bm25}
  - {name: nostem, retriever: bm25, bm25: {stemming: false}, varied: [bm25_stemming]}
`), 0o644)
	bundle := filepath.Join(dir, "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle, "--top-k", "10")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Configs) != 2 || b.Configs[0].ComparabilityKey != b.Configs[1].ComparabilityKey {
		t.Errorf("arms differing only in a declared dimension must share a comparability key: %+v", b.Configs)
	}
	if n := len(b.Results[0].PerSampleScores); n != 10 {
		t.Errorf("n_samples 10 ran %d queries", n)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"benchmark", "run"}, 2, "want 1 argument"},
		{[]string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "sped"}, 2, `did you mean "speed"?`},
		{[]string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "dense"}, 2, "variables read: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME"},
		{[]string{"benchmark", "run", "../../examples/data/faq.jsonl", "--shard", "3/2"}, 2, "not i/n"},
		{[]string{"benchmark", "run", "../../examples/data/faq.jsonl", "--shard", "ci"}, 2, "--shard: ci: no CI runner's parallel-job variables are set"},
		{[]string{"benchmark", "run", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
		{[]string{"benchmark", "run", sweep, "--profile", "speed"}, 2, "apply to a dataset path"},
	} {
		out, errOut, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
}

// TestBenchmarkRunShippedBEIRExample runs the shipped BEIR-layout example:
// a real corpus (gold passages and hard negatives), so no pooled-corpus
// warning and a clean validation.
func TestBenchmarkRunShippedBEIRExample(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	bundle := filepath.Join(t.TempDir(), "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/glasscoins", "-o", bundle)
	if code != 0 || strings.Contains(out, "POOLED_GOLD_CORPUS") || !strings.Contains(out, "local/glasscoins@") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	raw, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if r := results.Validate(raw); !r.OK(true) {
		t.Errorf("the bundle does not validate strictly: %v", r.Problems)
	}
	b, _ := results.Unmarshal(raw)
	if hf := b.Configs[0].HeldFixed; hf.CorpusProvenance != "native" || hf.Split != "test" {
		t.Errorf("held_fixed provenance %q split %q", hf.CorpusProvenance, hf.Split)
	}
	if got := b.Results[0].MetricStats["ndcg@10"].N; got != 44 {
		t.Errorf("ndcg@10 over %d queries, want 44", got)
	}
}

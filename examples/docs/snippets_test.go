package docs_test

// The Go snippets of docs/ that are fragments, each inside a function so
// that the build compiles them; TestDocsGoSnippets (repository root) checks
// that every Go block of the docs is a piece of a Go file, and these
// functions are never run (they would call a real LLM or a server).

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/datasets/synth"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalllm"
	"github.com/lasagna-go/lasagna/evaltest/evalregistry"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
)

// What the snippets take as given: the user's own system.
var (
	mine        lasagna.Retriever
	myGenerator lasagna.Generator
	arms        []evaltest.Arm
	store       interface {
		Search(ctx context.Context, text string, k int) []chunkHit
	}
)

type chunkHit struct {
	ID, File string
	Score    float64
	Page     int
}

func search(ctx context.Context, text string, k int) ([]lasagna.Hit, error) {
	return nil, nil
}

// docs/evaltest.md, "Answers and the LLM judge".
func judgeSnippet(t *testing.T) {
	client := evalllm.Client(t) // package evaltest/evalllm; skips the test unless LASAGNA_LIVE=1 and a key are set
	j := evalllm.Judge(t, client, judge.Config{Model: "gpt-4o-2024-08-06"})
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"testdata/faq.jsonl"},
		Repeats:    3, Pass: evaltest.Majority(),
		Arms: []evaltest.Arm{{Name: "rag", Retriever: mine, Generator: myGenerator, Judge: j}},
	})
}

// docs/evaltest.md, "Bundles and reporters".
func htmlReportSnippet(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"testdata/faq.jsonl"},
		Arms:       arms,
		Reporters:  []reporters.Reporter{htmlreport.Reporter{}},
	})
}

// docs/llm.md, "In Go".
func llmSnippet(ctx context.Context) error {
	client, err := llm.New(llm.Config{BaseURL: "http://localhost:8000/v1", APIKey: "local", Model: "my-model", CacheDir: ".lasagna-cache"})
	if err != nil {
		return err
	}
	resp, err := client.Chat(ctx, llm.ChatRequest{
		System:   "You grade answers. Reply with JSON.",
		Messages: []llm.Message{{Role: "user", Content: "Q: the capital of France? A: Paris"}},
		JSON:     true,
		Stage:    llm.StageJudge,
	})
	fmt.Println(resp.Content, resp.Model, resp.Cached)
	fmt.Printf("%+v\n", client.Usage().Snapshot())
	return err
}

// docs/llm.md, "Testing without a network".
func fakeServerSnippet(cacheDir string) llm.Config {
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{
		Answers:    map[string]string{"capital of France": `{"correct": true}`},
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"},
	})
	defer srv.Close()
	srv.Inject(fixtures.Fault{Status: 429, RetryAfterMs: "10"})
	cfg := llm.Config{BaseURL: srv.URL, APIKey: "sk-fake", Model: "gpt-4o", CacheDir: cacheDir}
	return cfg
}

// docs/metrics.md, "Vecta set metrics".
func vectaSnippet(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"testdata/drugs.csv"}, // id,question,answer,chunk_ids,page_nums,source_paths
		Arms: []evaltest.Arm{{Name: "mine", OwnIndex: true, Retriever: lasagna.RetrieverFunc(
			func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
				var hits []lasagna.Hit
				for _, c := range store.Search(ctx, q.Text, k) {
					hits = append(hits, lasagna.Hit{ID: c.ID, Score: c.Score,
						Cite: &lasagna.Citation{ChunkID: c.ID, PageNum: &c.Page, SourcePath: c.File}})
				}
				return hits, nil
			})}},
		Thresholds: []evaltest.Threshold{evaltest.AtLeast("document_recall", 0.9)},
	})
}

// docs/registry.md, "From Go".
func registrySnippet(t *testing.T) {
	data, err := evalregistry.Load(t.Context(), "registry:faq") // or "registry:faq@ea3e86b12545"
	if err != nil {
		t.Fatal(err)
	}
	evaltest.Run(t, evaltest.Config{Data: data, Arms: []evaltest.Arm{evaltest.BM25()}})
}

// docs/retrieval.md, "Your own index".
func productionIndexSnippet(t *testing.T) {
	prod := lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		return search(ctx, q.Text, k) // your production index: ids of testdata/corpus.jsonl, and others
	})
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"testdata/faq.jsonl"},
		Corpora:    map[string]string{"testdata/faq.jsonl": "testdata/corpus.jsonl"},
		Arms: []evaltest.Arm{
			{Name: "prod", Retriever: prod, OwnIndex: true,
				Thresholds: []evaltest.Threshold{evaltest.AtLeast("ndcg@10", 0.6)}},
			evaltest.BM25(), // indexes testdata/corpus.jsonl: an unknown id would block
		},
	})
}

// docs/evaltest.md, benchmarks loaded with package datasets.
func datasetsDataSnippet(t *testing.T) {
	b, err := datasets.Load(os.DirFS("testdata"), "faq.jsonl", datasets.Options{
		Corpus:   "corpus.jsonl",                  // expected_docs name its documents
		Filters:  map[string]any{"topic": "fees"}, // as a sweep's filters:
		NSamples: 20,                              // seed 42 unless Seed is set
	})
	if err != nil {
		t.Fatal(err) // invalid data: every problem as file:line: message; fix
	}
	evaltest.Run(t, evaltest.Config{Data: []*lasagna.Benchmark{b}, Arms: arms})
}

// docs/data.md, "From Go: package datasets".
func datasetsSnippet() error {
	fsys := os.DirFS("testdata")
	b, err := datasets.Load(fsys, "faq.jsonl", datasets.Options{}) // or faq.csv, a BEIR folder, a Vecta CSV
	if err != nil {
		return err // datasets.Problems: every problem, with file, line, field and fix
	}
	fmt.Println(b.Name) // "local/faq@<12 hex>", as validate-data prints it

	r, err := datasets.Check(fsys, "beir", datasets.Options{Split: "dev"})
	if err != nil {
		return err // the folder could not be read
	}
	for _, p := range r.Problems { // every problem of every file, in one pass
		fmt.Println(p.File, p.Line, p.Field, p.Message, p.Fix)
	}
	for _, c := range r.Tracks { // retrieval, generation, closed_book: yes, or why not and the fix
		fmt.Println(c.Track, c.Supported, c.Reason, c.Fix)
	}
	return nil
}

// docs/synthesis.md, "From Go: package datasets/synth".
func synthSnippet(ctx context.Context, f io.Writer) error {
	cfg, err := llm.ConfigFromEnv(os.Getenv) // OPENAI_API_KEY, MODEL_NAME, … as the command reads them
	if err != nil {
		return err
	}
	client, err := llm.New(cfg)
	if err != nil {
		return err
	}
	res, err := synth.Synthesize(ctx, client, os.DirFS("docs"), ".", synth.Options{
		N: 200, Mix: "factoid=0.6,multihop=0.3,unanswerable=0.1", Seed: 42,
	})
	if err != nil {
		return err
	}
	// res.Rows: the verified questions; res.Dropped: how many were dropped, by reason;
	// res.Skipped: the files not read, with the reason
	return datasets.WriteJSONL(f, res.Rows) // what --out writes
}

var _ = []any{datasetsDataSnippet, datasetsSnippet, synthSnippet, judgeSnippet, htmlReportSnippet, llmSnippet, fakeServerSnippet, vectaSnippet, registrySnippet, productionIndexSnippet, fmt.Sprint, judge.Config{}, reporters.Func(nil), htmlreport.Reporter{}, evalllm.Client, evalregistry.Load, fixtures.NewFakeOpenAI}

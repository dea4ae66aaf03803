package docs_test

// The Go snippets of docs/ that are fragments, each inside a function so
// that the build compiles them; TestDocsGoSnippets (repository root) checks
// that every Go block of the docs is a piece of a Go file, and these
// functions are never run (they would call a real LLM or a server).

import (
	"context"
	"fmt"
	"testing"

	"github.com/lasagna-go/lasagna"
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

var _ = []any{judgeSnippet, htmlReportSnippet, llmSnippet, fakeServerSnippet, vectaSnippet, registrySnippet, productionIndexSnippet, fmt.Sprint, judge.Config{}, reporters.Func(nil), htmlreport.Reporter{}, evalllm.Client, evalregistry.Load, fixtures.NewFakeOpenAI}

package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// A judge call against a fake OpenAI-compatible server that answers "gpt-4o"
// as a dated snapshot, rate-limits the first request, and a second run served
// from the cache.
func Example() {
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{
		Answers:    map[string]string{"capital of France": `{"correct": true}`},
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"},
	})
	defer srv.Close()
	srv.Inject(fixtures.Fault{Status: 429, RetryAfterMs: "10"})

	cache, _ := os.MkdirTemp("", "llm-example")
	defer os.RemoveAll(cache)
	cfg := llm.Config{BaseURL: srv.URL, APIKey: "sk-fake", Model: "gpt-4o", CacheDir: cache}

	req := llm.ChatRequest{
		System:   "You grade answers. Reply with JSON.",
		Messages: []llm.Message{{Role: "user", Content: "Q: the capital of France? A: Paris"}},
		JSON:     true,
		Stage:    llm.StageJudge,
	}
	for run := 1; run <= 2; run++ {
		client, err := llm.New(cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp, err := client.Chat(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		u := client.Usage().Stage(llm.StageJudge)
		fmt.Printf("run %d: %s from %s, cached %v, HTTP requests %d\n", run, resp.Content, resp.Model, resp.Cached, u.Requests)
	}
	fmt.Println("server saw", srv.Count("chat"), "requests")
	// Output:
	// run 1: {"correct": true} from gpt-4o-2024-08-06, cached false, HTTP requests 2
	// run 2: {"correct": true} from gpt-4o-2024-08-06, cached true, HTTP requests 0
	// server saw 2 requests
}

// Errors carry a kind for errors.Is and a stable code.
func ExampleError() {
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer srv.Close()
	srv.Inject(fixtures.Fault{Status: 500, Times: 3})

	client, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", MaxRetries: 2, MinBackoff: time.Millisecond})
	_, err := client.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	fmt.Println(errors.Is(err, llm.ErrServer), llm.Code(err))
	fmt.Println(err)
	// Output:
	// true server_error
	// llm chat (model m): server error [server_error], HTTP 500 after 3 attempts: The server had an error while processing your request.
}

// ConfigFromEnv is meant for a program's edge; it lists every variable it
// read when the key is missing.
func ExampleConfigFromEnv() {
	_, err := llm.ConfigFromEnv(func(string) string { return "" })
	fmt.Println(err)
	// Output:
	// no API key: set OPENAI_API_KEY (a local OpenAI-compatible server that needs no key accepts any value) or ANTHROPIC_API_KEY (Claude models); variables read: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, LASAGNA_LLM_TIMEOUT, LASAGNA_LLM_RETRIES
}

// Config.SDKOptions take openai-go's own request options: here an Azure
// OpenAI deployment through openai-go's azure package (the deployment is
// the model name), with a header for a company gateway. The key is in
// APIKey too, so that the client redacts it; BaseURL names the endpoint in
// the cache keys.
func ExampleConfig_sdkOptions() {
	endpoint, key := os.Getenv("AZURE_OPENAI_ENDPOINT"), os.Getenv("AZURE_OPENAI_API_KEY")
	client, err := llm.New(llm.Config{
		BaseURL: endpoint,
		APIKey:  key,
		Model:   "gpt-4o",
		SDKOptions: []option.RequestOption{
			azure.WithEndpoint(endpoint, "2024-06-01"),
			azure.WithAPIKey(key),
			option.WithHeader("X-Team", "search"),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Content: "Say hello."}}})
	fmt.Println(resp.Content, err)
}

package llm_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

const antKey = "sk-ant-api03-TESTKEY0123456789"

func anthropicConfig(f *fixtures.FakeOpenAI) llm.Config {
	return llm.Config{
		AnthropicBaseURL: f.URL,
		AnthropicAPIKey:  antKey,
		Model:            "claude-sonnet-4-5",
		MinBackoff:       time.Millisecond,
		MaxBackoff:       5 * time.Millisecond,
		RequestTimeout:   5 * time.Second,
	}
}

// TestAnthropicChat: with only an Anthropic key, a chat call goes to
// Anthropic's OpenAI-compatible endpoint with temperature 0 and the
// required answer cap, and its usage is priced.
func TestAnthropicChat(t *testing.T) {
	f := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{APIKey: antKey,
		ModelNames: map[string]string{"claude-sonnet-4-5": "claude-sonnet-4-5-20250929"}})
	defer f.Close()
	c := newClient(t, anthropicConfig(f))
	req := ask("what is BM25?")
	req.Stage = llm.StageJudge
	resp, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "echo: what is BM25?" || resp.Model != "claude-sonnet-4-5-20250929" || !resp.TemperatureSent {
		t.Errorf("resp %+v", resp)
	}
	r := f.Requests()
	if len(r) != 1 || r[0].Path != "/v1/chat/completions" || r[0].Body["temperature"] == nil || r[0].Body["max_completion_tokens"] == nil ||
		r[0].Body["max_completion_tokens"].(interface{ String() string }).String() != "4096" {
		t.Fatalf("requests %+v", r)
	}
	// A cap the caller sets is sent as is.
	req.MaxTokens = 50
	if _, err := c.Chat(t.Context(), req); err != nil || f.Requests()[1].Body["max_completion_tokens"].(interface{ String() string }).String() != "50" {
		t.Errorf("MaxTokens 50: %v %+v", err, f.Requests()[1].Body)
	}
	su := c.Usage().Snapshot()
	if len(su) != 1 || su[0].Stage != llm.StageJudge || su[0].CostUSD <= 0 || len(su[0].UnpricedModels) != 0 {
		t.Errorf("usage %+v", su)
	}
	// No embeddings at Anthropic: a clear error, no request.
	if _, _, err := c.Embed(t.Context(), []string{"x"}, "text-embedding-3-small"); !errors.Is(err, llm.ErrInvalid) || !strings.Contains(err.Error(), "OPENAI_API_KEY") || len(f.Requests()) != 2 {
		t.Errorf("embed: %v", err)
	}
}

// TestAnthropicBesideOpenAI: with both keys, Claude models go to
// Anthropic and the others (and embeddings) to the OpenAI-compatible
// server; the two are cached apart.
func TestAnthropicBesideOpenAI(t *testing.T) {
	oa := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "sk-test"})
	defer oa.Close()
	an := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{APIKey: antKey})
	defer an.Close()
	cfg := fast(oa)
	cfg.AnthropicAPIKey, cfg.AnthropicBaseURL = antKey, an.URL+"/v1/" // a trailing /v1 is accepted
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	for _, model := range []string{"gpt-4o", "claude-haiku-4-5", "gpt-4o", "claude-haiku-4-5"} {
		req := ask("q")
		req.Model = model
		if _, err := c.Chat(t.Context(), req); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
	}
	if _, _, err := c.Embed(t.Context(), []string{"x"}, ""); err != nil {
		t.Fatal(err)
	}
	if oa.Count("chat") != 1 || an.Count("chat") != 1 || oa.Count("embeddings") != 1 || an.Count("") != 1 {
		t.Errorf("openai saw %d chat %d embeddings, anthropic %d requests", oa.Count("chat"), oa.Count("embeddings"), an.Count(""))
	}
	if !cfg.UsesAnthropic("claude-haiku-4-5") || cfg.UsesAnthropic("gpt-4o") || (llm.Config{}).UsesAnthropic("claude-x") {
		t.Error("UsesAnthropic")
	}
}

// TestAnthropicRetriesAndErrors: Anthropic's 529 overloaded and 429 with
// Retry-After are retried; a wrong key is an ErrAuth, not retried, with
// Anthropic's message and the key redacted.
func TestAnthropicRetriesAndErrors(t *testing.T) {
	f := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{APIKey: "sk-ant-the-right-one", EchoAuthorization: true})
	defer f.Close()
	synctest.Test(t, func(t *testing.T) {
		cfg := anthropicConfig(f)
		cfg.HTTPClient = f.InMemoryClient()
		cfg.AnthropicAPIKey = "sk-ant-the-right-one"
		f.Inject(fixtures.Fault{Status: 529}, fixtures.Fault{Status: 429, RetryAfter: "2"})
		start := time.Now()
		resp, err := newClient(t, cfg).Chat(t.Context(), ask("q"))
		if err != nil || resp.Content != "echo: q" || f.Count("") != 3 || time.Since(start) < 2*time.Second {
			t.Fatalf("resp %+v err %v after %d requests (%s) in %s", resp, err, f.Count(""), statuses(f), time.Since(start))
		}
		f.Reset()
		f.Inject(fixtures.Fault{Status: 529, Times: 10})
		cfg.MaxRetries = 2
		_, err = newClient(t, cfg).Chat(t.Context(), ask("q2"))
		var e *llm.Error
		if !errors.As(err, &e) || !errors.Is(err, llm.ErrServer) || e.Attempts != 3 || e.Status != 529 || !strings.Contains(e.Detail, "Overloaded") {
			t.Fatalf("overloaded: %v", err)
		}
		f.Reset()
		cfg.AnthropicAPIKey = antKey
		_, err = newClient(t, cfg).Chat(t.Context(), ask("q3"))
		if !errors.Is(err, llm.ErrAuth) || f.Count("") != 1 || strings.Contains(err.Error(), antKey) || !strings.Contains(err.Error(), "Bearer "+llm.Redacted) {
			t.Fatalf("auth: %v after %d requests", err, f.Count(""))
		}
	})
}

// TestAnthropicTemperatureRule: a Claude model that refuses temperature is
// retried at once without it and remembered.
func TestAnthropicTemperatureRule(t *testing.T) {
	f := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{RejectTemperature: []string{"claude-opus-9"}})
	defer f.Close()
	cfg := anthropicConfig(f)
	cfg.Model = "claude-opus-9"
	cfg.MaxRetries = -1
	c := newClient(t, cfg)
	resp, err := c.Chat(t.Context(), ask("q1"))
	if err != nil || resp.TemperatureSent || !c.TemperatureRejected("claude-opus-9") {
		t.Fatalf("resp %+v err %v (%s)", resp, err, statuses(f))
	}
	if _, err := c.Chat(t.Context(), ask("q2")); err != nil {
		t.Fatal(err)
	}
	r := f.Requests()
	if len(r) != 3 || r[0].Status != 400 || r[2].HasField("temperature") {
		t.Errorf("requests %s", statuses(f))
	}
}

func TestConfigFromEnvAnthropic(t *testing.T) {
	cfg, err := llm.ConfigFromEnv(envOf(map[string]string{"ANTHROPIC_API_KEY": antKey, "MODEL_NAME": "claude-haiku-4-5"}))
	if err != nil || cfg.AnthropicAPIKey != antKey || cfg.APIKey != "" || !cfg.UsesAnthropic("claude-haiku-4-5") {
		t.Fatalf("cfg %+v err %v", cfg, err)
	}
	_, err = llm.ConfigFromEnv(envOf(nil))
	if !errors.Is(err, llm.ErrMissingKey) {
		t.Fatalf("err %v", err)
	}
	for _, v := range llm.EnvVars() {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not list %s", err, v)
		}
	}
	for _, v := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not list %s", err, v)
		}
	}
	if _, err := llm.ConfigFromEnv(envOf(map[string]string{"ANTHROPIC_API_KEY": antKey, "ANTHROPIC_BASE_URL": "nope"})); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_BASE_URL") {
		t.Errorf("bad base URL: %v", err)
	}
}

// TestAnthropicJSONInFence: the compatible endpoint ignores
// response_format, so a JSON answer Claude wraps in a code fence is
// unwrapped for a JSON call (and only for one).
func TestAnthropicJSONInFence(t *testing.T) {
	reply := "```json\n{\"verdict\": \"correct\"}\n```"
	f := fixtures.NewFakeAnthropic(fixtures.FakeOpenAIOptions{Reply: func(fixtures.ChatCall) string { return reply }})
	defer f.Close()
	c := newClient(t, anthropicConfig(f))
	req := ask("grade")
	req.JSON = true
	for _, tc := range []struct{ reply, want string }{
		{"```json\n{\"verdict\": \"correct\"}\n```", `{"verdict": "correct"}`},
		{"\n```\n{\"a\": 1}\n```\n", `{"a": 1}`},
		{"```python\n{\"a\": 1}\n```", "```python\n{\"a\": 1}\n```"},
		{"Here it is: ```json\n{}\n```", "Here it is: ```json\n{}\n```"},
		{"```json\n[1]\n```", "```json\n[1]\n```"},
	} {
		reply = tc.reply
		req.Messages[0].Content = tc.reply // a distinct request each time
		resp, err := c.Chat(t.Context(), req)
		if err != nil || resp.Content != tc.want {
			t.Errorf("reply %q: content %q err %v, want %q", tc.reply, resp.Content, err, tc.want)
		}
	}
	reply = "```json\n{}\n```"
	plain := ask("prose")
	if resp, err := c.Chat(t.Context(), plain); err != nil || resp.Content != reply {
		t.Errorf("a non-JSON call is left alone: %q %v", resp.Content, err)
	}
}

package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// fast is a Config with tiny backoffs, so retry tests take milliseconds.
func fast(f *fixtures.FakeOpenAI) llm.Config {
	return llm.Config{
		BaseURL:        f.URL,
		APIKey:         "sk-test",
		Model:          "gpt-4o",
		EmbeddingModel: "text-embedding-3-small",
		MinBackoff:     time.Millisecond,
		MaxBackoff:     5 * time.Millisecond,
		RequestTimeout: 5 * time.Second,
	}
}

// inBubble runs test in a testing/synctest bubble with fast(f) talking to
// f in memory (f.InMemoryClient): backoffs, Retry-After waits, timeouts,
// rate limits and Fault.Delay run on the bubble's fake clock and take no
// real time. Create f outside the bubble; its loopback server is real
// network I/O, which would keep the fake clock from advancing.
func inBubble(t *testing.T, f *fixtures.FakeOpenAI, test func(t *testing.T, cfg llm.Config)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		cfg := fast(f)
		cfg.HTTPClient = f.InMemoryClient()
		test(t, cfg)
	})
}

func newClient(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ask(q string) llm.ChatRequest {
	return llm.ChatRequest{System: "answer briefly", Messages: []llm.Message{{Role: "user", Content: q}}}
}

func statuses(f *fixtures.FakeOpenAI) string {
	var s []string
	for _, r := range f.Requests() {
		s = append(s, fmt.Sprint(r.Status))
	}
	return strings.Join(s, ",")
}

func TestChatRequestAndResponse(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "sk-test", ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"}})
	defer f.Close()
	c := newClient(t, fast(f))
	req := ask("what is BM25?")
	req.MaxTokens = 50
	req.JSON = true
	req.Stage = llm.StageJudge
	resp, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "echo: what is BM25?" || resp.Model != "gpt-4o-2024-08-06" || resp.Cached || !resp.TemperatureSent {
		t.Errorf("response %+v", resp)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 5, CompletionTokens: 4, TotalTokens: 9}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	r := f.Requests()
	if len(r) != 1 {
		t.Fatalf("%d requests", len(r))
	}
	b := r[0].Body
	if b["model"] != "gpt-4o" || b["temperature"] != json.Number("0") || b["max_completion_tokens"] != json.Number("50") {
		t.Errorf("body %v", b)
	}
	if rf, _ := b["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", b["response_format"])
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "what is BM25?" {
		t.Errorf("messages %v", msgs)
	}
	su := c.Usage().Stage(llm.StageJudge)
	if su.Calls != 1 || su.Requests != 1 || su.Usage.TotalTokens != 9 || len(su.Models) != 1 || su.Models[0] != "gpt-4o-2024-08-06" {
		t.Errorf("judge usage %+v", su)
	}
	// gpt-4o-2024-08-06 is priced at 2.50 / 10.00 USD per million tokens.
	if want := (5*2.50 + 4*10.00) / 1e6; math.Abs(su.CostUSD-want) > 1e-12 {
		t.Errorf("cost %v, want %v", su.CostUSD, want)
	}
}

func TestRateLimitedThenSuccessHonoursRetryAfter(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	f.Inject(fixtures.Fault{Status: 429, RetryAfter: "1"})
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		cfg.MinBackoff, cfg.MaxBackoff = 20*time.Second, 20*time.Second // backoff alone would be far longer
		c := newClient(t, cfg)
		start := time.Now()
		resp, err := c.Chat(t.Context(), ask("q"))
		elapsed := time.Since(start) // on the bubble's fake clock
		if err != nil {
			t.Fatal(err)
		}
		if resp.Content != "echo: q" || statuses(f) != "429,200" {
			t.Errorf("content %q, statuses %s", resp.Content, statuses(f))
		}
		if elapsed != time.Second {
			t.Errorf("waited %s, want the Retry-After of 1s", elapsed)
		}
		if su := c.Usage().Stage(llm.StageGenerator); su.Requests != 2 || su.Calls != 1 || su.Errors != 0 {
			t.Errorf("usage %+v", su)
		}

		// retry-after-ms is preferred when present.
		f.Inject(fixtures.Fault{Status: 429, RetryAfter: "30", RetryAfterMs: "20"})
		start = time.Now()
		if _, err := c.Chat(t.Context(), ask("q2")); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Errorf("waited %s, want the retry-after-ms of 20ms", d)
		}
	})
}

func TestRateLimitedExhausted(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	f.Inject(fixtures.Fault{Status: 429, Times: 100})
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		cfg.MaxRetries = 2
		c := newClient(t, cfg)
		_, err := c.Chat(t.Context(), ask("q"))
		var e *llm.Error
		if !errors.As(err, &e) || !errors.Is(err, llm.ErrRateLimited) || e.Attempts != 3 || e.Status != 429 || llm.Code(err) != "rate_limited" {
			t.Fatalf("err %v", err)
		}
		if f.Count("chat") != 3 {
			t.Errorf("%d requests, want 3", f.Count("chat"))
		}
		if su := c.Usage().Stage(llm.StageGenerator); su.Errors != 1 || su.Requests != 3 || su.Usage.TotalTokens != 0 {
			t.Errorf("usage %+v", su)
		}

		// A Retry-After longer than MaxRetryWait ends the call at once.
		f.Reset()
		f.Inject(fixtures.Fault{Status: 429, RetryAfter: "3600"})
		cfg.MaxRetryWait = time.Second
		c = newClient(t, cfg)
		start := time.Now()
		_, err = c.Chat(t.Context(), ask("q"))
		if !errors.Is(err, llm.ErrRateLimited) || f.Count("") != 1 || !strings.Contains(err.Error(), "MaxRetryWait") {
			t.Fatalf("err %v after %d requests", err, f.Count(""))
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("waited %s, want no wait", d)
		}
	})
}

func TestServerErrorThenSuccess(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	f.Inject(fixtures.Fault{Status: 500, Times: 2})
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		c := newClient(t, cfg)
		resp, err := c.Chat(t.Context(), ask("q"))
		if err != nil || resp.Content != "echo: q" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if got := statuses(f); got != "500,500,200" {
			t.Errorf("statuses %s", got)
		}

		f.Inject(fixtures.Fault{Status: 503, Times: 100})
		_, err = c.Chat(t.Context(), ask("other"))
		var e *llm.Error
		if !errors.As(err, &e) || !errors.Is(err, llm.ErrServer) || e.Status != 503 || e.Attempts != llm.DefaultMaxRetries+1 {
			t.Fatalf("err %v", err)
		}
		if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "sk-test") {
			t.Errorf("error message leaks the address or key: %v", err)
		}
	})
}

func TestNoRetryOnAuthOrBadRequest(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "right"})
	defer f.Close()
	cfg := fast(f)
	cfg.APIKey = "wrong"
	_, err := newClient(t, cfg).Chat(t.Context(), ask("q"))
	if !errors.Is(err, llm.ErrAuth) || f.Count("") != 1 {
		t.Fatalf("err %v after %d requests", err, f.Count(""))
	}
	f.Reset()
	f.Inject(fixtures.Fault{Status: 404})
	cfg.APIKey = "right"
	_, err = newClient(t, cfg).Chat(t.Context(), ask("q"))
	if !errors.Is(err, llm.ErrBadRequest) || f.Count("") != 1 {
		t.Fatalf("err %v after %d requests", err, f.Count(""))
	}
}

func TestTimeouts(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		cfg.RequestTimeout = 100 * time.Millisecond
		c := newClient(t, cfg)

		f.Inject(fixtures.Fault{Delay: 2 * time.Second})
		resp, err := c.Chat(t.Context(), ask("q"))
		if err != nil || resp.Content != "echo: q" {
			t.Fatalf("slow once then fine: resp %+v err %v", resp, err)
		}
		if f.Count("") != 2 {
			t.Errorf("%d requests, want 2", f.Count(""))
		}

		f.Inject(fixtures.Fault{Delay: 2 * time.Second, Times: 100})
		cfg.MaxRetries = 1
		_, err = newClient(t, cfg).Chat(t.Context(), ask("q2"))
		var e *llm.Error
		if !errors.As(err, &e) || !errors.Is(err, llm.ErrTimeout) || e.Attempts != 2 {
			t.Fatalf("err %v", err)
		}

		// The caller's deadline (the per-run timeout) ends the call, retries or not.
		ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
		defer cancel()
		cfg.RequestTimeout = time.Minute
		start := time.Now()
		_, err = newClient(t, cfg).Chat(ctx, ask("q3"))
		if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 150*time.Millisecond {
			t.Fatalf("err %v after %s, want a timeout after 150ms", err, time.Since(start))
		}
		ctx, cancel = context.WithCancel(t.Context())
		cancel()
		if _, err = newClient(t, cfg).Chat(ctx, ask("q4")); !errors.Is(err, llm.ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v", err)
		}
	})
}

func TestMalformedJSON(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		c := newClient(t, cfg)
		f.Inject(fixtures.Fault{Malformed: true})
		if resp, err := c.Chat(t.Context(), ask("q")); err != nil || resp.Content != "echo: q" {
			t.Fatalf("malformed once then fine: %+v %v", resp, err)
		}
		f.Inject(fixtures.Fault{Malformed: true, Times: 100})
		resp, err := c.Chat(t.Context(), ask("q2"))
		if !errors.Is(err, llm.ErrMalformed) || llm.Code(err) != "malformed_response" || resp != (llm.ChatResponse{}) {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		_, _, err = c.Embed(t.Context(), []string{"x"}, "")
		if !errors.Is(err, llm.ErrMalformed) {
			t.Fatalf("embed err %v", err)
		}
	})
}

// A server answering valid JSON that is not a usable answer.
func TestEmptyAnswersAreErrors(t *testing.T) {
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body.Load().(string)))
	}))
	defer srv.Close()
	c := newClient(t, llm.Config{BaseURL: srv.URL + "/v1", Model: "m", EmbeddingModel: "e", MaxRetries: -1})
	for _, b := range []string{`{}`, `{"choices": []}`, `{"choices": [{"message": {"role": "assistant", "content": null}}]}`, `<html>`} {
		body.Store(b)
		if _, err := c.Chat(t.Context(), ask("q")); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("chat body %s: err %v", b, err)
		}
	}
	for _, b := range []string{`{"data": []}`, `{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}`, `{"data": [{"index": 5, "embedding": [1]}, {"index": 0, "embedding": [1]}]}`, `{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": [1]}]}`} {
		body.Store(b)
		if _, _, err := c.Embed(t.Context(), []string{"a", "b"}, ""); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("embed body %s: err %v", b, err)
		}
	}
}

func TestTemperatureRejectedRetriedWithoutAndRemembered(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{RejectTemperature: []string{"o3-mini"}})
	defer f.Close()
	cfg := fast(f)
	cfg.Model = "o3-mini"
	cfg.MaxRetries = -1 // the temperature retry does not use the retry budget
	c := newClient(t, cfg)
	resp, err := c.Chat(t.Context(), ask("q1"))
	if err != nil || resp.Content != "echo: q1" || resp.TemperatureSent {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if _, err := c.Chat(t.Context(), ask("q2")); err != nil {
		t.Fatal(err)
	}
	r := f.Requests()
	if len(r) != 3 {
		t.Fatalf("%d requests, want 3: %s", len(r), statuses(f))
	}
	if r[0].Status != 400 || !r[0].HasField("temperature") || r[0].Fault != "temperature" {
		t.Errorf("first request %+v", r[0])
	}
	for _, x := range r[1:] {
		if x.Status != 200 || x.HasField("temperature") {
			t.Errorf("later request %+v", x)
		}
	}
	if !c.TemperatureRejected("o3-mini") || c.TemperatureRejected("gpt-4o") {
		t.Error("TemperatureRejected wrong")
	}
	// Other models keep temperature 0.
	req := ask("q3")
	req.Model = "gpt-4o"
	if resp, err := c.Chat(t.Context(), req); err != nil || !resp.TemperatureSent || !f.Requests()[3].HasField("temperature") {
		t.Errorf("gpt-4o: %+v %v", resp, err)
	}
}

func TestConcurrencyCap(t *testing.T) {
	var inflight, peak atomic.Int64
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond) // on the bubble's fake clock
		inflight.Add(-1)
		return "ok"
	}})
	defer f.Close()
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		cfg.MaxConcurrency = 2
		c := newClient(t, cfg)
		start := time.Now()
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				if _, err := c.Chat(t.Context(), ask(fmt.Sprint(i))); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if p := peak.Load(); p != 2 {
			t.Errorf("peak in flight %d, want 2", p)
		}
		// 8 answers of 30ms, 2 at a time.
		if d := time.Since(start); d != 4*30*time.Millisecond {
			t.Errorf("8 calls took %s, want 120ms", d)
		}
	})
}

func TestRequestsPerMinute(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	inBubble(t, f, func(t *testing.T, cfg llm.Config) {
		cfg.RequestsPerMinute = 1200 // 20/s, burst 20
		c := newClient(t, cfg)
		start := time.Now()
		for i := range 30 {
			if _, err := c.Chat(t.Context(), ask(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		// 20 go at once, the other 10 at 20/s: 0.5 s.
		if d := time.Since(start); d < 490*time.Millisecond || d > 510*time.Millisecond {
			t.Errorf("30 requests at 1200/min took %s, want 500ms", d)
		}
	})
}

func TestEmbed(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{EmbeddingDim: 16})
	defer f.Close()
	c := newClient(t, fast(f))
	if c.Model() != "gpt-4o" || c.EmbeddingModel() != "text-embedding-3-small" {
		t.Errorf("models %q %q", c.Model(), c.EmbeddingModel())
	}
	texts := []string{"alpha beta", "gamma", "delta epsilon zeta"}
	vecs, u, err := c.Embed(t.Context(), texts, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		want := fixtures.HashEmbedding(texts[i], 16)
		if fmt.Sprint(v) != fmt.Sprint(want) {
			t.Errorf("vector %d = %v, want %v", i, v, want)
		}
	}
	if u.PromptTokens != 6 {
		t.Errorf("usage %+v", u)
	}
	body := f.Requests()[0].Body
	if body["model"] != "text-embedding-3-small" || body["encoding_format"] != "float" {
		t.Errorf("body %v", body)
	}
	su := c.Usage().Stage(llm.StageEmbedder)
	if su.Calls != 1 || su.Usage.PromptTokens != 6 || math.Abs(su.CostUSD-6*0.02/1e6) > 1e-15 {
		t.Errorf("embedder usage %+v", su)
	}
	if _, _, err := c.Embed(t.Context(), nil, ""); !errors.Is(err, llm.ErrInvalid) {
		t.Errorf("no texts: %v", err)
	}
}

func TestUnknownPriceIsNotGuessed(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	cfg := fast(f)
	cfg.Model = "local-llama"
	c := newClient(t, cfg)
	if _, err := c.Chat(t.Context(), ask("q")); err != nil {
		t.Fatal(err)
	}
	su := c.Usage().Stage(llm.StageGenerator)
	if su.CostUSD != 0 || len(su.UnpricedModels) != 1 || su.UnpricedModels[0] != "local-llama" || su.Usage.TotalTokens == 0 {
		t.Errorf("usage %+v", su)
	}
	cfg.Prices = map[string]llm.Price{"local-llama": {InputPerMTok: 1, OutputPerMTok: 2}}
	c = newClient(t, cfg)
	if _, err := c.Chat(t.Context(), ask("q")); err != nil {
		t.Fatal(err)
	}
	if su := c.Usage().Stage(llm.StageGenerator); su.CostUSD == 0 || len(su.UnpricedModels) != 0 {
		t.Errorf("with a price: %+v", su)
	}
}

func TestInvalidCalls(t *testing.T) {
	c := newClient(t, llm.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if _, err := c.Chat(t.Context(), ask("q")); !errors.Is(err, llm.ErrInvalid) || !strings.Contains(err.Error(), "MODEL_NAME") {
		t.Errorf("no model: %v", err)
	}
	if _, err := c.Chat(t.Context(), llm.ChatRequest{Model: "m"}); !errors.Is(err, llm.ErrInvalid) {
		t.Errorf("no messages: %v", err)
	}
	bad := ask("q")
	bad.Model = "m"
	bad.Messages[0].Role = "tool"
	if _, err := c.Chat(t.Context(), bad); !errors.Is(err, llm.ErrInvalid) || !strings.Contains(err.Error(), `role "tool"`) {
		t.Errorf("bad role: %v", err)
	}
	if _, err := llm.New(llm.Config{BaseURL: "localhost:8000"}); err == nil {
		t.Error("a base URL without scheme was accepted")
	}
	// Nothing listens on port 1: unavailable, retried, then an error.
	c = newClient(t, llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxRetries: 1, MinBackoff: time.Millisecond})
	_, err := c.Chat(t.Context(), ask("q"))
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrUnavailable) || e.Attempts != 2 || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	_, err := llm.ConfigFromEnv(env(map[string]string{"MODEL_NAME": "gpt-4o"}))
	if !errors.Is(err, llm.ErrMissingKey) {
		t.Fatalf("err %v", err)
	}
	for _, v := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "MODEL_NAME"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not list %s", err, v)
		}
	}
	cfg, err := llm.ConfigFromEnv(env(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://localhost:11434/v1", "MODEL_NAME": "llama3"}))
	if err != nil || cfg.APIKey != "k" || cfg.BaseURL != "http://localhost:11434/v1" || cfg.Model != "llama3" {
		t.Errorf("cfg %+v err %v", cfg, err)
	}
	if _, err := llm.ConfigFromEnv(env(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "not a url"})); err == nil || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("bad base URL: %v", err)
	}
}

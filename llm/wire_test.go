package llm_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/lasagna-go/lasagna/llm"
)

// The package sends its two requests through OpenAI's Go SDK, openai-go
// (transport.go), with its own retry policy, cache and redaction around it.
// These tests hold the client to the SDK used directly, as OpenAI's
// documentation uses it: the same call must send the same JSON body (the
// temperature rule and the answer cap included), and the same answer bytes
// must give the same content, model, usage, vectors, error message and
// status, while answers the SDK reads leniently (a number for content) stay
// malformed.

// scripted answers every request with the next of its replies and keeps
// the request bodies.
type scripted struct {
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
	auth    []string
}

type reply struct {
	status int
	body   string
	header map[string]string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	rep := reply{status: 500, body: `{"error":{"message":"no reply scripted"}}`}
	if len(s.replies) > 0 {
		rep, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (s *scripted) script(r ...reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies, s.bodies, s.auth = r, nil, nil
}

// last is the last request's body, with its Authorization header under
// the key "(Authorization header)".
func (s *scripted) last() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := map[string]any{"(Authorization header)": s.auth[len(s.auth)-1]}
	for k, v := range s.bodies[len(s.bodies)-1] {
		b[k] = v
	}
	return b
}

func newScripted(t *testing.T) (*scripted, *httptest.Server) {
	s := &scripted{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func sdkOptions(url string) []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(url + "/"), option.WithAPIKey("sk-wire-test"), option.WithMaxRetries(0)}
}

func wireClient(t *testing.T, url string) *llm.Client {
	return newClient(t, llm.Config{BaseURL: url, APIKey: "sk-wire-test", Model: "gpt-4o", EmbeddingModel: "text-embedding-3-small", MaxRetries: -1})
}

const okChat = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",
 "choices":[{"index":0,"message":{"role":"assistant","content":"Paris","refusal":null},"finish_reason":"stop"}],
 "usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`

// sdkChat is the SDK's form of req, built as the OpenAI documentation
// says to build it, with temperature 0 unless noTemp.
func sdkChat(req llm.ChatRequest, model string, noTemp bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if !noTemp {
		p.Temperature = openai.Float(0)
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.JSON {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	return p
}

func TestWireMatchesOpenAIGo(t *testing.T) {
	s, srv := newScripted(t)
	sdk := openai.NewChatCompletionService(sdkOptions(srv.URL)...)
	emb := openai.NewEmbeddingService(sdkOptions(srv.URL)...)

	t.Run("chat request bodies", func(t *testing.T) {
		reqs := []llm.ChatRequest{
			ask("What is the capital of France?"),
			{Messages: []llm.Message{{Content: "no role means user"}}},
			{System: "be terse", Messages: []llm.Message{{Role: "user", Content: "q1"}, {Role: "assistant", Content: "a1"}, {Role: "system", Content: "mid"}, {Role: "user", Content: "q2 \"quoted\" <b>&</b> é\n"}}, MaxTokens: 256, JSON: true},
			{Messages: []llm.Message{{Content: ""}}, MaxTokens: 1},
		}
		for i, req := range reqs {
			c := wireClient(t, srv.URL)
			s.script(reply{status: 200, body: okChat})
			if _, err := c.Chat(t.Context(), req); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			ours := s.last()
			s.script(reply{status: 200, body: okChat})
			if _, err := sdk.New(t.Context(), sdkChat(req, "gpt-4o", false)); err != nil {
				t.Fatalf("request %d through openai-go: %v", i, err)
			}
			if d := cmp.Diff(s.last(), ours); d != "" {
				t.Errorf("request %d: body differs from openai-go's (-sdk +ours):\n%s", i, d)
			}
		}
	})

	t.Run("chat without temperature", func(t *testing.T) {
		c := wireClient(t, srv.URL)
		rejected := reply{status: 400, body: `{"error":{"message":"Unsupported parameter: 'temperature' is not supported with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`}
		s.script(rejected, reply{status: 200, body: okChat})
		if _, err := c.Chat(t.Context(), llm.ChatRequest{Model: "o3-mini", Messages: []llm.Message{{Content: "q"}}}); err != nil {
			t.Fatal(err)
		}
		ours := s.last()
		s.script(reply{status: 200, body: okChat})
		if _, err := sdk.New(t.Context(), sdkChat(llm.ChatRequest{Messages: []llm.Message{{Content: "q"}}}, "o3-mini", true)); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(s.last(), ours); d != "" {
			t.Errorf("body differs from openai-go's (-sdk +ours):\n%s", d)
		}
	})

	t.Run("chat answers", func(t *testing.T) {
		answers := map[string]string{
			"plain":            okChat,
			"empty content":    `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`,
			"no usage":         `{"model":"m","choices":[{"message":{"content":"x"}}]}`,
			"no model":         `{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
			"two choices":      `{"model":"m","choices":[{"message":{"content":"first"}},{"message":{"content":"second"}}]}`,
			"unicode, escapes": `{"model":"m","choices":[{"message":{"content":"caf\u00e9 \"q\" \ud83d\ude00\n"}}]}`,
			"extra fields":     `{"model":"m","system_fingerprint":"fp","service_tier":"default","choices":[{"message":{"content":"x","annotations":[],"audio":null},"logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"prompt_tokens_details":{"cached_tokens":0}}}`,
		}
		for name, body := range answers {
			c := wireClient(t, srv.URL)
			s.script(reply{status: 200, body: body})
			got, err := c.Chat(t.Context(), ask("q"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s.script(reply{status: 200, body: body})
			ref, err := sdk.New(t.Context(), sdkChat(ask("q"), "gpt-4o", false))
			if err != nil {
				t.Fatalf("%s through openai-go: %v", name, err)
			}
			want := llm.Usage{PromptTokens: ref.Usage.PromptTokens, CompletionTokens: ref.Usage.CompletionTokens, TotalTokens: ref.Usage.TotalTokens}
			wantModel := ref.Model
			if wantModel == "" {
				wantModel = "gpt-4o" // the model asked for, when the server names none
			}
			if got.Content != ref.Choices[0].Message.Content || got.Model != wantModel || got.Usage != want {
				t.Errorf("%s: got %q %q %+v, openai-go read %q %q %+v", name, got.Content, got.Model, got.Usage, ref.Choices[0].Message.Content, wantModel, want)
			}
		}
	})

	t.Run("no content", func(t *testing.T) {
		// A null content (a refusal) is no answer in both readings.
		for _, body := range []string{
			`{"model":"m","choices":[{"message":{"content":null,"refusal":"I can't help with that."}}]}`,
			`{"model":"m","choices":[{"message":{"role":"assistant"}}]}`,
		} {
			c := wireClient(t, srv.URL)
			s.script(reply{status: 200, body: body})
			_, err := c.Chat(t.Context(), ask("q"))
			s.script(reply{status: 200, body: body})
			ref, rerr := sdk.New(t.Context(), sdkChat(ask("q"), "gpt-4o", false))
			if rerr != nil || ref.Choices[0].Message.JSON.Content.Valid() {
				t.Fatalf("openai-go read content from %s: %v", body, rerr)
			}
			if !errors.Is(err, llm.ErrMalformed) {
				t.Errorf("%s: err %v, want ErrMalformed", body, err)
			}
			if r := ref.Choices[0].Message.Refusal; r != "" && !strings.Contains(err.Error(), r) {
				t.Errorf("the error %q does not carry the refusal %q", err, r)
			}
		}
	})

	t.Run("error answers", func(t *testing.T) {
		bodies := []reply{
			{status: 400, body: `{"error":{"message":"Invalid 'messages': empty array.","type":"invalid_request_error","param":"messages","code":"empty_array"}}`},
			{status: 401, body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			{status: 404, body: `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`},
			{status: 429, body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
			{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be at most 8192"}}`}, // Anthropic's form
		}
		for _, rep := range bodies {
			c := wireClient(t, srv.URL)
			s.script(rep)
			_, err := c.Chat(t.Context(), ask("q"))
			var ours *llm.Error
			if !errors.As(err, &ours) {
				t.Fatalf("%s: %v is not an *llm.Error", rep.body, err)
			}
			s.script(rep)
			_, rerr := sdk.New(t.Context(), sdkChat(ask("q"), "gpt-4o", false))
			var ref *openai.Error
			if !errors.As(rerr, &ref) {
				t.Fatalf("%s: openai-go's %v is not an *openai.Error", rep.body, rerr)
			}
			if ours.Status != ref.StatusCode || ours.Detail != ref.Message {
				t.Errorf("%s: ours %d %q, openai-go %d %q", rep.body, ours.Status, ours.Detail, ref.StatusCode, ref.Message)
			}
		}
	})

	t.Run("embeddings", func(t *testing.T) {
		texts := []string{"first", "second text", "é\n\"third\""}
		answer := `{"object":"list","model":"text-embedding-3-small","data":[
		 {"object":"embedding","index":2,"embedding":[0.5,-1e-3,3.4028234663852886e38]},
		 {"object":"embedding","index":0,"embedding":[0.1,0.2,0.30000000000000004]},
		 {"object":"embedding","index":1,"embedding":[-0.0078125,1,0]}],
		 "usage":{"prompt_tokens":9,"total_tokens":9}}`
		c := wireClient(t, srv.URL)
		s.script(reply{status: 200, body: answer})
		vecs, usage, err := c.Embed(t.Context(), texts, "")
		if err != nil {
			t.Fatal(err)
		}
		ours := s.last()
		s.script(reply{status: 200, body: answer})
		ref, err := emb.New(t.Context(), openai.EmbeddingNewParams{
			Model:          openai.EmbeddingModel("text-embedding-3-small"),
			Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
			EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
		})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(s.last(), ours); d != "" {
			t.Errorf("body differs from openai-go's (-sdk +ours):\n%s", d)
		}
		want := make([][]float32, len(texts))
		for _, d := range ref.Data {
			for _, x := range d.Embedding {
				want[d.Index] = append(want[d.Index], float32(x))
			}
		}
		if d := cmp.Diff(want, vecs); d != "" {
			t.Errorf("vectors differ from openai-go's reading (-sdk +ours):\n%s", d)
		}
		if usage.PromptTokens != ref.Usage.PromptTokens || usage.TotalTokens != ref.Usage.TotalTokens {
			t.Errorf("usage %+v, openai-go read %+v", usage, ref.Usage)
		}
	})
}

// Answers neither reading can use are errors, retried as malformed, and
// an error body that is not JSON is shown as its text.
func TestWireUnusableAnswers(t *testing.T) {
	s, srv := newScripted(t)
	for name, rep := range map[string]reply{
		"truncated":       {status: 200, body: `{"model":"m","choices":[{"message":{"content":"Par`},
		"not JSON":        {status: 200, body: `<html>gateway</html>`},
		"wrong type":      {status: 200, body: `{"model":"m","choices":[{"message":{"content":42}}]}`},
		"empty body":      {status: 200, body: ``},
		"no choices":      {status: 200, body: `{"model":"m","choices":[]}`},
		"choices is null": {status: 200, body: `{"model":"m","choices":null}`},
	} {
		c := wireClient(t, srv.URL)
		s.script(rep)
		_, err := c.Chat(t.Context(), ask("q"))
		if !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	for name, tc := range map[string]struct {
		rep    reply
		detail string
		kind   error
	}{
		"text body":       {reply{status: 502, body: "upstream connect error\n"}, "upstream connect error", llm.ErrServer},
		"empty body":      {reply{status: 503, body: ""}, "Service Unavailable", llm.ErrServer},
		"string error":    {reply{status: 400, body: `{"error":"model \"llama9\" not found, try pulling it first"}`}, `model "llama9" not found, try pulling it first`, llm.ErrBadRequest},
		"message only":    {reply{status: 403, body: `{"message":"Forbidden"}`}, "Forbidden", llm.ErrAuth},
		"long HTML error": {reply{status: 500, body: "<html>" + strings.Repeat("x", 5000) + "</html>"}, "<html>xxx", llm.ErrServer},
	} {
		c := wireClient(t, srv.URL)
		s.script(tc.rep)
		_, err := c.Chat(t.Context(), ask("q"))
		var e *llm.Error
		if !errors.As(err, &e) || !errors.Is(err, tc.kind) || !strings.HasPrefix(e.Detail, tc.detail) || len(e.Detail) > 320 {
			t.Errorf("%s: err %v (detail %q), want %v with detail %q", name, err, e.Detail, tc.kind, tc.detail)
		}
	}
}

package llm_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/lasagna-go/lasagna/llm"
)

// seen is one request as a server received it.
type seen struct {
	path, query, auth, apiKey, gateway string
}

// recorder answers every request with status and body and keeps what it
// saw.
type recorder struct {
	mu     sync.Mutex
	status int
	body   string
	reqs   []seen
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, seen{req.URL.Path, req.URL.RawQuery, req.Header.Get("Authorization"), req.Header.Get("Api-Key"), req.Header.Get("X-Gateway")})
	status, body := r.status, r.body
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (r *recorder) seen() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}

func newRecorder(t *testing.T, status int, body string) (*recorder, *httptest.Server) {
	r := &recorder{status: status, body: body}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv
}

const okEmbed = `{"object":"list","model":"text-embedding-3-small","data":[{"object":"embedding","index":0,"embedding":[0.5,1]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`

// TestSDKOptions: a user's openai-go options apply to every request after
// the client's own: they can move the base URL, add headers and query
// parameters and replace the key, but not turn the SDK's retries back on.
func TestSDKOptions(t *testing.T) {
	r, srv := newRecorder(t, 200, okChat)
	c := newClient(t, llm.Config{
		BaseURL: "http://127.0.0.1:1/v1", // overridden below: nothing listens here
		APIKey:  "sk-config-key-0000",
		Model:   "gpt-4o",
		SDKOptions: []option.RequestOption{
			option.WithBaseURL(srv.URL + "/gateway/v1"),
			option.WithHeader("X-Gateway", "team-a"),
			option.WithQuery("route", "eu"),
			option.WithAPIKey("sk-gateway-key-0000"),
			option.WithMaxRetries(5),
		},
		MaxRetries: -1,
	})
	resp, err := c.Chat(t.Context(), ask("q"))
	if err != nil || resp.Content != "Paris" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	got := r.seen()
	want := seen{"/gateway/v1/chat/completions", "route=eu", "Bearer sk-gateway-key-0000", "", "team-a"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("requests %+v, want [%+v]", got, want)
	}

	// The SDK's own retries stay off whatever the options say: one
	// request for a 503 when the client's policy allows no retry.
	r.mu.Lock()
	r.status, r.body = 503, `{"error":{"message":"overloaded"}}`
	r.mu.Unlock()
	_, err = c.Chat(t.Context(), ask("q2"))
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrServer) || e.Attempts != 1 || len(r.seen()) != 2 {
		t.Fatalf("err %v after %d requests, want one", err, len(r.seen())-1)
	}
}

// TestSDKOptionsAzure: an Azure OpenAI deployment through openai-go's
// azure package: the deployment path, the api-version query and the
// Api-Key header replace OpenAI's bearer key, for chat and embeddings; a
// key Azure echoes back is redacted because it is Config.APIKey too.
func TestSDKOptionsAzure(t *testing.T) {
	const azureKey = "azure-key-0123456789abcdef"
	r, srv := newRecorder(t, 200, okChat)
	cfg := llm.Config{
		BaseURL:        srv.URL,  // the cache keys' endpoint; azure.WithEndpoint wins
		APIKey:         azureKey, // for redaction; azure.WithAPIKey sends it
		Model:          "gpt-4o",
		EmbeddingModel: "text-embedding-3-small",
		MaxRetries:     -1,
		SDKOptions: []option.RequestOption{
			azure.WithEndpoint(srv.URL, "2024-06-01"),
			azure.WithAPIKey(azureKey),
			azure.WithUnsafeAllowHTTP(), // the test server is plain HTTP on loopback
		},
	}
	c := newClient(t, cfg)
	if _, err := c.Chat(t.Context(), ask("q")); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.body = okEmbed
	r.mu.Unlock()
	if _, _, err := c.Embed(t.Context(), []string{"x"}, ""); err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{"/openai/deployments/gpt-4o/chat/completions", "api-version=2024-06-01", "", azureKey, ""},
		{"/openai/deployments/text-embedding-3-small/embeddings", "api-version=2024-06-01", "", azureKey, ""},
	}
	if got := r.seen(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("requests %+v, want %+v", got, want)
	}

	r.mu.Lock()
	r.status, r.body = 401, `{"error":{"code":"401","message":"Access denied due to invalid subscription key `+azureKey+`."}}`
	r.mu.Unlock()
	_, err := c.Chat(t.Context(), ask("q2"))
	if !errors.Is(err, llm.ErrAuth) || strings.Contains(err.Error(), azureKey) || !strings.Contains(err.Error(), llm.Redacted) {
		t.Fatalf("err %v, want ErrAuth with the key redacted", err)
	}
}

// TestSDKOptionsThatCannotApply: an SDK option that fails before any
// request is an ErrInvalid error, not retried, with nothing sent.
func TestSDKOptionsThatCannotApply(t *testing.T) {
	r, srv := newRecorder(t, 200, okChat)
	c := newClient(t, llm.Config{BaseURL: srv.URL, APIKey: "sk-some-key-0000", Model: "gpt-4o",
		SDKOptions: []option.RequestOption{azure.WithAPIKey("sk-some-key-0000")}}) // no azure.WithEndpoint
	_, err := c.Chat(t.Context(), ask("q"))
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrInvalid) || e.Attempts != 0 || len(r.seen()) != 0 {
		t.Fatalf("err %v after %d requests", err, len(r.seen()))
	}
	if !strings.Contains(err.Error(), "SDKOptions") || e.Err == nil || !strings.Contains(e.Err.Error(), "azure") {
		t.Errorf("the error %v (cause %v) does not say which option", err, e.Err)
	}
	if su := c.Usage().Stage(llm.StageGenerator); su.Requests != 0 || su.Errors != 1 {
		t.Errorf("usage %+v, want one failed call and no request", su)
	}
}

// TestAnthropicSDKOptions: AnthropicSDKOptions apply to the calls that go
// to Anthropic, and SDKOptions do not.
func TestAnthropicSDKOptions(t *testing.T) {
	r, srv := newRecorder(t, 200, okChat)
	c := newClient(t, llm.Config{AnthropicAPIKey: antKey, AnthropicBaseURL: srv.URL, Model: "claude-haiku-4-5", MaxRetries: -1,
		SDKOptions:          []option.RequestOption{option.WithHeader("X-Gateway", "openai-side")},
		AnthropicSDKOptions: []option.RequestOption{option.WithHeader("X-Gateway", "anthropic-side")}})
	if _, err := c.Chat(t.Context(), ask("q")); err != nil {
		t.Fatal(err)
	}
	if got := r.seen(); len(got) != 1 || got[0].gateway != "anthropic-side" || got[0].auth != "Bearer "+antKey || got[0].path != "/v1/chat/completions" {
		t.Errorf("requests %+v", got)
	}
}

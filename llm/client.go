package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"
)

// Message is one chat message. Role is "user" ("" means "user"),
// "assistant" or "system"; the system prompt usually goes in
// ChatRequest.System. Any other role is an ErrInvalid error.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Call is one call a component would make, planned without making it:
// what a dry run estimates and a cost cap counts (docs/llm.md, "Cost
// before you spend"). generate.Generator.Plan and judge.Judge.Plan
// return them.
type Call struct {
	// Stage is the stage the call is charged to.
	Stage Stage
	Model string
	// Texts are the texts sent: the system prompt and the messages of a
	// chat call, the inputs of an embeddings call (Embed).
	Texts []string
	// MaxTokens is the reply cap of a chat call (0 for embeddings).
	MaxTokens int
	Embed     bool
}

// InputTokens estimates the prompt tokens of the call with the rule the
// client's token rate limit uses: bytes/4 + 1 per text.
func (c Call) InputTokens() int64 {
	var n int64
	for _, t := range c.Texts {
		n += int64(len(t)/4 + 1)
	}
	return n
}

// ChatRequest is one chat completion call.
type ChatRequest struct {
	// System is the system prompt ("" sends none).
	System string
	// Messages are the conversation, at least one.
	Messages []Message
	// Model overrides Config.Model when set.
	Model string
	// MaxTokens caps the answer (sent as max_completion_tokens); 0 sends
	// no cap.
	MaxTokens int
	// JSON asks for a JSON object answer (response_format json_object).
	JSON bool
	// Repeat is the repeat index of a sampled call: calls differing only
	// in Repeat are cached apart, so N repeats make N requests once and
	// none on a rerun.
	Repeat int
	// Stage is the stage the usage is charged to; "" means
	// StageGenerator.
	Stage Stage
	// Validate, when set, checks the answer's content (say, that it parses
	// as the JSON the prompt asked for). An answer it rejects is an
	// ErrMalformed error, is never cached, and a cached answer it rejects
	// counts as a miss, so a rerun asks again instead of replaying it.
	Validate func(content string) error
}

// ChatResponse is the answer to a ChatRequest.
type ChatResponse struct {
	// Content is the assistant message text.
	Content string `json:"content"`
	// Model is the model name the server answered with, which may be a
	// dated snapshot of the alias requested.
	Model string `json:"model"`
	// Usage is the server's token count.
	Usage Usage `json:"usage"`
	// TemperatureSent reports whether temperature 0 was sent (false when
	// the model rejects temperature and none was sent).
	TemperatureSent bool `json:"temperature_sent"`
	// Cached reports whether the answer came from the cache.
	Cached bool `json:"-"`
}

// Client is the one OpenAI-compatible client layer: chat completions and
// embeddings with temperature 0, retries, rate limiting, a concurrency cap,
// a persistent cache and usage accounting. It is safe for concurrent use.
//
// Every attempt is counted, classified and rate-limited one by one; there
// is no second retry layer underneath.
type Client struct {
	cfg  Config
	base string // normalised base URL, part of cache keys
	api  endpoint
	// anthBase and anth are Anthropic's OpenAI-compatible endpoint, when
	// Config.AnthropicAPIKey is set.
	anthBase string
	anth     endpoint
	cache    *cache
	red      redactor
	sem      chan struct{}
	rpm      *rate.Limiter
	tpm      *rate.Limiter

	mu     sync.Mutex
	noTemp map[string]bool
}

// New returns a client for cfg (see Config for the zero values). It reads
// no environment variable; use ConfigFromEnv at the program's edge.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, noTemp: map[string]bool{}, red: newRedactor(cfg.APIKey, cfg.AnthropicAPIKey)}
	root := defaultOpenAIBaseURL
	if cfg.BaseURL != "" {
		if err := checkBaseURL(cfg.BaseURL); err != nil {
			return nil, fmt.Errorf("llm: %w", err)
		}
		c.base = strings.TrimRight(cfg.BaseURL, "/")
		root = c.base
	} else {
		c.base = "openai"
	}
	c.api = newEndpoint(root, cfg.APIKey, cfg.HTTPClient, cfg.SDKOptions)
	if key := strings.TrimSpace(cfg.AnthropicAPIKey); key != "" {
		root := strings.TrimRight(cfg.AnthropicBaseURL, "/")
		if root == "" {
			root = defaultAnthropicBaseURL
		} else if err := checkBaseURL(root); err != nil {
			return nil, fmt.Errorf("llm: Anthropic: %w", err)
		}
		c.anthBase = strings.TrimSuffix(root, "/v1") + "/v1"
		// The compatible endpoint takes the key as a bearer token, as
		// OpenAI does.
		c.anth = newEndpoint(c.anthBase, key, cfg.HTTPClient, cfg.AnthropicSDKOptions)
	}
	if cfg.CacheDir != "" {
		cache, err := openCache(cfg.CacheDir)
		if err != nil {
			return nil, err
		}
		c.cache = cache
	}
	if cfg.MaxConcurrency > 0 {
		c.sem = make(chan struct{}, cfg.MaxConcurrency)
	}
	if cfg.RequestsPerMinute > 0 {
		burst := max(1, cfg.RequestsPerMinute/60)
		c.rpm = rate.NewLimiter(rate.Limit(float64(cfg.RequestsPerMinute)/60), burst)
	}
	if cfg.TokensPerMinute > 0 {
		c.tpm = rate.NewLimiter(rate.Limit(float64(cfg.TokensPerMinute)/60), cfg.TokensPerMinute)
	}
	return c, nil
}

// Model returns the default chat model (Config.Model).
func (c *Client) Model() string { return c.cfg.Model }

// MaxConcurrency returns the cap on HTTP requests in flight
// (Config.MaxConcurrency); 0 means no cap.
func (c *Client) MaxConcurrency() int { return c.cfg.MaxConcurrency }

// EmbeddingModel returns the default embedding model
// (Config.EmbeddingModel).
func (c *Client) EmbeddingModel() string { return c.cfg.EmbeddingModel }

// Usage returns the client's usage tracker (Config.Tracker when given).
func (c *Client) Usage() *Tracker { return c.cfg.Tracker }

// TemperatureRejected reports whether model rejected temperature on this
// client, so calls to it are sent without one.
func (c *Client) TemperatureRejected(model string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.noTemp[model]
}

// chatKey is the logical request the cache key is computed from.
type chatKey struct {
	System      string    `json:"system"`
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens"`
	JSON        bool      `json:"json"`
	Temperature float64   `json:"temperature"`
}

// Chat sends a chat completion request and returns the answer. It asks for
// temperature 0; when the server rejects temperature for the model, the
// call is retried once without it and the model is remembered, so later
// calls send none. Transient failures are retried (see Config); the error
// of a failed call is an *Error. A successful answer is cached when a cache
// is configured, and an identical later call (same endpoint, model,
// request and Repeat) is answered from it without any request.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	stage := req.Stage
	if stage == "" {
		stage = StageGenerator
	}
	fail := func(e *Error, requests int) (ChatResponse, error) {
		c.cfg.Tracker.record(stage, model, model, Usage{}, false, requests, true, c.cfg.Prices)
		return ChatResponse{}, e
	}
	if model == "" {
		return fail(&Error{Kind: ErrInvalid, Op: "chat", Detail: "no model: set Config.Model (MODEL_NAME) or ChatRequest.Model"}, 0)
	}
	if len(req.Messages) == 0 {
		return fail(&Error{Kind: ErrInvalid, Op: "chat", Model: model, Detail: "no messages"}, 0)
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "", "user", "assistant", "system":
		default:
			return fail(&Error{Kind: ErrInvalid, Op: "chat", Model: model,
				Detail: fmt.Sprintf("message %d has role %q; want user, assistant or system", i, m.Role)}, 0)
		}
	}
	// One code path for both providers: only the endpoint, and
	// Anthropic's required answer cap, differ.
	api, base, maxTokens, anthropic := c.api, c.base, req.MaxTokens, false
	if c.anthBase != "" && c.cfg.UsesAnthropic(model) {
		api, base, anthropic = c.anth, c.anthBase, true
		if maxTokens <= 0 {
			maxTokens = anthropicMaxTokens
		}
	}
	key := ""
	if c.cache != nil {
		var err error
		key, err = cacheKey(base+"/chat/completions", model, chatKey{req.System, req.Messages, req.MaxTokens, req.JSON, 0}, req.Repeat)
		if err != nil {
			return fail(&Error{Kind: ErrInvalid, Op: "chat", Model: model, Err: err}, 0)
		}
		var hit ChatResponse
		if ok, _ := c.cache.Get(key, &hit); ok && (req.Validate == nil || req.Validate(c.red.string(hit.Content)) == nil) {
			// An entry written before redaction existed may hold a key.
			hit.Content, hit.Model = c.red.string(hit.Content), c.red.string(hit.Model)
			hit.Cached = true
			c.cfg.Tracker.record(stage, hit.Model, model, hit.Usage, true, 0, false, c.cfg.Prices)
			return hit, nil
		}
	}

	estimate := 0
	if req.System != "" {
		estimate += len(req.System)/4 + 1
	}
	for _, m := range req.Messages {
		estimate += len(m.Content)/4 + 1
	}
	estimate += maxTokens

	var resp ChatResponse
	attempts, err := c.do(ctx, "chat", model, estimate, func(actx context.Context, httpResp **http.Response) error {
		sendTemp := !c.TemperatureRejected(model)
		out, err := api.chat(actx, chatParams(req, model, maxTokens, sendTemp), httpResp)
		if err != nil {
			return err
		}
		answered := out.model
		if answered == "" {
			answered = model
		}
		// Server text may echo the key; mask it before it is cached,
		// validated or returned.
		content := out.content
		if req.JSON && anthropic {
			// Anthropic's compatible endpoint ignores response_format,
			// and Claude may wrap the object it was asked for in a
			// Markdown code fence; JSON mode's promise is kept here.
			content = unfenceJSON(content)
		}
		resp = ChatResponse{
			Content:         c.red.string(content),
			Model:           c.red.string(answered),
			Usage:           out.usage,
			TemperatureSent: sendTemp,
		}
		return nil
	})
	if err != nil {
		return fail(err, attempts)
	}
	if req.Validate != nil {
		if verr := req.Validate(resp.Content); verr != nil {
			c.cfg.Tracker.record(stage, resp.Model, model, resp.Usage, false, attempts, true, c.cfg.Prices)
			return ChatResponse{}, &Error{Kind: ErrMalformed, Op: "chat", Model: model, Attempts: attempts,
				Detail: "the answer was rejected: " + truncate(c.red.string(verr.Error()), 200)}
		}
	}
	if c.cache != nil {
		// A failed write only costs a future request; the answer is good.
		_ = c.cache.Put(key, resp)
	}
	c.cfg.Tracker.record(stage, resp.Model, model, resp.Usage, false, attempts, false, c.cfg.Prices)
	return resp, nil
}

// embedEntry is the cached form of an embeddings response.
type embedEntry struct {
	Model   string      `json:"model"`
	Vectors [][]float32 `json:"vectors"`
	Usage   Usage       `json:"usage"`
}

// Embed returns one embedding per text, in order, from model (or
// Config.EmbeddingModel when model is ""), in a single request; batching is
// the caller's (see package retrieval/embed). Retries, caching and usage
// (charged to StageEmbedder) work as for Chat. A response with the wrong
// number of vectors, missing indices or an empty vector is an
// ErrMalformed error.
func (c *Client) Embed(ctx context.Context, texts []string, model string) ([][]float32, Usage, error) {
	return c.EmbedFor(ctx, StageEmbedder, texts, model)
}

// EmbedFor is Embed with the usage charged to stage ("" means
// StageEmbedder): the judge's answer_relevancy embeds its questions as
// part of judging, so its embeddings are the judge's cost.
func (c *Client) EmbedFor(ctx context.Context, stage Stage, texts []string, model string) ([][]float32, Usage, error) {
	if stage == "" {
		stage = StageEmbedder
	}
	if model == "" {
		model = c.cfg.EmbeddingModel
	}
	fail := func(e *Error, requests int) ([][]float32, Usage, error) {
		c.cfg.Tracker.record(stage, model, model, Usage{}, false, requests, true, c.cfg.Prices)
		return nil, Usage{}, e
	}
	if model == "" {
		return fail(&Error{Kind: ErrInvalid, Op: "embeddings", Detail: "no embedding model: set Config.EmbeddingModel or pass one"}, 0)
	}
	if len(texts) == 0 {
		return fail(&Error{Kind: ErrInvalid, Op: "embeddings", Model: model, Detail: "no input texts"}, 0)
	}
	if c.cfg.anthropicOnly() {
		return fail(&Error{Kind: ErrInvalid, Op: "embeddings", Model: model, Detail: errNoAnthropicEmbeddings.Error()}, 0)
	}
	key := ""
	if c.cache != nil {
		var err error
		key, err = cacheKey(c.base+"/embeddings", model, texts, 0)
		if err != nil {
			return fail(&Error{Kind: ErrInvalid, Op: "embeddings", Model: model, Err: err}, 0)
		}
		var hit embedEntry
		if ok, _ := c.cache.Get(key, &hit); ok && len(hit.Vectors) == len(texts) {
			c.cfg.Tracker.record(stage, hit.Model, model, hit.Usage, true, 0, false, c.cfg.Prices)
			return hit.Vectors, hit.Usage, nil
		}
	}
	estimate := 0
	for _, t := range texts {
		estimate += len(t)/4 + 1
	}
	var entry embedEntry
	attempts, err := c.do(ctx, "embeddings", model, estimate, func(actx context.Context, httpResp **http.Response) error {
		out, err := c.api.embed(actx, texts, model, httpResp)
		if err != nil {
			return err
		}
		answered := out.model
		if answered == "" {
			answered = model
		}
		entry = embedEntry{Model: c.red.string(answered), Vectors: out.vectors, Usage: out.usage}
		return nil
	})
	if err != nil {
		return fail(err, attempts)
	}
	if c.cache != nil {
		_ = c.cache.Put(key, entry)
	}
	c.cfg.Tracker.record(stage, entry.Model, model, entry.Usage, false, attempts, false, c.cfg.Prices)
	return entry.Vectors, entry.Usage, nil
}

// malformedError marks a 200 response whose content is unusable.
type malformedError struct{ detail string }

func (e *malformedError) Error() string { return e.detail }

func errMalformed(detail string) error { return &malformedError{detail} }

// do runs attempt with retries, the rate limiters and the concurrency cap,
// and returns the number of HTTP attempts made. attempt receives a context
// bounded by Config.RequestTimeout and a place to store the HTTP response.
func (c *Client) do(ctx context.Context, op, model string, tokens int, attempt func(context.Context, **http.Response) error) (int, *Error) {
	attempts := 0
	tempRetried := false
	for retry := 0; ; {
		if err := c.acquire(ctx, tokens); err != nil {
			return attempts, ctxError(op, model, attempts, err)
		}
		attempts++
		actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
		var httpResp *http.Response
		err := attempt(actx, &httpResp)
		cancel()
		c.release()
		if err == nil {
			return attempts, nil
		}
		if ctx.Err() != nil {
			return attempts, ctxError(op, model, attempts, ctx.Err())
		}
		e, wait := classify(err, httpResp)
		if e.Kind == ErrInvalid {
			attempts-- // the request was never sent
		}
		e.Op, e.Model, e.Attempts = op, model, attempts
		// The server's text (a 401 may echo the Authorization header) and
		// the raw cause are redacted here, where they enter the package.
		e.Detail, e.Err = c.red.string(e.Detail), c.red.error(e.Err)
		if op == "chat" && !tempRetried && isTemperatureRejection(err) {
			// Retry at once without temperature; not a transient failure,
			// so it does not use up a retry.
			tempRetried = true
			c.mu.Lock()
			c.noTemp[model] = true
			c.mu.Unlock()
			continue
		}
		if !retryable(e.Kind) || retry >= c.cfg.MaxRetries {
			return attempts, e
		}
		if wait > c.cfg.MaxRetryWait {
			e.Detail = truncate(fmt.Sprintf("server asked to wait %s, more than the %s allowed (Config.MaxRetryWait); %s", wait, c.cfg.MaxRetryWait, e.Detail), 300)
			return attempts, e
		}
		if wait <= 0 {
			wait = c.backoff(retry)
		}
		retry++
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempts, ctxError(op, model, attempts, ctx.Err())
		case <-t.C:
		}
	}
}

func (c *Client) acquire(ctx context.Context, tokens int) error {
	if c.rpm != nil {
		if err := c.rpm.Wait(ctx); err != nil {
			return ctxErrOr(ctx, err)
		}
	}
	if c.tpm != nil && tokens > 0 {
		if err := c.tpm.WaitN(ctx, min(tokens, c.tpm.Burst())); err != nil {
			return ctxErrOr(ctx, err)
		}
	}
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// ctxErrOr maps a limiter error ("would exceed context deadline") to the
// context error it anticipates.
func ctxErrOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if _, ok := ctx.Deadline(); ok {
		return context.DeadlineExceeded
	}
	return err
}

func (c *Client) release() {
	if c.sem != nil {
		<-c.sem
	}
}

func (c *Client) backoff(retry int) time.Duration {
	d := c.cfg.MinBackoff
	for i := 0; i < retry && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxBackoff)
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d
}

func ctxError(op, model string, attempts int, err error) *Error {
	kind := ErrCanceled
	if errors.Is(err, context.DeadlineExceeded) {
		kind = ErrTimeout
	}
	return &Error{Kind: kind, Op: op, Model: model, Attempts: attempts, Detail: "the caller's context ended", Err: err}
}

func retryable(kind error) bool {
	switch kind {
	case ErrRateLimited, ErrServer, ErrTimeout, ErrMalformed, ErrUnavailable:
		return true
	}
	return false
}

// classify turns an attempt's error into an *Error and the server's
// requested wait (0 when none).
func classify(err error, resp *http.Response) (*Error, time.Duration) {
	e := &Error{Err: err}
	var apiErr *apiError
	var mal *malformedError
	var setup *setupError
	switch {
	case errors.As(err, &setup):
		// Nothing was sent: an SDK option (Config.SDKOptions) that
		// cannot apply. Its text stays in Err, redacted.
		e.Kind, e.Detail = ErrInvalid, "the request could not be built (check Config.SDKOptions or AnthropicSDKOptions)"
		return e, 0
	case errors.As(err, &mal):
		e.Kind, e.Detail = ErrMalformed, mal.detail
		if resp != nil {
			e.Status = resp.StatusCode
		}
		e.Err = nil
		return e, 0
	case errors.Is(err, context.DeadlineExceeded) || isNetTimeout(err):
		e.Kind, e.Detail = ErrTimeout, "no complete answer within Config.RequestTimeout"
		return e, 0
	case errors.As(err, &apiErr):
		e.Status = apiErr.Status
		e.Detail = truncate(apiErr.Message, 300)
		if e.Detail == "" {
			e.Detail = http.StatusText(apiErr.Status)
		}
		e.Err = nil
	default:
		// The transport error names the server's address; keep it in Err
		// only, so messages (which may reach result bundles) carry no host.
		e.Kind, e.Detail = ErrUnavailable, "could not reach the server"
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			e.Detail += " (connection refused)"
		case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			e.Detail += " (connection closed)"
		}
		return e, 0
	}
	switch s := e.Status; {
	case s == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = ErrAuth
	case s == http.StatusRequestTimeout:
		e.Kind = ErrTimeout
	case s == http.StatusConflict || s >= 500:
		e.Kind = ErrServer
	default:
		e.Kind = ErrBadRequest
	}
	var hdr http.Header
	if resp != nil {
		hdr = resp.Header
	}
	return e, retryAfter(hdr, time.Now())
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retryAfter reads retry-after-ms, then Retry-After (seconds or an HTTP
// date); 0 when absent or unparseable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// isTemperatureRejection recognises OpenAI's answer to a temperature sent
// to a model that takes none: HTTP 400 naming the temperature parameter.
func isTemperatureRejection(err error) bool {
	var apiErr *apiError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		return false
	}
	if apiErr.Param == "temperature" {
		return true
	}
	m := strings.ToLower(apiErr.Message)
	return strings.Contains(m, "temperature") && (strings.Contains(m, "unsupported") || strings.Contains(m, "not support") || strings.Contains(m, "deprecated"))
}

// unfenceJSON returns the JSON object inside a Markdown code fence
// ("```json\n{…}\n```" or "```\n{…}\n```") when s is exactly one such
// block, and s unchanged otherwise.
func unfenceJSON(s string) string {
	t := strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(t, "```")
	if !ok {
		return s
	}
	body, ok := strings.CutSuffix(rest, "```")
	if !ok {
		return s
	}
	lang, inner, ok := strings.Cut(body, "\n")
	if !ok || (strings.TrimSpace(lang) != "" && !strings.EqualFold(strings.TrimSpace(lang), "json")) {
		return s
	}
	inner = strings.TrimSpace(inner)
	if !strings.HasPrefix(inner, "{") || strings.Contains(inner, "```") {
		return s
	}
	return inner
}

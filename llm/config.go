package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// Defaults applied by New to zero fields of Config.
const (
	defaultRequestTimeout = 60 * time.Second
	defaultMaxRetries     = 4
	defaultMinBackoff     = 500 * time.Millisecond
	defaultMaxBackoff     = 30 * time.Second
	defaultMaxRetryWait   = 60 * time.Second
)

// Environment variables read by ConfigFromEnv, in the order they are read.
const (
	envBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "MODEL_NAME"
	// envAnthropicBaseURL and EnvAnthropicAPIKey configure Anthropic
	// (Config.AnthropicBaseURL, Config.AnthropicAPIKey), under the names
	// Anthropic's own SDKs read.
	envAnthropicBaseURL = "ANTHROPIC_BASE_URL"
	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"
	// envTimeout sets Config.RequestTimeout, a Go duration ("30s", "2m").
	envTimeout = "LASAGNA_LLM_TIMEOUT"
	// envRetries sets Config.MaxRetries, a whole number; 0 disables
	// retries.
	envRetries = "LASAGNA_LLM_RETRIES"
)

// maxEnvRetries is the largest LASAGNA_LLM_RETRIES accepted.
const maxEnvRetries = 100

// EnvVars returns every environment variable ConfigFromEnv reads, in order.
func EnvVars() []string {
	return []string{envBaseURL, EnvAPIKey, EnvModel, envAnthropicBaseURL, EnvAnthropicAPIKey, envTimeout, envRetries}
}

// defaultOpenAIBaseURL is OpenAI's API root, used when Config.BaseURL is
// empty.
const defaultOpenAIBaseURL = "https://api.openai.com/v1"

// defaultAnthropicBaseURL is Anthropic's API root, used when
// Config.AnthropicBaseURL is empty.
const defaultAnthropicBaseURL = "https://api.anthropic.com"

// anthropicMaxTokens is the answer cap sent to Anthropic when a ChatRequest
// sets none: Anthropic requires one, and every Claude model can answer
// this many tokens.
const anthropicMaxTokens = 4096

// UsesAnthropic reports whether a chat call for model goes to Anthropic:
// an Anthropic key is set and either the model is a Claude model (its name
// starts with "claude") or no OpenAI-compatible server is configured (no
// APIKey and no BaseURL).
func (c Config) UsesAnthropic(model string) bool {
	if strings.TrimSpace(c.AnthropicAPIKey) == "" {
		return false
	}
	return strings.HasPrefix(strings.ToLower(model), "claude") || (c.APIKey == "" && c.BaseURL == "")
}

// CheckEmbeddings returns an error when the configuration has no
// embeddings endpoint: Anthropic is the only provider configured, and it
// has no embeddings API. Programs call it before building dense retrieval.
func (c Config) CheckEmbeddings() error {
	if c.anthropicOnly() {
		return errNoAnthropicEmbeddings
	}
	return nil
}

var errNoAnthropicEmbeddings = errors.New("no embeddings API at Anthropic: set " + EnvAPIKey + " (and " + envBaseURL + " for another OpenAI-compatible server) for an embedding endpoint")

// anthropicOnly reports whether Anthropic is the only configured provider.
func (c Config) anthropicOnly() bool {
	return strings.TrimSpace(c.AnthropicAPIKey) != "" && c.APIKey == "" && c.BaseURL == ""
}

// ErrMissingKey is returned (wrapped) by ConfigFromEnv when no API key is
// set.
var ErrMissingKey = errors.New("no API key")

// Config configures a Client. The zero value is usable: it talks to the
// OpenAI API itself with no key, no default model (each call must name one),
// a 60 s timeout per attempt, 4 retries with exponential backoff from
// 500 ms to 30 s, no client-side rate limit, no concurrency cap, no cache
// and its own usage tracker.
type Config struct {
	// BaseURL is the API root of any OpenAI-compatible server, e.g.
	// "http://localhost:8000/v1" for a local vLLM. Empty means OpenAI's
	// own API.
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends none (some local
	// servers need none).
	APIKey string
	// Model is the default chat model, used when a ChatRequest names none.
	Model string

	// AnthropicAPIKey is a key for Anthropic's API. When set, the chat
	// calls for Claude models (names starting "claude") go to Anthropic,
	// and so does every chat call when neither APIKey nor BaseURL is set.
	// See UsesAnthropic. Anthropic has no embeddings API: Embed always
	// uses the OpenAI-compatible side.
	//
	// Calls go to Anthropic's OpenAI-compatible endpoint
	// (<AnthropicBaseURL>/v1/chat/completions) through the same client
	// code, and the same openai-go SDK, as OpenAI's, not through
	// Anthropic's Go SDK: the SDK (v1.84) links
	// OpenTelemetry, go-logr, standard-webhooks and invopop/jsonschema into
	// every program that makes an LLM call, whereas the endpoint adds no
	// module and keeps one code path for retries, the temperature rule,
	// rate limits, the cache, redaction and cost. What the endpoint
	// ignores (response_format, seed) lasagna does not rely on: a JSON
	// call's answer wrapped in a Markdown code fence is unwrapped, and
	// callers check JSON answers (ChatRequest.Validate retries them when
	// malformed).
	AnthropicAPIKey string
	// AnthropicBaseURL is Anthropic's API root as its SDKs read it from
	// ANTHROPIC_BASE_URL (a gateway or a test server); "" means
	// Anthropic's public API root. A trailing "/v1" is accepted.
	AnthropicBaseURL string
	// EmbeddingModel is the default embedding model, used when Embed is
	// given an empty model.
	EmbeddingModel string

	// RequestTimeout bounds one HTTP attempt; 0 means
	// 60 s (env LASAGNA_LLM_TIMEOUT). The whole call is
	// bounded by MaxCallDuration and by the caller's context (the per-run
	// timeout).
	RequestTimeout time.Duration
	// MaxRetries is how many times a failed attempt (429, 5xx, 408, 409,
	// timeout, connection error, malformed body) is retried; 0 means
	// 4, a negative value disables retries (env
	// LASAGNA_LLM_RETRIES, where 0 disables them).
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// retries (MinBackoff·2^n, capped at MaxBackoff, minus up to 25%
	// jitter); 0 means 500 ms / 30 s. A server's
	// Retry-After (or retry-after-ms) is honoured instead when present.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryWait is the longest Retry-After the client will wait; a
	// longer one ends the call with the error. 0 means
	// 60 s.
	MaxRetryWait time.Duration

	// RequestsPerMinute and TokensPerMinute limit the rate of HTTP
	// attempts and of estimated tokens (prompt bytes / 4 + MaxTokens)
	// across all goroutines using the client; 0 means no limit.
	RequestsPerMinute, TokensPerMinute int
	// MaxConcurrency caps the HTTP requests in flight; 0 means no cap.
	MaxConcurrency int

	// CacheDir, when set, holds the persistent response cache (created if
	// absent). Empty disables caching.
	CacheDir string

	// Tracker accumulates usage and cost; nil gives the client its own
	// (see Client.Usage). Share one Tracker between clients to total a run.
	Tracker *Tracker
	// Prices overrides the built-in price table (see DefaultPrices) when
	// non-nil.
	Prices map[string]Price
	// HTTPClient is the HTTP client used; nil means a new client on a
	// clone of http.DefaultTransport keeping up to max(64, MaxConcurrency)
	// idle connections per host.
	HTTPClient *http.Client

	// SDKOptions are request options of OpenAI's Go SDK (openai-go, package
	// option), which sends the client's requests. They apply to every chat
	// and embeddings request to the OpenAI-compatible side, after the
	// client's own (BaseURL, APIKey, HTTPClient), so they may override
	// them: option.WithBaseURL, option.WithHeader, option.WithQuery,
	// option.WithHTTPClient, option.WithMiddleware, option.WithOrganization,
	// or an Azure OpenAI deployment through openai-go's azure package
	// (azure.WithEndpoint(endpoint, apiVersion) with azure.WithAPIKey(key),
	// which replaces the bearer APIKey; see docs/llm.md). An option that
	// cannot apply fails the call with ErrInvalid before anything is sent.
	//
	// Two things no option changes: the SDK's own retries stay off
	// (option.WithMaxRetries is overridden with 0; MaxRetries and the
	// backoff fields above are the one retry policy), and the client reads
	// each attempt's HTTP response. The cache keys name BaseURL, not what an
	// option selects: a client whose options send it to another server
	// should set BaseURL to that server's root too, or use its own CacheDir.
	// Redaction knows the key values of APIKey and AnthropicAPIKey only: put
	// a key given here in APIKey as well (azure.WithAPIKey drops the
	// bearer header) so the client masks it.
	SDKOptions []option.RequestOption
	// AnthropicSDKOptions are SDKOptions for the chat calls that go to
	// Anthropic's OpenAI-compatible endpoint (a gateway's headers, say);
	// SDKOptions do not apply to them.
	AnthropicSDKOptions []option.RequestOption
}

// ConfigFromEnv builds a Config from environment variables read through
// getenv (pass os.Getenv): OPENAI_BASE_URL (optional), OPENAI_API_KEY,
// MODEL_NAME (optional; a --model flag may supply it instead),
// ANTHROPIC_BASE_URL (optional), ANTHROPIC_API_KEY (one of the two keys is
// required),
// LASAGNA_LLM_TIMEOUT (optional, Config.RequestTimeout as a Go duration)
// and LASAGNA_LLM_RETRIES (optional, Config.MaxRetries; 0 disables
// retries). A missing key is an error wrapping ErrMissingKey that lists
// every variable read; a bad timeout or retry count is an error naming the
// variable, the value and the fix. Nothing else is read.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		BaseURL: strings.TrimSpace(getenv(envBaseURL)),
		APIKey:  strings.TrimSpace(getenv(EnvAPIKey)),
		Model:   strings.TrimSpace(getenv(EnvModel)),

		AnthropicBaseURL: strings.TrimSpace(getenv(envAnthropicBaseURL)),
		AnthropicAPIKey:  strings.TrimSpace(getenv(EnvAnthropicAPIKey)),
	}
	if v := strings.TrimSpace(getenv(envTimeout)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("%s=%q is not a positive Go duration; set it like 30s or 2m (unset: %s per attempt)", envTimeout, v, defaultRequestTimeout)
		}
		c.RequestTimeout = d
	}
	if v := strings.TrimSpace(getenv(envRetries)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxEnvRetries {
			return Config{}, fmt.Errorf("%s=%q is not a whole number from 0 to %d; set it like 2 (0 disables retries; unset: %d)", envRetries, v, maxEnvRetries, defaultMaxRetries)
		}
		c.MaxRetries = n
		if n == 0 {
			c.MaxRetries = -1 // Config's 0 means the default
		}
	}
	if c.APIKey == "" && c.AnthropicAPIKey == "" {
		return Config{}, fmt.Errorf("%w: set %s (a local OpenAI-compatible server that needs no key accepts any value) or %s (Claude models); variables read: %s",
			ErrMissingKey, EnvAPIKey, EnvAnthropicAPIKey, strings.Join(EnvVars(), ", "))
	}
	if c.BaseURL != "" {
		if err := checkBaseURL(c.BaseURL); err != nil {
			return Config{}, fmt.Errorf("%s: %w", envBaseURL, err)
		}
	}
	if c.AnthropicBaseURL != "" {
		if err := checkBaseURL(c.AnthropicBaseURL); err != nil {
			return Config{}, fmt.Errorf("%s: %w", envAnthropicBaseURL, err)
		}
	}
	return c, nil
}

// MaxCallDuration returns the longest one Chat or Embed call of a client
// with this configuration can take, whatever the server does:
//
//	(MaxRetries+2) × RequestTimeout + MaxRetries × max(MaxBackoff, MaxRetryWait)
//
// that is MaxRetries+1 attempts, one more when the model rejects
// temperature (retried once at once without it), and between attempts the
// longest backoff or Retry-After the client will wait. With the defaults
// that is 6 × 60 s + 4 × 60 s = 10 min. Time spent waiting for the
// client's own rate limits (RequestsPerMinute, TokensPerMinute) and
// concurrency cap comes on top; the caller's context bounds everything.
// A query's bound is this times its calls: the generator's, one per judge
// metric, and the query's embedding for dense retrieval.
func (c Config) MaxCallDuration() time.Duration {
	c = c.withTimingDefaults()
	r := time.Duration(c.MaxRetries)
	return (r+2)*c.RequestTimeout + r*max(c.MaxBackoff, c.MaxRetryWait)
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http(s) URL with a host; want e.g. http://localhost:8000/v1", s)
	}
	return nil
}

func (c Config) withDefaults() Config {
	c = c.withTimingDefaults()
	if c.Tracker == nil {
		c.Tracker = newTracker()
	}
	if c.Prices == nil {
		c.Prices = DefaultPrices()
	}
	if c.HTTPClient == nil {
		// http.DefaultTransport keeps only 2 idle connections per host,
		// which makes concurrent calls re-dial; keep enough for the cap.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(64, c.MaxConcurrency)
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c
}

// withTimingDefaults fills the zero timeout, retry and backoff fields.
func (c Config) withTimingDefaults() Config {
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = defaultRequestTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = defaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = defaultMinBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = defaultMaxBackoff
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = defaultMaxRetryWait
	}
	return c
}

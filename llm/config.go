package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultRequestTimeout = 60 * time.Second
	DefaultMaxRetries     = 4
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultMaxRetryWait   = 60 * time.Second
)

// Environment variables read by ConfigFromEnv, in the order they are read.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "MODEL_NAME"
)

// EnvVars returns every environment variable ConfigFromEnv reads, in order.
func EnvVars() []string { return []string{EnvBaseURL, EnvAPIKey, EnvModel} }

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
	// EmbeddingModel is the default embedding model, used when Embed is
	// given an empty model.
	EmbeddingModel string

	// RequestTimeout bounds one HTTP attempt; 0 means
	// DefaultRequestTimeout. The whole call is bounded by the caller's
	// context (the per-run timeout).
	RequestTimeout time.Duration
	// MaxRetries is how many times a failed attempt (429, 5xx, 408, 409,
	// timeout, connection error, malformed body) is retried; 0 means
	// DefaultMaxRetries, a negative value disables retries.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// retries (MinBackoff·2^n, capped at MaxBackoff, minus up to 25%
	// jitter); 0 means DefaultMinBackoff / DefaultMaxBackoff. A server's
	// Retry-After (or retry-after-ms) is honoured instead when present.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryWait is the longest Retry-After the client will wait; a
	// longer one ends the call with the error. 0 means
	// DefaultMaxRetryWait.
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
}

// ConfigFromEnv builds a Config from environment variables read through
// getenv (pass os.Getenv): OPENAI_BASE_URL (optional), OPENAI_API_KEY
// (required) and MODEL_NAME (optional; a --model flag may supply it
// instead). A missing key is an error wrapping ErrMissingKey that lists
// every variable read. Nothing else is read.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		BaseURL: strings.TrimSpace(getenv(EnvBaseURL)),
		APIKey:  strings.TrimSpace(getenv(EnvAPIKey)),
		Model:   strings.TrimSpace(getenv(EnvModel)),
	}
	if c.APIKey == "" {
		return Config{}, fmt.Errorf("%w: set %s (a local OpenAI-compatible server that needs no key accepts any value); variables read: %s",
			ErrMissingKey, EnvAPIKey, strings.Join(EnvVars(), ", "))
	}
	if c.BaseURL != "" {
		if err := checkBaseURL(c.BaseURL); err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvBaseURL, err)
		}
	}
	return c, nil
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http(s) URL with a host; want e.g. http://localhost:8000/v1", s)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = DefaultMaxRetryWait
	}
	if c.Tracker == nil {
		c.Tracker = NewTracker()
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

// Package llm is lasagna's one client layer for LLM calls: chat completions
// and embeddings against any OpenAI-compatible server (OpenAI, Azure, vLLM,
// Ollama, LiteLLM …), sent through OpenAI's Go SDK (openai-go) with the
// SDK's own retries off, and chat completions of Claude models through
// Anthropic's OpenAI-compatible endpoint with the same SDK
// (Config.AnthropicAPIKey explains why not Anthropic's Go SDK). A user's own
// SDK options (a base URL, headers, an HTTP client, an Azure deployment) go
// in Config.SDKOptions.
//
// Every generator, judge, synthesis and embedding call goes through a
// Client, which
//
//   - asks for temperature 0; when a model rejects temperature (HTTP 400
//     naming it), the call is retried once at once without it and the model
//     is remembered by the client, so later calls send none
//     (ChatResponse.TemperatureSent tells which happened);
//   - retries 429, 5xx, 408/409, per-attempt timeouts, connection errors and
//     malformed 200 bodies with exponential backoff and jitter, honouring
//     Retry-After and retry-after-ms, one attempt at a time;
//   - limits requests and estimated tokens per minute and the requests in
//     flight;
//   - keeps a persistent content-addressed response cache (Cache) keyed by
//     endpoint, model, the full request and the repeat index, written
//     atomically so concurrent processes can share it; errors are never
//     cached;
//   - accounts token usage and estimated cost per Stage in a Tracker, with
//     cost only for models in the price table (never guessed).
//   - redacts the configured key values (of at least 8 bytes), and every
//     run of 8 or more of their consecutive characters (a server quoting a
//     key's first 20 or last 10 characters), plain or JSON-escaped, from
//     everything it returns, where server text enters: error messages (a
//     401 that echoes the Authorization header), answers and model names,
//     so no key reaches a console, bundle, journal, cache entry or log
//     through it.
//
// A failed call returns an *Error whose Kind (ErrRateLimited, ErrServer,
// ErrTimeout, ErrMalformed, …) is matched with errors.Is and whose Code is a
// stable string; a failure is never an empty success.
//
// Config.RequestTimeout (env LASAGNA_LLM_TIMEOUT) and Config.MaxRetries
// (env LASAGNA_LLM_RETRIES) bound a call: Config.MaxCallDuration returns
// its worst case, (MaxRetries+2) × RequestTimeout + MaxRetries ×
// max(MaxBackoff, MaxRetryWait), 10 min with the defaults. A query costs
// at most that times its calls (generator, one per judge metric, the
// query's embedding), per repeat.
//
// The package reads no environment variable by itself: programs call
// ConfigFromEnv(os.Getenv) at their edge. Tests use fixtures.NewFakeOpenAI.
package llm

package llm

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error kinds. Every error a Client returns from Chat or Embed is an *Error
// whose Kind is one of these, so callers test it with errors.Is, e.g.
// errors.Is(err, llm.ErrRateLimited).
var (
	// ErrRateLimited: the server answered 429 on every attempt, or asked
	// to wait longer than Config.MaxRetryWait.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer: the server answered 5xx (or 408/409) on every attempt.
	ErrServer = errors.New("server error")
	// ErrTimeout: an attempt exceeded Config.RequestTimeout on every
	// attempt, or the caller's context deadline passed.
	ErrTimeout = errors.New("timeout")
	// ErrMalformed: the server answered 200 with a body that is not a
	// valid response (broken JSON, no choices, no content, wrong number of
	// embeddings) on every attempt.
	ErrMalformed = errors.New("malformed response")
	// ErrUnavailable: the server could not be reached (connection refused
	// or reset) on every attempt.
	ErrUnavailable = errors.New("server unavailable")
	// ErrAuth: the server refused the key (401 or 403). Not retried.
	ErrAuth = errors.New("authentication failed")
	// ErrBadRequest: the server refused the request (another 4xx). Not
	// retried.
	ErrBadRequest = errors.New("bad request")
	// ErrCanceled: the caller's context was cancelled.
	ErrCanceled = errors.New("canceled")
	// ErrInvalid: the call was invalid before anything was sent (no
	// model, no messages, no input, or a Config.SDKOptions option that
	// cannot apply).
	ErrInvalid = errors.New("invalid call")
)

var codes = map[error]string{
	ErrRateLimited: "rate_limited",
	ErrServer:      "server_error",
	ErrTimeout:     "timeout",
	ErrMalformed:   "malformed_response",
	ErrUnavailable: "unavailable",
	ErrAuth:        "auth",
	ErrBadRequest:  "bad_request",
	ErrCanceled:    "canceled",
	ErrInvalid:     "invalid",
}

// Error is the error of a failed Chat or Embed call. Its message never
// carries the base URL or the server's address (the raw cause in Err may,
// so do not print Err into shared reports), and neither Detail nor Err's
// message carries a configured key value: a server that echoes the key
// (say, the Authorization header in a 401 body), or 8 or more of its
// consecutive characters, has them replaced by "[REDACTED]".
type Error struct {
	// Kind is one of the Err* values of this package.
	Kind error
	// Op is "chat" or "embeddings".
	Op string
	// Model is the model requested.
	Model string
	// Status is the last HTTP status received (0 when none).
	Status int
	// Attempts is how many HTTP requests were made.
	Attempts int
	// Detail is the server's error message, or a description of the
	// problem, truncated to 300 bytes.
	Detail string
	// Err is the underlying cause, if any.
	Err error
}

// Code returns a stable short code for the error kind (e.g.
// "rate_limited", "server_error", "timeout", "malformed_response"), for
// recording in results.
func (e *Error) Code() string {
	if c, ok := codes[e.Kind]; ok {
		return c
	}
	return "unknown"
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s", e.Op)
	if e.Model != "" {
		fmt.Fprintf(&b, " (model %s)", e.Model)
	}
	fmt.Fprintf(&b, ": %v [%s]", e.Kind, e.Code())
	if e.Status != 0 {
		fmt.Fprintf(&b, ", HTTP %d", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	return b.String()
}

// Unwrap returns the kind and the cause, so errors.Is matches either.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Code returns the stable code of err when it is (or wraps) an *Error, and
// "" otherwise.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return ""
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package llm

import (
	"sort"
	"strings"
)

// redacted replaces a key value in every text the client returns.
const redacted = "[REDACTED]"

// minRedactLen is the shortest key value that is redacted. A shorter key is
// a placeholder for a local server that accepts any value ("none",
// "EMPTY"), and masking it would garble ordinary words in answers and
// messages.
const minRedactLen = 8

// redactor masks configured key values. Redaction happens where server text
// enters the package (error messages, answers, model names), so nothing a
// Client returns, caches or accounts carries a key, whatever the caller
// then prints, journals or writes into a bundle.
type redactor struct{ keys []string }

func newRedactor(keys ...string) redactor {
	var r redactor
	for _, k := range keys {
		if k = strings.TrimSpace(k); len(k) >= minRedactLen {
			r.keys = append(r.keys, k)
		}
	}
	// Longest first, so a key containing another is masked whole.
	sort.Slice(r.keys, func(i, j int) bool { return len(r.keys[i]) > len(r.keys[j]) })
	return r
}

func (r redactor) string(s string) string {
	for _, k := range r.keys {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, redacted)
		}
	}
	return s
}

// error wraps err so its message is redacted; errors.Is and errors.As still
// see the cause.
func (r redactor) error(err error) error {
	if err == nil || len(r.keys) == 0 {
		return err
	}
	msg := err.Error()
	if red := r.string(msg); red != msg {
		return &redactedError{msg: red, cause: err}
	}
	return err
}

type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// Redact returns s with every configured key value of the client (Config's
// API keys of at least 8 bytes) replaced by "[REDACTED]". The client
// already redacts everything it returns; use Redact for other text that may
// carry a key, such as a message built from the configuration.
func (c *Client) Redact(s string) string { return c.red.string(s) }

// redactKeys returns s with every occurrence of each key (of at least
// minRedactLen bytes) replaced by redacted, for text produced before a
// Client exists.
func redactKeys(s string, keys ...string) string { return newRedactor(keys...).string(s) }

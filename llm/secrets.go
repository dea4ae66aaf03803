package llm

import (
	"strings"

	"github.com/lasagna-go/lasagna/internal/redact"
)

// redacted replaces a key value, or a run of 8 or more of its characters,
// in every text the client returns.
const redacted = redact.Marker

// minRedactLen is the shortest key value that is redacted. A shorter key is
// a placeholder for a local server that accepts any value ("none",
// "EMPTY"), and masking it would garble ordinary words in answers and
// messages.
const minRedactLen = redact.MinRun

// redactor masks configured key values: the whole value and every run of
// 8 or more of its consecutive characters (a server quoting "key
// sk-proj-abc… is invalid" or the key's last characters), plain or
// JSON-escaped (package internal/redact). Redaction happens where server
// text enters the package (error messages, answers, model names), so
// nothing a Client returns, caches or accounts carries a key, whatever the
// caller then prints, journals or writes into a bundle.
type redactor struct{ r *redact.Redactor }

func newRedactor(keys ...string) redactor {
	var real []string
	for _, k := range keys {
		if k = strings.TrimSpace(k); len(k) >= minRedactLen {
			real = append(real, k)
		}
	}
	return redactor{redact.New(real...)}
}

func (r redactor) string(s string) string { return r.r.String(s) }

// error wraps err so its message is redacted; errors.Is and errors.As still
// see the cause.
func (r redactor) error(err error) error { return r.r.Error(err) }

// Redact returns s with every configured key value of the client (Config's
// API keys of at least 8 bytes), and every run of 8 or more of its
// consecutive characters, replaced by "[REDACTED]". The client already
// redacts everything it returns; use Redact for other text that may carry
// a key, such as a message built from the configuration.
func (c *Client) Redact(s string) string { return c.red.string(s) }

// redactKeys returns s with every key (of at least minRedactLen bytes), and
// every run of minRedactLen of its characters, replaced by redacted, for
// text produced before a Client exists.
func redactKeys(s string, keys ...string) string { return newRedactor(keys...).string(s) }

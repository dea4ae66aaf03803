// Package dsn is the one redaction of PostgreSQL connection strings, in
// every form libpq and pgx accept: a postgres:// or postgresql:// URL (a
// password in the user info, even one holding an unescaped @ or /, or in
// the query's password parameter) and the key/value form (password=…,
// quoted or not). Every error, log line and page that may quote a DSN goes
// through it, so that no password reaches output; PGPASSWORD (or a
// password file) stays the recommended way to pass one.
package dsn

import (
	"errors"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna/internal/redact"
)

// Mask replaces a password in what Redact returns.
const Mask = "xxxxx"

// kvKeys are the libpq connection keywords that mark a key/value DSN.
var kvKeys = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|\s)(host|hostaddr|port|dbname|user|password|passfile|sslmode|service|connect_timeout|application_name|options|target_session_attrs)\s*=`)
})

var kvPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S*)`) })

// IsURL reports whether s is written as a PostgreSQL URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// IsPostgres reports whether s is a PostgreSQL DSN: a postgres:// URL, or
// the key/value form (host=… dbname=…), which is never a file name.
func IsPostgres(s string) bool {
	return IsURL(s) || (!strings.Contains(s, "://") && kvKeys().MatchString(s))
}

// passwords returns the passwords s holds, in every form.
func passwords(s string) []string {
	var out []string
	if strings.Contains(s, "://") { // any URL: a mistyped scheme must not show its password either
		// Read by hand, the user info up to the last @ of the authority, so
		// that a password with an unescaped @, / or # is found even where
		// url.Parse reads it differently or fails; each value also in its
		// unescaped form, as a driver may print it.
		rest := s[strings.Index(s, "://")+3:]
		if q := strings.IndexAny(rest, "?"); q >= 0 {
			for _, kv := range strings.Split(rest[q+1:], "&") {
				if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "password") && v != "" {
					out = append(out, v)
					if uv, err := url.QueryUnescape(v); err == nil && uv != v {
						out = append(out, uv)
					}
				}
			}
			rest = rest[:q]
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, p, ok := strings.Cut(rest[:at], ":"); ok && p != "" {
				out = append(out, p)
				if up, err := url.PathUnescape(p); err == nil && up != p {
					out = append(out, up)
				}
			}
		}
		return out
	}
	for _, m := range kvPassword().FindAllStringSubmatch(s, -1) {
		p := m[2]
		if strings.HasPrefix(p, "'") {
			p = strings.ReplaceAll(strings.Trim(p, "'"), `\'`, "'")
		}
		if p != "" {
			out = append(out, p, m[2])
		}
	}
	return out
}

// Passwords returns the passwords s holds, in every form, and PGPASSWORD's
// value: the secrets to redact (package internal/redact) from text that
// a driver connected with s may write.
func Passwords(s string) []string {
	ps := passwords(s)
	if p := os.Getenv("PGPASSWORD"); p != "" {
		ps = append(ps, p)
	}
	return ps
}

// HasPassword reports whether s holds a password.
func HasPassword(s string) bool { return len(passwords(s)) > 0 }

// Redact returns s with every password replaced by Mask, for messages.
func Redact(s string) string {
	return RedactIn(s, s)
}

// RedactIn returns text with every password dsn holds, and PGPASSWORD's
// (which the drivers use when the DSN holds none), replaced by Mask: for
// messages that quote a DSN, such as a driver's error. A password of 8 or
// more characters is masked wherever 8 or more of its consecutive
// characters occur, plain or JSON-escaped (package internal/redact); a
// shorter one where it occurs whole.
func RedactIn(text, dsn string) string {
	ps := Passwords(dsn)
	if len(ps) == 0 {
		return text
	}
	return redact.NewMarked(Mask, ps...).String(text)
}

// ErrUnescapedAt is Check's error for a URL whose user info holds more
// than one @: drivers split it at the first, so the rest of the password
// would be read as the host (and printed in their errors).
var ErrUnescapedAt = errors.New("the user or password holds an unescaped @; write it as %40 (or leave the password out and set PGPASSWORD)")

// Check refuses a DSN no driver reads as written: a URL whose user info
// holds an unescaped @.
func Check(s string) error {
	if !IsURL(s) {
		return nil
	}
	rest := s[strings.Index(s, "://")+3:]
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q]
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 && strings.Contains(rest[:at], "@") {
		return ErrUnescapedAt
	}
	return nil
}

package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// key has a '/', a '+' and a '&', which JSON encoders escape.
const key = "sk-proj-Ab3/De+Fg&Hi_0123456789xyzQRSTU"

// leaks reports the first run of MinRun bytes of secret in s.
func leaks(s, secret string) string {
	for i := 0; i+MinRun <= len(secret); i++ {
		if strings.Contains(s, secret[i:i+MinRun]) {
			return secret[i : i+MinRun]
		}
	}
	return ""
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestEchoes(t *testing.T) {
	r := New(key)
	for _, tc := range []struct{ name, text string }{
		{"full", "Incorrect API key provided: " + key + "."},
		{"bearer", "header was Authorization: Bearer " + key},
		{"prefix", "key " + key[:20] + "... is invalid"},
		{"suffix", "key is invalid; " + key[len(key)-10:]},
		{"prefix and suffix", "key " + key[:20] + "... is invalid; " + key[len(key)-10:]},
		{"middle", "saw …" + key[9:21] + "…"},
		{"eight", "tail " + key[len(key)-8:]},
		{"json full", `{"error":` + jsonString("bad key "+key) + `}`},
		{"json prefix", `{"error":` + jsonString("key "+key[:20]+"... is invalid") + `}`},
		{"json suffix", `{"error":` + jsonString("key ..."+key[len(key)-12:]) + `}`},
		{"slash escaped", `{"error":"key ` + strings.ReplaceAll(key[:24], "/", `\/`) + `..."}`},
		{"json in json", jsonString(`{"error":` + jsonString("key "+key[:20]+"...") + `}`)},
		{"percent", "GET /x?key=" + strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(key[:20], "/", "%2F"), "+", "%2B"), "&", "%26")},
		{"twice", key[:10] + " and " + key[15:30]},
	} {
		got := r.String(tc.text)
		if l := leaks(got, key); l != "" {
			t.Errorf("%s: %q leaks %q", tc.name, got, l)
		}
		for _, form := range forms(key) {
			if l := leaks(got, form); l != "" {
				t.Errorf("%s: %q leaks %q of the form %q", tc.name, got, l, form)
			}
		}
		if !strings.Contains(got, Marker) {
			t.Errorf("%s: %q has no marker", tc.name, got)
		}
	}
}

func TestExact(t *testing.T) {
	r := New(key)
	for _, tc := range []struct{ in, want string }{
		{"key " + key[:20] + "... is invalid; " + key[len(key)-10:], "key [REDACTED]... is invalid; [REDACTED]"},
		{"a " + key + " b " + key, "a [REDACTED] b [REDACTED]"},
		{"x" + key + key + "x", "x[REDACTED]x"},
		{"seven " + key[:7] + " stays", "seven " + key[:7] + " stays"},
		{"", ""},
		{"no secret here at all", "no secret here at all"},
		{`"` + jsonString(key)[1:], `"[REDACTED]"`},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShortSecretsWhole(t *testing.T) {
	r := NewMarked("xxxxx", "pw", "s3cr3t", "")
	if got := r.String("user pw, password s3cr3t, s3cr3"); got != "user xxxxx, password xxxxx, s3cr3" {
		t.Errorf("got %q", got)
	}
}

func TestNoSecret(t *testing.T) {
	for _, r := range []*Redactor{nil, New(), New("", "")} {
		if !r.Empty() {
			t.Errorf("%v not empty", r)
		}
		if got := r.String("Bearer " + key); got != "Bearer "+key {
			t.Errorf("String = %q", got)
		}
		err := errors.New("x")
		if r.Error(err) != err {
			t.Error("Error wrapped")
		}
	}
}

func TestError(t *testing.T) {
	r := New(key)
	err := r.Error(fmt.Errorf("401: key %s...: %w", key[:20], fs.ErrPermission))
	if !errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), key[:8]) || err.Error() != "401: key [REDACTED]...: permission denied" {
		t.Errorf("err = %v", err)
	}
	plain := errors.New("nothing")
	if r.Error(plain) != plain {
		t.Error("an error without a secret is wrapped")
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := New(key).Writer(&b)
	line := "log: Bearer " + key[:12] + "\n"
	if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
		t.Errorf("Write = %d, %v", n, err)
	}
	if b.String() != "log: Bearer [REDACTED]\n" {
		t.Errorf("wrote %q", b.String())
	}
}

func TestMultibyte(t *testing.T) {
	secret := "pässwörd-ünïcödé-42"
	r := New(secret)
	got := r.String("x " + secret[3:15] + " y")
	if !strings.HasPrefix(got, "x ") || !strings.Contains(got, Marker) || leaks(got, secret) != "" {
		t.Errorf("got %q", got)
	}
	if !strings.Contains(got, " y") || !utf8Valid(got) {
		t.Errorf("got %q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func BenchmarkString(b *testing.B) {
	r := New(key, "hf_abcdefghijklmnopqrstuvwxyz0123456789", "serve-token-0123456789abcdef")
	text := strings.Repeat("an ordinary answer of a model, with numbers 12345 and words. ", 20000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

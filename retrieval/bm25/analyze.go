package bm25

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stopwords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "but": true, "by": true, "for": true, "if": true, "in": true,
	"into": true, "is": true, "it": true, "no": true, "not": true, "of": true,
	"on": true, "or": true, "such": true, "that": true, "the": true,
	"their": true, "then": true, "there": true, "these": true, "they": true,
	"this": true, "to": true, "was": true, "will": true, "with": true,
}

// Stopwords returns the English stopword list the index drops (Lucene's
// EnglishAnalyzer set of 33 words), sorted.
func Stopwords() []string {
	return []string{"a", "an", "and", "are", "as", "at", "be", "but", "by",
		"for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or",
		"such", "that", "the", "their", "then", "there", "these", "they",
		"this", "to", "was", "will", "with"}
}

// Stem returns the Snowball English stem of a lower-case word.
func Stem(word string) string {
	env := snowballstem.NewEnv(word)
	english.Stem(env)
	return env.Current()
}

// scan calls fn with each token of text, lower-cased, in order. The slice
// passed to fn is reused after fn returns.
func scan(text string, buf []byte, fn func(tok []byte)) []byte {
	buf = buf[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+('a'-'A'))
			default:
				if len(buf) > 0 {
					fn(buf)
					buf = buf[:0]
				}
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		} else if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		fn(buf)
	}
	return buf
}

// Tokens returns the terms opts's analysis makes of text, in order: the
// tokens of the package documentation, lower-cased, without stopwords
// (unless opts.KeepStopwords) and stemmed (if opts.Stemming). Build indexes,
// and Search looks up, exactly these terms.
func Tokens(text string, opts Options) []string {
	var out []string
	t := tokenizer{lucene: opts.Analyzer == AnalyzerLucene}
	t.scan(text, func(tok []byte) {
		if t, ok := opts.term(string(tok)); ok {
			out = append(out, t)
		}
	})
	return out
}

// term maps a lower-cased token to its index term; ok is false for a dropped
// stopword.
func (o Options) term(tok string) (string, bool) {
	if !o.KeepStopwords && stopwords[tok] {
		return "", false
	}
	if o.Stemming {
		if o.Analyzer == AnalyzerLucene {
			return porterStem(tok), true
		}
		return Stem(tok), true
	}
	return tok, true
}

// tokenizer cuts text into lower-cased tokens with the default scanner or,
// when lucene is set, Lucene's (see the package documentation). The zero
// value is the default; it reuses its buffers.
type tokenizer struct {
	lucene bool
	buf    []byte
	lz     luceneScanner
}

// scan calls fn with each token of text; the slice passed to fn is reused
// after fn returns.
func (t *tokenizer) scan(text string, fn func(tok []byte)) {
	if t.lucene {
		t.lz.scan(text, fn)
		return
	}
	t.buf = scan(text, t.buf, fn)
}

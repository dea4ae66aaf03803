package bm25

import (
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// maxTokenLen is Lucene's StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH, in
// UTF-16 code units: StandardTokenizer chops a longer token at that length.
const maxTokenLen = 255

// luceneScanner cuts text as Lucene's StandardTokenizer,
// EnglishPossessiveFilter and LowerCaseFilter do (see the package
// documentation). It reuses its buffers; the zero value is ready to use.
type luceneScanner struct {
	it  *words.Iterator[string]
	buf []byte
}

// scan calls fn with each token of text, in order. The slice passed to fn is
// reused after fn returns.
func (s *luceneScanner) scan(text string, fn func(tok []byte)) {
	if s.it == nil {
		s.it = words.FromString(text)
	} else {
		s.it.SetText(text)
	}
	it := s.it
	saStart, saEnd := -1, -1 // a pending run of Complex_Context segments
	flushSA := func() {
		if saStart < 0 {
			return
		}
		for run := text[saStart:saEnd]; run != ""; {
			n := prefixUnits(run, maxTokenLen)
			s.emit(run[:n], fn)
			run = run[n:]
		}
		saStart = -1
	}
	for it.Next() {
		seg := it.Value()
		if c := seg[0]; ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') && len(seg) <= maxTokenLen {
			flushSA() // the common case: a word that starts with an ASCII letter or digit
			s.emit(seg, fn)
			continue
		}
		sa := saIndex(seg)
		if sa > 0 && wordLike(seg) {
			sa = -1 // marks of those scripts attached to a word
		}
		if sa >= 0 {
			// Lucene keeps a run of Thai, Lao, Myanmar, Khmer … letters
			// and marks (Line_Break SA, which UAX#29 leaves to a
			// dictionary) as one token; UAX#29 alone splits it into
			// letters, and attaches a mark to a space before it.
			if sa == 0 && saStart >= 0 && saEnd == it.Start() {
				saEnd = it.End()
			} else {
				flushSA()
				saStart, saEnd = it.Start()+sa, it.End()
			}
			continue
		}
		flushSA()
		if len(seg) > maxTokenLen && prefixUnits(seg, maxTokenLen) < len(seg) {
			// The scanner's buffer holds maxTokenLen characters: the token
			// is the first segment of the text cut there, and scanning
			// goes on after it.
			start := it.Start()
			window := text[start : start+prefixUnits(text[start:], maxTokenLen)]
			first := words.FromString(window).First()
			if wordLike(first) {
				s.emit(first, fn)
			}
			text = text[start+len(first):]
			it.SetText(text)
			continue
		}
		if wordLike(seg) {
			s.emit(seg, fn)
		}
	}
	flushSA()
}

// emit lower-cases seg, removes a final possessive 's ('s, ’s or ＇s, as
// EnglishPossessiveFilter does) and passes it to fn.
func (s *luceneScanner) emit(seg string, fn func(tok []byte)) {
	b := s.buf[:0]
	for i := 0; i < len(seg); {
		c := seg[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(seg[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += n
	}
	if n := len(b); n >= 2 && b[n-1] == 's' {
		switch {
		case b[n-2] == '\'':
			b = b[:n-2]
		case n >= 4 && string(b[n-4:n-1]) == "\u2019", n >= 4 && string(b[n-4:n-1]) == "\uff07":
			b = b[:n-4]
		}
	}
	s.buf = b
	if len(b) > 0 {
		fn(b)
	}
}

// wordLike reports whether a UAX#29 segment is a token for
// StandardTokenizer: one holding a letter or a digit (Unicode categories L,
// Nd and Nl, or an alphabetic symbol such as Ⓐ), an ideograph or an emoji
// (luceneSymbols, a keycap, a flag). Runs of spaces, punctuation and other
// symbols are not tokens.
func wordLike(seg string) bool {
	if seg == "" {
		return false
	}
	if c := seg[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	for i := 0; i < len(seg); {
		c := seg[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(seg[i:])
		i += n
		switch {
		case r == 0x3006 || r == 0xFF9E || r == 0xFF9F:
			// Lo and Lm, but not tokens for StandardTokenizer.
		case unicode.IsLetter(r) || unicode.In(r, unicode.Nd, unicode.Nl) ||
			unicode.Is(unicode.Other_Alphabetic, r) && !unicode.IsMark(r) || unicode.Is(luceneSymbols, r):
			return true
		case r == 0x20E3 && (seg[0] == '#' || seg[0] == '*'):
			return true // a keycap: #️⃣
		case 0x1F1E6 <= r && r <= 0x1F1FF && i < len(seg):
			// A flag: two regional indicators (one alone is no token).
			if r2, _ := utf8.DecodeRuneInString(seg[i:]); 0x1F1E6 <= r2 && r2 <= 0x1F1FF {
				return true
			}
		}
	}
	return false
}

// saIndex returns the offset in seg of its first letter or mark of a script
// whose words UAX#29 does not separate (Line_Break SA: Thai, Lao, Myanmar,
// Khmer, Tai Le, New Tai Lue, Tai Tham, Tai Viet), or -1.
func saIndex(seg string) int {
	for i := 0; i < len(seg); {
		c := seg[i]
		if c < 0xE0 { // every SA letter is at U+0E00 or above: three or four bytes
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(seg[i:])
		if !unicode.IsDigit(r) && (unicode.IsLetter(r) || unicode.IsMark(r)) &&
			unicode.In(r, unicode.Thai, unicode.Lao, unicode.Myanmar, unicode.Khmer, unicode.Tai_Le,
				unicode.New_Tai_Lue, unicode.Tai_Tham, unicode.Tai_Viet) {
			return i
		}
		i += n
	}
	return -1
}

// prefixUnits returns the length in bytes of the longest prefix of s that
// holds at most n UTF-16 code units (Java characters), cut between runes.
func prefixUnits(s string, n int) int {
	units := 0
	for i, r := range s {
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if units+u > n {
			return i
		}
		units += u
	}
	return len(s)
}

package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// lookahead is how far the Lucene scanner lets the segmenter read: a
// segment longer than maxTokenLen is cut anyway, and only a run of more than
// 3 KiB of marks or format characters after a word could move a boundary.
const lookahead = 4096

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
//
// The UAX#29 segmenter finds each segment from the boundary where the last
// one ended, looking at nothing before it, so scan may restart it at any
// boundary. It does so after ASCII white space, which is never part of a
// token, and it cuts a run of ASCII letters and digits itself when the
// byte after the run ends the segment for certain (see asciiWordEnd);
// everything else goes through the segmenter.
func (s *luceneScanner) scan(text string, fn func(tok []byte)) {
	if !utf8.ValidString(text) {
		// Bytes that are not UTF-8 read as U+FFFD, as Lucene's reader
		// decodes them, which no token holds. The segmenter would take a
		// truncated sequence at the end of the text with the bytes after
		// it ("000\xe2 " as one segment, space included).
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if s.it == nil {
		s.it = words.FromString("")
	}
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
	for pos := 0; pos < len(text); {
		c := text[pos]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			pos++
			continue
		}
		if isASCIIAlnum(c) {
			if saStart >= 0 {
				flushSA() // no letter of those scripts is ASCII
			}
			b := s.buf[:0]
			end, stop := pos, min(len(text), pos+maxTokenLen+1)
			for ; end < stop && asciiAlnum[text[end]]; end++ {
				ch := text[end]
				if 'A' <= ch && ch <= 'Z' {
					ch += 'a' - 'A'
				}
				b = append(b, ch)
			}
			s.buf = b
			if end-pos > maxTokenLen {
				// A longer run is one segment that Lucene cuts after
				// maxTokenLen characters.
				fn(b[:maxTokenLen])
				pos += maxTokenLen
				continue
			}
			if asciiWordEnd(text, end) {
				fn(b) // lower-cased; no possessive to remove
				pos = end
				continue
			}
		}
		// The segmenter looks at most lookahead bytes ahead, so that a
		// long text without spaces costs linear time.
		s.it.SetText(text[pos:min(len(text), pos+lookahead)])
		s.it.Next()
		seg := s.it.Value()
		if c := seg[0]; isASCIIAlnum(c) && len(seg) <= maxTokenLen {
			// A word that starts with an ASCII letter or digit (any SA
			// run before it was flushed above).
			s.emit(seg, fn)
			pos += len(seg)
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
			if sa == 0 && saStart >= 0 && saEnd == pos {
				saEnd = pos + len(seg)
			} else {
				flushSA()
				saStart, saEnd = pos+sa, pos+len(seg)
			}
			pos += len(seg)
			continue
		}
		flushSA()
		if len(seg) > maxTokenLen && prefixUnits(seg, maxTokenLen) < len(seg) {
			// The scanner's buffer holds maxTokenLen characters: the token
			// is the first segment of the text cut there, and scanning
			// goes on after it.
			window := text[pos : pos+prefixUnits(text[pos:], maxTokenLen)]
			seg = words.FromString(window).First()
		}
		if wordLike(seg) {
			s.emit(seg, fn)
		}
		pos += len(seg)
	}
	flushSA()
}

// isASCIIAlnum reports whether c is an ASCII letter or digit.
func isASCIIAlnum(c byte) bool { return asciiAlnum[c] }

var asciiAlnum = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// asciiWordEnd reports whether a run of ASCII letters and digits that ends
// at text[end] is a whole UAX#29 segment: it is at the end of the text, or
// followed by an ASCII byte that joins no word (not _ and not a letter or
// digit), where . : ' , ; (which join letters or digits on both sides,
// rules WB6, WB7, WB11 and WB12) must themselves be followed by such a byte.
// A non-ASCII byte (a letter, mark or format character may follow) is
// left to the segmenter.
func asciiWordEnd(text string, end int) bool {
	if end == len(text) {
		return true
	}
	switch c := text[end]; {
	case c >= utf8.RuneSelf || c == '_':
		return false
	case c == '.' || c == ':' || c == '\'' || c == ',' || c == ';':
		if end+1 == len(text) {
			return true
		}
		n := text[end+1]
		return n < utf8.RuneSelf && !isASCIIAlnum(n) && n != '_'
	}
	return true
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

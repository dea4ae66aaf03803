package bm25

import (
	"unicode/utf16"
	"unicode/utf8"
)

// porterStem returns the stem of a lower-case word by Martin Porter's
// original (1980) algorithm as Lucene's PorterStemFilter applies it, which
// the Lucene analyzer uses. Lucene follows Porter's own reference
// implementation, with its three published departures from the paper:
// words of one or two characters are left alone, -bli becomes -ble
// (instead of -abli → -able) and -logi becomes -log. Like Lucene it counts
// characters in UTF-16 code units and treats every character other than
// a e i o u (and y after a consonant) as a consonant.
func porterStem(word string) string {
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			p := porter[uint16]{b: utf16.Encode([]rune(word))}
			return string(utf16.Decode(p.stem()))
		}
	}
	p := porter[byte]{b: []byte(word)}
	out := p.stem()
	if len(out) == len(word) && string(out) == word {
		return word
	}
	return string(out)
}

// porter is the state of one stemming: the word b (ASCII bytes, or UTF-16
// code units), its current end k (inclusive) and the end j of the stem
// before a matched suffix. The word starts at 0 (Lucene's k0).
type porter[T byte | uint16] struct {
	b    []T
	k, j int
}

// stem runs the five steps (Lucene's step1 … step6) and returns the stem.
func (p *porter[T]) stem() []T {
	p.k = len(p.b) - 1
	if p.k > 1 {
		p.step1()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
		p.step6()
	}
	return p.b[:p.k+1]
}

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and not a y
// that follows a consonant.
func (p *porter[T]) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m measures the number of consonant sequences between 0 and j: with c a
// consonant sequence and v a vowel sequence, [c](vc)^m[v].
func (p *porter[T]) m() int {
	n, i := 0, 0
	for {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

// vowelInStem reports whether b[0..j] holds a vowel.
func (p *porter[T]) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doubleC reports whether b[i-1..i] is a double consonant.
func (p *porter[T]) doubleC(i int) bool {
	return i >= 1 && p.b[i] == p.b[i-1] && p.cons(i)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant with a last
// consonant other than w, x or y (hop, not snow, box, tray).
func (p *porter[T]) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	c := p.b[i]
	return c != 'w' && c != 'x' && c != 'y'
}

// ends reports whether b[0..k] ends with s, setting j to the end of the
// stem before it.
func (p *porter[T]) ends(s string) bool {
	o := p.k - len(s) + 1
	if o < 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if p.b[o+i] != T(s[i]) {
			return false
		}
	}
	p.j = p.k - len(s)
	return true
}

// setTo replaces b[j+1..k] by s.
func (p *porter[T]) setTo(s string) {
	p.b = p.b[:p.j+1]
	for i := 0; i < len(s); i++ {
		p.b = append(p.b, T(s[i]))
	}
	p.k = len(p.b) - 1
}

// r replaces the suffix by s when m() > 0.
func (p *porter[T]) r(s string) {
	if p.m() > 0 {
		p.setTo(s)
	}
}

// step1 removes plurals and -ed or -ing: caresses → caress, ponies → poni,
// feed → feed, agreed → agree, plastered → plaster, motoring → motor,
// hopping → hop, filing → file.
func (p *porter[T]) step1() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setTo("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
	} else if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.k = p.j
		switch {
		case p.ends("at"):
			p.setTo("ate")
		case p.ends("bl"):
			p.setTo("ble")
		case p.ends("iz"):
			p.setTo("ize")
		case p.doubleC(p.k):
			p.k--
			if c := p.b[p.k]; c == 'l' || c == 's' || c == 'z' {
				p.k++
			}
		default:
			p.j = p.k
			if p.m() == 1 && p.cvc(p.k) {
				p.setTo("e")
			}
		}
	}
}

// step2 turns a terminal y into i when the stem holds another vowel.
func (p *porter[T]) step2() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

// suffixRule replaces suffix by repl (through r, so only when m() > 0).
type suffixRule struct{ suffix, repl string }

// step3Rules are step 3's rules by the suffix's last-but-one letter,
// step4Rules step 4's by its last letter; each list is tried in order.
var (
	step3Rules = [256][]suffixRule{
		'a': {{"ational", "ate"}, {"tional", "tion"}},
		'c': {{"enci", "ence"}, {"anci", "ance"}},
		'e': {{"izer", "ize"}},
		'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
		'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
		's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
		't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
		'g': {{"logi", "log"}},
	}
	step4Rules = [256][]suffixRule{
		'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
		'i': {{"iciti", "ic"}},
		'l': {{"ical", "ic"}, {"ful", ""}},
		's': {{"ness", ""}},
	}
)

// applyFirst applies the first rule of table[c] whose suffix ends the
// word (none for a letter beyond the table, which holds ASCII only).
func (p *porter[T]) applyFirst(table *[256][]suffixRule, c T) {
	if uint32(c) >= uint32(len(table)) {
		return
	}
	for _, ru := range table[c] {
		if p.ends(ru.suffix) {
			p.r(ru.repl)
			return
		}
	}
}

// step3 maps double suffixes to single ones (-ization → -ize) when m() > 0.
func (p *porter[T]) step3() {
	if p.k == 0 {
		return
	}
	p.applyFirst(&step3Rules, p.b[p.k-1])
}

// step4 handles -ic-, -full, -ness and the like.
func (p *porter[T]) step4() {
	p.applyFirst(&step4Rules, p.b[p.k])
}

// step5 removes -ant, -ence and the like when m() > 1.
func (p *porter[T]) step5() {
	if p.k == 0 {
		return
	}
	var suffixes []string
	switch p.b[p.k-1] {
	case 'a':
		suffixes = []string{"al"}
	case 'c':
		suffixes = []string{"ance", "ence"}
	case 'e':
		suffixes = []string{"er"}
	case 'i':
		suffixes = []string{"ic"}
	case 'l':
		suffixes = []string{"able", "ible"}
	case 'n':
		suffixes = []string{"ant", "ement", "ment", "ent"}
	case 'o':
		if p.ends("ion") && p.j >= 0 && (p.b[p.j] == 's' || p.b[p.j] == 't') {
			break
		}
		suffixes = []string{"ou"}
	case 's':
		suffixes = []string{"ism"}
	case 't':
		suffixes = []string{"ate", "iti"}
	case 'u':
		suffixes = []string{"ous"}
	case 'v':
		suffixes = []string{"ive"}
	case 'z':
		suffixes = []string{"ize"}
	default:
		return
	}
	if suffixes != nil {
		found := false
		for _, s := range suffixes {
			if p.ends(s) {
				found = true
				break
			}
		}
		if !found {
			return
		}
	}
	if p.m() > 1 {
		p.k = p.j
	}
}

// step6 removes a final -e when m() > 1 (or m() = 1 and not cvc) and
// turns -ll into -l when m() > 1.
func (p *porter[T]) step6() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		a := p.m()
		if a > 1 || a == 1 && !p.cvc(p.k-1) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doubleC(p.k) && p.m() > 1 {
		p.k--
	}
}

package metrics

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalization names the rules that normalise answers before they are
// compared: one benchmark is scored with one of them, held fixed in its
// bundles.
type Normalization string

const (
	// SQuAD is the official SQuAD v2.0 evaluation (evaluate-v2.0.py): see
	// [NormalizeAnswer]; references that normalise to "" are dropped. The
	// default: the empty Normalization means SQuAD.
	SQuAD Normalization = "squad"
	// ORQA is the official NQ-open evaluation (ORQA's eval_utils, also used
	// by DPR): Unicode NFD first, then SQuAD's steps (see
	// [NormalizeAnswerORQA]); every reference is kept, also one that
	// normalises to "". ORQA defines exact match only; token F1 under ORQA
	// is SQuAD's token F1 on ORQA-normalised text.
	ORQA Normalization = "orqa"
)

// Normalizations lists the accepted names, default first.
func Normalizations() []Normalization { return []Normalization{SQuAD, ORQA} }

// ParseNormalization accepts "", "squad" or "orqa" ("" means squad).
func ParseNormalization(s string) (Normalization, error) {
	switch Normalization(s) {
	case "", SQuAD:
		return SQuAD, nil
	case ORQA:
		return ORQA, nil
	}
	return "", fmt.Errorf("answer normalization %q is not known: use squad (SQuAD v2.0, the default) or orqa (NQ-open)", s)
}

// normalize applies n's normalisation to s.
func (n Normalization) normalize(s string) string {
	if n == ORQA {
		return NormalizeAnswerORQA(s)
	}
	return NormalizeAnswer(s)
}

// AnswerScore holds the SQuAD answer metrics of one question: ExactMatch is 0
// or 1, TokenF1 is in [0, 1]. Both are the maximum over the reference answers.
type AnswerScore struct {
	ExactMatch float64 `json:"exact_match"`
	TokenF1    float64 `json:"token_f1"`
}

// AnswerOptions is what ScoreAnswer needs to know about a question and its
// prediction besides their texts. The zero value is an answerable question
// that was answered.
//
// It is a struct with named fields, not two positional booleans or
// functional options, because callers copy both flags from data (an arm's
// output, a dataset row): named fields keep each flag visible at the call
// site — ScoreAnswer(p, refs, AnswerOptions{Abstained: out.Abstained,
// Unanswerable: q.Unanswerable}) — without an if per flag.
type AnswerOptions struct {
	// Abstained is true when the arm explicitly declined to answer; the
	// prediction text is then ignored.
	Abstained bool
	// Unanswerable is true when the question has no answer: the references
	// are ignored and only an empty prediction or an abstention scores 1.
	Unanswerable bool
	// Normalization chooses the evaluation's rules; "" means SQuAD.
	Normalization Normalization
}

// ScoreAnswer scores one prediction against the reference answers of one
// question exactly as the official SQuAD v2.0 evaluation script does (which
// agrees with the v1.1 script on every question whose references do not
// normalise to the empty string):
//
//   - references that normalise to the empty string are dropped (the v2.0
//     script keeps only answers whose normalised text is non-empty);
//   - a question with no remaining reference, or marked unanswerable
//     (opts.Unanswerable), has the
//     single reference "": a prediction that normalises to empty, or an
//     explicit abstention (opts.Abstained), scores 1 on both metrics and
//     any other prediction scores 0;
//   - otherwise ExactMatch is 1 when the normalised prediction equals some
//     normalised reference, and TokenF1 is the best token F1 over the
//     references (see [TokenF1]); an abstention scores 0 on both.
//
// A question with no prediction at all is not scored here: SQuAD v1.1 counts
// it as 0 on both metrics and callers must do the same (keep it in the
// denominator of the mean).
//
// With opts.Normalization ORQA, texts are normalised by
// [NormalizeAnswerORQA] and no reference is dropped: a reference that
// normalises to "" matches an empty prediction, as in NQ-open's official
// evaluation.
func ScoreAnswer(prediction string, references []string, opts AnswerOptions) AnswerScore {
	golds := make([]string, 0, len(references))
	if !opts.Unanswerable {
		for _, r := range references {
			if n := opts.Normalization.normalize(r); n != "" || opts.Normalization == ORQA {
				golds = append(golds, n)
			}
		}
	}
	pred := ""
	if !opts.Abstained {
		pred = opts.Normalization.normalize(prediction)
	}
	if len(golds) == 0 {
		if pred == "" {
			return AnswerScore{ExactMatch: 1, TokenF1: 1}
		}
		return AnswerScore{}
	}
	var s AnswerScore
	predToks := strings.Fields(pred) // pred is normalised: single ASCII spaces only
	for _, g := range golds {
		if g == pred {
			s.ExactMatch = 1
		}
		if f := tokenF1(strings.Fields(g), predToks); f > s.TokenF1 {
			s.TokenF1 = f
		}
	}
	return s
}

// ExactMatch reports 1 when the SQuAD-normalised prediction equals the
// normalised form of at least one reference, else 0. References are used as
// given (none is dropped); with no references it returns 0. Use
// [ScoreAnswer] for the full v2.0 rules (unanswerable questions, abstention).
func ExactMatch(prediction string, references []string) float64 {
	p := NormalizeAnswer(prediction)
	for _, r := range references {
		if NormalizeAnswer(r) == p {
			return 1
		}
	}
	return 0
}

// TokenF1 returns the maximum over references of SQuAD's token F1 between
// the normalised prediction and the normalised reference: tokens are the
// whitespace-separated words of the normalised strings, overlap is the size
// of the multiset intersection, precision = overlap/len(prediction tokens),
// recall = overlap/len(reference tokens), F1 = 2PR/(P+R) (0 when overlap is
// 0). When either side has no tokens, F1 is 1 if both have none, else 0 (the
// v2.0 script's rule). With no references it returns 0.
func TokenF1(prediction string, references []string) float64 {
	p := strings.Fields(NormalizeAnswer(prediction))
	best := 0.0
	for _, r := range references {
		if f := tokenF1(strings.Fields(NormalizeAnswer(r)), p); f > best {
			best = f
		}
	}
	return best
}

// tokenF1 is compute_f1 of the SQuAD v2.0 script on token lists.
func tokenF1(gold, pred []string) float64 {
	if len(gold) == 0 || len(pred) == 0 {
		if len(gold) == len(pred) {
			return 1
		}
		return 0
	}
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := float64(same) / float64(len(pred))
	recall := float64(same) / float64(len(gold))
	return 2 * precision * recall / (precision + recall)
}

// NormalizeAnswer applies the official SQuAD normalize_answer, with Python 3
// string semantics reproduced exactly:
//
//  1. lower-case as Python's str.lower does (full Unicode lower-casing,
//     including İ → "i̇" and the final-sigma rule Σ → ς at the end of a word);
//  2. delete every character of Python's string.punctuation (the 32 ASCII
//     characters !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~); other punctuation such
//     as “ ” ‘ ’ – — « » ¿ is kept;
//  3. replace each match of the Unicode-aware regular expression
//     \b(a|an|the)\b with a space, where word characters are Unicode letters,
//     Unicode numbers and "_" (so the "a" of "a\u00e9" or "\u00e9a" is not a
//     word of its own);
//  4. split on runs of Python whitespace (str.isspace: ASCII \t\n\v\f\r and
//     space, the separators \x1c–\x1f, U+0085, U+00A0, U+1680, U+2000–U+200A,
//     U+2028, U+2029, U+202F, U+205F, U+3000) and join the words with one
//     ASCII space.
//
// Invalid UTF-8 bytes are read as U+FFFD, as a Python decoder with
// errors="replace" would. Character properties come from Go's unicode
// package (Unicode 15.0, as in Python 3.12). Compared with CPython 3.11
// (Unicode 14.0) over every code point, lower-casing and whitespace agree
// everywhere and word characters differ only for the 4,388 characters new in
// Unicode 15.0.
func NormalizeAnswer(s string) string {
	rs := pyLower([]rune(s)) // invalid bytes become U+FFFD
	// string.punctuation removal, in place.
	n := 0
	for _, r := range rs {
		if r >= utf8.RuneSelf || !isASCIIPunct(byte(r)) {
			rs[n] = r
			n++
		}
	}
	rs = rs[:n]
	// re.sub(r'\b(a|an|the)\b', ' ', s) then " ".join(s.split()), in one
	// pass: an article and a run of whitespace both end the current word.
	// Alternatives are tried in order at each position and matching resumes
	// after a match, on the text before replacement, as re.sub does.
	var b strings.Builder
	b.Grow(len(s))
	sep, started := false, false
	prevWord := false // whether rs[i-1] is a word character
	for i := 0; i < len(rs); {
		r := rs[i]
		if !prevWord && (r == 'a' || r == 't') {
			if k := articleAt(rs, i); k > 0 {
				i += k
				prevWord, sep = true, true // the article's last letter
				continue
			}
		}
		prevWord = isPyWord(r)
		i++
		if isPySpace(r) {
			sep = true
			continue
		}
		if sep && started {
			b.WriteByte(' ')
		}
		sep, started = false, true
		b.WriteRune(r)
	}
	return b.String()
}

// NormalizeAnswerORQA applies NQ-open's official normalize_answer (ORQA's
// eval_utils): Unicode canonical decomposition (NFD, Python's
// unicodedata.normalize("NFD", s)) and then exactly [NormalizeAnswer]'s
// steps, in the same order. Decomposition splits "é" into "e" and a
// combining accent, which is kept (it is not ASCII punctuation) but is not
// a word character, so the two rules can split words, and so match
// articles, differently.
func NormalizeAnswerORQA(s string) string {
	return NormalizeAnswer(norm.NFD.String(s))
}

// pyLower reproduces Python 3's str.lower on a rune slice.
func pyLower(rs []rune) []rune {
	out := make([]rune, 0, len(rs)+1)
	for i, r := range rs {
		switch {
		case r == 'İ': // U+0130: SpecialCasing full lowercase mapping
			out = append(out, 'i', '\u0307')
		case r == 'Σ': // U+03A3: Final_Sigma context
			if finalSigma(rs, i) {
				out = append(out, 'ς')
			} else {
				out = append(out, 'σ')
			}
		default:
			out = append(out, unicode.ToLower(r))
		}
	}
	return out
}

// finalSigma reports whether rs[i] is in the Final_Sigma context:
// \p{cased}\p{case-ignorable}* Σ !(\p{case-ignorable}*\p{cased}), as in
// CPython's handle_capital_sigma.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is the Unicode Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is the Unicode Case_Ignorable property: general categories
// Mn, Me, Cf, Lm, Sk, or Word_Break MidLetter, MidNumLet or Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019',
		'\u2024', '\u2027', '\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

func isASCIIPunct(c byte) bool {
	return ('!' <= c && c <= '/') || (':' <= c && c <= '@') || ('[' <= c && c <= '`') || ('{' <= c && c <= '~')
}

// isPyWord reports whether r is a word character for Python's re module on
// str patterns: str.isalnum() or "_".
func isPyWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// articleAt returns the length of the first of "a", "an", "the" that starts
// at rs[i] and is followed by a non-word character or the end, or 0.
func articleAt(rs []rune, i int) int {
	for _, art := range [...]string{"a", "an", "the"} {
		n := len(art) // ASCII
		if i+n > len(rs) {
			continue
		}
		ok := true
		for k := 0; k < n; k++ {
			if rs[i+k] != rune(art[k]) {
				ok = false
				break
			}
		}
		if ok && (i+n == len(rs) || !isPyWord(rs[i+n])) {
			return n
		}
	}
	return 0
}

// isPySpace reports whether r is whitespace for Python's str.isspace (and so
// a separator for str.split()).
func isPySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\x1c', '\x1d', '\x1e', '\x1f',
		'\u0085', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000':
		return true
	}
	return '\u2000' <= r && r <= '\u200a'
}

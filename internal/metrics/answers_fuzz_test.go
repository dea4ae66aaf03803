package metrics

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScoreAnswer checks the invariants of the SQuAD metrics: scores in
// [0, 1], EM ≤ F1, a prediction equal to a (non-empty) reference scores 1,
// the order of the references does not matter, and normalised text has no
// ASCII punctuation and only single ASCII spaces between words.
func FuzzScoreAnswer(f *testing.F) {
	f.Add("The Eiffel Tower", "eiffel tower", "Paris", false, false)
	f.Add("caf\u00e9 the a\u00e9", "x\x1cy", "\u03a3\u0399\u03a3", false, false)
	f.Add("", "", "the", true, true)
	f.Fuzz(func(t *testing.T, pred, g1, g2 string, abstained, unanswerable bool) {
		opts := AnswerOptions{Abstained: abstained, Unanswerable: unanswerable}
		s := ScoreAnswer(pred, []string{g1, g2}, opts)
		if s.ExactMatch != 0 && s.ExactMatch != 1 {
			t.Fatalf("EM = %v, want 0 or 1", s.ExactMatch)
		}
		if !(s.TokenF1 >= 0 && s.TokenF1 <= 1) {
			t.Fatalf("F1 = %v, want in [0, 1]", s.TokenF1)
		}
		if s.ExactMatch > s.TokenF1 {
			t.Fatalf("EM %v > F1 %v", s.ExactMatch, s.TokenF1)
		}
		if r := ScoreAnswer(pred, []string{g2, g1}, opts); r != s {
			t.Fatalf("reference order changes the score: %+v vs %+v", s, r)
		}
		if !unanswerable && NormalizeAnswer(g1) != "" {
			if r := ScoreAnswer(g1, []string{g1, g2}, AnswerOptions{}); r != (AnswerScore{1, 1}) {
				t.Fatalf("prediction equal to a reference scores %+v", r)
			}
		}
		n := NormalizeAnswer(pred)
		if !utf8.ValidString(n) || strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("NormalizeAnswer(%+q) = %+q: bad spacing or encoding", pred, n)
		}
		for _, r := range n {
			if (r < utf8.RuneSelf && isASCIIPunct(byte(r))) || (r != ' ' && isPySpace(r)) {
				t.Fatalf("NormalizeAnswer(%+q) = %+q keeps %+q", pred, n, r)
			}
		}
		for _, w := range strings.Split(n, " ") {
			if w == "a" || w == "an" || w == "the" {
				t.Fatalf("NormalizeAnswer(%+q) = %+q keeps the article %q", pred, n, w)
			}
		}
	})
}

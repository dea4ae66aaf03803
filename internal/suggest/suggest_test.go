package suggest

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"question", "answer", "answers", "contexts", "context", "id", "expected_docs", "metadata"}
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"anwser", "answer", true},
		{"questoin", "question", true},
		{"contxts", "contexts", true},
		{"expected_doc", "expected_docs", true},
		{"ix", "id", true},
		{"Answer", "answer", true},
		{"xy", "", false}, // two edits in two letters is no evidence of a typo
		{"zzzzzz", "", false},
		{"title", "", false},
		{"", "", false},
	} {
		got, ok := Nearest(c.in, known)
		if got != c.want || ok != c.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if h := Hint("anwser", known); h != ` (did you mean "answer"?)` {
		t.Errorf("Hint = %q", h)
	}
	if _, ok := Nearest("x", nil); ok {
		t.Error("Nearest with no candidates reported a match")
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"thé", "the", 1}, {"bm52", "bm25", 1}, {"anwser", "answer", 1}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

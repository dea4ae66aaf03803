package trecparse

import (
	"fmt"
	"strings"
	"testing"
)

func TestParsePrefs(t *testing.T) {
	data := []byte("# a comment\nq1 u1 s1 d1 3\n\n  # another\nq1 u1 s2 d2 0.5\tx\nq2\tu2 s1 d3 -1\n")
	_, probs := ParsePrefs("p", data, 10, false)
	if len(probs) != 1 || probs[0].Pos.Line != 5 || !strings.Contains(probs[0].Msg, "want 5 whitespace-separated fields (qid jg jsg docno rel_level), got 6") {
		t.Fatalf("problems %+v", probs)
	}
	data = []byte("# a comment\nq1 u1 s1 d1 3\n\nq1 u1 s2 d2 0.5\nq2\tu2 s1 d3 -1\n")
	got, probs := ParsePrefs("p", data, 10, false)
	if probs != nil {
		t.Fatal(probs)
	}
	want := "map[q1:[{u1 s1 d1 3} {u1 s2 d2 0.5}] q2:[{u2 s1 d3 -1}]]"
	if s := fmt.Sprint(got); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	got, probs = ParsePrefs("q", []byte("q1 0 d1 1\nq1 0 d2 0\n"), 10, true)
	if probs != nil || fmt.Sprint(got) != "map[q1:[{0 0 d1 1} {0 0 d2 0}]]" {
		t.Errorf("qrels_prefs: %v %v", got, probs)
	}
	// Problems stop at the maximum, with a note.
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "q1 u1 s1 d%d x\n", i)
	}
	_, probs = ParsePrefs("p", []byte(b.String()), 3, false)
	if len(probs) != 4 || probs[0].Field != "rel_level" || probs[2].Pos.Line != 3 || !strings.Contains(probs[3].Msg, "too many problems") {
		t.Errorf("problems %+v", probs)
	}
}

func TestParseQrelsJG(t *testing.T) {
	got, probs := ParseQrelsJG("j", []byte("q1 0 d1 1\nq1 1 d1 0\n# c\nq2 0 d2 -1\n"), 10)
	if probs != nil || fmt.Sprint(got) != "map[q1:[{0 d1 1} {1 d1 0}] q2:[{0 d2 -1}]]" {
		t.Errorf("got %v %v", got, probs)
	}
	_, probs = ParseQrelsJG("j", []byte("q1 0 d1 1\nq1 0 d1 2\nq1 0 d3\n"), 10)
	if len(probs) != 2 || probs[0].Field != "docno" || !strings.Contains(probs[0].Msg, "first at line 1") || probs[1].Pos.Line != 3 {
		t.Errorf("problems %+v", probs)
	}
	if _, probs = ParseQrelsJG("j", nil, 10); len(probs) != 1 || !strings.Contains(probs[0].Msg, "no judgements") {
		t.Errorf("empty: %+v", probs)
	}
}

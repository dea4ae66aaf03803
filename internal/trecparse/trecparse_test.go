package trecparse

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseScoreMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "1.0", "2.129133", "  ", "0.1", ".5", "5.", "-.25", "+3", "007.50",
		"123456789012345", "1234567890123456", "0.000000000000000000001", "1e3", "1E-3", "inf", "-Inf", "0x1p-2",
		"30.0000", "29.9985", "1.7976931348623157e308", "1e400", ".", "-", "+", "", "1.2.3", "1_0", "nan"} {
		got, ok := parseScore([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		wantOK := err == nil && !math.IsNaN(want)
		if ok != wantOK || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Errorf("parseScore(%q) = %v, %v; strconv: %v, %v", s, got, ok, want, err)
		}
	}
}

// FuzzParseScore checks the fast score parser against strconv bit for bit.
func FuzzParseScore(f *testing.F) {
	for _, s := range []string{"2.129133", "-0.0001", "12345678901234.5", "1e5", "0x10", "9007199254740993"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseScore([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		wantOK := err == nil && !math.IsNaN(want)
		if ok != wantOK || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("parseScore(%q) = %v, %v; strconv: %v, %v", s, got, ok, want, err)
		}
	})
}

// TestParseRunAliases checks that ParseRun's strings share data's memory
// (the reason it is internal) and that problems are capped at maxProblems.
func TestParseRunAliases(t *testing.T) {
	data := []byte("q1 Q0 d1 1 2.5 tag\n")
	run, probs := ParseRun("r.txt", data, 5)
	if probs != nil {
		t.Fatal(probs)
	}
	copy(data[6:], "zz")
	if got := run.Hits["q1"][0].ID; got != "zz" {
		t.Errorf("hit id %q after the buffer changed; want it to alias the buffer (zz)", got)
	}
	bad := []byte(strings.Repeat("q1 Q0 broken\n", 10))
	_, probs = ParseRun("r.txt", bad, 3)
	if len(probs) != 4 || !strings.Contains(probs[3].Msg, "stopped reading after 3") || probs[2].Pos.Line != 3 {
		t.Errorf("problems %v, want 3 then a stop", probs)
	}
}

func TestCompareTREC(t *testing.T) {
	l := []Hit{{ID: "a", Score: 1}, {ID: "b", Score: 1}, {ID: "c", Score: 2}}
	sortRanked(l)
	if got := []string{l[0].ID, l[1].ID, l[2].ID}; !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Errorf("ranked %v, want c b a (score descending, ties by id descending)", got)
	}
	if compareTREC(l[0], l[0]) != 0 {
		t.Error("compareTREC of a hit with itself is not 0")
	}
}

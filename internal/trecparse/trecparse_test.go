package trecparse

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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

// TestParseRunMatchesLineByLine compares the one-pass tokenizer with a
// plain line-by-line split (Fields) on files genRun writes, both below and
// above ParallelMin.
func TestParseRunMatchesLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lines := range []int{1, 7, 300, 40000} {
		data := genRun(rng, lines, 50)
		run, probs := ParseRun("r", data, 10)
		if probs != nil {
			t.Fatalf("%d lines: %v", lines, probs)
		}
		want := map[string][]Hit{}
		wantLines, wantTag := 0, ""
		var f [6][]byte
		for l := range bytes.SplitSeq(data, []byte{'\n'}) {
			n := Fields(l, f[:])
			if n == 0 || f[0][0] == '#' {
				continue
			}
			if n < 6 {
				t.Fatalf("generated a short line %q", l)
			}
			score, err := strconv.ParseFloat(string(f[4]), 64)
			if err != nil {
				t.Fatal(err)
			}
			want[string(f[0])] = append(want[string(f[0])], Hit{string(f[2]), score})
			wantLines++
			wantTag = string(f[5])
		}
		for _, l := range want {
			slices.SortFunc(l, compareTREC)
		}
		if run.Lines != wantLines || run.Tag != wantTag || !reflect.DeepEqual(run.Hits, want) {
			t.Errorf("%d lines: got %d lines, tag %q, %d queries; want %d, %q, %d", lines, run.Lines, run.Tag, len(run.Hits), wantLines, wantTag, len(want))
		}
	}
}

// TestIdSetDuplicate checks duplicate detection with ids that spread under
// the cheap suffix hash and with ids that all collide in it (same length,
// same last eight bytes), which must fall back to maphash and still find
// exactly the duplicates.
func TestIdSetDuplicate(t *testing.T) {
	spread := func(i int) string { return "doc-" + strconv.Itoa(i) }
	collide := func(i int) string { return fmt.Sprintf("%06d-same-suffix", i) }
	for name, id := range map[string]func(int) string{"spread": spread, "collide": collide} {
		var s idSet
		for _, n := range []int{1, 2, 50, 1000, 5000} {
			l := make([]Hit, n)
			for i := range l {
				l[i] = Hit{ID: id(i)}
			}
			if d, ok := s.duplicate(l); ok {
				t.Fatalf("%s, %d ids: duplicate %q reported among distinct ids", name, n, d)
			}
			if n < 2 {
				continue
			}
			l[n-1].ID = id((n - 1) / 2)
			if d, ok := s.duplicate(l); !ok || d != id((n-1)/2) {
				t.Fatalf("%s, %d ids: duplicate() = %q, %v; want %q", name, n, d, ok, id((n-1)/2))
			}
		}
	}
	// The colliding ids do exhaust the cheap hash's probe budget.
	l := make([]Hit, 1000)
	for i := range l {
		l[i] = Hit{ID: collide(i)}
	}
	var s idSet
	if _, _, done := s.probe(l, true); done {
		t.Error("1000 ids with one suffix did not exceed the cheap hash's probe budget")
	}
}

// checkScoreAt compares parseScoreAt on s, followed by pad, with strconv.
func checkScoreAt(t *testing.T, s, pad string) {
	t.Helper()
	d := []byte(s + pad)
	if len(s) == 0 {
		return
	}
	got, ok := parseScoreAt(d, 0, len(s))
	want, err := strconv.ParseFloat(s, 64)
	wantOK := err == nil && !math.IsNaN(want)
	if ok != wantOK || (ok && math.Float64bits(got) != math.Float64bits(want)) {
		t.Fatalf("parseScoreAt(%q before %q) = %v, %v; strconv: %v, %v", s, pad, got, ok, want, err)
	}
}

func TestParseScoreAtMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "1.0", "2.129133", "0.1", ".5", "5.", "-.25", "+3", "007.50",
		"12345678", "1234567.8", ".1234567", "1234567.", "-1234567.8", "+.0000001", "99999999", "9.9999999",
		"123456789012345", "1e3", "1E-3", "inf", "-Inf", "0x1p-2", "30.0000", "29.9985", "1.7976931348623157e308",
		".", "-", "+", "-.", "1.2.3", "1..2", "1_0", "nan", "1/2", "12:4", "1.2e", "0.0/", "/", "1 2"} {
		for _, pad := range []string{"", " ", " run\n", "        ", "1234567890"} {
			checkScoreAt(t, s, pad)
		}
	}
}

// FuzzParseScoreAt checks the word-at-a-time score parser against strconv
// bit for bit, with and without bytes after the field.
func FuzzParseScoreAt(f *testing.F) {
	for _, s := range []string{"2.129133", "-0.0001", "1234.5678", "1e5", ".5", "5.", "12/4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkScoreAt(t, s, "")
		checkScoreAt(t, s, " tag\n")
	})
}

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
// plain line-by-line split (Fields) on generated files: blank lines, lines
// of blanks, comments, CR LF, every blank byte, extra fields, a last line
// without a newline, and files both below and above ParallelMin.
func TestParseRunMatchesLineByLine(t *testing.T) {
	blanks := []string{" ", "\t", "\r", "\v", "\f", "  \t"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lines := range []int{1, 7, 300, 40000} {
		var b strings.Builder
		for i := range lines {
			sep := func() string { return blanks[rng.IntN(len(blanks))] }
			switch rng.IntN(20) {
			case 0:
				b.WriteString(sep() + "\n")
				continue
			case 1:
				b.WriteString(sep() + "# comment q1 Q0 d 1 2 r\n")
				continue
			case 2:
				b.WriteString("\n")
				continue
			}
			if rng.IntN(3) == 0 {
				b.WriteString(sep())
			}
			fmt.Fprintf(&b, "q%d%sQ0%sdoc-%d%s%d%s%d.%03d%srun%d", i/50, sep(), sep(), i, sep(), i%50+1, sep(), rng.IntN(100), rng.IntN(1000), sep(), i%3)
			if rng.IntN(4) == 0 {
				b.WriteString(sep() + "extra" + sep() + "fields")
			}
			if rng.IntN(3) == 0 {
				b.WriteString(sep())
			}
			if i < lines-1 || rng.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		data := []byte(b.String())
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

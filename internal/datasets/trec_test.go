package datasets

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/trecparse"
)

func TestReadQrels(t *testing.T) {
	fsys := fstest.MapFS{"q.txt": {Data: []byte("# comment\nq1 0 d1 1\r\nq1\t0\td2  0\n\n   \nq2 0 msmarco#3_1 3\nq2 0 d4 -1")}}
	got, err := ReadQrels(fsys, "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := lasagna.Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {"msmarco#3_1": 3, "d4": -1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestReadQrelsErrors(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string
	}{
		{"three fields", "q1 0 d1 1\nq1 0 d2\n", []string{"q.txt:2: want 4 whitespace-separated fields (qid iter docno rel), got 3"}},
		{"five fields", "q1 0 d1 1 x\n", []string{"q.txt:1: want 4 whitespace-separated fields (qid iter docno rel), got more than 4"}},
		{"grade", "q1 0 d1 1.5\n", []string{`q.txt:1: field 4 (rel) "1.5" is not an integer grade`}},
		{"duplicate", "q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", []string{`q.txt:3: document "d1" is judged twice for query "q1" (first at line 1)`}},
		{"empty", "# nothing\n", []string{"q.txt: no judgements"}},
		{"several", "a\nb\n", []string{"q.txt:1:", "q.txt:2:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadQrels(fstest.MapFS{"q.txt": {Data: []byte(c.data)}}, "q.txt")
			if err == nil {
				t.Fatal("no error")
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Errorf("error %T is not Problems", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func hitIDs(hs []lasagna.Hit) []string {
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestReadRun(t *testing.T) {
	data := "# header\n" +
		"q1 Q0 d1 1 1.0 first\n" +
		"q2 Q0 x 1 2 r2 junk after run id\n" +
		"q1 Q0 d2 2 1.0 r\n" + // tie with d1: d2 ranks first
		"q1\tQ0\td10\t1\t  5.0\tr\n" +
		"q1 Q0 d9 7 5 r\r\n" + // tie with d10: "d9" > "d10"
		"\n" +
		"q1 Q0 top 99 -1e-3 r\n" +
		"q2 Q0 y 2 +inf last"
	run, err := ReadRun(fstest.MapFS{"r.txt": {Data: []byte(data)}}, "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	if run.Tag != "last" || run.Lines != 7 {
		t.Errorf("tag %q lines %d, want last 7", run.Tag, run.Lines)
	}
	if got := hitIDs(run.Hits["q1"]); !slices.Equal(got, []string{"d9", "d10", "d2", "d1", "top"}) {
		t.Errorf("q1 ranked %v", got)
	}
	if got := hitIDs(run.Hits["q2"]); !slices.Equal(got, []string{"y", "x"}) {
		t.Errorf("q2 ranked %v", got)
	}
	if run.Hits["q1"][4].Score != -1e-3 || !math.IsInf(run.Hits["q2"][0].Score, 1) {
		t.Errorf("scores %v %v", run.Hits["q1"][4].Score, run.Hits["q2"][0].Score)
	}
	if got := run.QueryIDs(); !slices.Equal(got, []string{"q1", "q2"}) {
		t.Errorf("QueryIDs %v", got)
	}
}

func TestReadRunErrors(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string
	}{
		{"five fields", "q1 Q0 d1 1 2.0 r\n\nq1 Q0 d2 2 1.0\n", []string{"r.txt:3: want 6 whitespace-separated fields (qid Q0 docno rank score run_id), got 5"}},
		{"score", "q1 Q0 d1 1 1,5 r\n", []string{`r.txt:1: field 5 (score) "1,5" is not a number`}},
		{"nan", "q1 Q0 d1 1 NaN r\n", []string{`r.txt:1: field 5 (score) "NaN" is not a number`}},
		{"duplicate, different scores", "q1 Q0 d1 1 3 r\nq2 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d1 3 1 r\n", []string{`r.txt:4: document "d1" is retrieved twice for query "q1" (first at line 1)`}},
		{"duplicate, same score", "q1 Q0 d1 1 3 r\nq1 Q0 d1 2 3 r\n", []string{`r.txt:2: document "d1" is retrieved twice for query "q1" (first at line 1)`}},
		{"empty", "\n# only a comment\n", []string{"r.txt: no results"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadRun(fstest.MapFS{"r.txt": {Data: []byte(c.data)}}, "r.txt")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// refParseRun is a slow, obviously correct run reader to check ParseRun
// against (strings.Fields agrees with C isspace on ASCII input).
func refParseRun(data string) (map[string][]lasagna.Hit, string, int) {
	hits := map[string][]lasagna.Hit{}
	tag, n := "", 0
	for l := range strings.SplitSeq(data, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		s, _ := strconv.ParseFloat(f[4], 64)
		hits[f[0]] = append(hits[f[0]], lasagna.Hit{ID: f[2], Score: s})
		tag = f[5]
		n++
	}
	for _, l := range hits {
		// trec_eval's order: score descending, then docno descending.
		slices.SortFunc(l, func(a, b lasagna.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
	}
	return hits, tag, n
}

// genRun writes a run of queries × depth lines, lines of different queries
// interleaved when shuffle is set, with frequent score ties.
func genRun(queries, depth int, shuffle bool, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var lines []string
	for q := range queries {
		for d := range depth {
			score := strconv.FormatFloat(float64(r.IntN(200))/8, 'f', -1, 64)
			if r.IntN(10) == 0 {
				score = strconv.FormatFloat(r.Float64()*1e3, 'g', -1, 64)
			}
			lines = append(lines, fmt.Sprintf("q%d Q0 doc%d %d %s run%d", q, d*7919%100003, d+1, score, q%3))
		}
	}
	if shuffle {
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestParseRunParallelMatchesReference checks the chunked, parallel parser
// on files above the parallel threshold, grouped and interleaved.
func TestParseRunParallelMatchesReference(t *testing.T) {
	for _, shuffle := range []bool{false, true} {
		data := genRun(80, 500, shuffle, 7)
		if len(data) < trecparse.ParallelMin {
			t.Fatalf("test run is %d bytes, below the parallel threshold", len(data))
		}
		run, err := ParseRun("r.txt", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		want, tag, n := refParseRun(data)
		if run.Tag != tag || run.Lines != n || len(run.Hits) != len(want) {
			t.Fatalf("shuffle=%v: tag %q lines %d queries %d, want %q %d %d", shuffle, run.Tag, run.Lines, len(run.Hits), tag, n, len(want))
		}
		for q, w := range want {
			if !slices.Equal(run.Hits[q], w) {
				t.Fatalf("shuffle=%v: query %s differs", shuffle, q)
			}
		}
	}
}

func TestParseRunErrorLineInLaterChunk(t *testing.T) {
	data := genRun(20, 2000, false, 3)
	lines := strings.Split(data, "\n")
	bad := len(lines) - 10
	lines[bad] = "q1 Q0 broken"
	_, err := ParseRun("r.txt", []byte(strings.Join(lines, "\n")))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("r.txt:%d: want 6", bad+1)) {
		t.Errorf("error %v does not name line %d", err, bad+1)
	}
}

// FuzzParseRun checks that any input either fails with a positioned problem
// or parses to what the reference reader finds, ranked and duplicate-free.
func FuzzParseRun(f *testing.F) {
	f.Add("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1.0 r\n")
	f.Add("# c\nq1 Q0 d1 1 x r\n")
	f.Add("q1 Q0 d1 1 1 r\nq1 Q0 d1 1 2 r\n")
	f.Fuzz(func(t *testing.T, data string) {
		run, err := ParseRun("f.txt", []byte(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		if !isASCII(data) {
			return // strings.Fields splits on Unicode spaces too
		}
		want, tag, n := refParseRun(data)
		if run.Tag != tag || run.Lines != n || len(run.Hits) != len(want) {
			t.Fatalf("tag %q lines %d queries %d, want %q %d %d", run.Tag, run.Lines, len(run.Hits), tag, n, len(want))
		}
		for q, w := range want {
			if !slices.EqualFunc(run.Hits[q], w, func(a, b lasagna.Hit) bool {
				return a.ID == b.ID && math.Float64bits(a.Score) == math.Float64bits(b.Score)
			}) {
				t.Fatalf("query %q: %v, want %v", q, run.Hits[q], w)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == 0x85 {
			return false
		}
	}
	return true
}

func TestWriteRunRoundTrip(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	hits := map[string][]lasagna.Hit{
		"q2": {{ID: "a", Score: tenth + fifth}, {ID: "b", Score: -3}},
		"q1": {{ID: "x#1", Score: 1e-9}, {ID: "y", Score: 1e-9}},
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, "", hits); err != nil {
		t.Fatal(err)
	}
	want := "q1 Q0 x#1 1 1e-09 lasagna\nq1 Q0 y 2 1e-09 lasagna\nq2 Q0 a 1 0.30000000000000004 lasagna\nq2 Q0 b 2 -3 lasagna\n"
	if buf.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", buf.String(), want)
	}
	run, err := ParseRun("w", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// Read back in trec_eval order: y before x#1 on the tie.
	if got := hitIDs(run.Hits["q1"]); !slices.Equal(got, []string{"y", "x#1"}) || run.Hits["q2"][0].Score != tenth+fifth {
		t.Errorf("read back %v %v", got, run.Hits["q2"])
	}
}

func TestWriteRunRejects(t *testing.T) {
	cases := map[string]map[string][]lasagna.Hit{
		"query id":        {"q 1": {{ID: "a", Score: 1}}},
		"starts with '#'": {"#q": {{ID: "a", Score: 1}}},
		"document id":     {"q1": {{ID: "a\tb", Score: 1}}},
		"is empty":        {"q1": {{ID: "", Score: 1}}},
		"NaN":             {"q1": {{ID: "a", Score: math.NaN()}}},
	}
	for want, hits := range cases {
		var buf bytes.Buffer
		err := WriteRun(&buf, "t", hits)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want it to mention %q", hits, err, want)
		}
		if buf.Len() != 0 {
			t.Errorf("%v: wrote %q before failing", hits, buf.String())
		}
	}
	if err := WriteRun(&bytes.Buffer{}, "my run", nil); err == nil {
		t.Error("tag with a space: no error")
	}
}

func BenchmarkParseRun(b *testing.B) {
	data := []byte(genRun(200, 1000, false, 5))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRun("r.txt", data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseRunLongAndOddFields exercises the eight-bytes-at-a-time field
// scanner: fields longer than a word, fields ending exactly on a word
// boundary, mixed blanks, and control bytes that are not blanks (they belong
// to the field, as with C's isspace).
func TestParseRunLongAndOddFields(t *testing.T) {
	var b strings.Builder
	ids := []string{"a", "abcdefg", "abcdefgh", "abcdefghi", "0123456789abcdef", "x\x01y", "\x1fdoc\x7f", "msmarco_v2.1_doc_50_2286987788#13_3087841662"}
	seps := []string{" ", "\t", " \t ", "\v", "\f", "  \r "}
	for i, id := range ids {
		for j, sep := range seps {
			fmt.Fprintf(&b, "query-%d%sQ0%s%s-%d%s%d%s%d.5%srun%sextra words\r\n", i%3, sep, sep, id, j, sep, j, sep, i*j, sep, sep)
		}
	}
	data := b.String()
	run, err := ParseRun("r.txt", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want, tag, n := refParseRun(data)
	if run.Tag != tag || run.Lines != n || n != len(ids)*len(seps) {
		t.Fatalf("tag %q lines %d, want %q %d", run.Tag, run.Lines, tag, n)
	}
	for q, w := range want {
		if !slices.Equal(run.Hits[q], w) {
			t.Errorf("query %s: %v, want %v", q, run.Hits[q], w)
		}
	}
}

// TestParseRunCopies checks that the run ParseRun returns does not change
// when the caller reuses its buffer.
func TestParseRunCopies(t *testing.T) {
	data := []byte("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n")
	run, err := ParseRun("r.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	if run.Tag != "tag" || !slices.Equal(hitIDs(run.Hits["q1"]), []string{"d1", "d2"}) {
		t.Errorf("after the buffer changed: tag %q, hits %v", run.Tag, run.Hits)
	}
}

// TestParseQrelsOnePassMatchesLines checks the one-pass qrels parser
// (trecparse.QrelsLines and presized maps) against the line-by-line one
// on generated files in every shape (blanks of every kind, comments, CR
// LF, signs and leading zeros in grades, a query's lines split in two, a
// last line without newline), and that files with a problem give the
// line-by-line parser's problems.
func TestParseQrelsOnePassMatchesLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	blanks := []string{" ", "\t", "\r", "\v", "\f", "  \t"}
	sep := func() string { return blanks[rng.IntN(len(blanks))] }
	grades := []string{"0", "1", "2", "3", "-1", "+2", "007", "-0", "2147483647", "-2147483648", "123456789"}
	for _, lines := range []int{1, 10, 5000} {
		var b strings.Builder
		for i := range lines {
			switch rng.IntN(15) {
			case 0:
				b.WriteString(sep() + "\n")
			case 1:
				b.WriteString("# comment 1 0 d 1\n")
			}
			q := i / 40
			if i%97 == 0 {
				q = 0 // query 0's lines are not all consecutive
			}
			fmt.Fprintf(&b, "%sq%d%s0%sdoc-%d%s%s%s", sep(), q, sep(), sep(), i, sep(), grades[rng.IntN(len(grades))], sep())
			if i < lines-1 || rng.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		data := []byte(b.String())
		if _, ok := trecparse.QrelsLines(data); !ok {
			t.Fatalf("%d lines: the one-pass split refused a well-formed file", lines)
		}
		got, err := ParseQrels("q", data)
		want, werr := parseQrelsLines("q", data)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d lines: one pass %v, %v; line by line %v, %v", lines, len(got), err, len(want), werr)
		}
		for _, bad := range []string{"q1 0 d\n", "q1 0 d 1 x\n", "q1 0 d 1.5\n", "q1 0 d 2147483648\n", "q0 0 doc-0 1\n"} {
			data := slices.Concat(data, []byte("\n"+bad))
			_, err := ParseQrels("q", data)
			_, werr := parseQrelsLines("q", data)
			if err == nil || werr == nil || err.Error() != werr.Error() {
				t.Errorf("%d lines + %q: %v; line by line %v", lines, bad, err, werr)
			}
		}
		// A control byte is part of a field, as in trec_eval.
		odd := slices.Concat(data, []byte("\nq1 0 d\x01 1\n"))
		got, err = ParseQrels("q", odd)
		want, werr = parseQrelsLines("q", odd)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) || got["q1"]["d\x01"] != 1 {
			t.Errorf("%d lines + a control byte: %v, %v; line by line %v, %v", lines, len(got), err, len(want), werr)
		}
	}
}

package trecparse

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// genRun writes lines result lines in the shapes TREC files take (every
// blank byte, blank and comment lines, CR LF, extra fields, a last line
// with or without a newline), queries of perQuery consecutive lines.
func genRun(rng *rand.Rand, lines, perQuery int) []byte {
	blanks := []string{" ", "\t", "\r", "\v", "\f", "  \t"}
	sep := func() string { return blanks[rng.IntN(len(blanks))] }
	var b strings.Builder
	for i := range lines {
		switch rng.IntN(20) {
		case 0:
			b.WriteString(sep() + "\n")
		case 1:
			b.WriteString(sep() + "# comment q1 Q0 d 1 2 r\n")
		case 2:
			b.WriteString("\n")
		}
		if rng.IntN(3) == 0 {
			b.WriteString(sep())
		}
		score := fmt.Sprintf("%d.%03d", rng.IntN(100), rng.IntN(1000))
		switch rng.IntN(10) {
		case 0:
			score = "-" + score
		case 1:
			score = fmt.Sprintf("%.17g", rng.Float64()*1e6)
		case 2:
			score = fmt.Sprintf("%de-%d", rng.IntN(1000), rng.IntN(5))
		}
		fmt.Fprintf(&b, "q%d%sQ0%sdoc-%d%s%d%s%s%srun%d", i/perQuery, sep(), sep(), uint32(i)*2654435761, sep(), i%50+1, sep(), score, sep(), i%3)
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
	return []byte(b.String())
}

// streamAll collects what StreamRun hands to visit, and the queries it
// found a duplicate document in (sorted).
func streamAll(t *testing.T, data []byte, workers int) (map[string][]Hit, string, int, []string, bool) {
	t.Helper()
	var mu sync.Mutex
	got := map[string][]Hit{}
	twice := ""
	tag, lines, dups, ok := StreamRun(data, workers, func(w int, qid string, ranked []Hit) {
		if w < 0 || w >= workers {
			t.Errorf("worker %d of %d", w, workers)
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[qid]; dup {
			twice = qid
		}
		got[qid] = slices.Clone(ranked)
	})
	if ok && twice != "" {
		t.Errorf("query %q visited twice", twice)
	}
	for _, q := range dups {
		if _, visited := got[q]; visited {
			t.Errorf("query %q has a duplicate document and was visited", q)
		}
	}
	slices.Sort(dups)
	return got, tag, lines, dups, ok
}

// TestStreamRunMatchesParseRun checks that StreamRun sees exactly what
// ParseRun returns (hits in rank order, tag, line count), on one worker
// and on several, for files below and above ParallelMin.
func TestStreamRunMatchesParseRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ lines, perQuery int }{{1, 1}, {7, 3}, {300, 50}, {40000, 1000}, {40000, 1}, {40000, 40000}} {
		data := genRun(rng, c.lines, c.perQuery)
		run, probs := ParseRun("r", data, 10)
		if probs != nil {
			t.Fatalf("%d lines: %v", c.lines, probs)
		}
		for _, workers := range []int{1, 2, 3, 8} {
			got, tag, lines, dups, ok := streamAll(t, data, workers)
			if !ok || dups != nil {
				t.Fatalf("%d lines of %d a query, %d workers: not streamed", c.lines, c.perQuery, workers)
			}
			if lines != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
				t.Errorf("%d lines of %d a query, %d workers: %d lines, tag %q, %d queries; ParseRun: %d, %q, %d",
					c.lines, c.perQuery, workers, lines, tag, len(got), run.Lines, run.Tag, len(run.Hits))
			}
		}
	}
}

// TestStreamRunRefuses checks that StreamRun gives up (for ParseRun to
// rank or report) on every file it cannot stream, wherever the trouble
// is: queries not consecutive (within one worker's piece and across
// pieces), a short line, a bad score, a control byte, no result line.
func TestStreamRunRefuses(t *testing.T) {
	big := genRun(rand.New(rand.NewPCG(5, 6)), 60000, 1000) // > ParallelMin: two pieces
	if len(big) < 2*ParallelMin {
		t.Fatalf("generated run of %d bytes, want at least %d", len(big), 2*ParallelMin)
	}
	mid := len(big) / 2
	mid += strings.IndexByte(string(big[mid:]), '\n') + 1
	cases := map[string][]byte{
		"split query":           []byte("q1 Q0 a 1 2 r\nq2 Q0 b 1 2 r\nq1 Q0 c 2 1 r\n"),
		"query in both pieces":  slices.Concat(big, []byte("q0 Q0 again 1 2 r\n")),
		"short line":            slices.Concat(big[:mid], []byte("q7 Q0 d 1 2\n"), big[mid:]),
		"bad score":             slices.Concat(big[:mid], []byte("q7 Q0 d 1 2x r\n"), big[mid:]),
		"control byte":          []byte("q1 Q0 a\x01b 1 2 r\n"),
		"no results":            []byte("# only a comment\n\n"),
		"empty":                 nil,
		"five fields, last":     []byte("q1 Q0 a 1 2"),
		"NaN":                   []byte("q1 Q0 a 1 NaN r\n"),
		"split query, 2 pieces": slices.Concat([]byte("qz Q0 first 1 2 r\n"), big, []byte("qz Q0 last 1 2 r\n")),
	}
	for name, data := range cases {
		for _, workers := range []int{1, 2} {
			if _, _, _, _, ok := streamAll(t, data, workers); ok {
				t.Errorf("%s, %d workers: streamed; want StreamRun to give up", name, workers)
			}
		}
	}
}

// TestStreamRunDuplicateQueries checks that a query with a document
// retrieved twice is streamed past, not visited, and named in dups, early
// or late in the file, on one worker and on two; what is visited is
// ParseRunJudged's Hits when the queries in dups are not judged, and
// ParseRunJudged reports the duplicate of a judged one.
func TestStreamRunDuplicateQueries(t *testing.T) {
	big := genRun(rand.New(rand.NewPCG(7, 8)), 60000, 1000) // > ParallelMin: two pieces
	for name, c := range map[string]struct {
		data []byte
		dups []string
	}{
		"alone": {[]byte("q1 Q0 a 1 2 r\nq1 Q0 a 2 1 r\n"), []string{"q1"}},
		"first": {slices.Concat([]byte("qa Q0 a 1 2 r\nqa Q0 b 2 1 r\nqa Q0 a 3 0 r\n"), big), []string{"qa"}},
		"late":  {slices.Concat(big, []byte("qz Q0 a 1 2 r\nqz Q0 a 2 1 r\n")), []string{"qz"}},
		"two":   {slices.Concat([]byte("qa Q0 a 1 2 r\nqa Q0 a 2 1 r\n"), big, []byte("qz Q0 a 1 2 r\nqz Q0 a 2 1 r\n")), []string{"qa", "qz"}},
	} {
		isDup := func(q string) bool { return slices.Contains(c.dups, q) }
		run, probs := ParseRunJudged("r", c.data, 10, func(q string) bool { return !isDup(q) })
		if probs != nil {
			t.Fatalf("%s: ParseRunJudged with the duplicated queries unjudged: %v", name, probs)
		}
		for _, workers := range []int{1, 2} {
			got, tag, lines, dups, ok := streamAll(t, c.data, workers)
			if !ok || !slices.Equal(dups, c.dups) {
				t.Errorf("%s, %d workers: ok %v, dups %q; want %q", name, workers, ok, dups, c.dups)
				continue
			}
			if lines != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
				t.Errorf("%s, %d workers: %d lines, tag %q, %d queries; ParseRunJudged: %d, %q, %d", name, workers, lines, tag, len(got), run.Lines, run.Tag, len(run.Hits))
			}
		}
		_, probs = ParseRunJudged("r", c.data, 10, isDup)
		if len(probs) != len(c.dups) || !strings.Contains(probs[0].Msg, "retrieved twice for query \""+c.dups[0]+"\"") {
			t.Errorf("%s: ParseRunJudged with the duplicated queries judged: %v", name, probs)
		}
	}
}

// TestStreamRunDuplicates checks StreamRun's duplicate check (idSet's
// cheap hash, and maphash for ids that collide in it), on short and long
// queries: every duplicate is found and no distinct ids are taken for one,
// also when the ids of many queries are the same.
func TestStreamRunDuplicates(t *testing.T) {
	query := func(qid string, n int, id func(int) string) []byte {
		var b []byte
		for i := range n {
			b = fmt.Appendf(b, "%s Q0 %s %d %d.5 r\n", qid, id(i), i+1, n-i)
		}
		return b
	}
	spread := func(i int) string { return fmt.Sprintf("doc-%d", i) }
	short := func(i int) string { return fmt.Sprintf("%x", i) }
	collide := func(i int) string { return fmt.Sprintf("%06d-same-suffix", i) }
	for _, c := range []struct {
		name string
		n    int
		id   func(int) string
	}{{"spread", 100, spread}, {"short ids", 100, short}, {"long query", 6000, spread}, {"colliding ids", 500, collide}} {
		clean := query("q1", c.n, c.id)
		for _, workers := range []int{1, 2} {
			if _, _, _, dups, ok := streamAll(t, slices.Concat(query("q0", 10, spread), clean, query("q2", 10, spread)), workers); !ok || dups != nil {
				t.Errorf("%s, %d workers: distinct ids refused (ok %v, duplicates in %q)", c.name, workers, ok, dups)
			}
			for _, at := range []int{1, c.n / 2, c.n - 1} {
				dup := slices.Concat(clean, []byte(fmt.Sprintf("q1 Q0 %s 1 0.25 r\n", c.id(at))))
				if _, _, _, dups, ok := streamAll(t, dup, workers); !ok || !slices.Equal(dups, []string{"q1"}) {
					t.Errorf("%s, %d workers: document %d retrieved twice, not found (ok %v, duplicates in %q)", c.name, workers, at, ok, dups)
				}
			}
		}
	}
	// 70,000 one-line queries, each with the same document.
	var b []byte
	for q := range 70000 {
		b = fmt.Appendf(b, "q%d Q0 same 1 1 r\n", q)
	}
	if _, _, lines, dups, ok := streamAll(t, b, 1); !ok || lines != 70000 || dups != nil {
		t.Errorf("70000 one-line queries: ok %v, %d lines", ok, lines)
	}
}

// TestBounds: chunkBounds cuts at line starts and queryBounds also where a
// query id changes, from 0 to len(data) in increasing order.
func TestBounds(t *testing.T) {
	data := []byte("q1 0 a 1 1 r\nq1 0 b 2 1 r\n\nq2 0 a 1 1 r\nq2 0 b 2 1 r\nq2 0 c 3 1 r\nq3 0 a 1 1 r\n")
	for n := 1; n <= 12; n++ {
		for _, c := range []struct {
			name   string
			bounds []int
		}{{"chunkBounds", chunkBounds(data, n)}, {"queryBounds", queryBounds(data, n)}} {
			b := c.bounds
			if b[0] != 0 || b[len(b)-1] != len(data) || len(b) > n+1 || !slices.IsSorted(b) || len(slices.Compact(slices.Clone(b))) != len(b) {
				t.Errorf("%s(%d) = %v", c.name, n, b)
				continue
			}
			for _, at := range b[1 : len(b)-1] {
				if data[at-1] != '\n' {
					t.Errorf("%s(%d) = %v: %d is not a line start", c.name, n, b, at)
				}
				if c.name == "queryBounds" && data[at+1] == data[at-12] {
					t.Errorf("%s(%d) = %v: query %c spans the cut at %d", c.name, n, b, data[at+1], at)
				}
			}
		}
	}
	if got, want := queryBounds(data, 3), []int{0, 66, len(data)}; !slices.Equal(got, want) {
		t.Errorf("queryBounds(3) = %v, want %v", got, want)
	}
}

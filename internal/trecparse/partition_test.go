package trecparse

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// partitionAll collects what PartitionRun and Rank hand to visit.
func partitionAll(t *testing.T, data []byte, workers int) (map[string][]Hit, string, int, []string, bool) {
	t.Helper()
	return partitionReleasing(t, data, workers, nil)
}

func partitionReleasing(t *testing.T, data []byte, workers int, release func(lo, hi int)) (map[string][]Hit, string, int, []string, bool) {
	t.Helper()
	p, ok := PartitionRun(data, workers, release)
	if !ok {
		return nil, "", 0, nil, false
	}
	var mu sync.Mutex
	got := map[string][]Hit{}
	dups := p.Rank(workers, func(w int, qid string, ranked []Hit) {
		mu.Lock()
		defer mu.Unlock()
		if _, twice := got[qid]; twice {
			t.Errorf("query %q visited twice", qid)
		}
		got[qid] = slices.Clone(ranked)
	})
	slices.Sort(dups)
	return got, p.Tag(), p.Lines(), dups, true
}

// TestPartitionRunReleased: the spans PartitionRun hands to release are
// whole 4 MiB blocks (or end at the file's end), handed at most once, and
// never read again: overwritten then (as
// dropped pages of a file that changed would read), the run is still ranked
// exactly as ParseRun ranks the intact file, short and long query ids,
// on one worker and on several.
func TestPartitionRunReleased(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	grouped := genRun(rng, 400000, 1000)
	lines := strings.SplitAfter(string(grouped), "\n")
	for i := range lines {
		if i%3 == 0 && strings.HasPrefix(strings.TrimLeft(lines[i], " \t\r\v\f"), "q") {
			lines[i] = strings.Replace(lines[i], "q", "a-query-id-longer-than-eight-bytes-q", 1)
		}
	}
	if !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n"
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	intact := []byte(strings.Join(lines, ""))
	if len(intact) < 3*releaseBlock {
		t.Fatalf("%d bytes: want a file of several release blocks", len(intact))
	}
	run, probs := ParseRun("r", intact, 10)
	if probs != nil {
		t.Fatal(probs)
	}
	for _, workers := range []int{1, 2, 3} {
		data := slices.Clone(intact)
		var mu sync.Mutex
		released := make([]int, len(data)/releaseBlock+1)
		got, tag, n, dups, ok := partitionReleasing(t, data, workers, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			if lo%releaseBlock != 0 || (hi%releaseBlock != 0 && hi != len(data)) || lo >= hi || hi > len(data) {
				t.Errorf("%d workers: released [%d, %d): want whole blocks", workers, lo, hi)
				return
			}
			for b := lo / releaseBlock; b*releaseBlock < hi; b++ {
				released[b]++
				switch released[b] {
				case 1:
					for i := b * releaseBlock; i < min(hi, (b+1)*releaseBlock); i++ {
						data[i] = 'z'
					}
				default:
					t.Errorf("%d workers: block %d released %d times", workers, b, released[b])
				}
			}
		})
		if !ok || dups != nil {
			t.Fatalf("%d workers: not partitioned (ok %v, dups %q)", workers, ok, dups)
		}
		nreleased := 0
		for _, r := range released {
			if r == 1 {
				nreleased++
			}
		}
		if nreleased < len(released)-2*workers {
			t.Errorf("%d workers: %d of %d blocks released", workers, nreleased, len(released))
		}
		if n != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
			t.Errorf("%d workers: %d lines, tag %q, %d queries; ParseRun: %d, %q, %d", workers, n, tag, len(got), run.Lines, run.Tag, len(run.Hits))
		}
	}
}

// TestPartitionRunMatchesParseRun checks that a run partitioned by query
// is ranked exactly as ParseRun ranks it, whatever the order of its lines
// (grouped, shuffled, two shards of the same queries), on one worker and
// on several, below and above ParallelMin.
func TestPartitionRunMatchesParseRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct{ lines, perQuery int }{{1, 1}, {7, 3}, {300, 50}, {40000, 1000}, {40000, 1}, {40000, 40000}} {
		grouped := genRun(rng, c.lines, c.perQuery)
		lines := strings.SplitAfter(string(grouped), "\n")
		if !strings.HasSuffix(lines[len(lines)-1], "\n") {
			lines[len(lines)-1] += "\n"
		}
		shuffled := slices.Clone(lines)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		half := len(lines) / 2
		shards := slices.Concat(lines[half:], lines[:half])
		for name, data := range map[string][]byte{"grouped": grouped, "shuffled": []byte(strings.Join(shuffled, "")), "shards": []byte(strings.Join(shards, ""))} {
			run, probs := ParseRun("r", data, 10)
			if probs != nil {
				t.Fatalf("%d lines: %v", c.lines, probs)
			}
			for _, workers := range []int{1, 2, 3, 8} {
				got, tag, n, dups, ok := partitionAll(t, data, workers)
				if !ok || dups != nil {
					t.Fatalf("%s, %d lines, %d workers: not partitioned (ok %v, dups %q)", name, c.lines, workers, ok, dups)
				}
				if n != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
					t.Errorf("%s, %d lines of %d a query, %d workers: %d lines, tag %q, %d queries; ParseRun: %d, %q, %d",
						name, c.lines, c.perQuery, workers, n, tag, len(got), run.Lines, run.Tag, len(run.Hits))
				}
			}
		}
	}
}

// TestPartitionRunLongIDs: document ids longer than a bucket's block
// (16 KiB) get blocks of their own and come out whole, beside short ones,
// on one worker and on two.
func TestPartitionRunLongIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	lines := strings.SplitAfter(string(genRun(rng, 60000, 1000)), "\n")
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("q%d Q0 %s-%d 1 %d.5 r\n", i%7, strings.Repeat("x", 17000+i*1000), i, i))
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	data := []byte(strings.Join(lines, ""))
	run, probs := ParseRun("r", data, 10)
	if probs != nil {
		t.Fatal(probs)
	}
	for _, workers := range []int{1, 2} {
		got, tag, n, dups, ok := partitionAll(t, data, workers)
		if !ok || dups != nil {
			t.Fatalf("%d workers: not partitioned (ok %v, dups %q)", workers, ok, dups)
		}
		if n != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
			t.Errorf("%d workers: %d lines, tag %q, %d queries; ParseRun: %d, %q, %d", workers, n, tag, len(got), run.Lines, run.Tag, len(run.Hits))
		}
	}
}

// TestPartitionRunRefuses: a line ParseRun reports, or no result line,
// makes PartitionRun or Rank give up (the caller then parses the file
// whole for the problems); a document retrieved twice names its query.
func TestPartitionRunRefuses(t *testing.T) {
	big := genRun(rand.New(rand.NewPCG(23, 24)), 60000, 1000)
	for name, data := range map[string][]byte{
		"short line": slices.Concat(big, []byte("\nq7 Q0 d 1 2\n")),
		"bad score":  slices.Concat([]byte("q7 Q0 d 1 2x r\n"), big),
		"NaN":        []byte("q2 Q0 b 1 2 r\nq1 Q0 a 1 NaN r\nq2 Q0 c 1 2 r\n"),
		"no results": []byte("# only a comment\n\n"),
		// ParseRun takes these; the partition leaves them to it.
		"control byte":      slices.Concat(big, []byte("q7 Q0 d\x01x 1 2 r\n")),
		"docno over 64 KiB": slices.Concat([]byte("q7 Q0 "+strings.Repeat("d", 1<<16)+" 1 2 r\n"), big),
		"empty":             nil,
	} {
		for _, workers := range []int{1, 2} {
			if _, _, _, _, ok := partitionAll(t, data, workers); ok {
				t.Errorf("%s, %d workers: partitioned; want it to give up", name, workers)
			}
		}
	}
	dup := []byte("q1 Q0 a 1 2 r\nq2 Q0 a 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 b 1 2 r\n")
	got, _, _, dups, ok := partitionAll(t, dup, 1)
	if !ok || !slices.Equal(dups, []string{"q1"}) || len(got) != 1 || len(got["q2"]) != 2 {
		t.Errorf("duplicate in q1: ok %v, dups %q, visited %v", ok, dups, got)
	}
}

// TestRankerMatchesCompareTREC checks the radix sort (and the insertion
// sort in front of it) against a plain sort with compareTREC: shuffled
// lists with many ties, negative scores, -0 beside 0, infinities, large
// and tiny magnitudes.
func TestRankerMatchesCompareTREC(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var r ranker
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1e300, -1e300, 5e-324, -5e-324, 1, -1}
	for _, n := range []int{2, 3, 17, 100, 1000, 5000} {
		for round := range 20 {
			l := make([]Hit, n)
			for i := range l {
				var s float64
				switch rng.IntN(4) {
				case 0:
					s = specials[rng.IntN(len(specials))]
				case 1:
					s = float64(rng.IntN(5)) // ties
				default:
					s = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
				}
				l[i] = Hit{ID: string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26))) + strings.Repeat("x", rng.IntN(3)), Score: s}
			}
			if round%5 == 0 {
				slices.SortFunc(l, compareTREC) // nearly ranked: the insertion sort
				l[0], l[n-1] = l[n-1], l[0]
			}
			want := slices.Clone(l)
			slices.SortStableFunc(want, compareTREC)
			r.sort(l)
			for i := range l {
				if compareTREC(l[i], want[i]) != 0 {
					t.Fatalf("%d hits, round %d: rank %d is %+v, want %+v", n, round, i, l[i], want[i])
				}
			}
		}
	}
}

// TestQidTable: ids short and long, ids of seven and eight bytes whose
// words match ("1234567" and "1234567\x07"), empty-looking and growing
// tables all number each id once, in order.
func TestQidTable(t *testing.T) {
	ids := []string{"1234567", "1234567\x07", "a", "a\x00", "\x00", "topic-0000001-long-id", "topic-0000002-long-id"}
	for i := range 5000 {
		ids = append(ids, fmt.Sprintf("q%d", i), fmt.Sprintf("a-much-longer-query-id-%d", i))
	}
	tab := newQidTable(maphash.MakeSeed())
	for i, q := range ids {
		if got := tab.index([]byte(q), true); got != int32(i) {
			t.Fatalf("index(%q) = %d on insert, want %d", q, got, i)
		}
	}
	for i, q := range ids {
		if got := tab.index([]byte(q), false); got != int32(i) {
			t.Fatalf("index(%q) = %d, want %d", q, got, i)
		}
	}
	if got := tab.index([]byte("absent"), false); got != -1 {
		t.Errorf("index of an absent id = %d, want -1", got)
	}
}

// FuzzRunReaders: whatever the bytes, StreamRun (the grouped path) and
// PartitionRun with Rank (any order) do not panic; when one takes a
// file, split between one worker or three, it hands over exactly what
// ParseRunJudged keeps with nothing judged (a query with a document
// retrieved twice is left out, and named in dups), each query once, with
// its Lines and Tag. The partition gives up on a file ParseRun takes only
// for a control byte.
func FuzzRunReaders(f *testing.F) {
	for _, seed := range []string{
		"q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\nq2 Q0 b 1 3 r\n",
		"q1 Q0 a 1 2 r\nq2 Q0 b 1 3 r\nq1 Q0 c 2 1 r\n",
		"q1 Q0 a 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 a 1 1 r\n",
		"  # c\n\nq1\tQ0\ta\t1\t-2.5e3\tr extra\r\n",
		"q1 Q0 a 1 2\n",
		"q1 Q0 a\x01 1 2 r\n",
		"a-query-id-longer-than-eight Q0 d 1 inf r\nq Q0 d 1 -0 r",
		"q1 Q0 d 1 NaN r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Add(genRun(rand.New(rand.NewPCG(31, 32)), 300, 7))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, probs := ParseRunJudged("r", data, 10, func(string) bool { return false })
		control := slices.ContainsFunc(data, func(c byte) bool { return c < 0x20 && byteClass[c] == 0 })
		for _, workers := range []int{1, 3} {
			for _, reader := range []string{"stream", "partition"} {
				var mu sync.Mutex
				got := map[string][]Hit{}
				twice := ""
				visit := func(_ int, qid string, ranked []Hit) {
					mu.Lock()
					defer mu.Unlock()
					if _, seen := got[qid]; seen {
						twice = qid
					}
					got[qid] = slices.Clone(ranked)
				}
				var (
					tag   string
					lines int
					dups  []string
					ok    bool
				)
				if reader == "stream" {
					tag, lines, dups, ok = streamRun(data, workers, visit, 0)
				} else {
					var p *Partition
					if p, ok = partitionRun(data, workers, nil, 0); ok {
						dups = p.Rank(workers, visit)
						tag, lines = p.Tag(), p.Lines()
					} else if probs == nil && run.Lines > 0 && !control {
						t.Fatalf("partition, %d workers: gave up on a file ParseRun takes (%d lines)", workers, run.Lines)
					}
				}
				if !ok {
					continue // what visit saw is dropped
				}
				if probs != nil {
					t.Fatalf("%s, %d workers: took a file ParseRun reports: %v", reader, workers, probs)
				}
				if twice != "" {
					t.Fatalf("%s, %d workers: query %q visited twice", reader, workers, twice)
				}
				for _, q := range dups {
					if _, kept := run.Hits[q]; kept {
						t.Errorf("%s, %d workers: query %q named a duplicate, ParseRun keeps it", reader, workers, q)
					}
				}
				if lines != run.Lines || tag != run.Tag || !reflect.DeepEqual(got, run.Hits) {
					t.Errorf("%s, %d workers: %d lines, tag %q, %v; ParseRun: %d, %q, %v", reader, workers, lines, tag, got, run.Lines, run.Tag, run.Hits)
				}
			}
		}
	})
}

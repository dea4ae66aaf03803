// Package trecparse parses TREC run files for datasets.ParseRun and for
// `lasagna metrics trec`: one pass over the bytes, on all CPUs for large
// files, with no allocation per line. The strings it returns alias the
// input, which is what makes it fast and why it is internal: datasets
// gives it a buffer nobody else holds (a copy, or a file it read), and the
// command keeps its memory-mapped file until it is done with the run.
//
// TREC files are whitespace-separated text, one record a line:
//
//	qrels: qid iter docno rel                (exactly 4 fields)
//	run:   qid Q0 docno rank score run_id    (6 fields; more are ignored)
//
// as trec_eval reads them. Fields are separated by spaces, tabs, "\r", "\v"
// or "\f"; blank lines and lines whose first non-blank byte is '#' are
// skipped (a '#' inside a field, as in MS MARCO v2.1 docnos, is data).
package trecparse

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/idhash"
)

// Hit is one retrieved document of a run: its id and score. It is
// lasagna.Hit without the citation, so a run of millions of lines costs
// 24 bytes a line.
type Hit struct {
	ID    string
	Score float64
}

// Run is a parsed run file: for each query id, the retrieved documents in
// trec_eval's rank order (score descending, equal scores by document id
// descending, byte-wise); Tag is the run id of the last line and Lines the
// number of records. Its fields are those of datasets.Run, which converts
// from it.
type Run struct {
	Tag   string
	Hits  map[string][]Hit
	Lines int
}

// NoResults is the message of the one Problem ParseRun reports for a run
// file without a result line (empty, or only blank lines and comments).
const NoResults = "no results: the run file has no qid Q0 docno rank score run_id line"

// Problem is one thing wrong with a run file; its fields are those of
// datasets.Problem, which converts from it.
type Problem struct {
	Pos   lasagna.Pos
	Field string
	Msg   string
}

// collector gathers problems up to max; the last one then says that
// reading stopped (as datasets' loaders do).
type collector struct {
	max  int
	list []Problem
	full bool
}

// add records a problem and reports whether the caller may keep reading.
func (c *collector) add(pos lasagna.Pos, field, format string, args ...any) bool {
	if c.full {
		return false
	}
	c.list = append(c.list, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
	if len(c.list) >= c.max {
		c.list = append(c.list, Problem{Pos: lasagna.Pos{File: pos.File}, Msg: fmt.Sprintf("too many problems; stopped reading after %d", c.max)})
		c.full = true
		return false
	}
	return true
}

// runChunk is one worker's share of a run file.
type runChunk struct {
	hits  []Hit
	segs  []runSeg
	tag   string
	lines int
	probs []chunkProblem
}

// runSeg is a stretch of consecutive lines of one query within a chunk.
type runSeg struct {
	qid        string
	start, end int
}

type chunkProblem struct {
	off   int // byte offset of the line in the file
	field string
	msg   string
}

// ParallelMin is the file size from which a run is parsed in parallel.
const ParallelMin = 1 << 20

// ParseRun parses the bytes of a TREC run file (qid Q0 docno rank score
// run_id …); name is used in problem positions. Only qid, docno, score and
// run_id are used; fields after run_id are ignored. A line with fewer than
// six fields, a score that is not a finite or infinite decimal number (NaN
// is refused), or a document retrieved twice for one query is a problem
// naming file:line; up to maxProblems problems are returned, in file order,
// the last then saying that reading stopped. Problems are returned instead
// of a run.
//
// Files of ParallelMin bytes or more are parsed on all CPUs. The returned
// strings alias data: data must not be modified while any of them is in
// use.
func ParseRun(name string, data []byte, maxProblems int) (*Run, []Problem) {
	return parseRun(name, data, maxProblems, nil)
}

// ParseRunJudged is ParseRun as trec_eval reads a run: a document retrieved
// twice is a problem only in a query for which judged returns true. trec_eval
// checks for duplicates when it ranks a query against its judgements, which
// it never does for a query without any, so such a query is accepted with
// its duplicates and left out of Hits (nothing evaluates it).
func ParseRunJudged(name string, data []byte, maxProblems int, judged func(qid string) bool) (*Run, []Problem) {
	return parseRun(name, data, maxProblems, judged)
}

// parseRun is ParseRun; judged, when not nil, says which queries' duplicate
// documents are problems (ParseRunJudged).
func parseRun(name string, data []byte, maxProblems int, judged func(qid string) bool) (*Run, []Problem) {
	nChunks := 1
	if len(data) >= ParallelMin {
		nChunks = runtime.GOMAXPROCS(0)
	}
	bounds := chunkBounds(data, nChunks)
	chunks := make([]runChunk, len(bounds)-1)
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() {
			parseRunChunk(data, bounds[i], bounds[i+1], maxProblems, &chunks[i])
		})
	}
	wg.Wait()

	var probs []chunkProblem
	for i := range chunks {
		probs = append(probs, chunks[i].probs...)
	}
	if len(probs) > 0 {
		return nil, problemsAt(name, data, probs, maxProblems)
	}

	// Group the segments by query.
	run := &Run{Hits: map[string][]Hit{}}
	type ref struct{ chunk, seg int }
	segsOf := map[string][]ref{}
	order := []string{}
	for ci := range chunks {
		c := &chunks[ci]
		run.Lines += c.lines
		if c.tag != "" {
			run.Tag = c.tag
		}
		for si, s := range c.segs {
			if _, ok := segsOf[s.qid]; !ok {
				order = append(order, s.qid)
			}
			segsOf[s.qid] = append(segsOf[s.qid], ref{ci, si})
		}
	}
	if run.Lines == 0 {
		return nil, []Problem{{Pos: lasagna.Pos{File: name}, Msg: NoResults}}
	}
	lists := make([][]Hit, len(order))
	for i, qid := range order {
		refs := segsOf[qid]
		if len(refs) == 1 {
			s := chunks[refs[0].chunk].segs[refs[0].seg]
			lists[i] = chunks[refs[0].chunk].hits[s.start:s.end:s.end]
			continue
		}
		n := 0
		for _, r := range refs {
			s := chunks[r.chunk].segs[r.seg]
			n += s.end - s.start
		}
		l := make([]Hit, 0, n)
		for _, r := range refs {
			s := chunks[r.chunk].segs[r.seg]
			l = append(l, chunks[r.chunk].hits[s.start:s.end]...)
		}
		lists[i] = l
	}

	// Rank each query and reject duplicate documents, in parallel.
	var next atomic.Int64
	dupQuery := make([]string, len(order)) // duplicated docno per query, if any
	workers := min(runtime.GOMAXPROCS(0), len(order))
	for range workers {
		wg.Go(func() {
			var seen idSet
			var rk ranker
			for {
				i := int(next.Add(1) - 1)
				if i >= len(order) {
					return
				}
				l := lists[i]
				rk.sort(l)
				if d, ok := seen.duplicate(l); ok {
					dupQuery[i] = d
				}
			}
		})
	}
	wg.Wait()
	c := collector{max: maxProblems}
	for i, qid := range order {
		if dupQuery[i] == "" || judged != nil && !judged(qid) {
			continue
		}
		first, second := FindDuplicateLines(data, qid, dupQuery[i], 2)
		if !c.add(lasagna.Pos{File: name, Line: second}, "docno", "document %q is retrieved twice for query %q (first at line %d); a run lists each document once per query (trec_eval rejects duplicates)", dupQuery[i], qid, first) {
			break
		}
	}
	if c.list != nil {
		return nil, c.list
	}
	for i, qid := range order {
		if dupQuery[i] == "" {
			run.Hits[qid] = lists[i]
		}
	}
	return run, nil
}

// compareTREC is trec_eval's ranking: score descending, then docno
// descending byte-wise (metrics.CompareTREC; datasets, which uses this
// package, may not import metrics).
func compareTREC(a, b Hit) int {
	if a.Score > b.Score {
		return -1
	}
	if a.Score < b.Score {
		return 1
	}
	return strings.Compare(b.ID, a.ID)
}

// sortRanked sorts l into trec_eval's order (ranker.sort with fresh
// scratch buffers).
func sortRanked(l []Hit) {
	var r ranker
	r.sort(l)
}

// idSet finds duplicate ids in a list: an open-addressing hash table of
// list positions, reused from list to list. It first hashes an id's
// length and last eight bytes, which is cheap and spreads the ids of real
// runs; ids built to collide there (more than a few probes an id) make it
// start the list again with maphash, so a list costs O(n) either way.
// Each slot holds the upper 32 bits of the id's hash beside its position,
// so most probes that meet another id compare no bytes.
type idSet struct {
	seed  maphash.Seed
	salt  uint64
	slots []uint64 // hash>>32<<32 | position+1; 0 is empty
}

// duplicate reports an id that occurs twice in l.
func (s *idSet) duplicate(l []Hit) (string, bool) {
	if d, ok, done := s.probe(l, true); done {
		return d, ok
	}
	d, ok, _ := s.probe(l, false)
	return d, ok
}

// duplicateSuffixes is duplicate for a list whose ids' idhash.Suffix
// values are sufs (computed earlier, while the ids' bytes were in cache).
func (s *idSet) duplicateSuffixes(l []Hit, sufs []uint64) (string, bool) {
	if d, ok, done := s.probeSuffixes(l, sufs); done {
		return d, ok
	}
	d, ok, _ := s.probe(l, false)
	return d, ok
}

// probeSuffixes is probe's quick pass with the suffixes given.
func (s *idSet) probeSuffixes(l []Hit, sufs []uint64) (dup string, found, done bool) {
	slots := s.table(len(l))
	mask := uint64(len(slots) - 1)
	budget := 4*len(l) + 16
	sufs = sufs[:len(l)]
	for i, x := range sufs {
		x *= s.salt
		tag := x &^ (1<<32 - 1)
		k := (x ^ x>>29) & mask
		for {
			p := slots[k]
			if p == 0 {
				slots[k] = tag | uint64(i+1)
				break
			}
			if p&^(1<<32-1) == tag && l[uint32(p)-1].ID == l[i].ID {
				return l[i].ID, true, true
			}
			if budget--; budget < 0 {
				return "", false, false
			}
			k = (k + 1) & mask
		}
	}
	return "", false, true
}

// table returns the cleared table for a list of n ids.
func (s *idSet) table(n int) []uint64 {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(s.slots) < size {
		s.slots = make([]uint64, size)
		s.seed = maphash.MakeSeed()
		s.salt = maphash.Comparable(s.seed, 0) | 1
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	return s.slots
}

// probe looks for a duplicate in l with the cheap hash (quick) or maphash;
// done is false when the cheap hash needed too many probes.
func (s *idSet) probe(l []Hit, quick bool) (dup string, found, done bool) {
	slots := s.table(len(l))
	mask := uint64(len(slots) - 1)
	budget := 4*len(l) + 16
	for i, h := range l {
		var x uint64
		if quick {
			x = idhash.Suffix(h.ID) * s.salt
		} else {
			x = maphash.String(s.seed, h.ID)
		}
		tag := x &^ (1<<32 - 1)
		k := (x ^ x>>29) & mask
		for {
			p := slots[k]
			if p == 0 {
				slots[k] = tag | uint64(i+1)
				break
			}
			if p&^(1<<32-1) == tag && l[uint32(p)-1].ID == h.ID {
				return h.ID, true, true
			}
			if budget--; quick && budget < 0 {
				return "", false, false
			}
			k = (k + 1) & mask
		}
	}
	return "", false, true
}

// FindDuplicateLines returns the line numbers of the first two lines of a
// TREC file whose fields 1 and docField (0-based) are qid and doc. It
// rescans the file; it runs only to report an error.
func FindDuplicateLines(data []byte, qid, doc string, docField int) (first, second int) {
	var f [7][]byte
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if n := Fields(l, f[:]); n > docField && string(f[0]) == qid && string(f[docField]) == doc {
			if first == 0 {
				first = line
			} else {
				return first, line
			}
		}
	}
	return first, second
}

// chunkBounds splits data into at most n pieces that end at line ends.
func chunkBounds(data []byte, n int) []int { return splitBounds(data, n, nil) }

// splitBounds splits data into at most n pieces: each cut is found from
// an equal split, moved to the start of the next line and then, with
// next, on to where next puts it (no cut where next finds none).
func splitBounds(data []byte, n int, next func(data []byte, at int) (int, bool)) []int {
	b := []int{0}
	for i := 1; i < n; i++ {
		at := len(data) * i / n
		if at <= b[len(b)-1] {
			continue
		}
		j := bytes.IndexByte(data[at:], '\n')
		if j < 0 {
			break
		}
		at += j + 1
		if next != nil {
			var ok bool
			if at, ok = next(data, at); !ok {
				break
			}
		}
		b = append(b, at)
	}
	if b[len(b)-1] != len(data) {
		b = append(b, len(data))
	}
	return b
}

// byteClass classifies bytes for the run tokenizer: 0 field byte, 1 blank
// (C isspace other than newline), 2 newline.
var byteClass = func() (t [256]uint8) {
	for _, c := range []byte{' ', '\t', '\r', '\v', '\f'} {
		t[c] = 1
	}
	t['\n'] = 2
	return t
}()

// parseRunChunk parses the lines of data[start:end] into c. It is the hot
// path of `lasagna metrics trec`: one pass over the bytes, no allocation
// per line (ids alias data). It stops after max problems.
func parseRunChunk(data []byte, start, end, max int, c *runChunk) {
	c.hits = make([]Hit, 0, (end-start)/40+16)
	var f [6][]byte
	var qid, tag []byte
	seg := -1
	d := data[:end]
	for off := start; off < len(d) && len(c.probs) < max; {
		// One pass: fields end at a blank or at the newline, so the line
		// end is found while splitting it.
		lineOff := off
		i := off
		for i < len(d) && byteClass[d[i]] == 1 {
			i++
		}
		if i == len(d) || d[i] == '\n' {
			off = i + 1 // blank line
			continue
		}
		if d[i] == '#' {
			off = lineEnd(d, i) // comment
			continue
		}
		n := 0
		for n < len(f) {
			j := fieldEnd(d, i)
			f[n] = d[i:j]
			n++
			for j < len(d) && byteClass[d[j]] == 1 {
				j++
			}
			i = j
			if i == len(d) || d[i] == '\n' {
				break
			}
		}
		off = lineEnd(d, i) // fields after run_id are ignored
		if n < 6 {
			c.probs = append(c.probs, chunkProblem{lineOff, "", fmt.Sprintf("want 6 whitespace-separated fields (qid Q0 docno rank score run_id), got %d; fix the line (ids cannot contain spaces)", n)})
			continue
		}
		score, ok := parseScore(f[4])
		if !ok {
			c.probs = append(c.probs, chunkProblem{lineOff, "score", fmt.Sprintf("field 5 (score) %q is not a number; write the retrieval score as a decimal number such as 12.5", f[4])})
			continue
		}
		if seg < 0 || !bytes.Equal(qid, f[0]) {
			if seg >= 0 {
				c.segs[seg].end = len(c.hits)
			}
			qid = f[0]
			c.segs = append(c.segs, runSeg{qid: AliasString(qid), start: len(c.hits)})
			seg = len(c.segs) - 1
		}
		c.hits = append(c.hits, Hit{ID: AliasString(f[2]), Score: score})
		c.lines++
		tag = f[5]
	}
	if seg >= 0 {
		c.segs[seg].end = len(c.hits)
	}
	c.tag = AliasString(tag)
}

// lineEnd returns the index just after the newline that ends the line
// holding d[i], or len(d).
func lineEnd(d []byte, i int) int {
	if i < len(d) && d[i] == '\n' {
		return i + 1
	}
	if j := bytes.IndexByte(d[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(d)
}

// fieldEnd returns the index of the first blank byte or newline of l at or
// after i, or len(l). It tests eight bytes at a time for a byte
// below 0x21 (every blank is one; a lowest flagged byte is exact), then
// checks that byte against the blank class.
func fieldEnd(l []byte, i int) int {
	for i+8 <= len(l) {
		x := binary.LittleEndian.Uint64(l[i:])
		m := (x - 0x2121212121212121) &^ x & 0x8080808080808080
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)>>3
		if byteClass[l[j]] != 0 {
			return j
		}
		i = j + 1
	}
	for i < len(l) && byteClass[l[i]] == 0 {
		i++
	}
	return i
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseScore parses a score as strconv.ParseFloat does (same value, bit for
// bit), refusing NaN. Plain decimals ([+-]digits[.digits]) with at most 15
// digits in all take a fast exact path (an exact integer divided by an
// exact power of ten is correctly rounded); everything else goes to
// strconv.
func parseScore(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	start := i
	var mant uint64
	for i < len(b) && b[i]-'0' < 10 {
		mant = mant*10 + uint64(b[i]-'0')
		i++
	}
	digits, frac := i-start, 0
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for i < len(b) && b[i]-'0' < 10 {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
		frac = i - fs
		digits += frac
	}
	if i != len(b) || digits == 0 || digits > 15 {
		return slowScore(b)
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

func slowScore(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// problemsAt turns chunk problems (byte offsets) into Problems with line
// numbers, in file order, up to max.
func problemsAt(name string, data []byte, probs []chunkProblem, max int) []Problem {
	slices.SortFunc(probs, func(a, b chunkProblem) int { return cmp.Compare(a.off, b.off) })
	c := collector{max: max}
	line, at := 1, 0
	for _, p := range probs {
		line += bytes.Count(data[at:p.off], []byte{'\n'})
		at = p.off
		if !c.add(lasagna.Pos{File: name, Line: line}, p.field, "%s", p.msg) {
			break
		}
	}
	return c.list
}

// Fields splits line at TREC whitespace into f and returns the number of
// fields found; when there are more than len(f), it returns len(f)+1 and f
// holds the first len(f). Every returned field is non-empty.
func Fields(line []byte, f [][]byte) int {
	n := 0
	i := 0
	for {
		for i < len(line) && IsSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return n
		}
		j := i
		for j < len(line) && !IsSpace(line[j]) {
			j++
		}
		if n == len(f) {
			return n + 1
		}
		f[n] = line[i:j]
		n++
		i = j
	}
}

// IsSpace is C's isspace in the "C" locale, which trec_eval uses.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// AliasString returns b as a string without copying. The caller guarantees
// that b is not modified while the string is in use.
func AliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

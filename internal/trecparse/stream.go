package trecparse

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lasagna-go/lasagna/internal/idhash"
)

// StreamRun parses a run file whose lines are grouped by query (every
// query's lines consecutive, as retrieval systems write them) and hands
// each query to visit as soon as its last line is parsed: ranked in
// trec_eval's order, checked for duplicate documents, in a buffer visit
// may use only until it returns. Nothing is kept per line, so a run costs
// its mapped bytes plus one query's hits per worker.
//
// The file is split at query boundaries into up to workers pieces parsed
// in parallel; visit is called from the worker numbered w (0 ≤ w <
// workers), one query at a time per worker, each query exactly once.
//
// A query with a document retrieved twice is not visited: its id is in
// dups (in no particular order), for the caller to decide, as
// ParseRunJudged does, whether that is a problem (a judged query: parse the
// file with ParseRunJudged, which reports it) or not (trec_eval never looks
// at a query without judgements).
//
// ok is false when the file cannot be streamed: a line ParseRun would
// report (too few fields, a bad score), a query whose lines are not
// consecutive, or no result line. visit may have been called for some
// queries by then; the caller discards what it did and parses the file with
// ParseRun, which gives the same ranking (and the problems, if any). When
// ok is true, tag and lines are ParseRun's Tag and Lines, and visit has
// seen exactly the Hits of ParseRunJudged with judged false for the
// queries in dups.
func StreamRun(data []byte, workers int, visit func(w int, qid string, ranked []Hit)) (tag string, lines int, dups []string, ok bool) {
	return streamRun(data, workers, visit, ParallelMin)
}

// streamRun is StreamRun with files of parallelMin bytes or more split
// between the workers (tests split small ones).
func streamRun(data []byte, workers int, visit func(w int, qid string, ranked []Hit), parallelMin int) (tag string, lines int, dups []string, ok bool) {
	if len(data) < parallelMin {
		workers = 1
	}
	bounds := queryBounds(data, max(workers, 1))
	chunks := make([]streamChunk, len(bounds)-1)
	var stop stopFlag
	var wg sync.WaitGroup
	var shared *sharedQids
	if len(chunks) > 1 {
		shared = &sharedQids{seen: map[string]struct{}{}}
	}
	for i := range chunks {
		wg.Go(func() {
			c := &chunks[i]
			c.shared = shared
			c.streamLines(data, bounds[i], bounds[i+1], &stop, func(qid string, ranked []Hit) { visit(i, qid, ranked) })
		})
	}
	wg.Wait()
	if stop.get() {
		return "", 0, nil, false
	}
	// Each query was one stretch of lines: the workers checked their own
	// pieces, and shared the others'.
	for i := range chunks {
		lines += chunks[i].lines
		if chunks[i].tag != "" {
			tag = chunks[i].tag
		}
		dups = append(dups, chunks[i].dupQids...)
	}
	if lines == 0 {
		return "", 0, nil, false
	}
	return tag, lines, dups, true
}

// sharedQids are the queries every worker has finished: a query whose
// lines are also in another worker's piece stops the stream as soon as
// the second worker finishes it (a run of concatenated shards is given up
// on at once, not after both pieces are parsed).
type sharedQids struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// add reports whether q was not there yet.
func (s *sharedQids) add(q string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[q]; dup {
		return false
	}
	s.seen[q] = struct{}{}
	return true
}

// stopFlag tells the workers that one of them found a reason to give up.
type stopFlag struct{ atomic.Bool }

func (s *stopFlag) set()      { s.Store(true) }
func (s *stopFlag) get() bool { return s.Load() }

// streamChunk is one worker's state in StreamRun.
type streamChunk struct {
	hits  []Hit
	fracs []uint8  // per hit: Score holds the mantissa, to divide by 10^frac
	sufs  []uint64 // per hit: idhash.Suffix of its id, taken while its bytes are in cache
	seen  map[string]struct{}
	dups  idSet
	rank  ranker
	// shared, with more than one worker, holds every worker's queries.
	shared *sharedQids
	// dupQids are the queries with a document retrieved twice, not visited.
	dupQids []string
	tag     string
	lines   int
}

// queryBounds splits data into at most n pieces that begin where a line's
// query id differs from that of the result line before it, so no query
// spans two pieces when the run is grouped. Bounds are found by scanning
// forward from equal splits; a piece that would hold only the tail of one
// query merges with the next.
func queryBounds(data []byte, n int) []int { return splitBounds(data, n, nextQuery) }

// nextQuery returns the offset of the first line, at or after at, whose
// query id differs from that of the first result line at or after at; ok
// is false where there is none.
func nextQuery(data []byte, at int) (int, bool) {
	var first []byte
	for at < len(data) {
		q, next := lineQid(data, at)
		if q == nil {
			at = next
			continue
		}
		if first == nil {
			first = q
		} else if !bytes.Equal(q, first) {
			return at, true
		}
		at = next
	}
	return at, false
}

// lineQid returns the first field of the line starting at off (nil for a
// blank or comment line) and the offset of the next line.
func lineQid(d []byte, off int) (qid []byte, next int) {
	i := off
	for i < len(d) && byteClass[d[i]] == 1 {
		i++
	}
	if i == len(d) || d[i] == '\n' {
		return nil, min(i+1, len(d))
	}
	if d[i] == '#' {
		return nil, lineEnd(d, i)
	}
	j := fieldEnd(d, i)
	return d[i:j], lineEnd(d, j)
}

// streamLines parses data[start:end] (whole lines), calling visit for
// each query; it sets stop and returns at the first line it cannot take,
// and returns early when another worker set stop.
func (c *streamChunk) streamLines(data []byte, start, end int, stop *stopFlag, visit func(qid string, ranked []Hit)) {
	if c.hits == nil {
		c.hits = make([]Hit, 0, 1024)
	}
	c.seen = map[string]struct{}{}
	d := data[:end]
	var qid, tag []byte
	have := false
	flush := func() bool {
		q := AliasString(qid)
		if _, dup := c.seen[q]; dup {
			return false
		}
		c.seen[q] = struct{}{}
		if c.shared != nil && !c.shared.add(q) {
			return false
		}
		for i, f := range c.fracs {
			c.hits[i].Score /= pow10[f]
		}
		if _, dup := c.dups.duplicateSuffixes(c.hits, c.sufs); dup {
			c.dupQids = append(c.dupQids, q)
		} else {
			c.rank.sort(c.hits)
			visit(q, c.hits)
		}
		c.hits, c.fracs, c.sufs = c.hits[:0], c.fracs[:0], c.sufs[:0]
		return true
	}
	var sc sepScanner
	sc.reset(start)
	var f [6][2]int
	for off := start; off < end; {
		n, next, ok := sc.line(d, off, end, &f)
		if !ok {
			stop.set()
			return
		}
		off = next
		if n == 0 || d[f[0][0]] == '#' {
			continue // blank line or comment
		}
		if n < 6 {
			stop.set()
			return
		}
		score, frac, ok := scoreParts(d, f[4][0], f[4][1])
		if !ok {
			stop.set()
			return
		}
		q := d[f[0][0]:f[0][1]]
		tag = d[f[5][0]:f[5][1]]
		if !have || !sameField(d, f[0][0], q, qid) {
			if have && !flush() {
				stop.set()
				return
			}
			if stop.get() {
				return
			}
			qid, have = q, true
		}
		id := AliasString(d[f[2][0]:f[2][1]])
		var x uint64
		if len(id) >= 8 {
			x = binary.LittleEndian.Uint64(d[f[2][1]-8:]) ^ uint64(len(id))<<59
		} else {
			x = idhash.Suffix(id)
		}
		c.sufs = append(c.sufs, x)
		c.hits = append(c.hits, Hit{ID: id, Score: score})
		c.fracs = append(c.fracs, frac)
		c.lines++
	}
	if have && !flush() {
		stop.set()
		return
	}
	c.tag = AliasString(tag)
}

// sameField reports whether the field q, which starts at d[i], equals
// prev; fields of up to eight bytes with eight bytes to load at i and at
// prev are compared as one word.
func sameField(d []byte, i int, q, prev []byte) bool {
	if len(q) != len(prev) {
		return false
	}
	if len(q) <= 8 && i+8 <= len(d) && cap(prev) >= 8 {
		sh := uint(8-len(q)) * 8
		a := binary.LittleEndian.Uint64(d[i:])
		b := binary.LittleEndian.Uint64(prev[:8])
		return (a^b)<<sh == 0
	}
	return bytes.Equal(q, prev)
}

// sepScanner cuts a piece of a run file into lines and fields: the
// separators (bytes up to 0x20) are found eight bytes at a time, past the
// piece's end as newlines, and each line is cut at them.
type sepScanner struct {
	base int    // offset of the current word
	m    uint64 // its separators not yet taken
}

// reset starts the scanner at off.
func (s *sepScanner) reset(off int) { s.base, s.m = off-8, 0 }

// line cuts the line starting at d[off] (off the offset after the last
// line taken, d cut at the piece's end) into fields: the first six are
// f[:min(n, 6)] as offsets [start, end), n counts them all (0 for a
// blank line), next is the offset of the following line. ok is false
// when the line holds a control byte other than a blank (the general
// parser, which takes it as part of a field, reads such a file).
func (s *sepScanner) line(d []byte, off, end int, f *[6][2]int) (n, next int, ok bool) {
	fs := off
	base, m := s.base, s.m
	for {
		for m == 0 {
			base += 8
			if base+8 <= len(d) {
				m = sepMask(binary.LittleEndian.Uint64(d[base:]))
			} else {
				m = tailSepMask(d, base)
			}
		}
		sep := base + bits.TrailingZeros64(m)>>3
		m &= m - 1
		if sep > fs { // a field ends at sep
			if n < len(f) {
				f[n] = [2]int{fs, sep}
			}
			n++
		}
		if sep >= end {
			s.base, s.m = base, m
			return n, end, true
		}
		if c := d[sep]; c == '\n' {
			s.base, s.m = base, m
			return n, sep + 1, true
		} else if c != ' ' && byteClass[c] != 1 {
			return n, sep, false
		}
		fs = sep + 1
	}
}

// tailSepMask is sepMask of the last, partial word of d at base, padded
// with newlines.
func tailSepMask(d []byte, base int) uint64 {
	var w [8]byte
	for i := range w {
		if base+i < len(d) {
			w[i] = d[base+i]
		} else {
			w[i] = '\n'
		}
	}
	return sepMask(binary.LittleEndian.Uint64(w[:]))
}

// sepMask sets the high bit of each byte of x that is at most 0x20.
func sepMask(x uint64) uint64 {
	const lo7, add, high = 0x7f7f7f7f7f7f7f7f, 0x5f5f5f5f5f5f5f5f, 0x8080808080808080
	return ^((x&lo7 + add) | x) & high
}

// StreamWorkers is the number of workers StreamRun uses for a file of n
// bytes at most.
func StreamWorkers(n int) int {
	if n < ParallelMin {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// parseScoreAt parses the score d[i:j] as parseScore does. Scores of at
// most eight bytes after a sign that are digits with at most one '.',
// such as 12.5 or 29.9985, take a branch-light path when eight bytes can
// be loaded at the first digit: the digits are gathered into one word,
// checked and converted together; the value is then the same exact
// integer divided by an exact power of ten as in parseScore.
func parseScoreAt(d []byte, i, j int) (float64, bool) {
	v, frac, ok := scoreParts(d, i, j)
	return v / pow10[frac], ok
}

// scoreParts is parseScoreAt without the division: the score is
// v / 10^frac, divided later, away from the parsing's dependency chains.
func scoreParts(d []byte, i, j int) (v float64, frac uint8, ok bool) {
	start, neg := i, false
	if c := d[i]; c == '-' || c == '+' {
		neg = c == '-'
		i++
	}
	n := j - i
	if n < 1 || n > 8 || i+8 > len(d) {
		v, ok := parseScore(d[start:j])
		return v, 0, ok
	}
	x := binary.LittleEndian.Uint64(d[i:])
	sh := uint(8-n) * 8
	x = x << sh >> sh // the field's n bytes, zero above
	// The '.', if any: the lowest zero byte of x^'.' among the n bytes (a
	// second flagged byte may be a borrow's artefact: the slow path).
	y := x ^ 0x2e2e2e2e2e2e2e2e
	dots := (y - 0x0101010101010101) &^ y & 0x8080808080808080 & (^uint64(0) >> sh)
	if dots != 0 {
		if dots&(dots-1) != 0 || n == 1 {
			v, ok := parseScore(d[start:j])
			return v, 0, ok
		}
		p := bits.TrailingZeros64(dots) >> 3
		low := uint64(1)<<(8*uint(p)) - 1
		x = x&low | x>>8&^low // drop the '.'
		frac = uint8(n - 1 - p)
		sh += 8
	}
	// Right-align the digits (the first is the most significant) and fill
	// the bytes before them with '0'.
	x = x<<sh | 0x3030303030303030&(uint64(1)<<sh-1)
	// Every byte a digit: high nibble 3 and low nibble at most 9.
	if x&0xf0f0f0f0f0f0f0f0 != 0x3030303030303030 || (x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0 != 0x3030303030303030 {
		v, ok := parseScore(d[start:j])
		return v, 0, ok
	}
	x &= 0x0f0f0f0f0f0f0f0f
	x = x * 2561 >> 8 & 0x00ff00ff00ff00ff
	x = x * 6553601 >> 16 & 0x0000ffff0000ffff
	x = x * 42949672960001 >> 32
	v = float64(x)
	if neg {
		v = -v
	}
	return v, frac, true
}

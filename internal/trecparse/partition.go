package trecparse

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lasagna-go/lasagna/internal/idhash"
)

// Partition is a run file's result lines grouped by query buckets: each
// line's query, score and document id copied out of the file in one
// sequential pass, into one of a few hundred buckets by a hash of its
// query id (a radix partition). Rank then takes one bucket at a time,
// small enough to group by query in cache. It is how `metrics trec`
// evaluates a run whose lines are not grouped by query (shards
// concatenated, several systems merged, a multi-threaded retriever's
// output) without holding a Hit per line nor reading the file's lines
// scattered: fourteen bytes a line and the document ids' bytes, where
// ParseRun holds 24 and more. A Partition does not refer to the file's
// bytes: they may be released as the pass goes (PartitionRun's release).
type Partition struct {
	qids     []string // by global number
	counts   []int32  // lines, per query
	chunks   []partChunk
	queries  [][]int32 // per bucket, its queries' numbers
	lines    int
	tag      string
	parallel bool // Rank may use more than one worker
}

// partChunk is one worker's share of the file in PartitionRun.
type partChunk struct {
	index  *qidTable // query id → its number in the chunk
	counts []int32   // lines, per query of the chunk
	bucket []uint16  // per query of the chunk, its bucket
	global []int32   // per query of the chunk, its number in the Partition
	// buckets hold the chunk's lines, bucket by bucket: records of the
	// query's number in the chunk (4 bytes), the score (8) and the
	// document id's length (2), then the id's bytes.
	buckets []partBucket
	slab    []byte // where the next blocks are cut
	slabLen int    // size of a slab
	block   int    // size of a block
	lines   int
	tag     string
	bad     bool // a line ParseRun reports, or a control byte
}

// partBucket is one bucket of a chunk: blocks filled in file order.
type partBucket struct {
	full [][]byte
	cur  []byte
}

const (
	partHeader   = 14       // bytes of a record before the document id
	partSlab     = 1 << 20  // blocks are cut from slabs of this size
	partBlockMax = 16 << 10 // and are at most this large
)

// releaseBlock is the granularity, in bytes from the start of the file,
// at which PartitionRun hands the file back to release.
const releaseBlock = 4 << 20

// partBuckets is the number of buckets for a file of n bytes: about one
// per MiB (a bucket of a 5M-line run is then some 20,000 lines, grouped in
// cache), a power of two from 8 to 4096.
func partBuckets(n int) int {
	b := 8
	for b < 4096 && b<<20 < n {
		b *= 2
	}
	return b
}

// PartitionRun copies the result lines of a run file into buckets by
// query, in one sequential pass over the file on up to workers CPUs (a
// radix partition: each worker appends each line to one of a few hundred
// buckets, so its writes stay sequential). When release is not nil it is
// called, as the pass goes, with the spans [lo, hi) of data it has passed
// (lo and hi multiples of 4 MiB from the start of data, or len(data)),
// each at most once: a mapped file's pages may be dropped there, so that
// the file and its copy are not both in memory; the span is not read
// again. ok is false when the file has no result line or has a line
// ParseRun reports (fewer than six fields, a bad score) or one with a
// control byte other than a blank: the caller then parses the file with
// ParseRun, for the problems or the odd bytes.
func PartitionRun(data []byte, workers int, release func(lo, hi int)) (p *Partition, ok bool) {
	return partitionRun(data, workers, release, ParallelMin)
}

// partitionRun is PartitionRun with files of parallelMin bytes or more
// split between the workers (tests split small ones).
func partitionRun(data []byte, workers int, release func(lo, hi int), parallelMin int) (p *Partition, ok bool) {
	if len(data) < parallelMin {
		workers = 1
	}
	bounds := chunkBounds(data, max(workers, 1))
	chunks := make([]partChunk, len(bounds)-1)
	nb := partBuckets(len(data))
	seed := maphash.MakeSeed() // one hash of the query ids for every chunk
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() { chunks[i].fill(data, bounds[i], bounds[i+1], nb, seed, release) })
	}
	wg.Wait()

	// Number the queries across chunks (first appearance first) and list
	// each bucket's queries.
	p = &Partition{parallel: len(data) >= parallelMin, chunks: chunks, queries: make([][]int32, nb)}
	global := map[string]int32{}
	for ci := range chunks {
		c := &chunks[ci]
		if c.bad {
			return nil, false
		}
		p.lines += c.lines
		if c.lines > 0 {
			p.tag = c.tag
		}
		c.global = make([]int32, len(c.counts))
		for li, qb := range c.index.ids {
			q := AliasString(qb)
			g, seen := global[q]
			if !seen {
				g = int32(len(p.qids))
				global[q] = g
				p.qids = append(p.qids, q)
				p.counts = append(p.counts, 0)
				p.queries[c.bucket[li]] = append(p.queries[c.bucket[li]], g)
			}
			c.global[li] = g
			p.counts[g] += c.counts[li]
		}
	}
	if p.lines == 0 {
		return nil, false
	}
	return p, true
}

// fill is PartitionRun's pass over one chunk: each line parsed and
// appended to its query's bucket, the file handed to release behind it.
func (c *partChunk) fill(data []byte, start, end, nb int, seed maphash.Seed, release func(lo, hi int)) {
	c.index = newQidTable(seed)
	c.buckets = make([]partBucket, nb)
	c.block = partBlockMax
	for c.block > 512 && c.block*nb > 2*(end-start) {
		c.block /= 2 // small files: small blocks
	}
	// A record is at most a few bytes longer than its line.
	c.slabLen = min(partSlab, max(64<<10, 2*(end-start)))
	rel := releaser{release: release, freed: (start + releaseBlock - 1) / releaseBlock * releaseBlock}
	defer rel.finish(data, end)
	d := data[:end]
	var (
		sc   sepScanner
		f    [6][2]int
		prev []byte
		last       = -1 // offset of the last result line
		cur  int32 = -1
		bk   *partBucket
	)
	sc.reset(start)
	mask := uint64(nb - 1)
	for off := start; off < end; {
		n, next, ok := sc.line(d, off, end, &f)
		if !ok {
			c.bad = true
			return
		}
		at := off
		off = next
		if n == 0 || d[f[0][0]] == '#' {
			continue // blank line or comment
		}
		rel.pass(at)
		if n < 6 {
			c.bad = true
			return
		}
		score, ok := parseScoreAt(d, f[4][0], f[4][1])
		if !ok {
			c.bad = true
			return
		}
		qid := d[f[0][0]:f[0][1]]
		if cur < 0 || !sameField(d, f[0][0], qid, prev) {
			li := c.index.index(qid, true)
			if int(li) == len(c.counts) {
				h, _, _ := c.index.hash(qid)
				c.counts = append(c.counts, 0)
				c.bucket = append(c.bucket, uint16(h>>32&mask))
			}
			prev, cur = qid, li
			bk = &c.buckets[c.bucket[li]]
		}
		c.counts[cur]++
		c.lines++
		last = at
		id := d[f[2][0]:f[2][1]]
		if len(id) > math.MaxUint16 {
			c.bad = true // ParseRun takes it
			return
		}
		need := partHeader + len(id)
		if len(bk.cur)+need > cap(bk.cur) {
			c.newBlock(bk, need)
		}
		w := len(bk.cur)
		r := bk.cur[:w+need]
		binary.LittleEndian.PutUint32(r[w:], uint32(cur))
		binary.LittleEndian.PutUint64(r[w+4:], math.Float64bits(score))
		binary.LittleEndian.PutUint16(r[w+12:], uint16(len(id)))
		copy(r[w+partHeader:], id)
		bk.cur = r
	}
	// The run id of the last line, cut again (not copied at every line):
	// its block is not released yet (pass releases only blocks before the
	// line it is given, and finish runs after this).
	if last >= 0 {
		sc.reset(last)
		sc.line(d, last, end, &f)
		c.tag = string(d[f[5][0]:f[5][1]])
	}
}

// newBlock starts a new block in bk with room for need bytes.
func (c *partChunk) newBlock(bk *partBucket, need int) {
	if len(bk.cur) > 0 {
		bk.full = append(bk.full, bk.cur)
	}
	size := max(c.block, need)
	if size > len(c.slab) {
		if size > c.slabLen/4 {
			bk.cur = make([]byte, 0, size)
			return
		}
		c.slab = make([]byte, c.slabLen)
	}
	bk.cur = c.slab[:0:size]
	c.slab = c.slab[size:]
}

// releaser hands a chunk of the file to release behind a pass over it:
// the blocks wholly inside the chunk, once passed.
type releaser struct {
	release func(lo, hi int)
	freed   int // released up to here (a block boundary)
}

// pass is called with the offset of each line; it reports whether it has
// released a span.
func (r *releaser) pass(at int) bool {
	if r.release == nil || at-r.freed < releaseBlock {
		return false
	}
	hi := at / releaseBlock * releaseBlock
	r.release(r.freed, hi)
	r.freed = hi
	return true
}

// finish releases the rest of the chunk when it ends at a block boundary
// or at the end of the file (a block across two chunks is kept).
func (r *releaser) finish(data []byte, end int) {
	if r.release != nil && r.freed < end && (end == len(data) || end%releaseBlock == 0) {
		r.release(r.freed, end)
	}
}

// Lines is the number of result lines (ParseRun's Lines).
func (p *Partition) Lines() int { return p.lines }

// Tag is the run id of the last result line (ParseRun's Tag).
func (p *Partition) Tag() string { return p.tag }

// Rank ranks each query's lines in trec_eval's order and hands them to
// visit as StreamRun does: from the worker numbered w (0 ≤ w < workers),
// one query at a time per worker, in a buffer visit may use only until it
// returns. A query with a document retrieved twice is not visited but
// named in dups. visit has seen exactly the Hits of ParseRunJudged with
// judged false for the queries not in dups, and Lines and Tag are
// ParseRun's. The hits' ids are the Partition's bytes.
func (p *Partition) Rank(workers int, visit func(w int, qid string, ranked []Hit)) (dups []string) {
	workers = max(1, min(workers, len(p.queries)))
	if !p.parallel {
		workers = 1
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		dupsOf = make([][]string, workers)
		at     = make([]int32, len(p.qids)) // where each query's next line goes in its worker's hits
	)
	for w := range workers {
		wg.Go(func() {
			var (
				hits []Hit
				sufs []uint64
				seen idSet
				rk   ranker
			)
			for {
				b := int(next.Add(1) - 1)
				if b >= len(p.queries) {
					return
				}
				qs := p.queries[b]
				var n int32
				for _, g := range qs {
					at[g] = n
					n += p.counts[g]
				}
				hits = slices.Grow(hits[:0], int(n))[:n]
				sufs = slices.Grow(sufs[:0], int(n))[:n]
				for ci := range p.chunks {
					c := &p.chunks[ci]
					bk := &c.buckets[b]
					for _, r := range bk.full {
						c.gather(r, hits, sufs, at)
					}
					c.gather(bk.cur, hits, sufs, at)
				}
				var lo int32
				for _, g := range qs {
					hi := lo + p.counts[g]
					l, s := hits[lo:hi], sufs[lo:hi]
					lo = hi
					if _, dup := seen.duplicateSuffixes(l, s); dup {
						dupsOf[w] = append(dupsOf[w], p.qids[g])
						continue
					}
					rk.sort(l)
					visit(w, p.qids[g], l)
				}
			}
		})
	}
	wg.Wait()
	for _, q := range dupsOf {
		dups = append(dups, q...)
	}
	return dups
}

// gather puts the records of the block r into hits (and the ids'
// idhash.Suffix into sufs), each at its query's next place (at, by number
// in the Partition).
func (c *partChunk) gather(r []byte, hits []Hit, sufs []uint64, at []int32) {
	for k := 0; k < len(r); {
		li := binary.LittleEndian.Uint32(r[k:])
		score := math.Float64frombits(binary.LittleEndian.Uint64(r[k+4:]))
		n := int(binary.LittleEndian.Uint16(r[k+12:]))
		k += partHeader
		id := AliasString(r[k : k+n])
		k += n
		g := c.global[li]
		i := at[g]
		at[g]++
		hits[i] = Hit{ID: id, Score: score}
		sufs[i] = idhash.Suffix(id)
	}
}

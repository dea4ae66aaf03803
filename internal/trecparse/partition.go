package trecparse

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"sync/atomic"
)

// Partition is a run file's result lines grouped by query: for each
// query, its lines' scores and document ids, in file order, copied out of
// the file in one sequential pass. It is how `metrics trec` evaluates a
// run whose lines are not grouped by query (shards concatenated, several
// systems merged, a multi-threaded retriever's output) without holding a
// Hit per line nor reading the file's lines scattered: twelve bytes a
// line and the document ids' bytes, where ParseRun holds 24 and more. A
// Partition does not refer to the file's bytes: they may be released as
// the second pass goes (PartitionRun's release).
type Partition struct {
	qids   []string
	start  []int     // query i's lines are scores[start[i]:start[i+1]]
	scores []float64 // by query, in file order within a query
	ends   []uint32  // line k's document id is docs[ends[k-1]:ends[k]] (0 for k = 0)
	docs   []byte    // the document ids, by query
	tag    string
	size   int // of the file
}

// partChunk is one worker's share of the file in PartitionRun.
type partChunk struct {
	index  *qidTable // query id → position in counts
	counts []int32   // lines, per query of the chunk
	bytes  []uint32  // document id bytes, per query of the chunk
	// cursor and bcursor are, per query of the chunk, where its next line
	// goes in Partition.scores and ends, and its next id in docs.
	cursor  []int
	bcursor []uint32
	// line is, per result line of the chunk in file order, its query's
	// position in counts: the second pass does not look the ids up again.
	line []int32
	last int
	bad  bool // a line ParseRun reports
}

// releaseBlock is the granularity, in bytes from the start of the file,
// at which PartitionRun hands the file back to release.
const releaseBlock = 4 << 20

// PartitionRun groups the result lines of a run file by query, in two
// sequential passes over the file on up to workers CPUs: one counts each
// query's lines and document id bytes, the other parses each line and
// copies its score and document id into its query's stretch (a counting
// sort by query, radix-partition style). When release is not nil it is
// called, as each pass goes, with the spans [lo, hi) of data it has passed
// (lo and hi multiples of 4 MiB from the start of data, or len(data)): a
// mapped file's pages may be dropped there, so that the file and its copy
// are not both in memory. Each span is handed twice: after the first pass,
// when the second reads it again (a dropped page is then read from the
// file once more), and after the second, when it is not read again. ok is false when the file has
// no result line, has a line ParseRun reports (fewer than six fields, a
// bad score: the caller then parses the file with ParseRun for the
// problems) or is too large for four-byte offsets (4 GiB).
func PartitionRun(data []byte, workers int, release func(lo, hi int)) (p *Partition, ok bool) {
	if len(data) > math.MaxUint32 {
		return nil, false
	}
	if len(data) < ParallelMin {
		workers = 1
	}
	bounds := chunkBounds(data, max(workers, 1))
	chunks := make([]partChunk, len(bounds)-1)
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() { chunks[i].count(data, bounds[i], bounds[i+1], release) })
	}
	wg.Wait()

	// Number the queries across chunks (first appearance first) and give
	// each (chunk, query) its place: a query's lines keep file order.
	p = &Partition{size: len(data)}
	last := -1
	global := map[string]int{}
	var perQuery []int
	var perBytes []uint64
	for ci := range chunks {
		c := &chunks[ci]
		if c.bad {
			return nil, false
		}
		if c.last >= 0 {
			last = c.last
		}
		for li, qb := range c.index.ids {
			q := AliasString(qb)
			g, seen := global[q]
			if !seen {
				g = len(p.qids)
				global[q] = g
				p.qids = append(p.qids, q)
				perQuery = append(perQuery, 0)
				perBytes = append(perBytes, 0)
			}
			perQuery[g] += int(c.counts[li])
			perBytes[g] += uint64(c.bytes[li])
		}
	}
	if last < 0 {
		return nil, false
	}
	var f [6][]byte
	if n, _ := lineFields(data, last, &f); n == 6 {
		p.tag = strings.Clone(AliasString(f[5]))
	}
	p.start = make([]int, len(p.qids)+1)
	bstart := make([]uint64, len(p.qids)+1)
	for g, n := range perQuery {
		p.start[g+1] = p.start[g] + n
		bstart[g+1] = bstart[g] + perBytes[g]
	}
	next, bnext := perQuery, perBytes // reused: the next free places of each query
	copy(next, p.start)
	copy(bnext, bstart)
	for ci := range chunks {
		c := &chunks[ci]
		c.cursor = make([]int, len(c.counts))
		c.bcursor = make([]uint32, len(c.counts))
		for li, q := range c.index.ids {
			g := global[AliasString(q)]
			c.cursor[li] = next[g]
			c.bcursor[li] = uint32(bnext[g])
			next[g] += int(c.counts[li])
			bnext[g] += uint64(c.bytes[li])
		}
	}
	n := p.start[len(p.qids)]
	p.scores = make([]float64, n)
	p.ends = make([]uint32, n)
	p.docs = make([]byte, bstart[len(p.qids)])
	for i := range chunks {
		wg.Go(func() { chunks[i].place(data, bounds[i], bounds[i+1], p, release) })
	}
	wg.Wait()
	for ci := range chunks {
		if chunks[ci].bad {
			return nil, false
		}
	}
	return p, true
}

// eachLine calls f with the offset and the first k fields (as
// splitFields splits them) of every result line of data[start:end] (whole lines); blank and
// comment lines are skipped as ParseRun skips them. It stops early when f
// returns false.
func eachLine(data []byte, start, end, k int, f func(at, n int, fields *[6][]byte) bool) {
	d := data[:end]
	var fields [6][]byte
	for off := start; off < len(d); {
		i := off
		for i < len(d) && byteClass[d[i]] == 1 {
			i++
		}
		if i == len(d) || d[i] == '\n' {
			off = i + 1
			continue
		}
		if d[i] == '#' {
			off = lineEnd(d, i)
			continue
		}
		n, next := splitFields(d, i, &fields, k)
		if !f(i, n, &fields) {
			return
		}
		off = next
	}
}

// count is PartitionRun's first pass over one chunk: each query's lines
// and document id bytes.
func (c *partChunk) count(data []byte, start, end int, release func(lo, hi int)) {
	c.index = newQidTable()
	c.last = -1
	// Room for lines of 16 bytes and more (the shortest are 12): untouched
	// room costs address space only.
	c.line = make([]int32, 0, (end-start)/16+1)
	var prev []byte
	cur := int32(-1)
	rel := releaser{release: release, freed: (start + releaseBlock - 1) / releaseBlock * releaseBlock}
	defer rel.finish(data, end)
	// The qid and the docno are enough here; the second pass checks the
	// rest of the line.
	eachLine(data, start, end, 3, func(at, n int, f *[6][]byte) bool {
		rel.pass(at)
		if n < 3 {
			c.bad = true
			return false
		}
		c.last = at
		qid := f[0]
		if cur < 0 || !bytes.Equal(qid, prev) {
			li := c.index.index(qid, true)
			if int(li) == len(c.counts) {
				c.counts = append(c.counts, 0)
				c.bytes = append(c.bytes, 0)
			}
			prev, cur = qid, li
		}
		c.counts[cur]++
		c.bytes[cur] += uint32(len(f[2]))
		c.line = append(c.line, cur)
		return true
	})
}

// place is PartitionRun's second pass: each line's score and document id
// into its query's stretch, the file handed to release behind it.
func (c *partChunk) place(data []byte, start, end int, p *Partition, release func(lo, hi int)) {
	rel := releaser{release: release, freed: (start + releaseBlock - 1) / releaseBlock * releaseBlock}
	defer rel.finish(data, end)
	line := c.line
	eachLine(data, start, end, 6, func(at, n int, f *[6][]byte) bool {
		rel.pass(at)
		if n < 6 {
			c.bad = true
			return false
		}
		score, ok := parseScore(f[4])
		if !ok {
			c.bad = true
			return false
		}
		cur := line[0]
		line = line[1:]
		k := c.cursor[cur]
		c.cursor[cur]++
		p.scores[k] = score
		b := c.bcursor[cur]
		copy(p.docs[b:], f[2])
		b += uint32(len(f[2]))
		p.ends[k] = b
		c.bcursor[cur] = b
		return true
	})
	c.line = nil
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
func (p *Partition) Lines() int { return len(p.scores) }

// Tag is the run id of the last result line (ParseRun's Tag).
func (p *Partition) Tag() string { return p.tag }

// lineFields splits the line starting at d[at] (at its first field) as
// parseRunChunk does, into up to six fields (n is then 6 for six or
// more); next is the offset of the following line.
func lineFields(d []byte, at int, f *[6][]byte) (n, next int) {
	return splitFields(d, at, f, len(f))
}

// splitFields is lineFields for the first k fields (k ≤ 6): n < k when the
// line has fewer.
func splitFields(d []byte, at int, f *[6][]byte, k int) (n, next int) {
	i := at
	for n < k {
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
	return n, lineEnd(d, i)
}

// Rank ranks each query's lines in trec_eval's order and hands them to
// visit as StreamRun does: from the worker numbered w (0 ≤ w < workers),
// one query at a time per worker, in a buffer visit may use only until it
// returns. A query with a document retrieved twice is not visited but
// named in dups. visit has seen exactly the Hits of ParseRunJudged with
// judged false for the queries not in dups, and Lines and Tag are
// ParseRun's. The hits' ids are the Partition's bytes.
func (p *Partition) Rank(workers int, visit func(w int, qid string, ranked []Hit)) (dups []string) {
	workers = max(1, min(workers, len(p.qids)))
	if p.size < ParallelMin {
		workers = 1
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		dupsOf = make([][]string, workers)
	)
	for w := range workers {
		wg.Go(func() {
			var (
				hits []Hit
				seen idSet
				rk   ranker
			)
			for {
				g := int(next.Add(1) - 1)
				if g >= len(p.qids) {
					return
				}
				lo, hi := p.start[g], p.start[g+1]
				var b uint32
				if lo > 0 {
					b = p.ends[lo-1]
				}
				hits = hits[:0]
				for k := lo; k < hi; k++ {
					e := p.ends[k]
					hits = append(hits, Hit{ID: AliasString(p.docs[b:e]), Score: p.scores[k]})
					b = e
				}
				if _, dup := seen.duplicate(hits); dup {
					dupsOf[w] = append(dupsOf[w], p.qids[g])
					continue
				}
				rk.sort(hits)
				visit(w, p.qids[g], hits)
			}
		})
	}
	wg.Wait()
	for _, q := range dupsOf {
		dups = append(dups, q...)
	}
	return dups
}

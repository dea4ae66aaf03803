package trecparse

import (
	"bytes"
	"math"
	"sync"
	"sync/atomic"
)

// Partition is a run file's result lines grouped by query without
// parsing them: for each query, the byte offsets of its lines in the
// file, in file order. It is how `metrics trec` evaluates a run whose
// lines are not grouped by query (shards concatenated, several systems
// merged, a multi-threaded retriever's output) without holding a parsed
// hit per line: four bytes a line beside the file, where ParseRun holds
// 24 and more. Each query's lines are parsed when it is ranked.
type Partition struct {
	data  []byte
	qids  []string
	start []int    // query i's lines are offs[start[i]:start[i+1]]
	offs  []uint32 // line offsets (of the query id), by query
	last  int      // offset of the last result line, -1 for none
}

// partChunk is one worker's share of the file in PartitionRun.
type partChunk struct {
	index  *qidTable // query id → position in counts
	counts []int32
	// cursor is, per query of the chunk, where its next line offset goes
	// in Partition.offs.
	cursor []int
	last   int
}

// PartitionRun groups the result lines of a run file by query, in two
// passes over the file on up to workers CPUs: one counts each query's
// lines, the other writes each line's offset into its query's stretch
// (a counting sort by query, radix-partition style). Only the query ids
// are read; Rank parses the rest. ok is false when the file has no
// result line or is too large for four-byte offsets (4 GiB).
func PartitionRun(data []byte, workers int) (p *Partition, ok bool) {
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
		wg.Go(func() { chunks[i].count(data, bounds[i], bounds[i+1]) })
	}
	wg.Wait()

	// Number the queries across chunks (first appearance first) and give
	// each (chunk, query) its place: a query's lines keep file order.
	p = &Partition{data: data, last: -1}
	global := map[string]int{}
	var perQuery []int
	for ci := range chunks {
		c := &chunks[ci]
		if c.last >= 0 {
			p.last = c.last
		}
		for li, qb := range c.index.ids {
			q := AliasString(qb)
			g, seen := global[q]
			if !seen {
				g = len(p.qids)
				global[q] = g
				p.qids = append(p.qids, q)
				perQuery = append(perQuery, 0)
			}
			perQuery[g] += int(c.counts[li])
		}
	}
	if p.last < 0 {
		return nil, false
	}
	p.start = make([]int, len(p.qids)+1)
	for g, n := range perQuery {
		p.start[g+1] = p.start[g] + n
	}
	next := perQuery // reused: the next free place of each query
	copy(next, p.start)
	for ci := range chunks {
		c := &chunks[ci]
		c.cursor = make([]int, len(c.counts))
		for li, q := range c.index.ids {
			g := global[AliasString(q)]
			c.cursor[li] = next[g]
			next[g] += int(c.counts[li])
		}
	}
	p.offs = make([]uint32, p.start[len(p.qids)])
	for i := range chunks {
		wg.Go(func() { chunks[i].place(data, bounds[i], bounds[i+1], p.offs) })
	}
	wg.Wait()
	return p, true
}

// eachQid calls f with the query id and the offset of every result line
// of data[start:end] (whole lines); blank and comment lines are skipped
// as ParseRun skips them.
func eachQid(data []byte, start, end int, f func(qid []byte, at int)) {
	d := data[:end]
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
		j := fieldEnd(d, i)
		f(d[i:j], i)
		off = lineEnd(d, j)
	}
}

// count is PartitionRun's first pass over one chunk: each query's lines.
func (c *partChunk) count(data []byte, start, end int) {
	c.index = newQidTable()
	c.last = -1
	var prev []byte
	cur := int32(-1)
	eachQid(data, start, end, func(qid []byte, at int) {
		c.last = at
		if cur < 0 || !bytes.Equal(qid, prev) {
			li := c.index.index(qid, true)
			if int(li) == len(c.counts) {
				c.counts = append(c.counts, 0)
			}
			prev, cur = qid, li
		}
		c.counts[cur]++
	})
}

// place is PartitionRun's second pass: each line's offset into its
// query's stretch of offs.
func (c *partChunk) place(data []byte, start, end int, offs []uint32) {
	var prev []byte
	cur := int32(-1)
	eachQid(data, start, end, func(qid []byte, at int) {
		if cur < 0 || !bytes.Equal(qid, prev) {
			prev, cur = qid, c.index.index(qid, false)
		}
		offs[c.cursor[cur]] = uint32(at)
		c.cursor[cur]++
	})
}

// Lines is the number of result lines (ParseRun's Lines).
func (p *Partition) Lines() int { return len(p.offs) }

// Tag is the run id of the last result line (ParseRun's Tag); it is
// valid once Rank has returned ok.
func (p *Partition) Tag() string {
	var f [6][]byte
	if n, _ := lineFields(p.data, p.last, &f); n == 6 {
		return AliasString(f[5])
	}
	return ""
}

// lineFields splits the line starting at d[at] (at its first field) as
// parseRunChunk does, into up to six fields (n is then 6 for six or
// more); next is the offset of the following line.
func lineFields(d []byte, at int, f *[6][]byte) (n, next int) {
	i := at
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
	return n, lineEnd(d, i)
}

// Rank parses each query's lines, ranks them in trec_eval's order and
// hands them to visit as StreamRun does: from the worker numbered w
// (0 ≤ w < workers), one query at a time per worker, in a buffer visit may
// use only until it returns. A query with a document retrieved twice is not
// visited but named in dups. ok is false when a line is one ParseRun
// reports (fewer than six fields, a bad score): the caller then parses the
// file with ParseRun for the problems. When ok is true, visit has seen
// exactly the Hits of ParseRunJudged with judged false for the queries in
// dups, and Lines and Tag are ParseRun's.
func (p *Partition) Rank(workers int, visit func(w int, qid string, ranked []Hit)) (dups []string, ok bool) {
	workers = max(1, min(workers, len(p.qids)))
	if len(p.data) < ParallelMin {
		workers = 1
	}
	var (
		next   atomic.Int64
		stop   stopFlag
		wg     sync.WaitGroup
		dupsOf = make([][]string, workers)
	)
	for w := range workers {
		wg.Go(func() {
			var (
				hits  []Hit
				seen  idSet
				rk    ranker
				f     [6][]byte
				touch byte
			)
			defer func() { touchSink.Add(uint32(touch)) }() // keeps the loads
			d := p.data
			for !stop.get() {
				g := int(next.Add(1) - 1)
				if g >= len(p.qids) {
					return
				}
				offs := p.offs[p.start[g]:p.start[g+1]]
				// The lines are scattered over the file: load a byte of
				// each first, so the misses overlap instead of queueing
				// behind each line's parsing.
				for _, o := range offs {
					touch += d[o]
				}
				hits = hits[:0]
				for _, o := range offs {
					n, _ := lineFields(d, int(o), &f)
					if n < 6 {
						stop.set()
						return
					}
					score, ok := parseScore(f[4])
					if !ok {
						stop.set()
						return
					}
					hits = append(hits, Hit{ID: AliasString(f[2]), Score: score})
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
	if stop.get() {
		return nil, false
	}
	for _, q := range dupsOf {
		dups = append(dups, q...)
	}
	return dups, true
}

// touchSink takes the bytes Rank loads ahead of parsing, so that the
// compiler keeps the loads.
var touchSink atomic.Uint32

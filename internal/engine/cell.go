package engine

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// cellRun runs the queries of one cell (an arm on a benchmark), one
// query at a time, concurrently (Execute's query units).
type cellRun struct {
	cell    *Cell
	pipe    lasagna.Pipeline
	journal *journal
	sc      scorer
	index   map[string]int
	once    []sync.Once
	mu      sync.Mutex
	jerr    error
	scratch sync.Pool
	// repeat is the 0-based repeat this cellRun runs (startRepeats), and
	// sharedPipe is set when another cellRun owns (releases) the pipeline.
	repeat     int
	sharedPipe bool
}

// startCell prepares cell's arm on its benchmark for the given queries:
// it opens the resume journal when opts.JournalDir is set, restores
// finished queries when opts.Resume is set, and builds the arm's pipeline
// unless every query was restored. A pipeline that fails to build is not
// an error here: it is recorded in the cell (Cell.BuildErr,
// MISSING_RESULTS) and every query then reports it. The caller must Close
// the cellRun.
func startCell(ctx context.Context, cell *Cell, queries []*lasagna.Query, ids *idSet, opts Options) (*cellRun, error) {
	b := cell.Bench.Benchmark
	arm := cell.Arm
	cr := &cellRun{
		cell:  cell,
		sc:    scorer{b: b, arm: arm, ids: ids, cutoffs: cutoffsOf(arm, opts.Cutoffs)},
		index: make(map[string]int, len(queries)),
		once:  make([]sync.Once, len(queries)),
	}
	cr.scratch.New = func() any {
		// Cutoffs are checked before a cell starts (Execute).
		rs, err := metrics.NewRetrievalScorer(cr.sc.cutoffs)
		if err != nil {
			panic(err)
		}
		return &scratch{seen: map[string]struct{}{}, rs: rs}
	}
	cell.Queries = make([]QueryResult, len(queries))
	for i, q := range queries {
		cell.Queries[i].Query = q
		cr.index[q.ID] = i
	}
	if opts.JournalDir != "" {
		j, err := openJournal(filepath.Clean(opts.JournalDir), journalKey{
			Benchmark: b.Name, Revision: b.Revision, Arm: arm.Name, ArmConfig: arm.Fingerprint(), Repeat: opts.repeat,
		}, opts.Resume)
		if err != nil {
			return nil, err
		}
		cr.journal = j
	}
	pending := 0
	for i, q := range queries {
		if cr.journal != nil {
			if e, ok := cr.journal.Done(q.ID); ok {
				cell.Queries[i].Output = lasagna.Output{Hits: e.Hits, Answer: e.Answer, Answered: e.Answered, Abstained: e.Abstain, Passages: e.Passages}
				cell.Queries[i].Latency = time.Duration(e.LatencyNS)
				cell.Queries[i].Resumed = true
				cell.Resumed++
				continue
			}
		}
		pending++
	}
	if pending > 0 {
		pipe, err := arm.Build(ctx, b)
		if err != nil {
			if ctx.Err() != nil {
				cr.Close()
				return nil, ctx.Err()
			}
			cell.BuildErr = err
		}
		cr.pipe = pipe // closed by cr.Close, on the error paths below too
		if fr, ok := pipe.(lasagna.FactReporter); ok {
			cell.Facts = factsMap(fr.Facts())
			if cr.journal != nil {
				if err := cr.journal.Record(journalEntry{Facts: cell.Facts}); err != nil {
					cr.Close()
					return nil, err
				}
			}
		}
	} else if cr.journal != nil {
		cell.Facts = cr.journal.Facts()
	}
	return cr, nil
}

// Cell returns the cell being run; its Queries are complete after Close.
func (cr *cellRun) Cell() *Cell { return cr.cell }

// scratch is per-goroutine scoring state, pooled per cell.
type scratch struct {
	seen map[string]struct{}
	rs   *metrics.RetrievalScorer
	// listed holds the corpus indexes of the ranked list being scored.
	listed indexSet
}

// indexSet is a set of corpus indexes, emptied for each ranked list in
// constant time: open addressing over slots that each hold a generation
// (the high 32 bits) and an index; a slot of another generation is empty.
// It grows with the longest list, never with the corpus.
type indexSet struct {
	slots []uint64
	shift uint // 32 - log2(len(slots)): an index hashes to its product's top bits
	gen   uint32
}

// reset empties the set for a list of n indexes.
func (s *indexSet) reset(n int) {
	if k := bits.Len(uint(2 * n)); len(s.slots) < 1<<k {
		s.slots = make([]uint64, 1<<k)
		s.shift = uint(32 - k)
		s.gen = 0
	}
	s.gen++
	if s.gen == 0 { // wrapped: forget every old generation
		clear(s.slots)
		s.gen = 1
	}
}

// add adds i and reports whether the set held it already. The set must
// have been reset for at least as many indexes as are added.
func (s *indexSet) add(i int32) bool {
	mask := uint32(len(s.slots) - 1)
	for h := (uint32(i) * 0x9e3779b1) >> s.shift; ; h = (h + 1) & mask {
		v := s.slots[h]
		if uint32(v>>32) != s.gen {
			s.slots[h] = uint64(s.gen)<<32 | uint64(uint32(i))
			return false
		}
		if uint32(v) == uint32(i) {
			return true
		}
	}
}

// run runs query n once.
func (cr *cellRun) run(ctx context.Context, n int) {
	if cr.repeat > 0 {
		ctx = WithRepeat(ctx, cr.repeat)
	}
	cr.once[n].Do(func() {
		r := &cr.cell.Queries[n]
		if !r.Resumed {
			if cr.pipe == nil {
				r.Err = fmt.Errorf("not run: the arm could not be built: %w", cr.cell.BuildErr)
				return
			}
			start := time.Now()
			out, err := callPipeline(ctx, cr.pipe, *r.Query)
			r.Latency = time.Since(start)
			switch {
			case err != nil && cr.cell.Arm.MissingZero && errors.Is(err, ErrNoPrediction):
				// Scored 0 on every metric (scoreMissing); not journalled,
				// so a resumed run asks the predictions again.
				r.Missing, r.Latency = true, 0
				sc := cr.scratch.Get().(*scratch)
				cr.sc.score(r, sc)
				cr.scratch.Put(sc)
				return
			case err != nil:
				r.Err = err
				return
			}
			r.Output = out
			if cr.journal != nil {
				if err := cr.journal.Record(journalEntry{Query: r.Query.ID, Hits: out.Hits, Answer: out.Answer, Answered: out.Answered, Abstain: out.Abstained, Passages: out.Passages, LatencyNS: int64(r.Latency)}); err != nil {
					cr.mu.Lock()
					if cr.jerr == nil {
						cr.jerr = err
					}
					cr.mu.Unlock()
				}
			}
		}
		// Restored queries are scored like fresh ones, so a resumed cell
		// equals an uninterrupted one.
		sc := cr.scratch.Get().(*scratch)
		cr.sc.score(r, sc)
		cr.scratch.Put(sc)
		cr.judgeQuery(ctx, r)
		cr.scoreQuery(ctx, r)
	})
}

// journalled counts the cell's queries on record in its journal.
func (cr *cellRun) journalled() int {
	if cr.journal == nil {
		return 0
	}
	n := 0
	for _, r := range cr.cell.Queries {
		if _, ok := cr.journal.Done(r.Query.ID); ok {
			n++
		}
	}
	return n
}

// Close closes the journal, and releases what a built-in arm's pipeline
// holds (ClosePipeline: a vector store's connections), and returns the
// first journal write error, else the pipeline's close error. Queries never run
// keep an empty result (no scores, no error); Run runs them all.
func (cr *cellRun) Close() error {
	var err error
	if cr.journal != nil {
		err = cr.journal.Close()
	}
	if cr.pipe != nil && !cr.sharedPipe {
		cerr := ClosePipeline(cr.pipe)
		cr.pipe = nil
		if err == nil {
			err = cerr
		}
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.jerr != nil {
		return cr.jerr
	}
	return err
}

// NewReport assembles finished cells into a report and raises the
// integrity findings they show.
func NewReport(cells []*Cell, shard Shard) *Report {
	rep := &Report{Cells: cells, Shard: shard}
	rep.Findings = raiseFindings(rep)
	return rep
}

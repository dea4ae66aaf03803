package datasets

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
)

// spillSet gathers records (a key, a seq and a line) in memory of a
// bounded size; a full buffer is sorted by (key, seq) and written to a
// temporary file as a run. each hands the records back in (key, seq)
// order, merging the runs, so memory does not grow with the number of
// records (a run costs a 64 KiB read buffer while merging).
type spillSet struct {
	keys []byte // the buffer's keys, one after another
	recs []spillRec
	runs []*os.File
	left []string // runs still to remove
	max  int      // records per buffer
}

type spillRec struct {
	off, n    uint32 // the key: keys[off:off+n]
	seq, line int64
}

// spillRecords is how many records a buffer holds before it is spilled
// (about 64 bytes each with a 32-byte key: 4 MiB).
var spillRecords = 1 << 16 // a variable for the tests

func newSpillSet() *spillSet { return &spillSet{max: spillRecords} }

func (s *spillSet) add(key []byte, seq, line int64) error {
	s.recs = append(s.recs, spillRec{off: uint32(len(s.keys)), n: uint32(len(key)), seq: seq, line: line})
	s.keys = append(s.keys, key...)
	if len(s.recs) >= s.max || len(s.keys) >= 1<<30 {
		return s.spill()
	}
	return nil
}

func (s *spillSet) key(r spillRec) []byte { return s.keys[r.off : r.off+r.n] }

func (s *spillSet) sort() {
	slices.SortFunc(s.recs, func(a, b spillRec) int {
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// spill writes the buffer, sorted, to a new run.
func (s *spillSet) spill() error {
	s.sort()
	f, err := os.CreateTemp("", "lasagna-spill-*")
	if err != nil {
		return err
	}
	s.runs = append(s.runs, f)
	// Unlinked at once where the system allows it (not Windows), so that
	// nothing is left behind if the process is killed; else at close.
	if os.Remove(f.Name()) != nil {
		s.left = append(s.left, f.Name())
	}
	w := bufio.NewWriterSize(f, 64<<10)
	var n [3 * binary.MaxVarintLen64]byte
	for _, r := range s.recs {
		k := binary.PutUvarint(n[:], uint64(r.n))
		k += binary.PutUvarint(n[k:], uint64(r.seq))
		k += binary.PutUvarint(n[k:], uint64(r.line))
		w.Write(n[:k])
		w.Write(s.key(r))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	s.keys, s.recs = s.keys[:0], s.recs[:0]
	return nil
}

// close removes the runs.
func (s *spillSet) close() {
	for _, f := range s.runs {
		f.Close()
	}
	for _, name := range s.left {
		os.Remove(name)
	}
	s.runs, s.left = nil, nil
}

// spillCursor is the next record of a run or of the buffer.
type spillCursor struct {
	r         *bufio.Reader // nil: the buffer
	i         int           // the buffer's next record
	key       []byte
	seq, line int64
}

type spillHeap []*spillCursor

func (h spillHeap) Len() int { return len(h) }
func (h spillHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].seq < h[j].seq
}
func (h spillHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *spillHeap) Push(x any)   { *h = append(*h, x.(*spillCursor)) }
func (h *spillHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// next moves c to its next record; false at its end.
func (s *spillSet) next(c *spillCursor) (bool, error) {
	if c.r == nil {
		if c.i == len(s.recs) {
			return false, nil
		}
		r := s.recs[c.i]
		c.i++
		c.key, c.seq, c.line = s.key(r), r.seq, r.line
		return true, nil
	}
	n, err := binary.ReadUvarint(c.r)
	if err == io.EOF {
		return false, nil
	}
	var seq, line uint64
	if err == nil {
		seq, err = binary.ReadUvarint(c.r)
	}
	if err == nil {
		line, err = binary.ReadUvarint(c.r)
	}
	if err == nil {
		c.key = slices.Grow(c.key[:0], int(n))[:n]
		_, err = io.ReadFull(c.r, c.key)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return false, err
	}
	c.seq, c.line = int64(seq), int64(line)
	return true, nil
}

// each hands fn every record, in (key, seq) order; key is valid during
// the call only.
func (s *spillSet) each(fn func(key []byte, seq, line int64) error) error {
	s.sort()
	var h spillHeap
	cursors := []*spillCursor{{}}
	for _, f := range s.runs {
		cursors = append(cursors, &spillCursor{r: bufio.NewReaderSize(f, 64<<10)})
	}
	for _, c := range cursors {
		ok, err := s.next(c)
		if err != nil {
			return err
		}
		if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := fn(c.key, c.seq, c.line); err != nil {
			return err
		}
		ok, err := s.next(c)
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

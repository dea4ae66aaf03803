package trecparse

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// qidTable numbers the query ids of a run file for PartitionRun: an
// open-addressing table, cheaper per line than a Go map with string keys.
// Ids of up to eight bytes (the usual "101", "2024-17") are held as one
// word and compared as one, in the slot itself; longer ones are hashed
// with maphash and compared byte-wise.
type qidTable struct {
	seed  maphash.Seed
	slots []qidSlot
	ids   [][]byte
}

// qidSlot is one slot of a qidTable: the id's word (a short id) or hash
// (a long one), its length and its number+1 (0: the slot is empty).
type qidSlot struct {
	w    uint64
	n, l int32
}

// newQidTable returns an empty table; tables made with one seed hash
// every id alike.
func newQidTable(seed maphash.Seed) *qidTable {
	return &qidTable{seed: seed, slots: make([]qidSlot, 64)}
}

// qidWord returns the bytes of q (at most eight) as a word, with the
// length in the top byte so "1" and "1\x00" differ; ok is false for a
// longer id. A shorter id with eight bytes of capacity is loaded as one
// word.
func qidWord(q []byte) (w uint64, ok bool) {
	switch {
	case len(q) > 8:
		return 0, false
	case len(q) == 8:
		return binary.LittleEndian.Uint64(q), true
	case cap(q) >= 8:
		sh := uint(8-len(q)) * 8
		w = binary.LittleEndian.Uint64(q[:8]) << sh >> sh
	default:
		for i, c := range q {
			w |= uint64(c) << (8 * i)
		}
	}
	return w | uint64(len(q))<<56, true
}

// hash returns the hash of q, and its word when it is short.
func (t *qidTable) hash(q []byte) (h, w uint64, short bool) {
	if w, short = qidWord(q); short {
		h = w ^ w>>31
		h *= 0x9e3779b97f4a7c15
		return h ^ h>>29, w, true
	}
	return maphash.Bytes(t.seed, q), 0, false
}

// index returns the number of q, adding it when add is true (-1 when it
// is absent and add is false). Numbers are given in order from 0.
func (t *qidTable) index(q []byte, add bool) int32 {
	h, w, short := t.hash(q)
	if !short {
		w = h
	}
	mask := uint64(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := &t.slots[k]
		if s.n == 0 {
			if !add {
				return -1
			}
			n := int32(len(t.ids))
			*s = qidSlot{w: w, n: n + 1, l: int32(len(q))}
			t.ids = append(t.ids, bytes.Clone(q)) // the file may be released
			if 2*len(t.ids) > len(t.slots) {
				t.grow()
			}
			return n
		}
		if s.w == w && int(s.l) == len(q) && (short || bytes.Equal(t.ids[s.n-1], q)) {
			return s.n - 1
		}
	}
}

// grow doubles the table.
func (t *qidTable) grow() {
	old := t.slots
	t.slots = make([]qidSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.n == 0 {
			continue
		}
		h, _, _ := t.hash(t.ids[s.n-1])
		k := h & mask
		for t.slots[k].n != 0 {
			k = (k + 1) & mask
		}
		t.slots[k] = s
	}
}

package trecparse

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// qidTable numbers the query ids of a run file for PartitionRun: an
// open-addressing table, cheaper per line than a Go map with string keys.
// Ids of up to eight bytes (the usual "101", "2024-17") are held as one
// word and compared as one; longer ones are hashed with maphash and
// compared byte-wise.
type qidTable struct {
	seed  maphash.Seed
	slots []int32 // index+1 into ids; 0 is empty
	words []uint64
	ids   [][]byte
}

// newQidTable returns an empty table; tables made with one seed hash
// every id alike.
func newQidTable(seed maphash.Seed) *qidTable {
	return &qidTable{seed: seed, slots: make([]int32, 64)}
}

// qidWord returns the bytes of q (at most eight) as a word, with the
// length in the top byte so "1" and "1\x00" differ; ok is false for a
// longer id.
func qidWord(q []byte) (w uint64, ok bool) {
	if len(q) > 8 {
		return 0, false
	}
	if len(q) == 8 {
		return binary.LittleEndian.Uint64(q), true
	}
	for i, c := range q {
		w |= uint64(c) << (8 * i)
	}
	return w | uint64(len(q))<<56, true
}

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
	mask := uint64(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := t.slots[k]
		if s == 0 {
			if !add {
				return -1
			}
			n := int32(len(t.ids))
			t.slots[k] = n + 1
			t.ids = append(t.ids, bytes.Clone(q)) // the file may be released
			t.words = append(t.words, w)
			if 2*len(t.ids) > len(t.slots) {
				t.grow()
			}
			return n
		}
		i := s - 1
		if short {
			if t.words[i] == w && len(t.ids[i]) <= 8 && len(t.ids[i]) == len(q) {
				return i
			}
		} else if bytes.Equal(t.ids[i], q) {
			return i
		}
	}
}

// grow doubles the table.
func (t *qidTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for i, q := range t.ids {
		h, _, _ := t.hash(q)
		k := h & mask
		for t.slots[k] != 0 {
			k = (k + 1) & mask
		}
		t.slots[k] = int32(i) + 1
	}
}

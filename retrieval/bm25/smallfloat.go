package bm25

import "math/bits"

// Lucene's SmallFloat byte encoding of document lengths, as BM25Similarity
// stores them (org.apache.lucene.util.SmallFloat.intToByte4 and
// byte4ToInt). Values below numFreeValues are stored exactly; larger ones
// as numFreeValues plus a 4-bit float (3 mantissa bits after an implicit
// leading 1, and the shift), so that every uint32 fits in one byte.
const numFreeValues = 255 - 231 // 231 = longToInt4(math.MaxInt32)

// longToInt4 encodes i keeping its 4 most significant bits: values below 8
// as they are, others as (shift+1)<<3 | the 3 bits after the leading one.
func longToInt4(i uint64) uint32 {
	nbits := 64 - bits.LeadingZeros64(i)
	if nbits < 4 {
		return uint32(i)
	}
	shift := nbits - 4
	return uint32(i>>shift)&0x07 | uint32(shift+1)<<3
}

// int4ToLong decodes longToInt4: the least value with that encoding.
func int4ToLong(i uint32) uint64 {
	b := uint64(i & 0x07)
	shift := int(i>>3) - 1
	if shift == -1 {
		return b
	}
	return (b | 0x08) << shift
}

// intToByte4 encodes a document length in one byte.
func intToByte4(i uint32) byte {
	if i < numFreeValues {
		return byte(i)
	}
	return byte(numFreeValues + longToInt4(uint64(i-numFreeValues)))
}

// byte4ToInt decodes intToByte4: the length Lucene scores a document with.
func byte4ToInt(b byte) uint32 {
	if b < numFreeValues {
		return uint32(b)
	}
	return numFreeValues + uint32(int4ToLong(uint32(b)-numFreeValues))
}

// luceneNormCache returns, for each length byte, Lucene's
// 1 / (k1·((1−b) + b·length/avgdl)) in float32, as BM25Similarity computes it.
func luceneNormCache(k1, b, avgdl float64) *[256]float32 {
	var c [256]float32
	k, bb, avg := float32(k1), float32(b), float32(avgdl)
	for i := range c {
		l := float32(byte4ToInt(byte(i)))
		x := float32(bb * l)
		x = float32(x / avg)
		x = float32(float32(1-bb) + x)
		c[i] = float32(1 / float32(k*x))
	}
	return &c
}

// luceneScore is BM25Similarity's score of a term with weight w (idf times
// the query boost), frequency tf and cached inverse norm inv:
// w − w / (1 + tf·inv), in float32.
func luceneScore(w, tf, inv float32) float32 {
	return float32(w - float32(w/float32(1+float32(tf*inv))))
}

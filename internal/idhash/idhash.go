// Package idhash packs a document id into one machine word for the cheap
// hashes of the TREC run parser and the qrels lookup filter.
package idhash

// Suffix packs the last eight bytes of d (all of a shorter d) and its
// length into one word. Document ids tend to share prefixes, not suffixes,
// so this separates them cheaply; callers mix it (multiply by an odd
// constant and keep high bits) and must not rely on it alone where ids may
// be adversarial.
func Suffix(d string) uint64 {
	n := len(d)
	var x uint64
	if n >= 8 {
		s := d[n-8:]
		x = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	} else {
		for i := 0; i < n; i++ {
			x |= uint64(d[i]) << (8 * i)
		}
	}
	return x ^ uint64(n)<<59
}

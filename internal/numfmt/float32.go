package numfmt

import (
	"math"
	"strconv"
)

// Float32 returns the float64 nearest to the shortest decimal that reads
// back as f, that is
//
//	strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
//
// the value at which the retrievers record a score they computed in
// float32: JSON (RFC 8785 included) then writes it with float32's digits
// (12.964025), not float64's digits of the same number (12.964025497436523),
// and float32(Float32(f)) == f. It keeps order: a < b implies Float32(a) <
// Float32(b). NaN, ±Inf and ±0 come back as they are.
//
// Most scores take a fast path (a few integer multiplications, no text); the
// values it cannot decide exactly go through strconv, so that the result is
// always the strconv expression's.
func Float32(f float32) float64 {
	if x, ok := float32Fast(f); ok {
		return x
	}
	return float32Slow(f)
}

// float32Slow is the definition.
func float32Slow(f float32) float64 {
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], float64(f), 'g', -1, 32)
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil { // NaN and ±Inf parse; nothing else fails
		return float64(f)
	}
	return x
}

// pow5 and pow10 are 5^s and 10^s, exact, for the fast path's scales.
var (
	pow5  [17]uint64
	pow10 [17]float64
)

func init() {
	pow5[0], pow10[0] = 1, 1
	for s := 1; s < len(pow5); s++ {
		pow5[s], pow10[s] = pow5[s-1]*5, pow10[s-1]*10
	}
}

// float32Fast finds the shortest decimal for f on decimal grids 10^-s: the
// answer is the nearest point of the coarsest grid whose nearest point to f
// reads back as f. (The nearest point of a grid is in f's rounding interval
// whenever any point of it is, because that interval is symmetric about f,
// except at a power of two, which is left to strconv; and a grid's points
// are among every finer grid's, so the grids that fit are all those finer
// than some grid.) It starts at a grid of 8 or 9 significant digits and
// moves coarser while the grid fits, or finer until one fits (9 digits
// always do), which is two grids for most scores.
//
// With f = m·2^e, f·10^s = m·5^s / 2^q where q = -(e+s), exactly in
// integers; f's rounding interval, scaled the same way, is ±5^s/2 around
// m·5^s. ok is false for whatever it does not decide exactly: a grid
// finer than 10^-16 or coarser than 1, an integer product, a grid point
// exactly halfway or exactly on the interval's edge, a power of two,
// subnormal, zero, NaN and ±Inf.
func float32Fast(f float32) (x float64, ok bool) {
	bits := math.Float32bits(f)
	exp := int(bits>>23) & 0xff
	if exp == 0 || exp == 0xff || bits&(1<<23-1) == 0 {
		return 0, false
	}
	m := uint64(bits&(1<<23-1) | 1<<23)
	e := exp - 150 // |f| = m·2^e, in [2^(e+23), 2^(e+24))
	// ⌊log10 |f|⌋ is ⌊(e+24)·log10 2⌋ or one less: 8 or 9 digits.
	s := 7 - floorLog10Pow2(e+24)
	d, st := fitGrid(m, e, s)
	if st == undecided {
		return 0, false
	}
	if st == fits {
		for {
			d2, st2 := fitGrid(m, e, s-1)
			if st2 == undecided {
				return 0, false
			}
			if st2 == misses {
				break
			}
			d, s = d2, s-1
		}
	} else {
		for st != fits {
			s++
			if d, st = fitGrid(m, e, s); st == undecided {
				return 0, false
			}
		}
	}
	x = float64(d) / pow10[s] // both exact: one rounding
	if bits>>31 != 0 {
		x = -x
	}
	return x, true
}

const (
	fits = iota
	misses
	undecided
)

// fitGrid returns m·2^e's nearest point d·10^-s on the grid 10^-s, and
// whether it lies strictly inside the rounding interval (fits), strictly
// outside (misses), or fitGrid cannot tell exactly (undecided).
func fitGrid(m uint64, e, s int) (uint64, int) {
	q := -(e + s)
	if s < 0 || s >= len(pow5) || q <= 0 || q > 62 {
		return 0, undecided
	}
	n := m * pow5[s] // < 2^24·5^16 < 2^62
	d := n >> q
	rem := n & (1<<q - 1)
	half := uint64(1) << (q - 1)
	switch {
	case rem == half:
		return 0, undecided
	case rem > half:
		d++
	}
	// the distance from d·2^q to n, doubled, against the interval's 5^s
	var dist uint64
	if dq := d << q; dq >= n {
		dist = dq - n
	} else {
		dist = n - dq
	}
	switch dist *= 2; {
	case dist < pow5[s]:
		return d, fits
	case dist > pow5[s]:
		return d, misses
	}
	return 0, undecided
}

// floorLog10Pow2 returns ⌊k·log10 2⌋ for |k| ≤ 1000.
func floorLog10Pow2(k int) int {
	return (k * 78913) >> 18
}

// Package crmath computes the natural logarithm and the exponential of a
// float64 correctly rounded: the result is the float64 nearest to the exact
// value (ties cannot occur: neither function has a rational value at a
// float64 other than log(1) and exp(0)). This is what GNU libc's log and exp
// give (since glibc 2.28, outside rare hard cases), where Go's math.Log and
// math.Exp can be one ulp off; trec_eval's gm_map and gm_bpref go through
// them, so `lasagna metrics trec` uses these to print trec_eval's digits
// (docs/metrics.md).
//
// Each value is first evaluated in double-double arithmetic (about 100
// correct bits) and rounded once; when that approximation is too close to
// the midpoint between two float64s to decide, which a random argument hits
// with a probability near 2^-39, it is evaluated again with math/big at
// 400 bits.
package crmath

import (
	"math"
	"math/big"
	"sync"
)

// ddEps bounds the relative error of the double-double evaluations (their
// measured error stays below 2^-100; see the package's tests).
const ddEps = 0x1p-92

// Log is the natural logarithm of x, correctly rounded. Its special values
// are math.Log's: Log(+Inf) = +Inf, Log(0) = -Inf, Log(x < 0) = NaN,
// Log(NaN) = NaN.
func Log(x float64) float64 {
	switch {
	case !(x > 0) || math.IsInf(x, 1):
		return math.Log(x)
	case x == 1:
		return 0
	}
	h, l := logDD(x)
	if v, ok := roundDD(h, l); ok {
		return v
	}
	return bigLog(x)
}

// Exp is e raised to the power x, correctly rounded. Its special values are
// math.Exp's: Exp(+Inf) = +Inf, Exp(-Inf) = 0, Exp(NaN) = NaN; it
// overflows to +Inf above 709.78 and underflows to 0 below -745.14.
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.Exp(x)
	case x == 0:
		return 1
	case x < -675 || x > 709: // subnormal results (the low part loses bits), overflow
		return bigExp(x)
	}
	h, l := expDD(x)
	if v, ok := roundDD(h, l); ok {
		return v
	}
	return bigExp(x)
}

// roundDD rounds the double-double h+l, whose relative error is at most
// ddEps, to float64, and reports whether every value within that error
// rounds the same way.
func roundDD(h, l float64) (float64, bool) {
	h, l = fastTwoSum(h, l) // h is now h+l rounded to nearest
	up := math.Nextafter(h, math.Inf(1)) - h
	down := h - math.Nextafter(h, math.Inf(-1))
	e := ddEps * math.Abs(h) * (1 + 0x1p-40)
	// Rounding is monotone, so these comparisons of rounded sums with the
	// exact half-ulps are safe.
	if l+e < up/2 && l-e > -down/2 {
		return h, true
	}
	return 0, false
}

// logDD is log(x) as a double-double, for finite x > 0, x != 1.
func logDD(x float64) (float64, float64) {
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	m, e = m*2, e-1
	if m >= 1.5 {
		m, e = m/2, e+1
	}
	// m in [0.75, 1.5); c ≈ 1/m from the table, so m·c = 1+r with |r| < 2^-7.5.
	i := int(m*128+0.5) - logTableFirst
	c := logTable[i][0]
	p, pe := twoProd(m, c)
	rh, rl := twoSum(p-1, pe) // p-1 is exact (p in [0.5, 2])
	// log(1+r) = 2·atanh(s), s = r/(2+r), |s| < 2^-8.5.
	th, tl := twoSum(2, rh)
	th, tl = fastTwoSum(th, tl+rl)
	sh, sl := ddDiv(rh, rl, th, tl)
	uh, ul := ddMul(sh, sl, sh, sl)
	// 2·atanh(s) = 2s·(1 + u·Q(u)), u = s² < 2^-17,
	// Q(u) = 1/3 + u/5 + u²/7 + ... + u⁶/15: u·Q is below 2^-18, so Q needs
	// 88 correct bits; Q = 1/3 + u·R needs 70 of R = 1/5 + u·S, and S = 1/7
	// + u/9 + ... 49: S is evaluated in float64, R and Q in double-double.
	a := &atanhCoef // a[k] = 1/(2k+1)
	sv := a[3][0] + uh*(a[4][0]+uh*(a[5][0]+uh*(a[6][0]+uh*a[7][0])))
	qh, ql := twoSum(a[2][0], uh*sv)
	qh, ql = fastTwoSum(qh, ql+a[2][1]) // R
	mh, ml := ddMul(uh, ul, qh, ql)
	qh, ql = twoSum(a[1][0], mh)
	qh, ql = fastTwoSum(qh, ql+a[1][1]+ml) // Q
	qh, ql = ddMul(uh, ul, qh, ql)         // u·Q
	qh, ql = ddMul(2*sh, 2*sl, qh, ql)     // 2s·u·Q
	ph, pl := ddAdd(2*sh, 2*sl, qh, ql)    // log(1+r)
	// log(x) = e·ln2 + log(1/c) + log(1+r)
	fe := float64(e)
	ah, al := twoProd(fe, ln2[0])
	ah, al = fastTwoSum(ah, al+fe*ln2[1])
	ah, al = ddAdd(ah, al, logTable[i][1], logTable[i][2])
	return ddAdd(ah, al, ph, pl)
}

// expDD is exp(x) as a double-double, for -675 <= x <= 709, x != 0.
func expDD(x float64) (float64, float64) {
	// x = k·ln2/128 + r, |r| <= ln2/256 (a hair more from rounding k).
	k := math.Round(x * (128 / math.Ln2))
	rh := math.FMA(-k, ln2By128[0], x) // exact: k·L1 and x share the low bits, |r| < 2^-8
	ph, pl := twoProd(k, ln2By128[1])
	rh, rl := twoSum(rh, -ph)
	rh, rl = fastTwoSum(rh, rl-pl-k*ln2By128[2])
	// expm1(r) by Taylor's series, Horner in double-double.
	eh, el := expCoef[len(expCoef)-1][0], expCoef[len(expCoef)-1][1]
	for j := len(expCoef) - 2; j >= 0; j-- {
		eh, el = ddMul(eh, el, rh, rl)
		eh, el = ddAdd(eh, el, expCoef[j][0], expCoef[j][1])
	}
	eh, el = ddMul(eh, el, rh, rl)
	// exp(x) = 2^q · 2^(j/128) · (1 + expm1(r)), k = 128q + j
	ki := int(k)
	q, j := ki>>7, ki&127
	th, tl := exp2Table[j][0], exp2Table[j][1]
	eh, el = ddMul(th, tl, eh, el)
	eh, el = ddAdd(th, tl, eh, el)
	return math.Ldexp(eh, q), math.Ldexp(el, q)
}

// Double-double arithmetic: a value is an unevaluated sum hi+lo with
// |lo| <= ulp(hi)/2.

// twoSum returns s = fl(a+b) and the exact error a+b-s.
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// fastTwoSum is twoSum for |a| >= |b| (or a == 0).
func fastTwoSum(a, b float64) (float64, float64) {
	s := a + b
	return s, b - (s - a)
}

// twoProd returns p = fl(a·b) and the exact error a·b-p.
func twoProd(a, b float64) (float64, float64) {
	p := a * b
	return p, math.FMA(a, b, -p)
}

func ddAdd(ah, al, bh, bl float64) (float64, float64) {
	sh, sl := twoSum(ah, bh)
	th, tl := twoSum(al, bl)
	sl += th
	sh, sl = fastTwoSum(sh, sl)
	sl += tl
	return fastTwoSum(sh, sl)
}

func ddMul(ah, al, bh, bl float64) (float64, float64) {
	p, e := twoProd(ah, bh)
	e += ah*bl + al*bh
	return fastTwoSum(p, e)
}

// ddDiv is a/b: one quotient and its correction from the exact remainder
// of the first (ah - p is exact, p being within a few ulps of ah).
func ddDiv(ah, al, bh, bl float64) (float64, float64) {
	q1 := ah / bh
	p, pe := twoProd(q1, bh)
	r := (ah - p - pe + al - q1*bl)
	return fastTwoSum(q1, r/bh)
}

// bigPrec is the precision of the math/big evaluations: the hardest
// float64 arguments of exp and log need well under 2^-130 relative accuracy
// to round correctly, 400 bits is far beyond.
const bigPrec = 400

var (
	ln2Once sync.Once
	ln2Big  *big.Float
)

// bigLn2 is log(2) to bigPrec bits: 2·atanh(1/3).
func bigLn2() *big.Float {
	ln2Once.Do(func() {
		t := new(big.Float).SetPrec(bigPrec).SetInt64(1)
		t.Quo(t, big.NewFloat(3))
		ln2Big = atanhBig(t)
		ln2Big.Add(ln2Big, ln2Big)
	})
	return ln2Big
}

// atanhBig is atanh(t) = t + t³/3 + t⁵/5 + ... for |t| <= 1/3, to about
// bigPrec bits.
func atanhBig(t *big.Float) *big.Float {
	t2 := new(big.Float).SetPrec(bigPrec).Mul(t, t)
	sum := new(big.Float).SetPrec(bigPrec).Set(t)
	pow := new(big.Float).SetPrec(bigPrec).Set(t)
	term := new(big.Float).SetPrec(bigPrec)
	for k := int64(3); ; k += 2 {
		pow.Mul(pow, t2)
		term.Quo(pow, new(big.Float).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -bigPrec-8 {
			return sum
		}
		sum.Add(sum, term)
	}
}

// logBig is log(x) for x > 0, to about bigPrec bits.
func logBig(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(bigPrec)
	e := x.MantExp(m) // m in [0.5, 1)
	if m.Cmp(big.NewFloat(0.7071)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// m in [0.7071, 1.4142): log(m) = 2·atanh((m-1)/(m+1)), |t| < 0.172
	one := big.NewFloat(1)
	num := new(big.Float).SetPrec(bigPrec).Sub(m, one)
	den := new(big.Float).SetPrec(bigPrec).Add(m, one)
	s := atanhBig(num.Quo(num, den))
	s.Add(s, s)
	el := new(big.Float).SetPrec(bigPrec).SetInt64(int64(e))
	return s.Add(s, el.Mul(el, bigLn2()))
}

// expBig is exp(x) for |x| < 2^11, to about bigPrec bits.
func expBig(x *big.Float) *big.Float {
	// x = k·ln2 + r, |r| <= ln2/2; exp(r) = exp(r/2^20)^(2^20)
	kf, _ := new(big.Float).Quo(x, bigLn2()).Float64()
	k := int(math.Round(kf))
	r := new(big.Float).SetPrec(bigPrec).SetInt64(int64(k))
	r.Sub(x, r.Mul(r, bigLn2()))
	const halvings = 20
	r.SetMantExp(r, -halvings)
	sum := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	term := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -bigPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, k)
}

// bigLog is Log's slow path: x finite, x > 0, x != 1.
func bigLog(x float64) float64 {
	v, _ := logBig(new(big.Float).SetPrec(bigPrec).SetFloat64(x)).Float64()
	return v
}

// bigExp is Exp's slow path: x finite.
func bigExp(x float64) float64 {
	switch {
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	v, _ := expBig(new(big.Float).SetPrec(bigPrec).SetFloat64(x)).Float64()
	return v
}

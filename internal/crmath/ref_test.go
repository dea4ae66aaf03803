package crmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The reference below is independent of logBig and expBig: exp by its
// Taylor series after halving the argument (no log(2) reduction), log by
// Halley's iteration on that exp. It runs at refPrec bits.
const refPrec = 480

func refExp(x *big.Float) *big.Float {
	r := new(big.Float).SetPrec(refPrec).Set(x)
	n := 0
	for r.Sign() != 0 && r.MantExp(nil) > -12 {
		r.SetMantExp(r, -1)
		n++
	}
	sum := new(big.Float).SetPrec(refPrec).SetInt64(1)
	term := new(big.Float).SetPrec(refPrec).SetInt64(1)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil) < -refPrec-10 {
			break
		}
		sum.Add(sum, term)
	}
	for range n {
		sum.Mul(sum, sum)
	}
	return sum
}

func refLog(y *big.Float) *big.Float {
	yf, _ := y.Float64()
	z := new(big.Float).SetPrec(refPrec).SetFloat64(math.Log(yf))
	for range 5 { // 53 → 159 → 477 bits, and more
		e := refExp(z)
		num := new(big.Float).SetPrec(refPrec).Sub(y, e)
		den := new(big.Float).SetPrec(refPrec).Add(y, e)
		num.Quo(num, den)
		z.Add(z, num.Add(num, num))
	}
	return z
}

func refRound(v *big.Float) float64 {
	f, _ := v.Float64()
	return f
}

// TestReferenceConstants checks the reference against known digits of
// e and log(2) (70 and 80 significant digits).
func TestReferenceConstants(t *testing.T) {
	const e = "2.718281828459045235360287471352662497757247093699959574966967627724076630353"
	const ln2Digits = "0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586"
	for _, c := range []struct {
		name string
		got  *big.Float
		want string
	}{
		{"exp(1)", refExp(big.NewFloat(1)), e},
		{"log(2)", refLog(big.NewFloat(2)), ln2Digits},
		{"logBig(2)", logBig(big.NewFloat(2)), ln2Digits},
		{"expBig(1)", expBig(big.NewFloat(1)), e},
	} {
		want, _, err := big.ParseFloat(c.want, 10, refPrec, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		d := new(big.Float).Sub(c.got, want)
		if d.Sign() != 0 && d.MantExp(nil) > -230 { // the digits' own precision
			t.Errorf("%s = %s, want %s", c.name, c.got.Text('g', 80), c.want)
		}
	}
}

// randomArgs returns n arguments for fn: half in the range the geometric
// means use (log of [1e-5, 1], exp of [log(1e-5), 0]), a quarter near
// where the result is small (log near 1, exp near 0), a quarter anywhere
// the double-double path runs.
func randomArgs(rng *rand.Rand, fn string, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		near := (rng.Float64() - 0.5) * math.Ldexp(1, -rng.IntN(60))
		switch {
		case fn == "log" && i%2 == 0:
			xs[i] = 0.00001 + rng.Float64()*(1-0.00001)
		case fn == "log" && i%4 == 1:
			xs[i] = 1 + near
		case fn == "log":
			xs[i] = math.Float64frombits(1 + rng.Uint64N(0x7fefffffffffffff)) // any positive finite
		case i%2 == 0:
			xs[i] = rng.Float64() * math.Log(0.00001)
		case i%4 == 1:
			xs[i] = near
		default:
			xs[i] = -675 + rng.Float64()*(709+675)
		}
	}
	return xs
}

// TestCorrectRounding compares Log and Exp with the reference rounded to
// float64 on random arguments, bit for bit, and checks the double-double
// evaluations' relative error against ddEps with 5 bits to spare.
func TestCorrectRounding(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	worst := map[string]float64{}
	for _, fn := range []string{"log", "exp"} {
		for _, x := range randomArgs(rng, fn, n) {
			bx := new(big.Float).SetPrec(refPrec).SetFloat64(x)
			var ref *big.Float
			var got, h, l float64
			if fn == "log" {
				if x == 1 || x <= 0 {
					continue
				}
				ref, got = refLog(bx), Log(x)
				h, l = logDD(x)
			} else {
				if x == 0 {
					continue
				}
				ref, got = refExp(bx), Exp(x)
				h, l = expDD(x)
			}
			if want := refRound(ref); got != want {
				t.Errorf("%s(%v) = %x, correctly rounded %x", fn, x, math.Float64bits(got), math.Float64bits(want))
			}
			d := new(big.Float).SetPrec(refPrec).SetFloat64(h)
			d.Add(d, new(big.Float).SetFloat64(l))
			d.Sub(d, ref)
			d.Quo(d, ref)
			rel, _ := d.Float64()
			worst[fn] = max(worst[fn], math.Abs(rel))
		}
		if worst[fn] > ddEps/32 {
			t.Errorf("%s: double-double relative error up to %g (2^%.1f), want at most ddEps/32 = 2^%.0f", fn, worst[fn], math.Log2(worst[fn]), math.Log2(ddEps/32))
		}
	}
	t.Logf("%d arguments a function; double-double relative error at most 2^%.1f (log), 2^%.1f (exp)", n, math.Log2(worst["log"]), math.Log2(worst["exp"]))
}

// TestSlowPath checks the math/big evaluations Log and Exp fall back on
// (near a rounding boundary, and for Exp's subnormal and overflowing
// results) against the reference.
func TestSlowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		x := math.Float64frombits(1 + rng.Uint64N(0x7fefffffffffffff))
		if want := refRound(refLog(new(big.Float).SetPrec(refPrec).SetFloat64(x))); bigLog(x) != want {
			t.Errorf("bigLog(%v) = %v, correctly rounded %v", x, bigLog(x), want)
		}
		e := -746 + rng.Float64()*1456
		if i%3 == 0 { // the subnormal results
			e = -746 + rng.Float64()*(746-675)
		}
		if want := refRound(refExp(new(big.Float).SetPrec(refPrec).SetFloat64(e))); bigExp(e) != want || Exp(e) != want {
			t.Errorf("Exp(%v) = %v (bigExp %v), correctly rounded %v", e, Exp(e), bigExp(e), want)
		}
	}
}

// TestSpecialValues checks the arguments Log and Exp answer without
// evaluating: math.Log's and math.Exp's special values, and the bounds of
// Exp's range.
func TestSpecialValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Log(1)", Log(1), 0},
		{"Log(+Inf)", Log(inf), inf},
		{"Log(0)", Log(0), math.Inf(-1)},
		{"Log(-0)", Log(math.Copysign(0, -1)), math.Inf(-1)},
		{"Log(-1)", Log(-1), nan},
		{"Log(NaN)", Log(nan), nan},
		{"Log(smallest subnormal)", Log(math.SmallestNonzeroFloat64), -744.4400719213812},
		{"Log(max)", Log(math.MaxFloat64), 709.782712893384},
		{"Exp(0)", Exp(0), 1},
		{"Exp(+Inf)", Exp(inf), inf},
		{"Exp(-Inf)", Exp(math.Inf(-1)), 0},
		{"Exp(NaN)", Exp(nan), nan},
		{"Exp(709.782712893384)", Exp(709.782712893384), 1.7976931348622732e308},
		{"Exp(709.7828)", Exp(709.7828), inf},
		{"Exp(-745.1332191019411)", Exp(-745.1332191019411), 5e-324},
		{"Exp(-745.1332191019412)", Exp(-745.1332191019412), 0},
		{"Exp(-1000)", Exp(-1000), 0},
		{"Exp(2^-60)", Exp(0x1p-60), 1},
		{"Exp(-2^-60)", Exp(-0x1p-60), 1},
	} {
		if math.Float64bits(c.got) != math.Float64bits(c.want) && !(math.IsNaN(c.got) && math.IsNaN(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestRoundDD checks the rounding test: a double-double within ddEps of
// a midpoint between two float64s is undecided, on either side of a power
// of two (where the ulp below is half the ulp above).
func TestRoundDD(t *testing.T) {
	for _, c := range []struct {
		h, l float64
		want float64
		ok   bool
	}{
		{1, 0x1p-60, 1, true},
		{1, 0x1p-53, 0, false},            // the midpoint above 1
		{1, 0x1p-53 - 0x1p-100, 0, false}, // within ddEps of it
		{1, 0x1p-53 - 0x1p-80, 1, true},
		{1, -0x1p-54, 0, false}, // the midpoint below 1: the ulp there is 2^-53
		{1, -0x1p-54 + 0x1p-80, 1, true},
		{1, -0x1p-54 - 0x1p-80, 1 - 0x1p-53, true},
		{-0.75, 0x1p-54 - 0x1p-70, -0.75, true},
		{-0.75, 0x1p-54, 0, false},
	} {
		got, ok := roundDD(c.h, c.l)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("roundDD(%v, %g) = %v, %v; want %v, %v", c.h, c.l, got, ok, c.want, c.ok)
		}
	}
}

package metrics

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Defaults of the statistics options.
const (
	DefaultResamples = 10000
	DefaultLevel     = 0.95
	// SmallSampleN is the sample size below which a confidence interval is
	// flagged SmallSample: with fewer than 10 values a percentile bootstrap
	// interval is too narrow (it cannot cover more spread than the sample
	// shows) and should be read as indicative only.
	SmallSampleN = 10
	// ExactSignFlipMax is the largest number of non-zero paired differences
	// for which ComparePaired enumerates all 2^m sign patterns.
	ExactSignFlipMax = 16
)

// Second words of the PCG state; the first is the caller's seed. Distinct
// streams keep the bootstrap and the sign-flip resampling independent.
const (
	streamBootstrap = 0x6c617361676e6131 // "lasagna1"
	streamSignFlip  = 0x6c617361676e6132 // "lasagna2"
)

// BootstrapOptions configures [Summarize]. The zero value works: Resamples 0
// (or negative) means [DefaultResamples], Level 0 (or outside (0, 1)) means
// [DefaultLevel], Seed 0 is a valid seed. Equal options and data give
// identical results.
type BootstrapOptions struct {
	Resamples int
	Seed      uint64
	Level     float64
}

// Summary is the mean of a sample with its percentile bootstrap confidence
// interval [Lo, Hi] at the requested level (95% by default). SmallSample is
// true when N < [SmallSampleN]. With N 0 every number is 0; with N 1 the
// interval is the single value.
type Summary struct {
	N           int     `json:"n"`
	Mean        float64 `json:"mean"`
	Lo          float64 `json:"ci_lo"`
	Hi          float64 `json:"ci_hi"`
	SmallSample bool    `json:"small_sample,omitempty"`
}

// Summarize returns the mean of xs and its percentile bootstrap confidence
// interval: Resamples samples of len(xs) values drawn with replacement
// (math/rand/v2 PCG seeded with o.Seed), the mean of each, and the
// (1−Level)/2 and (1+Level)/2 quantiles of those means with linear
// interpolation between order statistics (R's type 7, NumPy's default). A
// sample of at least 1,000 values with at most one distinct value per 200
// (0/1 scores, hit@k, precision@k…) is resampled through its multinomial
// counts, which gives the same distribution of means at O(k·log n) instead
// of O(n) per resample. The values must be finite: leave unscored items out
// rather than passing NaN.
func Summarize(xs []float64, o BootstrapOptions) Summary {
	s := Summary{N: len(xs), SmallSample: len(xs) < SmallSampleN}
	if len(xs) == 0 {
		return s
	}
	s.Mean = mean(xs)
	s.Lo, s.Hi = bootstrapCI(xs, o.Resamples, o.Level, o.Seed)
	return s
}

func resamplesOrDefault(r int) int {
	if r <= 0 {
		return DefaultResamples
	}
	return r
}

func levelOrDefault(l float64) float64 {
	if !(l > 0 && l < 1) {
		return DefaultLevel
	}
	return l
}

// bootstrapCI is the percentile bootstrap interval of the mean of xs.
func bootstrapCI(xs []float64, resamples int, level float64, seed uint64) (lo, hi float64) {
	n := len(xs)
	if n == 1 {
		return xs[0], xs[0]
	}
	resamples = resamplesOrDefault(resamples)
	level = levelOrDefault(level)
	var means []float64
	if vals, counts, ok := fewDistinct(xs); ok {
		means = make([]float64, resamples)
		multinomialMeans(rand.New(rand.NewPCG(seed, streamBootstrap)), vals, counts, n, means)
	} else {
		means = resampleMeans([][]float64{xs}, resamples, seed)
	}
	return percentiles(means, level)
}

// Samples of at least multinomialMinN values with at most one distinct
// value per multinomialPerValue values are bootstrapped through their
// multinomial counts (see multinomialMeans) instead of value by value.
const (
	multinomialMinN     = 1000
	multinomialPerValue = 200
)

// fewDistinct returns the distinct values of xs (ascending) and how often
// each occurs, when xs is large and has few distinct values.
func fewDistinct(xs []float64) (vals []float64, counts []int, ok bool) {
	if len(xs) < multinomialMinN {
		return nil, nil, false
	}
	limit := len(xs) / multinomialPerValue
	m := make(map[float64]int)
	for _, x := range xs {
		m[x]++
		if len(m) > limit {
			return nil, nil, false
		}
	}
	vals = make([]float64, 0, len(m))
	for v := range m {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	counts = make([]int, len(vals))
	for i, v := range vals {
		counts[i] = m[v]
	}
	return vals, counts, true
}

// multinomialMeans fills means with bootstrap means of a sample of n values
// made of counts[j] copies of vals[j]. A resample of n values drawn with
// replacement holds each value a Multinomial(n, counts/n) number of times;
// the counts are drawn exactly as conditional binomials, which costs
// O(k·log n) random numbers per resample instead of n. The distribution of
// the means is the same as resampling value by value.
func multinomialMeans(r *rand.Rand, vals []float64, counts []int, n int, means []float64) {
	for i := range means {
		left, rest := n, n // values still to place; sample mass not yet visited
		sum := 0.0
		for j, v := range vals {
			if left == 0 {
				break
			}
			var c int
			if j == len(vals)-1 || counts[j] == rest {
				c = left
			} else {
				c = binomial(r, left, float64(counts[j])/float64(rest))
			}
			sum += v * float64(c)
			left -= c
			rest -= counts[j]
		}
		means[i] = sum / float64(n)
	}
}

// binomial draws from Binomial(n, p) exactly, by Knuth's order-statistic
// splitting (TAOCP vol. 2, 3.4.1): the a-th smallest of n uniforms is
// Beta(a, n+1−a); the uniforms below p are counted on one side of it
// recursively, and by direct Bernoulli trials once n is small.
func binomial(r *rand.Rand, n int, p float64) int {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return n
	}
	acc := 0
	for n > 32 {
		a := 1 + n/2
		b := n + 1 - a
		ga, gb := gamma(r, float64(a)), gamma(r, float64(b))
		x := ga / (ga + gb)
		if x >= p {
			n, p = a-1, p/x
		} else {
			acc += a
			n, p = b-1, (p-x)/(1-x)
		}
	}
	for range n {
		if r.Float64() < p {
			acc++
		}
	}
	return acc
}

// gamma draws from Gamma(shape, 1) for shape ≥ 1 (Marsaglia and Tsang
// 2000).
func gamma(r *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// Quantile is the type 7 quantile (linear interpolation between order
// statistics, R's default) of sorted xs, which must be sorted ascending and
// not empty; q is in [0, 1].
func Quantile(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// PairedOptions configures [ComparePaired]; zero values mean the same
// defaults as in [BootstrapOptions]. Resamples is used both for the paired
// bootstrap CI and, when the sign-flip test is not exact, for the Monte
// Carlo sign-flip test.
type PairedOptions struct {
	Resamples int
	Seed      uint64
	Level     float64
	// NoInterval leaves the bootstrap interval out (Lo and Hi are 0): the
	// p-values and effect size are the same, for a tenth of the work.
	NoInterval bool
}

// Paired compares two paired samples through their differences d = a − b.
//
//   - MeanDiff is mean(d) and [Lo, Hi] its percentile paired-bootstrap
//     confidence interval (resampling the pairs), as in [Summarize].
//   - Dz is the standardised effect size mean(d)/sd(d) with the n−1 standard
//     deviation. When every difference is 0, Dz is 0. When sd(d) is 0 with a
//     non-zero mean, or N < 2, d_z is undefined: Dz is 0 and DzUndefined is
//     true (never NaN or ±Inf, which JSON cannot hold).
//   - P is the two-sided paired randomisation (sign-flip) p-value of the
//     mean difference: the share of sign assignments to the differences
//     whose |sum| is at least the observed |sum| (with a relative tolerance
//     of 1e-9 of Σ|d| for floating-point ties). Zero differences are kept at
//     0 (flipping them changes nothing), so the test runs on the m non-zero
//     differences. For m ≤ [ExactSignFlipMax] all 2^m patterns are
//     enumerated and ExactP is true; otherwise Resamples random patterns are
//     drawn and P = (count+1)/(Resamples+1). With no non-zero difference P
//     is 1. (For large samples with few distinct differences, the number of
//     "+" signs per distinct value is drawn as one binomial, which has the
//     same distribution as flipping each sign.)
//   - PT is the two-sided paired Student t-test p-value, t = mean/(sd/√n)
//     with n−1 degrees of freedom. PT is 1 when N < 2 or when every
//     difference is 0, and 0 when sd is 0 with a non-zero mean.
//   - SmallSample is true when N < [SmallSampleN].
type Paired struct {
	N           int     `json:"n"`
	MeanDiff    float64 `json:"mean_diff"`
	Lo          float64 `json:"ci_lo"`
	Hi          float64 `json:"ci_hi"`
	Dz          float64 `json:"d_z"`
	P           float64 `json:"p"`
	PT          float64 `json:"p_t"`
	ExactP      bool    `json:"exact_p,omitempty"`
	SmallSample bool    `json:"small_sample,omitempty"`
	DzUndefined bool    `json:"d_z_undefined,omitempty"`
}

// ComparePaired compares a and b pair by pair (a[i] and b[i] belong to the
// same query; see [Paired] for what is computed). It returns an error when
// the lengths differ, when there are no pairs, or when a value is NaN or
// infinite. Equal options and data give identical results.
func ComparePaired(a, b []float64, o PairedOptions) (Paired, error) {
	if len(a) != len(b) {
		return Paired{}, fmt.Errorf("paired comparison: %d values against %d; pair the scores by query id first", len(a), len(b))
	}
	if len(a) == 0 {
		return Paired{}, errors.New("paired comparison: no pairs")
	}
	n := len(a)
	d := make([]float64, n)
	for i := range a {
		for _, v := range [2]float64{a[i], b[i]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Paired{}, fmt.Errorf("paired comparison: pair %d has the non-finite value %v; leave unscored queries out", i, v)
			}
		}
		d[i] = a[i] - b[i]
	}
	p := Paired{N: n, SmallSample: n < SmallSampleN, MeanDiff: mean(d)}
	if !o.NoInterval {
		p.Lo, p.Hi = bootstrapCI(d, o.Resamples, o.Level, o.Seed)
	}

	allZero := true
	for _, x := range d {
		if x != 0 {
			allZero = false
			break
		}
	}
	sd := 0.0
	if n >= 2 {
		ss := 0.0
		for _, x := range d {
			ss += (x - p.MeanDiff) * (x - p.MeanDiff)
		}
		sd = math.Sqrt(ss / float64(n-1))
	}
	switch {
	case allZero:
		p.Dz, p.PT = 0, 1
	case n < 2:
		p.DzUndefined, p.PT = true, 1
	case sd == 0:
		p.DzUndefined, p.PT = true, 0
	default:
		p.Dz = p.MeanDiff / sd
		t := p.MeanDiff / (sd / math.Sqrt(float64(n)))
		p.PT = studentTTwoSided(t, float64(n-1))
	}
	p.P, p.ExactP = signFlip(d, o.Resamples, o.Seed)
	return p, nil
}

// signFlip is the two-sided sign-flip randomisation test of sum(d) = 0.
func signFlip(d []float64, resamples int, seed uint64) (p float64, exact bool) {
	var nz []float64
	abs := 0.0
	obs := 0.0
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
			abs += math.Abs(x)
			obs += x
		}
	}
	m := len(nz)
	if m == 0 {
		return 1, true
	}
	thresh := math.Abs(obs) - 1e-9*abs
	if m <= ExactSignFlipMax {
		count := 0
		total := 1 << m
		for mask := range total {
			s := 0.0
			for j, x := range nz {
				if mask&(1<<j) != 0 {
					s -= x
				} else {
					s += x
				}
			}
			if math.Abs(s) >= thresh {
				count++
			}
		}
		return float64(count) / float64(total), true
	}
	resamples = resamplesOrDefault(resamples)
	r := rand.New(rand.NewPCG(seed, streamSignFlip))
	count := 0
	if vals, counts, ok := fewDistinct(nz); ok {
		// Each distinct value v occurring c times contributes
		// v·(2B − c) with B ~ Binomial(c, ½) positive signs.
		for range resamples {
			s := 0.0
			for j, v := range vals {
				s += v * float64(2*binomial(r, counts[j], 0.5)-counts[j])
			}
			if math.Abs(s) >= thresh {
				count++
			}
		}
		return float64(count+1) / float64(resamples+1), false
	}
	for range resamples {
		s := 0.0
		var bits uint64
		for j, x := range nz {
			if j%64 == 0 {
				bits = r.Uint64()
			}
			if bits&1 != 0 {
				s -= x
			} else {
				s += x
			}
			bits >>= 1
		}
		if math.Abs(s) >= thresh {
			count++
		}
	}
	return float64(count+1) / float64(resamples+1), false
}

// Holm returns the Holm–Bonferroni adjusted p-values of a family of tests, in
// the order of ps: sorting the m p-values ascending, the i-th (1-based) is
// adjusted to max over j ≤ i of min(1, (m−j+1)·p_(j)), so adjusted values are
// monotone in the raw ones and capped at 1. A NaN input is read as 1. The
// input is not modified; nil gives nil.
func Holm(ps []float64) []float64 {
	if ps == nil {
		return nil
	}
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	val := func(i int) float64 {
		if math.IsNaN(ps[i]) {
			return 1
		}
		return ps[i]
	}
	sort.SliceStable(idx, func(x, y int) bool { return val(idx[x]) < val(idx[y]) })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(m-rank)*val(i))
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// studentTTwoSided returns the two-sided p-value P(|T| ≥ |t|) of Student's t
// distribution with df > 0 degrees of freedom, computed as the regularized
// incomplete beta function I_x(df/2, 1/2) with x = df/(df+t²). It returns 1
// for t = 0 and 0 for infinite t; NaN for df ≤ 0 or NaN arguments.
func studentTTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// regIncBeta returns the regularized incomplete beta function I_x(a, b) for
// a, b > 0 and 0 ≤ x ≤ 1, evaluated with the continued fraction of Numerical
// Recipes (betacf, modified Lentz), using the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges faster. It
// returns NaN for arguments outside that domain.
func regIncBeta(a, b, x float64) float64 {
	if !(a > 0 && b > 0 && x >= 0 && x <= 1) {
		return math.NaN()
	}
	if x == 0 || x == 1 {
		return x
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the incomplete beta function.
func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 300
		eps     = 1e-16
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

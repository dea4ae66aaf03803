package metrics

import "math"

// DetectablePower is the power at which [MinDetectable] computes the
// smallest detectable difference: 80%, the usual convention.
const DetectablePower = 0.8

// MinDetectable returns the smallest true mean difference (in the units of
// the metric) that a two-sided paired test at level alpha detects with
// [DetectablePower] (80%) power, given n pairs whose differences have the
// sample standard deviation sd:
//
//	MDE = (t(1 − alpha/2; n−1) + t(0.8; n−1)) · sd / √n
//
// with t(q; df) the q quantile of Student's t distribution with df degrees
// of freedom (the normal approximation (z(1 − alpha/2) + z(0.8)) · sd / √n
// with a small-sample correction). The sign-flip randomisation test of
// [ComparePaired] has the t-test's power to first order, which a
// simulation test checks. A caller with a family of m comparisons passes
// alpha/m, the level the first comparison of a Holm correction is held
// to. ok is false when there is nothing to compute: n < 2, sd not
// positive and finite, or alpha outside (0, 1).
func MinDetectable(n int, sd, alpha float64) (mde float64, ok bool) {
	if n < 2 || !(sd > 0) || math.IsInf(sd, 0) || !(alpha > 0 && alpha < 1) {
		return 0, false
	}
	df := float64(n - 1)
	return (tQuantile(1-alpha/2, df) + tQuantile(DetectablePower, df)) * sd / math.Sqrt(float64(n)), true
}

// SD returns the sample standard deviation (n−1 denominator) of xs; 0
// for fewer than two values.
func SD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// tQuantile returns the q quantile (0.5 < q < 1) of Student's t
// distribution with df degrees of freedom, by bisection on
// studentTTwoSided: the t > 0 with P(|T| ≥ t) = 2(1 − q).
func tQuantile(q, df float64) float64 {
	want := 2 * (1 - q)
	lo, hi := 0.0, 1.0
	for studentTTwoSided(hi, df) > want {
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentTTwoSided(mid, df) > want {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

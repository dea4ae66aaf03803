package metrics

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// is32bit is true on 32-bit platforms, where math/rand/v2 draws a bounded
// integer below 2³² by another algorithm; the bootstrap then draws through
// rand.Rand itself.
const is32bit = ^uint(0)>>32 == 0

// SummarizeAll returns Summarize(xss[i], o) for every i, bit for bit, for
// less work than one call per sample. Summarize seeds every sample's
// resampling alike, so samples of one length that are resampled value by
// value draw the same indices: each group of them draws its indices once
// and adds every sample's value at each index, in the order Summarize
// adds them. Samples resampled through their multinomial counts are
// summarized one by one, as Summarize does.
func SummarizeAll(xss [][]float64, o BootstrapOptions) []Summary {
	out := make([]Summary, len(xss))
	groups := map[int][]int{} // length → indices into xss
	var lens []int
	for i, xs := range xss {
		n := len(xs)
		out[i] = Summary{N: n, SmallSample: n < SmallSampleN}
		if n == 0 {
			continue
		}
		out[i].Mean = mean(xs)
		if n == 1 || isFewDistinct(xs) {
			out[i].Lo, out[i].Hi = bootstrapCI(xs, o.Resamples, o.Level, o.Seed)
			continue
		}
		if _, ok := groups[n]; !ok {
			lens = append(lens, n)
		}
		groups[n] = append(groups[n], i)
	}
	resamples := resamplesOrDefault(o.Resamples)
	level := levelOrDefault(o.Level)
	for _, n := range lens {
		members := groups[n]
		samples := make([][]float64, len(members))
		for m, i := range members {
			samples[m] = xss[i]
		}
		means := resampleMeans(samples, resamples, o.Seed)
		for m, i := range members {
			out[i].Lo, out[i].Hi = percentiles(means[m*resamples:(m+1)*resamples], level)
		}
	}
	return out
}

// isFewDistinct reports whether fewDistinct takes xs.
func isFewDistinct(xs []float64) bool {
	_, _, ok := fewDistinct(xs)
	return ok
}

// resampleMeans draws resamples bootstrap samples of the n indices of the
// samples (all of length n ≥ 2) from PCG(seed, streamBootstrap), as
// rand.Rand.IntN(n) draws them, and returns the mean of each sample's
// values at each draw: means[m*resamples+i] is sample m's i-th mean. The
// sums add the values in draw order, so each mean is the one a loop of
// sum += xs[r.IntN(n)] gives.
func resampleMeans(samples [][]float64, resamples int, seed uint64) []float64 {
	n := len(samples[0])
	k := len(samples)
	means := make([]float64, k*resamples)
	fn := float64(n)
	if is32bit {
		r := rand.New(rand.NewPCG(seed, streamBootstrap))
		sums := make([]float64, k)
		for i := range resamples {
			clear(sums)
			for range n {
				j := r.IntN(n)
				for m, xs := range samples {
					sums[m] += xs[j]
				}
			}
			for m, s := range sums {
				means[m*resamples+i] = s / fn
			}
		}
		return means
	}
	d := newDraws(seed, n)
	if k == 1 {
		xs := samples[0]
		for i := range means {
			sum := 0.0
			for range n {
				sum += xs[d.next()]
			}
			means[i] = sum / fn
		}
		return means
	}
	// The values of one index side by side, so that a draw reads one
	// cache line or two.
	vals := make([]float64, n*k)
	for m, xs := range samples {
		for j, x := range xs {
			vals[j*k+m] = x
		}
	}
	sums := make([]float64, k)
	for i := range resamples {
		clear(sums)
		for range n {
			row := vals[int(d.next())*k:][:k]
			for m, x := range row {
				sums[m] += x
			}
		}
		for m, s := range sums {
			means[m*resamples+i] = s / fn
		}
	}
	return means
}

// draws yields what rand.New(rand.NewPCG(seed, streamBootstrap)).IntN(n)
// yields, one call after another, on a 64-bit platform: the same PCG
// (called directly rather than through the rand.Source interface) and the
// same bounded draw (Lemire's multiply with rejection, a mask for a power
// of two).
type draws struct {
	src  *rand.PCG
	n    uint64
	pow2 bool
}

func newDraws(seed uint64, n int) *draws {
	return &draws{src: rand.NewPCG(seed, streamBootstrap), n: uint64(n), pow2: n&(n-1) == 0}
}

func (d *draws) next() uint64 {
	if d.pow2 {
		return d.src.Uint64() & (d.n - 1)
	}
	hi, lo := bits.Mul64(d.src.Uint64(), d.n)
	if lo < d.n {
		thresh := -d.n % d.n
		for lo < thresh {
			hi, lo = bits.Mul64(d.src.Uint64(), d.n)
		}
	}
	return hi
}

// percentiles returns Quantile(sorted, (1−level)/2) and Quantile(sorted,
// (1+level)/2) where sorted is means in ascending order, without sorting
// means whole: the four order statistics the two quantiles read are
// selected. It reorders means.
func percentiles(means []float64, level float64) (lo, hi float64) {
	qlo, qhi := (1-level)/2, (1+level)/2
	n := len(means)
	ilo, ihi := quantileIndex(n, qlo), quantileIndex(n, qhi)
	if ilo > ihi {
		slices.Sort(means)
		return Quantile(means, qlo), Quantile(means, qhi)
	}
	// means[:ilo] ≤ means[ilo] ≤ means[ilo+1:] after the first selection,
	// so the second one works on the tail only.
	selectNth(means, ilo)
	if ihi > ilo {
		selectNth(means[ilo+1:], ihi-ilo-1)
	}
	return quantileAt(means, qlo, ilo), quantileAt(means, qhi, ihi)
}

// quantileIndex is the order statistic index i Quantile reads at q (with
// i+1 when it interpolates).
func quantileIndex(n int, q float64) int {
	return min(int(math.Floor(float64(n-1)*q)), n-1)
}

// quantileAt is Quantile(sorted, q) given means with its i-th order
// statistic at i and everything above it after i (selectNth's
// postcondition): the (i+1)-th order statistic is the least of the rest.
func quantileAt(means []float64, q float64, i int) float64 {
	n := len(means)
	if i >= n-1 {
		return means[n-1]
	}
	next := slices.Min(means[i+1:])
	h := float64(n-1) * q
	return means[i] + (h-float64(i))*(next-means[i])
}

// selectNth reorders xs so that xs[k] is the value sorting would put
// there, everything before it no greater and everything after it no
// smaller (Hoare's selection with a median-of-three pivot; sorting the
// part left once the partitions stop shrinking fast, so the worst case
// stays O(n log n)).
func selectNth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	budget := 2 * bits.Len(uint(len(xs)))
	for hi > lo {
		if budget == 0 || hi-lo < 16 {
			slices.Sort(xs[lo : hi+1])
			return
		}
		budget--
		mid := lo + (hi-lo)/2
		// Median of three into xs[mid].
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// xs[lo:j+1] ≤ pivot ≤ xs[i:hi+1], and xs[j+1:i] == pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

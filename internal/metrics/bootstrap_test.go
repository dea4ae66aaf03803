package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// referenceBootstrapCI is the bootstrap interval as Summarize computed it
// before resampleMeans and percentiles: rand.Rand.IntN per draw, every
// mean kept, sorted, then Quantile. The bundles written before were
// computed this way, so the faster code must give the same bits.
func referenceBootstrapCI(xs []float64, resamples int, level float64, seed uint64) (lo, hi float64) {
	n := len(xs)
	if n == 1 {
		return xs[0], xs[0]
	}
	resamples = resamplesOrDefault(resamples)
	level = levelOrDefault(level)
	r := rand.New(rand.NewPCG(seed, streamBootstrap))
	means := make([]float64, resamples)
	if vals, counts, ok := fewDistinct(xs); ok {
		multinomialMeans(r, vals, counts, n, means)
	} else {
		for i := range means {
			sum := 0.0
			for range n {
				sum += xs[r.IntN(n)]
			}
			means[i] = sum / float64(n)
		}
	}
	slices.Sort(means)
	return Quantile(means, (1-level)/2), Quantile(means, (1+level)/2)
}

// bootstrapCase is a sample to bootstrap: n values of the given shape.
func bootstrapSample(r *rand.Rand, n int, shape string) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch shape {
		case "continuous":
			xs[i] = r.Float64()
		case "sevenths":
			xs[i] = float64(r.IntN(7)) / 7
		case "binary":
			xs[i] = float64(r.IntN(2))
		case "signed":
			xs[i] = r.NormFloat64() * 3
		case "constant":
			xs[i] = 0.25
		}
	}
	return xs
}

func TestBootstrapFastEqualsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sizes := []int{1, 2, 3, 5, 8, 16, 17, 100, 128, 999, 1000, 1024, 1500}
	shapes := []string{"continuous", "sevenths", "binary", "signed", "constant"}
	opts := []BootstrapOptions{{}, {Seed: 42}, {Seed: 1, Resamples: 1}, {Seed: 3, Resamples: 2}, {Seed: 9, Resamples: 37, Level: 0.9}, {Seed: 11, Resamples: 2000, Level: 0.5}, {Seed: 5, Resamples: 1000, Level: 0.999}}
	for _, n := range sizes {
		for _, shape := range shapes {
			xs := bootstrapSample(r, n, shape)
			for _, o := range opts {
				if testing.Short() && n > 1000 && o.Resamples == 0 {
					continue
				}
				lo, hi := bootstrapCI(xs, o.Resamples, o.Level, o.Seed)
				wlo, whi := referenceBootstrapCI(xs, o.Resamples, o.Level, o.Seed)
				if math.Float64bits(lo) != math.Float64bits(wlo) || math.Float64bits(hi) != math.Float64bits(whi) {
					t.Errorf("n %d %s %+v: [%v, %v], want [%v, %v] bit for bit", n, shape, o, lo, hi, wlo, whi)
				}
			}
		}
	}
}

func TestSummarizeAllEqualsSummarize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// Samples of a few lengths, repeated, in both paths, as an arm's
	// metrics are: most metrics scored on every query, a few on fewer.
	var xss [][]float64
	for _, c := range []struct {
		n     int
		shape string
	}{{300, "continuous"}, {300, "sevenths"}, {300, "binary"}, {1200, "binary"}, {1200, "continuous"}, {300, "signed"}, {0, ""}, {1, "continuous"}, {7, "continuous"}, {1200, "sevenths"}, {300, "constant"}} {
		xss = append(xss, bootstrapSample(r, c.n, c.shape))
	}
	for _, o := range []BootstrapOptions{{Seed: 42, Resamples: 3000}, {Seed: 0, Resamples: 500, Level: 0.8}} {
		got := SummarizeAll(xss, o)
		for i, xs := range xss {
			want := Summarize(xs, o)
			if got[i] != want || math.Float64bits(got[i].Lo) != math.Float64bits(want.Lo) || math.Float64bits(got[i].Hi) != math.Float64bits(want.Hi) {
				t.Errorf("%+v: sample %d (n %d): SummarizeAll %+v, Summarize %+v", o, i, len(xs), got[i], want)
			}
		}
	}
	if got := SummarizeAll(nil, BootstrapOptions{}); len(got) != 0 {
		t.Errorf("SummarizeAll(nil) = %v", got)
	}
}

func TestBootstrapDrawsEqualRandIntN(t *testing.T) {
	for _, n := range []int{2, 3, 4, 1000, 1024, 1 << 20, 1<<40 + 17, math.MaxInt64} {
		d := newDraws(99, n)
		r := rand.New(rand.NewPCG(99, streamBootstrap))
		for i := range 2000 {
			if got, want := int(d.next()), r.IntN(n); got != want {
				t.Fatalf("n %d: draw %d is %d, rand.IntN gives %d", n, i, got, want)
			}
		}
	}
}

func TestBootstrapPercentilesEqualSortedQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 10, 17, 40, 101, 1000, 10000} {
		for _, dup := range []int{0, 1, 3} { // distinct values, or few
			for _, level := range []float64{0.95, 0.5, 0.999, 0.01} {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = r.Float64()
					if dup > 0 {
						xs[i] = float64(r.IntN(dup))
					}
				}
				sorted := slices.Clone(xs)
				slices.Sort(sorted)
				wlo, whi := Quantile(sorted, (1-level)/2), Quantile(sorted, (1+level)/2)
				lo, hi := percentiles(slices.Clone(xs), level)
				if lo != wlo || hi != whi {
					t.Errorf("n %d dup %d level %v: [%v, %v], want [%v, %v]", n, dup, level, lo, hi, wlo, whi)
				}
			}
		}
	}
	// Already sorted and reversed inputs, the classic bad cases of a
	// selection.
	for _, n := range []int{1000, 10000} {
		up := make([]float64, n)
		for i := range up {
			up[i] = float64(i)
		}
		down := slices.Clone(up)
		slices.Reverse(down)
		for _, xs := range [][]float64{up, down} {
			level := 0.95 // a variable: the constant (1-0.95)/2 is exact, not the float64 a run computes
			lo, hi := percentiles(slices.Clone(xs), level)
			if wlo, whi := Quantile(up, (1-level)/2), Quantile(up, (1+level)/2); lo != wlo || hi != whi {
				t.Errorf("n %d ordered: [%v, %v], want [%v, %v]", n, lo, hi, wlo, whi)
			}
		}
	}
}

// BenchmarkBootstrapArm bootstraps the metrics of one arm the way a
// bundle's metric_stats are computed (10,000 resamples each): ten metrics
// of continuous values on every query, at 1,000 and 10,000 queries, one
// Summarize per metric (the way before SummarizeAll) against SummarizeAll
// of the ten, and the reference code they both reproduce.
func BenchmarkBootstrapArm(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		r := rand.New(rand.NewPCG(5, 6))
		xss := make([][]float64, 10)
		for m := range xss {
			xss[m] = bootstrapSample(r, n, "continuous")
		}
		b.Run(fmt.Sprintf("queries=%d/reference", n), func(b *testing.B) {
			for b.Loop() {
				for _, xs := range xss {
					referenceBootstrapCI(xs, 0, 0, 42)
				}
			}
		})
		b.Run(fmt.Sprintf("queries=%d/summarize", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, xs := range xss {
					Summarize(xs, BootstrapOptions{Seed: 42})
				}
			}
		})
		b.Run(fmt.Sprintf("queries=%d/summarize-all", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SummarizeAll(xss, BootstrapOptions{Seed: 42})
			}
		})
	}
}

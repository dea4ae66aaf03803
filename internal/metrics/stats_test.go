package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestStudentTTwoSided(t *testing.T) {
	for _, c := range []struct{ t, df, want, tol float64 }{
		// textbook critical values (two-sided 5% and 1%)
		{2.228, 10, 0.05, 2e-4},
		{2.0, 5, 0.1019, 1e-4},
		{1.96, 1e6, 0.05, 1e-4},
		{2.576, 1e6, 0.01, 1e-4},
		{3.169, 10, 0.01, 1e-4},
		// closed forms: df 1 is Cauchy, p = 1 − (2/π)·atan|t|; df 2: p = 1 − |t|/√(t²+2)
		{1, 1, 0.5, 1e-14},
		{3, 1, 1 - 2/math.Pi*math.Atan(3), 1e-14},
		{-0.7, 1, 1 - 2/math.Pi*math.Atan(0.7), 1e-14},
		{math.Sqrt(12), 2, 1 - math.Sqrt(12)/math.Sqrt(14), 1e-14},
		{0.3, 2, 1 - 0.3/math.Sqrt(2.09), 1e-14},
		{0, 7, 1, 0},
		{math.Inf(1), 3, 0, 0},
	} {
		if got := studentTTwoSided(c.t, c.df); !near(got, c.want, c.tol) {
			t.Errorf("studentTTwoSided(%v, %v) = %v, want %v ± %v", c.t, c.df, got, c.want, c.tol)
		}
	}
	if got := studentTTwoSided(1, 0); !math.IsNaN(got) {
		t.Errorf("studentTTwoSided(1, 0) = %v, want NaN", got)
	}
}

func TestRegIncBeta(t *testing.T) {
	for _, c := range []struct{ a, b, x, want float64 }{
		{1, 1, 0.3, 0.3},                      // uniform
		{2.5, 1, 0.4, math.Pow(0.4, 2.5)},     // I_x(a,1) = x^a
		{1, 3.5, 0.8, 1 - math.Pow(0.2, 3.5)}, // I_x(1,b) = 1 − (1−x)^b
		{2, 2, 0.5, 0.5},                      // symmetry
	} {
		if got := regIncBeta(c.a, c.b, c.x); !near(got, c.want, 1e-13) {
			t.Errorf("regIncBeta(%v, %v, %v) = %v, want %v", c.a, c.b, c.x, got, c.want)
		}
	}
	// I_x(2,3) = 6x² − 8x³ + 3x⁴ (integral of 12t(1−t)²).
	x := 0.25
	if got, want := regIncBeta(2, 3, x), 6*x*x-8*x*x*x+3*x*x*x*x; !near(got, want, 1e-14) {
		t.Errorf("regIncBeta(2, 3, %v) = %v, want %v", x, got, want)
	}
	if !math.IsNaN(regIncBeta(-1, 1, 0.5)) || !math.IsNaN(regIncBeta(1, 1, 1.5)) {
		t.Error("regIncBeta outside its domain is not NaN")
	}
}

func TestSummarize(t *testing.T) {
	if s := Summarize(nil, BootstrapOptions{}); s != (Summary{SmallSample: true}) {
		t.Errorf("Summarize(nil) = %+v", s)
	}
	if s := Summarize([]float64{0.7}, BootstrapOptions{}); s != (Summary{N: 1, Mean: 0.7, Lo: 0.7, Hi: 0.7, SmallSample: true}) {
		t.Errorf("Summarize(one) = %+v", s)
	}
	same := []float64{0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25}
	if s := Summarize(same, BootstrapOptions{Seed: 3}); s != (Summary{N: 10, Mean: 0.25, Lo: 0.25, Hi: 0.25}) {
		t.Errorf("Summarize(constant) = %+v", s)
	}
	// Two values {0, 1}: resampled means are 0, ½, 1 with probability ¼, ½, ¼,
	// so with 10,000 resamples the 2.5% and 97.5% quantiles are 0 and 1.
	if s := Summarize([]float64{0, 1}, BootstrapOptions{Seed: 1}); s.Lo != 0 || s.Hi != 1 || s.Mean != 0.5 {
		t.Errorf("Summarize({0,1}) = %+v, want mean 0.5 CI [0, 1]", s)
	}
	// 0..199: the bootstrap CI of the mean approaches mean ± 1.96·σ/√n with the
	// population σ of the sample (σ² = (n²−1)/12 for 0..n−1).
	xs := make([]float64, 200)
	for i := range xs {
		xs[i] = float64(i)
	}
	s := Summarize(xs, BootstrapOptions{Seed: 42})
	half := 1.96 * math.Sqrt((200.0*200-1)/12) / math.Sqrt(200)
	if s.Mean != 99.5 || !near(s.Lo, 99.5-half, 0.06*half) || !near(s.Hi, 99.5+half, 0.06*half) || s.SmallSample {
		t.Errorf("Summarize(0..199) = %+v, want CI ≈ 99.5 ± %.3f", s, half)
	}
	small := BootstrapOptions{Seed: 42, Resamples: 2000}
	s1 := Summarize(xs, small)
	if s2 := Summarize(xs, small); s2 != s1 {
		t.Errorf("same seed, different result: %+v vs %+v", s2, s1)
	}
	if s3 := Summarize(xs, BootstrapOptions{Seed: 43, Resamples: 2000}); s3 == s1 {
		t.Errorf("different seeds gave the identical interval %+v", s3)
	}
	// A 50% interval is narrower than the 95% one.
	if s4 := Summarize(xs, BootstrapOptions{Seed: 42, Resamples: 2000, Level: 0.5}); !(s4.Lo > s.Lo && s4.Hi < s.Hi) {
		t.Errorf("50%% CI %+v not inside 95%% CI %+v", s4, s)
	}
}

func TestComparePairedExact(t *testing.T) {
	// d = {1, 0, 2, 3, 0}: zeros ignored; the 8 sign patterns of {1, 2, 3}
	// give sums ±6, ±4, ±2, 0, 0 — |sum| ≥ 6 twice, so p = 2/8.
	// Non-zero d has mean 6/5 = 1.2 over all 5 pairs; sd over the 5 values:
	// deviations −.2, −1.2, .8, 1.8, −1.2 → ss = .04+1.44+.64+3.24+1.44 = 6.8,
	// sd = √(6.8/4) = √1.7; t = 1.2/(√1.7/√5), df 4.
	a := []float64{1, 0.5, 2, 3, 0.25}
	b := []float64{0, 0.5, 0, 0, 0.25}
	p, err := ComparePaired(a, b, PairedOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tstat := 1.2 / (math.Sqrt(1.7) / math.Sqrt(5))
	if p.N != 5 || !near(p.MeanDiff, 1.2, 1e-15) || p.P != 0.25 || !p.ExactP || !p.SmallSample {
		t.Errorf("ComparePaired = %+v, want n 5 mean 1.2 exact p 0.25", p)
	}
	if !near(p.Dz, 1.2/math.Sqrt(1.7), 1e-14) || !near(p.PT, studentTTwoSided(tstat, 4), 1e-15) {
		t.Errorf("d_z %v p_t %v, want %v %v", p.Dz, p.PT, 1.2/math.Sqrt(1.7), studentTTwoSided(tstat, 4))
	}
	// d = {1, 2, 3}: t = 2/(1/√3) = √12 with df 2, p = 1 − √12/√14 (closed form).
	p, _ = ComparePaired([]float64{1, 2, 3}, []float64{0, 0, 0}, PairedOptions{})
	if !near(p.PT, 1-math.Sqrt(12)/math.Sqrt(14), 1e-14) || p.Dz != 2 || p.P != 0.25 {
		t.Errorf("ComparePaired({1,2,3}) = %+v, want p_t %v d_z 2 p 0.25", p, 1-math.Sqrt(12)/math.Sqrt(14))
	}
	// Five equal positive differences: only the all-plus and all-minus
	// patterns reach |sum| 5, p = 2/32; sd 0 so d_z is undefined, p_t 0.
	p, _ = ComparePaired([]float64{1, 1, 1, 1, 1}, []float64{0, 0, 0, 0, 0}, PairedOptions{})
	if p.P != 0.0625 || !p.DzUndefined || p.Dz != 0 || p.PT != 0 {
		t.Errorf("ComparePaired(constant d) = %+v", p)
	}
	// No difference at all.
	p, _ = ComparePaired([]float64{0.3, 0.4}, []float64{0.3, 0.4}, PairedOptions{})
	if p.P != 1 || p.PT != 1 || p.Dz != 0 || p.DzUndefined || p.Lo != 0 || p.Hi != 0 {
		t.Errorf("ComparePaired(identical) = %+v", p)
	}
	// One pair.
	p, _ = ComparePaired([]float64{1}, []float64{0}, PairedOptions{})
	if p.P != 1 || p.PT != 1 || !p.DzUndefined || p.Lo != 1 || p.Hi != 1 {
		t.Errorf("ComparePaired(one pair) = %+v", p)
	}
}

func TestComparePairedMonteCarlo(t *testing.T) {
	// 40 equal positive differences: the exact p is 2/2^40, so no random
	// pattern reaches the observed sum and P = (0+1)/(R+1).
	n := 40
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = 1
	}
	p, err := ComparePaired(a, b, PairedOptions{Resamples: 999, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if p.ExactP || p.P != 1.0/1000 {
		t.Errorf("P = %v exact %v, want 1/1000 Monte Carlo", p.P, p.ExactP)
	}
	// Alternating ±1 differences have sum 0: every pattern reaches |0|, P = 1.
	for i := range a {
		a[i] = float64(i % 2 * 2)
		b[i] = 1
	}
	p, _ = ComparePaired(a, b, PairedOptions{Resamples: 999, Seed: 7})
	if p.P != 1 || p.MeanDiff != 0 {
		t.Errorf("balanced differences: %+v, want P 1", p)
	}
	// 30 differences with a modest shift: the Monte Carlo p agrees with the
	// t-test p to within Monte Carlo error, and the same seed repeats exactly.
	for i := range a {
		a[i] = math.Sin(float64(i)) + 0.3
		b[i] = 0
	}
	p1, _ := ComparePaired(a, b, PairedOptions{Seed: 11})
	p2, _ := ComparePaired(a, b, PairedOptions{Seed: 11})
	if p1 != p2 {
		t.Errorf("same seed, different results: %+v vs %+v", p1, p2)
	}
	if !near(p1.P, p1.PT, 0.03) {
		t.Errorf("sign-flip p %v far from t-test p %v", p1.P, p1.PT)
	}
}

func TestComparePairedErrors(t *testing.T) {
	if _, err := ComparePaired([]float64{1}, []float64{1, 2}, PairedOptions{}); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := ComparePaired(nil, nil, PairedOptions{}); err == nil {
		t.Error("empty input accepted")
	}
	if _, err := ComparePaired([]float64{math.NaN()}, []float64{1}, PairedOptions{}); err == nil {
		t.Error("NaN accepted")
	}
}

func TestHolm(t *testing.T) {
	// m = 4: sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06,
	// 0.04·1 = 0.04 → raised to 0.06 by monotonicity.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i], 1e-15) {
			t.Errorf("Holm[%d] = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	got = Holm([]float64{0.5, 0.4, math.NaN()})
	if got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("Holm caps at 1 and reads NaN as 1: %v", got)
	}
	if Holm(nil) != nil || len(Holm([]float64{})) != 0 {
		t.Error("Holm of empty input")
	}
	if got := Holm([]float64{0.2}); got[0] != 0.2 {
		t.Errorf("Holm of one test = %v, want unchanged", got)
	}
}

func BenchmarkSummarize(b *testing.B) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i%7) / 7
	}
	b.ReportAllocs()
	for b.Loop() {
		Summarize(xs, BootstrapOptions{Seed: 1})
	}
}

func BenchmarkComparePaired(b *testing.B) {
	x, y := make([]float64, 1000), make([]float64, 1000)
	for i := range x {
		x[i] = float64(i%7) / 7
		y[i] = float64(i%5) / 5
	}
	b.ReportAllocs()
	for b.Loop() {
		ComparePaired(x, y, PairedOptions{Seed: 1})
	}
}

// TestComparePairedSleep uses Student's sleep data (Cushny & Peebles 1905),
// the classic paired t-test example: R's t.test(extra ~ group, data = sleep,
// paired = TRUE) reports t = 4.0621 (sign aside), df = 9, p = 0.002833, mean
// difference 1.58. The sign-flip p was enumerated independently in Python
// (itertools.product over the 2^9 sign patterns of the 9 non-zero
// differences): 2/512; d_z = 1.58/1.2299955 = 1.2845576.
func TestComparePairedSleep(t *testing.T) {
	drug2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	drug1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	p, err := ComparePaired(drug2, drug1, PairedOptions{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.MeanDiff, 1.58, 1e-12) || !near(p.PT, 0.002833, 5e-7) || !near(p.Dz, 1.2845576, 1e-7) {
		t.Errorf("sleep: %+v, want mean 1.58, p_t 0.002833, d_z 1.2845576", p)
	}
	if p.P != 2.0/512 || !p.ExactP || p.SmallSample {
		t.Errorf("sleep: sign-flip p %v exact %v small %v, want exact 2/512 and n 10 not small", p.P, p.ExactP, p.SmallSample)
	}
	if !(p.Lo > 0.7 && p.Lo < 1.58 && p.Hi > 1.58 && p.Hi < 2.6) {
		t.Errorf("sleep: bootstrap CI [%v, %v] implausible around 1.58 (t interval [0.70, 2.46])", p.Lo, p.Hi)
	}
}

func TestBinomial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n int
		p float64
	}{{10000, 0.3}, {5000, 0.001}, {100, 0.5}, {33, 0.9}, {1000000, 0.42}, {70000, 0.99995}} {
		const draws = 4000
		sum, sumSq := 0.0, 0.0
		for range draws {
			k := binomial(r, c.n, c.p)
			if k < 0 || k > c.n {
				t.Fatalf("binomial(%d, %v) = %d", c.n, c.p, k)
			}
			sum += float64(k)
			sumSq += float64(k) * float64(k)
		}
		mean := sum / draws
		variance := sumSq/draws - mean*mean
		wantMean := float64(c.n) * c.p
		wantVar := wantMean * (1 - c.p)
		// the sample mean is within 5 standard errors; the variance within 15%
		if math.Abs(mean-wantMean) > 5*math.Sqrt(wantVar/draws) || math.Abs(variance/wantVar-1) > 0.15 {
			t.Errorf("binomial(%d, %v): mean %.2f var %.2f, want %.2f and %.2f", c.n, c.p, mean, variance, wantMean, wantVar)
		}
	}
	if binomial(r, 10, 0) != 0 || binomial(r, 10, 1) != 10 {
		t.Error("binomial at p 0 or 1")
	}
}

// TestSummarizeMultinomial checks the multinomial shortcut against plain
// value-by-value resampling (written out here) on a large sample with few
// distinct values: the interval ends agree to within Monte Carlo error.
func TestSummarizeMultinomial(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i*7919%5) / 4 // 5 distinct values
	}
	if _, _, ok := fewDistinct(xs); !ok {
		t.Fatal("the multinomial path is not taken")
	}
	s := Summarize(xs, BootstrapOptions{Seed: 9})
	r := rand.New(rand.NewPCG(77, 78))
	means := make([]float64, 4000)
	for i := range means {
		sum := 0.0
		for range len(xs) {
			sum += xs[r.IntN(len(xs))]
		}
		means[i] = sum / float64(len(xs))
	}
	slices.Sort(means)
	lo, hi := Quantile(means, 0.025), Quantile(means, 0.975)
	half := (hi - lo) / 2
	if !near(s.Lo, lo, 0.06*half) || !near(s.Hi, hi, 0.06*half) {
		t.Errorf("multinomial CI [%v, %v], plain resampling [%v, %v]", s.Lo, s.Hi, lo, hi)
	}
	if s2 := Summarize(xs, BootstrapOptions{Seed: 9}); s2 != s {
		t.Errorf("same seed, different result")
	}
}

func BenchmarkSummarizeBinary5000(b *testing.B) {
	xs := make([]float64, 5000)
	for i := range xs {
		xs[i] = float64(i % 3 / 2) // exact-match-like 0/1 scores
	}
	b.ReportAllocs()
	for b.Loop() {
		Summarize(xs, BootstrapOptions{Seed: 1})
	}
}

// TestSignFlipGrouped checks the Monte Carlo sign-flip test on a large
// sample of few distinct differences (drawn through binomials) against the
// normal approximation of the sign-flip distribution, whose variance is
// exactly Σd²: p ≈ erfc(|Σd| / √(2Σd²)).
func TestSignFlipGrouped(t *testing.T) {
	d := make([]float64, 3000)
	ones := 0
	for i := range d {
		switch i % 20 {
		case 0, 1, 2, 3, 10, 11, 12, 13:
			d[i] = 1
		case 4, 5, 6, 7, 14, 15, 16, 17:
			d[i] = -1
		case 8:
			d[i] = 0.5
		case 18:
			d[i] = -0.5
		case 9, 19:
			if ones < 52 {
				d[i], ones = 1, ones+1
			}
		}
	}
	// Σd = 52, Σd² = 2400 + 75 + 52 = 2527: z ≈ 1.03, p ≈ 0.30.
	if _, _, ok := fewDistinct(d); !ok {
		t.Fatal("the grouped path is not taken")
	}
	sum, sq := 0.0, 0.0
	for _, x := range d {
		sum += x
		sq += x * x
	}
	want := math.Erfc(math.Abs(sum) / math.Sqrt(2*sq))
	p, exact := signFlip(d, 10000, 3)
	if exact || !near(p, want, 0.02) {
		t.Errorf("grouped sign-flip p = %v (exact %v), normal approximation %v", p, exact, want)
	}
}

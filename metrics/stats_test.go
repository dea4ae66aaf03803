package metrics

import (
	"math"
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
		if got := StudentTTwoSided(c.t, c.df); !near(got, c.want, c.tol) {
			t.Errorf("StudentTTwoSided(%v, %v) = %v, want %v ± %v", c.t, c.df, got, c.want, c.tol)
		}
	}
	if got := StudentTTwoSided(1, 0); !math.IsNaN(got) {
		t.Errorf("StudentTTwoSided(1, 0) = %v, want NaN", got)
	}
}

func TestRegIncBeta(t *testing.T) {
	for _, c := range []struct{ a, b, x, want float64 }{
		{1, 1, 0.3, 0.3},                      // uniform
		{2.5, 1, 0.4, math.Pow(0.4, 2.5)},     // I_x(a,1) = x^a
		{1, 3.5, 0.8, 1 - math.Pow(0.2, 3.5)}, // I_x(1,b) = 1 − (1−x)^b
		{2, 2, 0.5, 0.5},                      // symmetry
	} {
		if got := RegIncBeta(c.a, c.b, c.x); !near(got, c.want, 1e-13) {
			t.Errorf("RegIncBeta(%v, %v, %v) = %v, want %v", c.a, c.b, c.x, got, c.want)
		}
	}
	// I_x(2,3) = 6x² − 8x³ + 3x⁴ (integral of 12t(1−t)²).
	x := 0.25
	if got, want := RegIncBeta(2, 3, x), 6*x*x-8*x*x*x+3*x*x*x*x; !near(got, want, 1e-14) {
		t.Errorf("RegIncBeta(2, 3, %v) = %v, want %v", x, got, want)
	}
	if !math.IsNaN(RegIncBeta(-1, 1, 0.5)) || !math.IsNaN(RegIncBeta(1, 1, 1.5)) {
		t.Error("RegIncBeta outside its domain is not NaN")
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
	if s2 := Summarize(xs, BootstrapOptions{Seed: 42}); s2 != s {
		t.Errorf("same seed, different result: %+v vs %+v", s2, s)
	}
	if s3 := Summarize(xs, BootstrapOptions{Seed: 43}); s3 == s {
		t.Errorf("different seeds gave the identical interval %+v", s3)
	}
	// A 50% interval is narrower than the 95% one.
	if s4 := Summarize(xs, BootstrapOptions{Seed: 42, Level: 0.5}); !(s4.Lo > s.Lo && s4.Hi < s.Hi) {
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
	if !near(p.Dz, 1.2/math.Sqrt(1.7), 1e-14) || !near(p.PT, StudentTTwoSided(tstat, 4), 1e-15) {
		t.Errorf("d_z %v p_t %v, want %v %v", p.Dz, p.PT, 1.2/math.Sqrt(1.7), StudentTTwoSided(tstat, 4))
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

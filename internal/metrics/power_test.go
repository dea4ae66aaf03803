package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ q, df, want, tol float64 }{
		{0.975, 10, 2.228, 1e-3},
		{0.975, 43, 2.0167, 1e-3},
		{0.8, 43, 0.8496, 1e-3},
		{0.975, 1e7, 1.95996, 1e-4},
		{0.8, 1e7, 0.84162, 1e-4},
		{0.995, 5, 4.0321, 1e-3},
	} {
		if got := tQuantile(c.q, c.df); !near(got, c.want, c.tol) {
			t.Errorf("tQuantile(%v, %v) = %v, want %v ± %v", c.q, c.df, got, c.want, c.tol)
		}
	}
}

func TestMinDetectable(t *testing.T) {
	// Large n: the normal formula (1.96 + 0.8416) · sd / √n.
	got, ok := MinDetectable(1_000_000, 0.3, 0.05)
	if want := (1.959964 + 0.841621) * 0.3 / 1000; !ok || !near(got, want, 1e-6) {
		t.Errorf("MinDetectable(1e6, 0.3, 0.05) = %v, %v; want %v", got, ok, want)
	}
	// A family of 2 holds the first comparison to alpha/2: a larger MDE.
	one, _ := MinDetectable(44, 0.2, 0.05)
	two, _ := MinDetectable(44, 0.2, 0.025)
	if !(two > one) {
		t.Errorf("MDE at alpha 0.025 (%v) not above MDE at 0.05 (%v)", two, one)
	}
	for _, c := range []struct {
		n         int
		sd, alpha float64
	}{{1, 0.2, 0.05}, {10, 0, 0.05}, {10, math.NaN(), 0.05}, {10, math.Inf(1), 0.05}, {10, 0.2, 0}, {10, 0.2, 1}} {
		if _, ok := MinDetectable(c.n, c.sd, c.alpha); ok {
			t.Errorf("MinDetectable(%d, %v, %v) ok, want not ok", c.n, c.sd, c.alpha)
		}
	}
	if got := SD([]float64{1, 2, 3, 4}); !near(got, math.Sqrt(5.0/3), 1e-12) {
		t.Errorf("SD = %v", got)
	}
}

// TestMinDetectablePower checks the method by simulation: paired
// differences with a true mean shift equal to the MDE, drawn from a
// distribution with the standard deviation the MDE was computed from, are
// found significant by the sign-flip test of ComparePaired (p < alpha, the
// level MinDetectable was given) in about 80% of 1,000 trials. The
// distributions are a normal one and a spiky one (80% of the differences at
// the shift, the rest far out on either side, as retrieval scores that
// mostly do not change), at the family sizes 1 and 2 of the gate.
func TestMinDetectablePower(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const trials = 1000
	normal := func(r *rand.Rand) float64 { return r.NormFloat64() }
	spiky := func(r *rand.Rand) float64 { // mean 0, variance 1
		switch u := r.Float64(); {
		case u < 0.1:
			return -math.Sqrt(5)
		case u < 0.2:
			return math.Sqrt(5)
		}
		return 0
	}
	for _, c := range []struct {
		name   string
		n      int
		sd     float64
		family int
		draw   func(*rand.Rand) float64
	}{
		{"normal n=44", 44, 0.2, 1, normal},
		{"normal n=44 family 2", 44, 0.2, 2, normal},
		{"spiky n=100 family 2", 100, 0.3, 2, spiky},
		{"normal n=20", 20, 0.25, 1, normal},
	} {
		t.Run(c.name, func(t *testing.T) {
			alpha := 0.05 / float64(c.family)
			mde, ok := MinDetectable(c.n, c.sd, alpha)
			if !ok {
				t.Fatal("no MDE")
			}
			r := rand.New(rand.NewPCG(7, uint64(c.n*c.family)))
			zero := make([]float64, c.n)
			d := make([]float64, c.n)
			rejected := 0
			for trial := range trials {
				for i := range d {
					d[i] = mde + c.sd*c.draw(r)
				}
				p, err := ComparePaired(d, zero, PairedOptions{Resamples: 1000, Seed: uint64(trial)})
				if err != nil {
					t.Fatal(err)
				}
				if p.P < alpha {
					rejected++
				}
			}
			power := float64(rejected) / trials
			t.Logf("MDE %.4f at n=%d, sd %.2f, alpha %.3f: the sign-flip test rejects in %.1f%% of %d trials", mde, c.n, c.sd, alpha, 100*power, trials)
			if power < 0.75 || power > 0.85 {
				t.Errorf("power at the MDE is %.3f, want 0.80 ± 0.05", power)
			}
		})
	}
}

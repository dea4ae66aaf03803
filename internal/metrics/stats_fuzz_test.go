package metrics

import (
	"math"
	"slices"
	"testing"
)

// FuzzHolm checks that Holm-adjusted p-values are in [0, 1], not below the
// raw p-values, and ordered like them.
func FuzzHolm(f *testing.F) {
	f.Add(0.01, 0.04, 0.03, 0.005)
	f.Add(1.0, 0.0, 0.5, 0.5)
	f.Fuzz(func(t *testing.T, a, b, c, d float64) {
		ps := []float64{a, b, c, d}
		for i, p := range ps {
			if math.IsNaN(p) || p < 0 || p > 1 {
				ps[i] = math.Mod(math.Abs(p), 1)
				if math.IsNaN(ps[i]) {
					ps[i] = 1
				}
			}
		}
		adj := Holm(ps)
		for i := range ps {
			if !(adj[i] >= ps[i] && adj[i] <= 1) {
				t.Fatalf("Holm(%v) = %v", ps, adj)
			}
			for j := range ps {
				if ps[i] < ps[j] && adj[i] > adj[j] {
					t.Fatalf("Holm(%v) = %v is not monotone", ps, adj)
				}
			}
		}
		if !slices.Equal(Holm(ps), adj) {
			t.Fatal("Holm is not deterministic")
		}
	})
}

// FuzzComparePaired checks that paired statistics are finite, p-values lie
// in [0, 1] and Lo ≤ Hi, for any finite scores.
func FuzzComparePaired(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, []byte{4, 3, 2, 1}, uint64(1))
	f.Add([]byte{0, 0}, []byte{0, 0}, uint64(0))
	f.Fuzz(func(t *testing.T, ab, bb []byte, seed uint64) {
		n := min(len(ab), len(bb), 40)
		if n == 0 {
			return
		}
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i], b[i] = float64(ab[i])/255, float64(bb[i])/255
		}
		p, err := ComparePaired(a, b, PairedOptions{Resamples: 200, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []float64{p.MeanDiff, p.Lo, p.Hi, p.Dz, p.P, p.PT} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite output %+v", p)
			}
		}
		if p.P <= 0 || p.P > 1 || p.PT < 0 || p.PT > 1 || p.Lo > p.Hi {
			t.Fatalf("out of range: %+v", p)
		}
	})
}

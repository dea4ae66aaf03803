package metrics

import (
	"math"
	"testing"
)

// sklearnKappa is scikit-learn's cohen_kappa_score (sklearn/metrics/
// _classification.py, weights=None) written out: with C the confusion
// matrix, E the outer product of its row and column sums over their total,
// and W the matrix with 0 on the diagonal and 1 off it, kappa is
// 1 − Σ W·C / Σ W·E. A second formula, to check Confusion.Kappa's.
func sklearnKappa(c Confusion) float64 {
	m := [2][2]float64{{float64(c.TN), float64(c.FP)}, {float64(c.FN), float64(c.TP)}} // rows: label false, true
	var rows, cols [2]float64
	total := 0.0
	for i := range 2 {
		for j := range 2 {
			rows[i] += m[i][j]
			cols[j] += m[i][j]
			total += m[i][j]
		}
	}
	num, den := 0.0, 0.0
	for i := range 2 {
		for j := range 2 {
			if i != j {
				num += m[i][j]
				den += rows[i] * cols[j] / total
			}
		}
	}
	return 1 - num/den
}

func TestAgreementKappaReference(t *testing.T) {
	// Wikipedia's "Cohen's kappa" examples, worked by hand there: rater A
	// yes/no by rater B yes/no.
	for _, c := range []struct {
		yy, yn, ny, nn int
		acc, kappa     float64
	}{
		{20, 5, 10, 15, 0.70, 0.40},    // p_o .70, p_e .50
		{45, 15, 25, 15, 0.60, 0.1304}, // p_o .60, p_e .54
		{25, 35, 5, 35, 0.60, 0.2593},  // p_o .60, p_e .46
	} {
		// A is the label, B the verdict.
		cf := Confusion{TP: c.yy, FN: c.yn, FP: c.ny, TN: c.nn}
		k, ok := cf.Kappa()
		if !ok || math.Abs(k-c.kappa) > 5e-5 || math.Abs(cf.Accuracy()-c.acc) > 1e-12 {
			t.Errorf("%+v: accuracy %v, kappa %v %v; want %v, %v", cf, cf.Accuracy(), k, ok, c.acc, c.kappa)
		}
		if s := sklearnKappa(cf); math.Abs(s-k) > 1e-12 {
			t.Errorf("%+v: kappa %v, sklearn's formula %v", cf, k, s)
		}
	}
	for _, cf := range []Confusion{{}, {TP: 4}, {TN: 3}} {
		if k, ok := cf.Kappa(); ok {
			t.Errorf("%+v: kappa %v defined, want undefined", cf, k)
		}
	}
	// One rater constant, the other not: p_e < 1, kappa 0.
	if k, ok := (Confusion{TP: 3, FP: 2}).Kappa(); !ok || k != 0 {
		t.Errorf("constant label: kappa %v %v, want 0", k, ok)
	}
}

func TestAgreementKappaInterval(t *testing.T) {
	labels := []bool{true, true, true, false, false, false, true, false, true, false, true, true}
	verdicts := []bool{true, true, false, false, false, true, true, false, true, false, true, true}
	cf := ConfusionOf(labels, verdicts)
	if cf != (Confusion{TP: 6, FN: 1, FP: 1, TN: 4}) {
		t.Fatalf("confusion %+v", cf)
	}
	k, _ := cf.Kappa()
	lo, hi, n, ok := KappaInterval(labels, verdicts, BootstrapOptions{Seed: 1})
	if !ok || !(lo < k && k < hi) || hi > 1 || lo < -1 || n < DefaultResamples*9/10 {
		t.Errorf("interval [%v, %v] of %d resamples around %v", lo, hi, n, k)
	}
	lo2, hi2, _, _ := KappaInterval(labels, verdicts, BootstrapOptions{Seed: 1})
	if lo2 != lo || hi2 != hi {
		t.Errorf("same seed, interval [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	// Perfect agreement on both classes: every defined resample has kappa 1.
	lo, hi, _, ok = KappaInterval([]bool{true, false, true, false}, []bool{true, false, true, false}, BootstrapOptions{Resamples: 200})
	if !ok || lo != 1 || hi != 1 {
		t.Errorf("perfect agreement: [%v, %v] %v", lo, hi, ok)
	}
	if _, _, _, ok := KappaInterval([]bool{true, true}, []bool{true, true}, BootstrapOptions{Resamples: 50}); ok {
		t.Error("one class only: want no interval")
	}
}

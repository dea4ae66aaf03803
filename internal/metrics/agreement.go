package metrics

import (
	"math/rand/v2"
	"slices"
)

// streamAgreement is the second PCG word of the bootstrap of kappa, apart
// from the mean's and the sign flip's.
const streamAgreement = 0x6c617361676e6133 // "lasagna3"

// Confusion is the 2×2 confusion matrix of a binary rater (the verdicts)
// against a reference (the labels); true is the positive class.
type Confusion struct {
	TP, FP, FN, TN int
}

// N is the number of pairs.
func (c Confusion) N() int { return c.TP + c.FP + c.FN + c.TN }

// Accuracy is the share of pairs on which the two agree; 0 when N is 0.
func (c Confusion) Accuracy() float64 {
	if c.N() == 0 {
		return 0
	}
	return float64(c.TP+c.TN) / float64(c.N())
}

// Kappa is Cohen's kappa, (p_o − p_e)/(1 − p_e) with p_o the observed
// agreement and p_e the agreement expected from each rater's marginals
// (Cohen 1960; scikit-learn's cohen_kappa_score without weights). ok is
// false when kappa is undefined: no pairs, or p_e = 1 (both raters put
// every pair in the same single class).
func (c Confusion) Kappa() (k float64, ok bool) {
	n := float64(c.N())
	if n == 0 {
		return 0, false
	}
	po := float64(c.TP+c.TN) / n
	labelTrue, verdictTrue := float64(c.TP+c.FN)/n, float64(c.TP+c.FP)/n
	pe := labelTrue*verdictTrue + (1-labelTrue)*(1-verdictTrue)
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// ConfusionOf counts the pairs (labels[i], verdicts[i]); the slices have
// the same length.
func ConfusionOf(labels, verdicts []bool) Confusion {
	var c Confusion
	for i, l := range labels {
		c.add(l, verdicts[i])
	}
	return c
}

func (c *Confusion) add(label, verdict bool) {
	switch {
	case label && verdict:
		c.TP++
	case !label && verdict:
		c.FP++
	case label:
		c.FN++
	default:
		c.TN++
	}
}

// KappaInterval is the percentile bootstrap interval of Cohen's kappa:
// o.Resamples resamples (0 means DefaultResamples) of the len(labels)
// (label, verdict) pairs drawn with replacement (math/rand/v2 PCG seeded
// with o.Seed, a stream of its own), kappa of each, and the (1−Level)/2
// and (1+Level)/2 type 7 quantiles of the kappas (as Summarize). Resamples
// in which kappa is undefined are left out; defined is how many were
// kept, and ok is false when none was.
func KappaInterval(labels, verdicts []bool, o BootstrapOptions) (lo, hi float64, defined int, ok bool) {
	n := len(labels)
	if n == 0 {
		return 0, 0, 0, false
	}
	resamples := resamplesOrDefault(o.Resamples)
	level := levelOrDefault(o.Level)
	r := rand.New(rand.NewPCG(o.Seed, streamAgreement))
	ks := make([]float64, 0, resamples)
	for range resamples {
		var c Confusion
		for range n {
			i := r.IntN(n)
			c.add(labels[i], verdicts[i])
		}
		if k, ok := c.Kappa(); ok {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return 0, 0, 0, false
	}
	slices.Sort(ks)
	return Quantile(ks, (1-level)/2), Quantile(ks, (1+level)/2), len(ks), true
}

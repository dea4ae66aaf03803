// Package evalgomega holds Gomega matchers for lasagna results, for suites
// written with Gomega (under Ginkgo, or in a plain go test through
// gomega.NewWithT). It is a separate package so that users of plain
// go test never import Gomega.
//
//	ev, err := evaltest.Evaluate(ctx, "faq", cfg)
//	Expect(err).NotTo(HaveOccurred())
//	Expect(ev).To(evalgomega.Pass())
//	Expect(ev).To(evalgomega.HaveNoBlockingIntegrity())
//	Expect(ev).To(evalgomega.HaveMetric("ndcg@10", BeNumerically(">=", 0.6)).ForArm("mine"))
//
// HaveMetric reads aggregate metrics of a *results.Bundle, a
// results.Result or an *evaltest.Evaluation (its bundle), and per-query
// scores of a results.Sample; HaveNoBlockingIntegrity reads the integrity
// findings of a bundle or an evaluation; Pass reads the outcome of an
// evaluation or one of its tests. Package evalginkgo turns an evaluation
// into Ginkgo table entries.
package evalgomega

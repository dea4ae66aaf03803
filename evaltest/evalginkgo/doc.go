// Package evalginkgo runs lasagna evaluations from Ginkgo suites: Entries
// turns an evaluated arm into DescribeTable entries (one spec per query),
// Query.Record copies a query's metrics into Ginkgo report entries (which
// ginkgo --junit-report writes as the spec's <properties>), and
// ReportAfterSuite passes the evaluation's bundle to reporters when the
// suite ends. Matchers are in package evalgomega. It is a separate package
// so that users of plain go test never import Ginkgo.
//
// A Ginkgo suite is one Go test: evaluate while Ginkgo builds the spec tree
// (in a container body), then assert on values.
//
//	var _ = Describe("faq", Ordered, func() {
//		ev, err := evaltest.Evaluate(context.Background(), "faq", cfg)
//		It("evaluates", func() { Expect(err).NotTo(HaveOccurred()) })
//		It("keeps its quality", func() {
//			Expect(ev).To(evalgomega.HaveMetric("ndcg@10", BeNumerically(">=", 0.6)).ForArm("mine"))
//			Expect(ev).To(evalgomega.HaveNoBlockingIntegrity())
//		})
//		DescribeTable("queries", func(q evalginkgo.Query) {
//			q.Record()
//			Expect(q.Test).To(evalgomega.Pass())
//		}, evalginkgo.Entries(ev, "mine"))
//	})
//
// The evaluation runs once per Ginkgo process (each process of ginkgo -p
// builds the tree); with deterministic pipelines every process sees the
// same values. Go's test cache, environment variables (LASAGNA_OUT, …)
// and bundle files behave as for evaltest.Evaluate.
package evalginkgo

package metrics_test

import (
	"fmt"

	"github.com/lasagna-go/lasagna/internal/metrics"
)

// A ranked list scored with lasagna's metric names. The order given is the
// ranking; grades >= 1 are relevant.
func ExampleRetrieval() {
	judged := map[string]int{"d1": 2, "d3": 1, "d7": 0}
	m, err := metrics.Retrieval([]string{"d7", "d1", "d9", "d3"}, judged, []int{1, 3})
	if err != nil {
		panic(err)
	}
	fmt.Printf("ndcg@3 %.4f  recall@3 %.4f  mrr@3 %.4f  map %.4f  hit@1 %.0f\n",
		m["ndcg@3"], m["recall@3"], m["mrr@3"], m["map"], m["hit@1"])
	// Output:
	// ndcg@3 0.4796  recall@3 0.5000  mrr@3 0.5000  map 0.5000  hit@1 0
}

// A run evaluated as trec_eval does: equal scores rank by document id
// descending, so d2 comes before the relevant d1.
func ExampleEvaluateRun() {
	qrels := map[string]map[string]int{"q1": {"d1": 1, "d2": 0}}
	run := map[string][]metrics.Scored{"q1": {{ID: "d1", Score: 1}, {ID: "d2", Score: 1}}}
	for _, l := range run {
		metrics.SortTREC(l)
	}
	opts := metrics.DefaultTrecOptions()
	ev, err := metrics.EvaluateRun(qrels, run, func(s metrics.Scored) string { return s.ID }, opts, metrics.AverageTrecEval)
	if err != nil {
		panic(err)
	}
	fmt.Printf("num_q %d  map %.4f  P_5 %.4f  ndcg_cut_10 %.4f\n", ev.NumQ, ev.Summary.MAP, ev.Summary.P[0], ev.Summary.NDCGCut[1])
	// Output:
	// num_q 1  map 0.5000  P_5 0.2000  ndcg_cut_10 0.6309
}

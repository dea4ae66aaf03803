// Package fusion combines ranked lists by reciprocal-rank fusion (RRF,
// Cormack, Clarke and Büttcher, SIGIR 2009), the `hybrid` profile's way of
// joining BM25 and dense retrieval.
//
// A document's fused score is Σ 1/(k + rank) over the input lists that hold
// it, rank being its 1-based position in that list; k = 60 by default, the
// value of the paper. A document that occurs several times in one list counts
// once, at its best rank. Equal fused scores are ordered by id (byte-wise
// descending, trec_eval's tie order), so the result does not depend on the order of the inputs.
package fusion

// Package vector is the embedded exact vector index, the default
// vector_backend: it keeps every vector in memory and answers a
// search by scoring all of them, so its results are exact, not approximate.
//
// Two metrics are offered. Cosine normalises each vector to unit length when
// it is added and the query when it is searched, then scores by dot product,
// so a score is the cosine similarity in [-1, 1]. Dot scores by the raw dot
// product. Vectors are float32; sums are accumulated in float32, and a
// Hit's Score is recorded at that precision: the float64 nearest to the
// float32's shortest decimal, so that float32(Score) is the sum computed.
//
// Search returns the k best ids, best first; equal scores are ordered by id
// (byte-wise descending, trec_eval's tie order). An Index is safe for concurrent use: searches run in
// parallel with each other and wait for an Add in progress.
package vector

// Package bench compares lasagna's built-in BM25 index (retrieval/bm25) with
// bleve v2 (BM25 scoring, scorch on-disk index) on the same generated corpus
// and queries. It is a separate module so that bleve never enters the
// dependency graph of lasagna's users; see README.md.
package bench

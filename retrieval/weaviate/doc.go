// Package weaviate is the vector_backend adapter for Weaviate, through the
// official Go client (github.com/weaviate/weaviate-go-client/v5) over REST
// and GraphQL only, so Config needs just the server's URL (no gRPC port).
//
// A Store keeps one collection per vector.Collection.Name, as a Weaviate
// class: Weaviate class names start with an upper-case letter, so the
// class is the collection name with its first letter upper-cased
// ("lasagna_0123…_89ab" → "Lasagna_0123…_89ab"; ClassName). The class has
// no vectorizer (the caller brings the vectors), two properties — doc_id
// (the document's id, filterable, not searchable) and text (its Title + " "
// + Text, the text Weaviate's BM25 searches, as the built-in BM25 reads a
// document) — and an HNSW index with explicit parameters: maxConnections
// (M, default 32), efConstruction (default 256) and ef (EfSearch, default
// 256), chosen so that recall@10 against the exact index is at least 0.99
// on 50k vectors (BENCHMARKS.md), and distance cosine (score = 1 − distance)
// or dot (score = −distance = the dot product).
//
// Objects have a UUIDv5 of their document id, so adding a document again
// replaces it (an idempotent upsert). Batches go through Weaviate's batch
// endpoint in Config.BatchSize objects; a transient failure (no response,
// 429, 5xx) and objects the response reports as failed are retried a
// bounded number of times, then AddDocuments returns a *BatchError naming
// every document that could not be stored. Nothing is dropped silently.
//
// What a collection holds (fingerprint, documents, embedder, metric,
// sealed) is recorded in one object per collection of the class
// LasagnaCollections, which Open reads back.
package weaviate

// Package weaviate is the vector_backend adapter for Weaviate, through the
// official Go client (github.com/weaviate/weaviate-go-client/v5) over REST
// and GraphQL only, so Config needs just the server's URL (no gRPC port).
//
// A Store keeps one collection per vector.Collection.Name, as a Weaviate
// class: Weaviate class names start with an upper-case letter, so the
// class is the collection name with its first letter upper-cased
// ("lasagna_0123…_89ab" → "Lasagna_0123…_89ab"). The class has
// no vectorizer (the caller brings the vectors), two properties — doc_id
// (the document's id, filterable, not searchable) and text (its Title + " "
// + Text, the text Weaviate's BM25 searches, as the built-in BM25 reads a
// document) — and an HNSW index with explicit parameters: maxConnections
// (M, default 64), efConstruction (default 512) and ef (EfSearch, default
// 1536), chosen so that recall@10 against the exact index is at least 0.99
// on 50k hash-embedded passages (BENCHMARKS.md: m=32 ef_construction=256
// needed ef 2048 for 0.993), and distance cosine (score = 1 − distance)
// or dot (score = −distance = the dot product).
//
// Objects have a UUIDv5 of their document id, so adding a document again
// replaces it (an idempotent upsert). Batches go through Weaviate's batch
// endpoint in Config.BatchSize objects; a transient failure (no response,
// 429, 5xx) and objects the response reports as failed are retried a
// bounded number of times, then AddDocuments returns a *BatchError naming
// every document that could not be stored. Nothing is dropped silently.
//
// SearchKeyword's ranking is the server's. Weaviate 1.35.2's default BM25
// algorithm (BlockMax WAND) was seen here returning another top k at a
// small limit than the first k of a larger one (300 passages, limit 5: 4
// of 5 differ, the best match missing); a server started with
// USE_INVERTED_SEARCHABLE=false (the classic WAND, as the tests run it)
// ranks the same at every limit (set it before lasagna creates the
// classes: the server stores the choice in each class).
//
// What a collection holds (fingerprint, documents, embedder, metric,
// sealed) is recorded in one object per collection of the class
// LasagnaCollections, which Open reads back.
package weaviate

package vector

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Store is a vector_backend that keeps its vectors in a named collection:
// the embedded exact Index, or an adapter for an engine a team runs
// (PostgreSQL with pgvector, Weaviate). It is the one interface the dense
// stage builds on; lasagna.VectorBackend is the part a search needs.
//
// The dense stage calls Open with the collection the corpus and embedder
// name, and either reuses what Open reports (a sealed collection with the
// corpus's fingerprint and document count) or ingests the corpus with Add
// (an idempotent upsert: adding an id again replaces its vector) in batches
// and then calls Seal. Adapters retry transient failures themselves and
// return an error only when a batch could not be stored.
type Store interface {
	lasagna.VectorBackend
	// Open makes the collection c ready, creating it when it does not
	// exist (an adapter may defer creating a table or class to the first
	// Add, when the dimension is known), and reports what it already
	// holds.
	Open(ctx context.Context, c Collection) (State, error)
	// Seal records that the collection holds c's corpus after ingest:
	// its fingerprint and the number of documents stored. An adapter
	// builds its approximate index here when that is faster after a bulk
	// load.
	Seal(ctx context.Context, c Collection, stored int) error
	// Describe names the backend for the bundle's held_fixed.
	Describe() Description
	// Close releases connections.
	Close() error
}

// Collection names where a corpus's vectors live. Name is derived from the
// corpus fingerprint and the embedder (CollectionName), so a rerun on the
// same corpus with the same embedder finds its vectors again and another
// corpus never mixes with them.
type Collection struct {
	// Name is the collection (table, class) name: lower-case ASCII letters,
	// digits and underscores, starting with a letter.
	Name string
	// Fingerprint is the hex SHA-256 of the corpus as embedded
	// (CorpusFingerprint).
	Fingerprint string
	// Documents is the number of documents of the corpus.
	Documents int
	// Embedder names the embedding model ("" when the collection holds
	// text only, for an engine's own keyword search).
	Embedder string
	// Metric is the similarity the collection is searched by.
	Metric Metric
}

// State is what Open found in a collection.
type State struct {
	// Exists reports whether the collection was there before Open.
	Exists bool
	// Sealed reports whether a Seal was recorded; Fingerprint and
	// Documents are the values it recorded.
	Sealed      bool
	Fingerprint string
	Documents   int
}

// Description is what the bundle records of a backend, in held_fixed's
// vector_backend (String).
type Description struct {
	// Name is "exact", "pgvector" or "weaviate".
	Name string
	// ServerVersion is the engine's version as the server reports it,
	// without the backend's name: "1.35.2" for Weaviate, "0.8.7
	// PostgreSQL 18.6" for pgvector ("" for the embedded index).
	ServerVersion string
	// Index states the index and its parameters, for example "hnsw m=16
	// ef_construction=200 ef_search=400 cosine".
	Index string
}

// String is the held_fixed value: the name, then the server version and the
// index when known, separated by spaces.
func (d Description) String() string {
	parts := []string{d.Name}
	if d.ServerVersion != "" {
		parts = append(parts, d.ServerVersion)
	}
	if d.Index != "" {
		parts = append(parts, d.Index)
	}
	return strings.Join(parts, " ")
}

// HNSW sets an approximate (HNSW) index: M links per node, EfConstruction
// candidates while building, EfSearch candidates while searching. A zero
// field takes the adapter's documented default; Describe records the values
// used.
type HNSW struct {
	M              int
	EfConstruction int
	EfSearch       int
}

// TextStore is implemented by a Store that also keeps each document's text,
// for an engine's own keyword or hybrid search. The dense stage calls
// AddDocuments instead of Add when the store implements it; vectors is nil
// for a collection that holds text only.
type TextStore interface {
	Store
	AddDocuments(ctx context.Context, docs []lasagna.Document, vectors [][]float32) error
}

// KeywordSearcher is implemented by a TextStore whose engine searches text
// itself: SearchKeyword by its BM25, SearchHybrid by its fusion of BM25 and
// the vector (alpha 1 is pure vector search, 0 pure keyword).
type KeywordSearcher interface {
	SearchKeyword(ctx context.Context, text string, k int) ([]lasagna.Hit, error)
	SearchHybrid(ctx context.Context, text string, vector []float32, k int, alpha float64) ([]lasagna.Hit, error)
}

// CorpusFingerprint returns the hex SHA-256 of docs as a dense stage embeds
// them: each document's id and text (text(d)), in the order given. The
// caller passes the benchmark's corpus order, which is stable for a given
// source.
func CorpusFingerprint(docs []lasagna.Document, text func(lasagna.Document) string) string {
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		l := len(s)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	for _, d := range docs {
		put(d.ID)
		put(text(d))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CollectionName returns the collection name for a corpus fingerprint and
// an embedder (its model id; "" for a text-only collection): "lasagna_",
// 16 hex digits of the fingerprint, "_" and 8 hex digits of the embedder's
// SHA-256.
func CollectionName(fingerprint, embedder string) string {
	e := sha256.Sum256([]byte(embedder))
	fp := strings.ToLower(fingerprint)
	if len(fp) > 16 {
		fp = fp[:16]
	}
	return "lasagna_" + fp + "_" + hex.EncodeToString(e[:4])
}

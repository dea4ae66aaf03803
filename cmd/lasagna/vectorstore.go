package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/pgvector"
	"github.com/lasagna-go/lasagna/retrieval/vector"
	"github.com/lasagna-go/lasagna/retrieval/weaviate"
)

// openVectorStore is the engine's Deps.VectorStore: a new store of the
// vector backend a sweep's vector_backend names. Credentials come from the
// environment only (PGPASSWORD, WEAVIATE_API_KEY), never from spec.
func openVectorStore(ctx context.Context, spec engine.VectorBackendSpec) (vector.Store, error) {
	switch spec.Name {
	case engine.VectorBackendExact, "":
		return vector.New(spec.Metric)
	case engine.VectorBackendPgvector:
		s, err := pgvector.Open(ctx, pgvector.Config{DSN: spec.DSN, Index: spec.Index.HNSW(), Metric: spec.Metric})
		if err != nil {
			return nil, err
		}
		return s, nil
	case "weaviate":
		s, err := weaviate.Open(ctx, weaviate.Config{URL: spec.URL, APIKey: os.Getenv("WEAVIATE_API_KEY"), Index: spec.Index.HNSW(), Metric: spec.Metric})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("vector_backend %q is not built into this lasagna (%s); see the vector_backend names in `lasagna help benchmark run`", spec.Name, version)
}

// sweepDeps returns the Deps of the sweep's arms: llmDeps's model clients
// and the vector stores of openVectorStore.
func sweepDeps(s *engine.Sweep, model string) (engine.Deps, error) {
	d, _, err := llmDeps(s, model)
	if err != nil {
		return engine.Deps{}, err
	}
	d.VectorStore = openVectorStore
	return d, nil
}

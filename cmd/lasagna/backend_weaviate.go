//go:build weaviate

package main

import (
	"context"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/vector"
	"github.com/lasagna-go/lasagna/retrieval/weaviate"
)

func openWeaviate(ctx context.Context, spec engine.VectorBackendSpec, apiKey string) (vector.Store, error) {
	s, err := weaviate.Open(ctx, weaviate.Config{URL: spec.URL, APIKey: apiKey, Index: spec.Index.HNSW(), Metric: spec.Metric})
	if err != nil {
		return nil, err
	}
	return s, nil
}

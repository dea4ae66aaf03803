//go:build postgres

package main

import (
	"context"

	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/pgvector"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

func openPgvector(ctx context.Context, spec engine.VectorBackendSpec) (vector.Store, error) {
	s, err := pgvector.Open(ctx, pgvector.Config{DSN: spec.DSN, Index: spec.Index.HNSW(), Metric: spec.Metric})
	if err != nil {
		return nil, err
	}
	return s, nil
}

//go:build !postgres

package main

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// openPgvector is not reached: checkVectorBackends refuses such sweeps.
func openPgvector(context.Context, engine.VectorBackendSpec) (vector.Store, error) {
	return nil, fmt.Errorf("vector_backend pgvector is not built into this lasagna; build one with it: %s", buildtag.Install)
}

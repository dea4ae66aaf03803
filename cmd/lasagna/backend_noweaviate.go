//go:build !weaviate

package main

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// openWeaviate is not reached: checkVectorBackends refuses such sweeps.
func openWeaviate(context.Context, engine.VectorBackendSpec, string) (vector.Store, error) {
	return nil, fmt.Errorf("vector_backend weaviate is not built into this lasagna; build one with it: %s", buildtag.Install)
}

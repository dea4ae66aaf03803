package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// openVectorStore is the engine's Deps.VectorStore: a new store of the
// vector backend a sweep's vector_backend names. Credentials come from the
// environment only (PGPASSWORD, WEAVIATE_API_KEY), never from spec.
func openVectorStore(ctx context.Context, spec engine.VectorBackendSpec) (vector.Store, error) {
	switch spec.Name {
	case engine.VectorBackendExact, "":
		return vector.New(spec.Metric)
	case engine.VectorBackendPgvector:
		return openPgvector(ctx, spec)
	case engine.VectorBackendWeaviate:
		return openWeaviate(ctx, spec, os.Getenv("WEAVIATE_API_KEY"))
	}
	return nil, fmt.Errorf("vector_backend %q is not built into this lasagna (%s); see the vector_backend names in `lasagna help benchmark run`", spec.Name, version())
}

// sweepDeps returns the Deps of the sweep's arms: llmDeps's model clients
// and the vector stores of openVectorStore.
func sweepDeps(s *engine.Sweep, model string) (engine.Deps, error) {
	if err := checkVectorBackends(s); err != nil {
		return engine.Deps{}, err
	}
	d, _, err := llmDeps(s, model, false)
	if err != nil {
		return engine.Deps{}, err
	}
	d.VectorStore = openVectorStore
	return d, nil
}

// builtBackends are the vector backends that need a build tag, and whether
// this build has them: the default lasagna links no vector-engine client
// (pgx, the Weaviate client with gRPC), so that its first build is light.
var builtBackends = []struct {
	name, tag string
	built     bool
}{
	{engine.VectorBackendPgvector, "postgres", buildtag.Postgres},
	{engine.VectorBackendWeaviate, "weaviate", buildtag.Weaviate},
}

// checkVectorBackends refuses, before anything runs, a sweep whose arms
// name a vector backend this build lacks (exit 2), naming the command that
// builds a lasagna with it.
func checkVectorBackends(s *engine.Sweep) error {
	for _, a := range s.Arms {
		spec := s.ArmVectorBackend(a)
		if spec == nil {
			continue
		}
		for _, b := range builtBackends {
			if spec.Name == b.name && !b.built {
				return usageError("arm %s: vector_backend %s is not built into this lasagna (the default build links no vector-engine client); build one with it, from a clone of the repository: %s (or -tags %s)", a.Name, b.name, buildtag.Install, b.tag)
			}
		}
	}
	return nil
}

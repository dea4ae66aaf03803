// Package evalregistry reads registered benchmarks for Go tests: it
// resolves registry:NAME and registry:NAME@hash into benchmark values for
// evaltest.Config.Data. It is a package of its own so that a test that
// does not use the registry links neither SQLite nor pgx: import it only
// where a test evaluates a registered benchmark.
//
//	data, err := evalregistry.Load(t.Context(), "registry:faq")
//	if err != nil {
//		t.Fatal(err)
//	}
//	evaltest.Run(t, evaltest.Config{Data: data, Arms: …})
//
// The registry is the one the lasagna CLI uses: LASAGNA_REGISTRY (a
// SQLite file path or a postgres:// URL), else the SQLite file under the
// user data folder. A benchmark from the registry has the identity of the
// file it was imported from (name@hash), so its bundles compare with the
// file's. Only active benchmarks load; a draft or archived one is an error
// naming the command that activates it.
package evalregistry

import (
	"context"
	"errors"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// Load resolves refs (registry:NAME, registry:NAME@hash; the registry:
// prefix may be left out) in the registry registry.DefaultDSN names.
func Load(ctx context.Context, refs ...string) ([]*lasagna.Benchmark, error) {
	dsn, err := registry.DefaultDSN()
	if err != nil {
		return nil, err
	}
	return LoadFrom(ctx, dsn, refs...)
}

// LoadFrom resolves refs in the registry at dsn. Every ref is tried, and
// the errors of all that fail are returned together.
func LoadFrom(ctx context.Context, dsn string, refs ...string) ([]*lasagna.Benchmark, error) {
	if len(refs) == 0 {
		return nil, errors.New("evalregistry: no benchmark named; give registry:NAME")
	}
	r, err := registry.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var (
		out  []*lasagna.Benchmark
		errs []error
	)
	for _, ref := range refs {
		b, err := r.Resolve(ctx, ref)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, b)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
)

// LoadBenchmarks loads and selects every benchmark entry of s from fsys
// (paths in s are relative to fsys): filters, then n_samples with the
// entry's seed. Every entry is loaded before the first error is returned,
// so all data problems are reported at once.
func LoadBenchmarks(fsys fs.FS, s *Sweep) ([]*BenchmarkRun, error) {
	return LoadBenchmarksWith(fsys, s, nil)
}

// Resolver returns the benchmark a registry:NAME[@hash] path names, or an
// error (such as a refusal to evaluate a draft).
type Resolver func(ref string) (*lasagna.Benchmark, error)

// LoadBenchmarksWith is LoadBenchmarks with registry:NAME[@hash] paths
// read through resolve; without one (nil) such a path is an error.
func LoadBenchmarksWith(fsys fs.FS, s *Sweep, resolve Resolver) ([]*BenchmarkRun, error) {
	var (
		out  []*BenchmarkRun
		errs []error
	)
	for _, e := range s.Benchmarks {
		var (
			b   *lasagna.Benchmark
			err error
		)
		switch {
		case IsRegistryPath(e.Path) && resolve == nil:
			err = errors.New("no benchmark registry here: the lasagna CLI reads registry: paths; in a Go test, load them with registry/evalregistry into evaltest.Config.Data")
		case IsRegistryPath(e.Path):
			b, err = resolve(e.Path)
		default:
			b, err = datasets.Load(fsys, e.Path, datasets.Options{Name: e.Name, Split: e.Split, Corpus: e.Corpus})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%sbenchmark %s: %w", posPrefix(e.Pos), e.Path, err))
			continue
		}
		seed := s.EntrySeed(e)
		sel, info, err := datasets.Select(b, datasets.Selection{Filters: e.Filters, NSamples: e.NSamples, Seed: &seed})
		if err != nil {
			errs = append(errs, fmt.Errorf("%sbenchmark %s: %w", posPrefix(e.Pos), b.Name, err))
			continue
		}
		if e.AnswerNormalization != "" {
			sel.AnswerNormalization = e.AnswerNormalization
		}
		out = append(out, &BenchmarkRun{Benchmark: sel, Sample: info, NSamples: e.NSamples})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// BuiltinArms returns the arms of s's arm specs with the zero Deps (BM25
// only); see Deps.Arms.
func BuiltinArms(s *Sweep) ([]Arm, error) { return Deps{}.Arms(s) }

// Arms returns the arms of s's arm specs. The dimensions any arm
// declares as varied are varied for all of them (the cells of one
// factorial), so arms that differ only in declared dimensions share a
// comparability key. An arm without its own judge or vector_backend takes
// the sweep's. It is ArmsContext with context.Background().
func (d Deps) Arms(s *Sweep) ([]Arm, error) { return d.ArmsContext(context.Background(), s) }

// ArmsContext is Arms; ctx bounds the connections to the arms' vector
// backends, each opened once to describe it.
func (d Deps) ArmsContext(ctx context.Context, s *Sweep) ([]Arm, error) {
	var (
		arms   []Arm
		errs   []error
		varied []string
	)
	for _, spec := range s.Arms {
		varied = append(varied, spec.Varied...)
	}
	slices.Sort(varied)
	varied = slices.Compact(varied)
	for _, spec := range s.Arms {
		spec.Varied = varied
		if spec.Judge == nil && spec.Generator != nil {
			spec.Judge = s.Judge
		}
		spec.VectorBackend = s.ArmVectorBackend(spec)
		a, err := d.ArmContext(ctx, spec, s.ArmTopK(spec))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		arms = append(arms, a)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return arms, nil
}

package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/leaderboard"
	"github.com/lasagna-go/lasagna/results"
)

// What a leaderboard shows is derived from the registry's data, never
// taken from the bundle (docs/reports.md, "What the hub derives from the
// data"): the corpus provenance, the synthetic label and the sample come
// from the benchmark revision the bundle names. A submitted bundle whose
// claims disagree is refused with these findings; a stored one (accepted
// before the hub checked them) is listed as partial, never ranked.
const (
	// codePartialSample: the bundle holds part of its sample (a shard,
	// a go test -run selection).
	codePartialSample lasagna.Code = "PARTIAL_SAMPLE"
	// codeNotTheData: a claim of the bundle that the registry's data
	// contradicts (corpus provenance, SYNTHETIC_BENCHMARK,
	// POOLED_GOLD_CORPUS, n_samples).
	codeNotTheData lasagna.Code = "CLAIM_NOT_THE_DATA"
)

// hubFixes are the fixes of the hub's own codes.
var hubFixes = map[lasagna.Code]string{
	codePartialSample: "a leaderboard ranks whole samples only: join the shards with lasagna results merge, or run the benchmark without go test -run (or with a -run that selects every query), and submit that bundle",
	codeNotTheData:    "submit the bundle as the run wrote it: the hub reads the corpus provenance, the synthetic label and the sample from the registry's revision of the benchmark, and a bundle must say the same",
}

// revFacts is what the registry's revision of a benchmark says about an
// arm's sample: its corpus provenance, how many of its queries are
// LLM-written, and how many queries the arm's sampling draws.
type revFacts struct {
	revision   string
	provenance lasagna.Provenance
	synthetic  int
	queries    int
	drawn      int
	// err is why the sampling cannot be drawn ("" when it can).
	err string
}

// factsOf derives the facts of a run of held_fixed hf on bench, the
// registry's revision (NAME@HASH).
func factsOf(revision string, bench *lasagna.Benchmark, hf results.HeldFixed) revFacts {
	f := revFacts{revision: revision, provenance: results.BundleProvenance(bench.Provenance), queries: len(bench.Queries)}
	if f.provenance == "" {
		f.provenance = lasagna.ProvenanceNative
	}
	for _, q := range bench.Queries {
		if v, ok := q.Metadata["synthetic"].(bool); ok && v {
			f.synthetic++
		}
	}
	seed := uint64(hf.SamplingSeed)
	_, info, err := datasets.Select(bench, datasets.Selection{Filters: hf.Filters, NSamples: int(hf.NSamples), Seed: &seed})
	if err != nil {
		f.err = err.Error()
		return f
	}
	f.drawn = info.Sampled
	return f
}

// judge compares what bundle b says about its arm c with f, the facts
// of the registry's data, and returns the leaderboard's Data of the arm
// and every claim that disagrees (blocking problems of the hub's codes).
func judge(b *results.Bundle, c results.Config, f revFacts) (leaderboard.Data, []results.Problem) {
	where := c.Benchmark + "/" + c.Name
	d := leaderboard.Data{Revision: f.revision, Provenance: f.provenance, Synthetic: f.synthetic > 0, Queries: f.queries, Drawn: f.drawn}
	var ps []results.Problem
	add := func(code lasagna.Code, at, format string, args ...any) {
		ps = append(ps, results.Problem{Code: code, Level: lasagna.LevelBlocking, Where: at, Detail: fmt.Sprintf(format, args...)})
	}
	if s := b.Subset; s != nil {
		add(codePartialSample, "subset", "the bundle holds %s, not the whole sample of %s: a part of a sample is never ranked", s, f.revision)
	}
	hf := c.HeldFixed
	claimed := hf.CorpusProvenance
	if claimed == "" {
		claimed = lasagna.ProvenanceNative
	}
	// An arm that searched its own index says so; the data cannot tell,
	// and the label puts it in a group of its own, not beside the
	// benchmark's corpus.
	if claimed == lasagna.ProvenanceOwnIndex {
		d.Provenance = lasagna.ProvenanceOwnIndex
	} else if claimed != f.provenance {
		add(codeNotTheData, where, "held_fixed.corpus_provenance is %s, but the registry's revision %s has a %s corpus", claimed, f.revision, f.provenance)
	}
	pooledListed := lists(b.Integrity.Warnings, lasagna.PooledGoldCorpus, c)
	if pooledListed && d.Provenance != lasagna.ProvenancePooledGold {
		add(codeNotTheData, where, "integrity.warnings lists POOLED_GOLD_CORPUS, but the arm's corpus is %s (the registry's revision %s has a %s corpus)", d.Provenance, f.revision, f.provenance)
	}
	synthListed := lists(b.Integrity.Warnings, lasagna.SyntheticBenchmark, c) || lists(b.Integrity.Blocking, lasagna.SyntheticBenchmark, c)
	switch {
	case synthListed && f.synthetic == 0:
		add(codeNotTheData, where, "the bundle lists SYNTHETIC_BENCHMARK, but none of the %d queries of the registry's revision %s is LLM-written (metadata.synthetic)", f.queries, f.revision)
	case !synthListed && f.synthetic > 0:
		add(codeNotTheData, where, "%d of the %d queries of the registry's revision %s are LLM-written (metadata.synthetic), but the bundle does not list SYNTHETIC_BENCHMARK", f.synthetic, f.queries, f.revision)
	}
	switch {
	case f.err != "":
		add(codeNotTheData, where, "held_fixed's sampling (n_samples %d, seed %d) cannot be drawn from the registry's revision %s: %s", hf.NSamples, hf.SamplingSeed, f.revision, f.err)
	case hf.NSamples != 0 && hf.NSamples != int64(f.drawn):
		add(codeNotTheData, where, "held_fixed.n_samples is %d, but the sampling draws %d of the %d queries of the registry's revision %s (n_samples records the number drawn; 0 for all)", hf.NSamples, f.drawn, f.queries, f.revision)
	}
	if len(ps) > 0 {
		why := make([]string, len(ps))
		for i, p := range ps {
			why[i] = string(p.Code) + ": " + p.Detail
		}
		d.NotRanked = strings.Join(why, "; ")
	}
	return d, ps
}

// lists reports whether fs lists code for arm c (at the arm, its
// benchmark, or the whole bundle).
func lists(fs []results.Finding, code lasagna.Code, c results.Config) bool {
	for _, f := range fs {
		if f.Code == code && (f.Where == "" || f.Where == c.Benchmark || f.Where == c.HeldFixed.Benchmark || f.Where == c.Benchmark+"/"+c.Name) {
			return true
		}
	}
	return false
}

// factsCache keeps the facts derived for the leaderboards: a revision
// never changes, so the facts of one benchmark name and one sampling are
// derived once. It forgets everything at maxFacts.
type factsCache struct {
	mu sync.Mutex
	m  map[string]revFacts
}

const maxFacts = 4096

// armFacts returns the facts of arm c's benchmark and sampling, from the
// cache or derived from the registry (revs loads each revision once per
// build).
func (s *Server) armFacts(ctx context.Context, c results.Config, revs *revLoader) (revFacts, error) {
	sel, _ := json.Marshal(struct {
		N       int64
		Seed    int64
		Filters map[string]any
	}{c.HeldFixed.NSamples, c.HeldFixed.SamplingSeed, c.HeldFixed.Filters})
	k := c.Benchmark + "\x00" + string(sel)
	s.facts.mu.Lock()
	f, ok := s.facts.m[k]
	s.facts.mu.Unlock()
	if ok {
		return f, nil
	}
	lr, err := revs.load(ctx, s, c.Benchmark)
	if err != nil {
		return revFacts{}, err
	}
	f = factsOf(lr.revision, lr.bench, c.HeldFixed)
	s.facts.mu.Lock()
	if s.facts.m == nil || len(s.facts.m) >= maxFacts {
		s.facts.m = map[string]revFacts{}
	}
	s.facts.m[k] = f
	s.facts.mu.Unlock()
	return f, nil
}

// revLoader loads each registry revision a build needs once, for the
// build's workers together.
type revLoader struct {
	mu sync.Mutex
	m  map[string]*loadedRev
}

func (l *revLoader) load(ctx context.Context, s *Server, benchmark string) (*loadedRev, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lr := l.m[benchmark]; lr != nil {
		return lr, nil
	}
	bench, regName, hash, err := s.registryRevision(ctx, benchmark)
	if err != nil {
		return nil, err
	}
	lr := &loadedRev{bench: bench, revision: regName + "@" + hash}
	l.m[benchmark] = lr
	return lr, nil
}

// loadedRev is a registry revision loaded during one build.
type loadedRev struct {
	bench    *lasagna.Benchmark
	revision string
}

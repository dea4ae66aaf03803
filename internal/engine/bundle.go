package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results"
)

// BundleOptions set the run-level facts of a bundle.
type BundleOptions struct {
	// LasagnaVersion is recorded in experiment.environment.
	LasagnaVersion string
	// Concurrency is the concurrency the run used (for determinism).
	Concurrency int
	// StatsSeed seeds the bootstrap confidence intervals (0 means 42).
	StatsSeed uint64
	// Submitter, when set, names who publishes the bundle.
	Submitter *results.Submitter
	// Latency records each row's latency_ms, the wall time of its
	// pipeline call. It is off by default: latency differs from run to run,
	// and a bundle without it depends only on the data, the arms and the
	// seed, so rerunning, resuming or sharding and merging a run gives the
	// same bytes and run_id. A bundle with latency differs from any other
	// run's in latency_ms (and so in run_id); results.WithoutLatency
	// compares such bundles apart from it.
	Latency bool
	// Selection is the go test -run pattern of a run that left some of
	// the sampled queries out, recorded in the bundle's subset; "" when
	// every sampled query of the shard ran.
	Selection string
	// Unhashed: see Options.BundleUnhashed.
	Unhashed bool
}

// Sampler is implemented by a generator or judge that says whether it
// calls a sampling LLM; the generators of package generate and the judges
// of engine/llmarms do, so an arm built on them counts as sampling.
type Sampler interface{ Samples() bool }

// Sampling reports whether a calls a sampling LLM: Samples is set, it is
// judged, or its generator says it samples (Sampler). A sampling arm sets
// nothing_samples false and, run once, raises SINGLE_RUN.
func (a *Arm) Sampling() bool {
	if a.Samples || a.Judge != nil {
		return true
	}
	s, ok := a.Generator.(Sampler)
	return ok && s.Samples()
}

// Bundle assembles the report into a finalized results bundle (hashes set):
// one config and one result per cell, per-query rows with ranked lists,
// aggregate metrics with bootstrap confidence intervals, and the integrity
// findings. A failed query is a row with its error and no scores; a cell
// whose arm could not be built has a config and an empty result
// (MISSING_RESULTS).
func (rep *Report) Bundle(o BundleOptions) (*results.Bundle, error) {
	seed := o.StatsSeed
	if seed == 0 {
		seed = DefaultSeed
	}
	det := results.Seeded
	if o.Concurrency != 1 {
		det = results.SeededGlobalConcurrent
	}
	b := &results.Bundle{
		SchemaVersion:  results.SchemaVersion,
		MetricsVersion: results.MetricsVersion,
		Submitter:      o.Submitter,
		Experiment: results.Experiment{
			Environment:    results.CurrentEnvironment(o.LasagnaVersion),
			NothingSamples: true,
			Determinism:    det,
			StatsSeed:      seed,
		},
		Configs:   []results.Config{},
		Results:   []results.Result{},
		Integrity: results.Integrity{Warnings: []results.Finding{}, Blocking: []results.Finding{}},
	}
	if rep.Shard.Count > 1 || o.Selection != "" {
		b.Subset = &results.Subset{Selection: o.Selection}
		if rep.Shard.Count > 1 {
			b.Subset.ShardIndex, b.Subset.ShardCount = rep.Shard.Index, rep.Shard.Count
		}
	}
	varied := map[*lasagna.Benchmark][]string{}
	for _, c := range rep.Cells {
		varied[c.Bench.Benchmark] = append(varied[c.Bench.Benchmark], c.Arm.Varied...)
	}
	for _, c := range rep.Cells {
		if c.Arm.Sampling() {
			b.Experiment.NothingSamples = false
		}
		b.Configs = append(b.Configs, cellConfig(c, varied[c.Bench.Benchmark]))
		r, err := cellResult(c, seed, o.Latency, rep.Slices)
		if err != nil {
			return nil, err
		}
		b.Results = append(b.Results, r)
	}
	for _, f := range rep.Findings {
		b.Integrity.Add(f)
	}
	finalize := results.Finalize
	if o.Unhashed {
		finalize = results.Prepare
	}
	if err := finalize(b); err != nil {
		return nil, fmt.Errorf("finalize bundle: %w", err)
	}
	return b, nil
}

// cellConfig describes cell c; varied holds the dimensions any arm on the
// same benchmark varies, which every arm there leaves out of held_fixed.
func cellConfig(c *Cell, varied []string) results.Config {
	br := c.Bench
	arm := c.Arm
	hf := results.NewHeldFixed(br.Benchmark, arm.ResolvedMode(), br.NSamples, int64(br.Sample.Seed), br.Sample.Digest)
	if len(br.Sample.Filters) > 0 {
		hf.Filters = maps.Clone(br.Sample.Filters)
	}
	hf.Scorers = scorerSettings(arm)
	if arm.MissingZero {
		hf.MissingPredictions = "zero"
	}
	if arm.OwnIndex {
		// The arm searched the user's index, not the benchmark's corpus;
		// corpus_fingerprint still names the benchmark's revision, which
		// the judgements belong to.
		hf.CorpusProvenance = lasagna.ProvenanceOwnIndex
	}
	varied = slices.Compact(slices.Sorted(slices.Values(varied)))
	isVaried := func(name string) bool { return slices.Contains(varied, name) }
	levels := map[string]string{}
	if arm.Retrieves() && !isVaried("retriever_top_k") {
		k := arm.topK()
		hf.RetrieverTopK = &k
	}
	settings := maps.Clone(arm.Settings)
	if settings == nil {
		settings = map[string]any{}
	}
	maps.Copy(settings, c.Facts)
	for name, v := range settings {
		if isVaried(name) {
			levels[name] = fmt.Sprint(v)
			continue
		}
		switch name {
		case "bm25_stemming":
			if s, ok := v.(bool); ok {
				hf.BM25Stemming = &s
			}
		case "embedder_model":
			hf.EmbedderModel = strPtr(v)
		case "chunker":
			hf.Chunker = strPtr(v)
		case "vector_backend":
			hf.VectorBackend = strPtr(v)
		case "judge_model":
			hf.JudgeModel = strPtr(v)
		case "similarity_model":
			hf.SimilarityModel = strPtr(v)
		case "embedder_dim":
			if d, ok := v.(int); ok {
				hf.EmbedderDim = &d
			}
		case "corpus_ingest_gap":
			if d, ok := v.(int); ok {
				hf.CorpusIngestGap = &d
			}
		}
	}
	fixed := map[string]string{}
	for stage, desc := range arm.Stages {
		if isVaried(string(stage)) {
			levels[string(stage)] = desc
			continue
		}
		fixed[string(stage)] = desc
	}
	if len(fixed) > 0 {
		hf.FixedStages = fixed
	}
	for _, v := range varied {
		if _, ok := levels[v]; !ok {
			levels[v] = ""
		}
	}
	return results.Config{
		Name:             arm.Name,
		Benchmark:        br.Benchmark.Name,
		HeldFixed:        hf,
		VariedDimensions: append([]string{}, varied...),
		VariedLevels:     levels,
		CorpusStats:      corpusStats(c.Facts),
		CorpusDigest:     br.corpusDigest(),
		// Evidence about the judge, not a setting: outside held_fixed.
		JudgeCalibrations: bundleCalibrations(arm),
	}
}

// corpusStats returns the corpus statistics a BM25 index reported among
// facts, or nil.
func corpusStats(facts map[string]any) *results.CorpusStats {
	d, ok1 := facts[factCorpusDocuments].(int)
	u, ok2 := facts[factCorpusUniqueTerms].(int)
	t, ok3 := facts[factCorpusTotalTerms].(int)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return &results.CorpusStats{Documents: int64(d), UniqueTerms: int64(u), TotalTerms: int64(t)}
}

func strPtr(v any) *string {
	s := fmt.Sprint(v)
	return &s
}

// cellResult is the result of cell c; with latency, each row that ran its
// pipeline records its wall time (LatencyMS).
func cellResult(c *Cell, seed uint64, latency bool, sliceKeys []string) (results.Result, error) {
	res := results.Result{
		BenchmarkName: c.Bench.Benchmark.Name,
		ConfigName:    c.Arm.Name,
		Metrics:       map[string]float64{},
		MetricStats:   map[string]results.MetricStat{},
	}
	for _, r := range c.Queries {
		row := results.Sample{QueryID: r.Query.ID, QueryDigest: datasets.QueryDigest(c.Bench.Benchmark, r.Query)}
		if latency {
			if ms, ok := r.LatencyMS(); ok {
				row.LatencyMS = &ms
			}
		}
		if r.Err != nil {
			row.Error = r.Err.Error()
			res.PerSampleScores = append(res.PerSampleScores, row)
			continue
		}
		if r.Missing {
			row.Missing, row.Scores = true, r.Scores
			res.PerSampleScores = append(res.PerSampleScores, row)
			continue
		}
		if c.Arm.Retrieves() {
			row.RetrievedIDs = make([]string, len(r.Output.Hits))
			row.Retrieved = make([]results.Retrieved, len(r.Output.Hits))
			for i, h := range r.Output.Hits {
				row.RetrievedIDs[i] = h.ID
				row.Retrieved[i] = results.Retrieved{ID: h.ID, Score: h.Score, Rank: i + 1}
			}
		}
		if r.Output.Answered {
			a := r.Output.Answer
			row.Answer = &a
			row.Abstained = r.Output.Abstained
		}
		if r.JudgeErr != nil {
			row.JudgeError = r.JudgeErr.Error()
		}
		if r.Scores != nil {
			row.Scores = r.Scores
		}
		res.PerSampleScores = append(res.PerSampleScores, row)
	}
	// Aggregate sorts the rows in query id order and bootstraps the
	// intervals over them in that order, so that the merge of any sharding
	// gives these bytes.
	if err := results.Aggregate(&res, results.StatsOptions{Seed: seed}); err != nil {
		return res, err
	}
	addSlices(&res, c, sliceKeys, results.StatsOptions{Seed: seed})
	return res, nil
}

// Where returns "benchmark/arm/query" for a query of c.
func (c *Cell) WhereQuery(q *lasagna.Query) string { return c.Where() + "/" + q.ID }

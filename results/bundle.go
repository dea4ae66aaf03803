package results

import (
	"runtime"
	"slices"

	lasagna "github.com/lasagna-go/lasagna"
)

// SchemaVersion is the bundle schema version this package writes. Readers
// accept every 1.y version: 1.0 ≤ v < 2.0.
const SchemaVersion = "1.0"

// MetricsVersion is the version of the metric definitions (docs/metrics.md) this
// release computes. Numbers under different metrics versions are not
// comparable.
const MetricsVersion = "1"

// SchemaVersionPattern is the regular expression of every schema version a
// 1.x reader accepts. The JSON Schema (package results/schema) carries it,
// and Validate applies it, so the two agree.
const SchemaVersionPattern = `^1\.(0|[1-9][0-9]*)$`

// Determinism states how a run was seeded. It is never "reproducible": LLM
// judges and GPU kernels defeat that claim.
type Determinism string

const (
	// SeededPerTask: every task (query, repeat) has its own seed.
	SeededPerTask Determinism = "seeded_per_task"
	// SeededGlobalConcurrent: one global seed, tasks ran concurrently.
	SeededGlobalConcurrent Determinism = "seeded_global_concurrent"
	// Seeded: one global seed, tasks ran in order.
	Seeded Determinism = "seeded"
)

// Determinisms returns every valid Determinism, in a fixed order; the JSON
// Schema's enum is generated from it. Each call returns a new slice.
func Determinisms() []Determinism {
	return []Determinism{SeededPerTask, SeededGlobalConcurrent, Seeded}
}

// Valid reports whether d is one of Determinisms.
func (d Determinism) Valid() bool {
	switch d {
	case SeededPerTask, SeededGlobalConcurrent, Seeded:
		return true
	}
	return false
}

// Provenances returns the corpus provenances a held_fixed block may state,
// in a fixed order; an absent corpus_provenance means
// lasagna.ProvenanceNative. Each call returns a new slice.
func Provenances() []lasagna.Provenance {
	return []lasagna.Provenance{lasagna.ProvenanceNative, lasagna.ProvenancePooledGold, lasagna.ProvenanceProvided, lasagna.ProvenanceOwnIndex, provenanceNone}
}

// provenanceNone is how a bundle writes lasagna.provenanceNone (a benchmark
// without a corpus).
const provenanceNone lasagna.Provenance = "none"

// Modes returns the values resolved_mode may take, in a fixed order. Each
// call returns a new slice.
func Modes() []lasagna.Mode {
	return []lasagna.Mode{lasagna.ModeRetrieval, lasagna.ModeGeneration, lasagna.ModeRAG, lasagna.ModeClosedBook}
}

// Bundle is a results bundle (schema 1.0, docs/bundles.md): one run with its
// provenance. Optional fields use pointers or omitzero so that an absent
// field stays absent through a read and a write, and so that absent is never
// confused with zero.
//
// RunID is the hex sha256 of the RFC 8785 canonical JSON of the bundle
// without run_id; Finalize and Write set it, Validate recomputes it.
type Bundle struct {
	SchemaVersion  string     `json:"schema_version" jsonschema:"description=The bundle schema version; readers accept 1.0 up to but not including 2.0"`
	MetricsVersion string     `json:"metrics_version" jsonschema:"description=The metric definitions; numbers under different values are not comparable"`
	RunID          string     `json:"run_id" jsonschema:"pattern=^[0-9a-f]{64}$,description=Hex sha256 of the RFC 8785 canonical JSON of the bundle without run_id"`
	Submitter      *Submitter `json:"submitter,omitzero"`
	Experiment     Experiment `json:"experiment"`
	// Subset marks a bundle that holds part of its sample on purpose (a
	// shard, a go test -run selection); nil for a whole run.
	Subset    *Subset   `json:"subset,omitzero"`
	Configs   []Config  `json:"configs" jsonschema:"description=One entry per benchmark and arm"`
	Results   []Result  `json:"results" jsonschema:"description=One entry per benchmark and arm with its metrics and per-query scores"`
	Integrity Integrity `json:"integrity"`
}

// Submitter names who published the bundle.
type Submitter struct {
	Name        string `json:"name"`
	Affiliation string `json:"affiliation,omitzero"`
}

// Experiment holds the environment and the run-level facts.
type Experiment struct {
	Environment Environment `json:"environment"`
	// Components maps each component name the run used to its paper and
	// claimed metrics.
	Components map[string]Component `json:"components,omitzero"`
	// NothingSamples is true when only retrieval ran and no task called an
	// LLM; one run is then the whole answer and SINGLE_RUN is not raised.
	NothingSamples bool        `json:"nothing_samples"`
	Determinism    Determinism `json:"determinism"`
	// StatsSeed seeds the percentile bootstrap (metrics' default number of
	// resamples) of every metric_stats interval, computed over the rows in
	// the order written, so the intervals can be recomputed from the rows
	// (Merge does). Absent in bundles written before it was recorded; see
	// Bundle.StatsOptions.
	StatsSeed uint64 `json:"stats_seed,omitzero" jsonschema:"minimum=1,description=Seed of the bootstrap of every metric_stats interval; absent means 42"`
}

// Environment describes the software a run used. It never holds paths,
// host names, user names or credential names: bundles are published.
type Environment struct {
	LasagnaVersion string `json:"lasagna_version"`
	// Platform is GOOS/GOARCH, e.g. "linux/amd64".
	Platform string `json:"platform"`
	// Go is the Go runtime version, e.g. "go1.26.8" (docs/bundles.md's Python
	// implementation records "python" here).
	Go string `json:"go"`
}

// CurrentEnvironment returns the Environment of this process for the given
// lasagna version: runtime.GOOS/GOARCH and runtime.Version(), nothing else.
func CurrentEnvironment(lasagnaVersion string) Environment {
	return Environment{
		LasagnaVersion: lasagnaVersion,
		Platform:       runtime.GOOS + "/" + runtime.GOARCH,
		Go:             runtime.Version(),
	}
}

// Component is what a bundle records about a named component.
type Component struct {
	Paper          string             `json:"paper,omitzero"`
	ClaimedMetrics map[string]float64 `json:"claimed_metrics,omitzero"`
}

// Config describes one arm on one benchmark.
type Config struct {
	Name      string `json:"name"`
	Benchmark string `json:"benchmark"`
	// ComparabilityKey is the hex sha256 of the canonical JSON of HeldFixed;
	// Finalize sets it, Validate recomputes it.
	ComparabilityKey string    `json:"comparability_key" jsonschema:"pattern=^[0-9a-f]{64}$"`
	HeldFixed        HeldFixed `json:"held_fixed"`
	// VariedDimensions names what this arm changed: stage slots such as
	// "reranker", or config flags. They are excluded from the key.
	VariedDimensions []string `json:"varied_dimensions"`
	// VariedLevels gives the value each varied dimension took.
	VariedLevels map[string]string `json:"varied_levels"`
	// CorpusStats are the statistics of the BM25 index the arm built over
	// the benchmark's corpus; absent for arms without one. A measurement,
	// not a setting: it is outside held_fixed and the comparability key.
	CorpusStats *CorpusStats `json:"corpus_stats,omitzero"`
	// CorpusDigest identifies the benchmark's corpus alone: the hex sha256
	// of its documents' ids, titles and texts, in order
	// (datasets.CorpusDigest). Unlike held_fixed.corpus_fingerprint (the
	// dataset revision, which changes when a query is added) it stays the
	// same while only the queries and judgements change, so that a
	// baseline recorded before a benchmark grew still gates the queries
	// that did not change. Optional in schema 1.x: absent when the
	// benchmark has no corpus and in bundles written before it was
	// recorded. Outside held_fixed and the comparability key: the revision
	// already holds the corpus fixed.
	CorpusDigest string `json:"corpus_digest,omitzero" jsonschema:"pattern=^[0-9a-f]{64}$,description=Hex sha256 of the corpus documents (ids; titles; texts) in order; the same across revisions that change only queries or judgements"`
	// JudgeCalibrations are the calibration records of the arm's judge
	// metrics that the run cited (`lasagna judge calibrate`), checked by the
	// engine against the arm's judge model and prompts; without the
	// judge's reasons. Optional in schema 1.x: absent when the run cited
	// none. Outside held_fixed and the comparability key: evidence about
	// the judge, which held_fixed already pins.
	JudgeCalibrations []lasagna.JudgeCalibration `json:"judge_calibrations,omitzero" jsonschema:"description=Calibration records of the arm's judge metrics against human labels (lasagna judge calibrate)"`
}

// CorpusStats are the statistics of a lexical index, as Lucene and Anserini
// report them: documents indexed, distinct terms and term occurrences (the
// sum of the document lengths), after analysis.
type CorpusStats struct {
	Documents   int64 `json:"documents" jsonschema:"minimum=0"`
	UniqueTerms int64 `json:"unique_terms" jsonschema:"minimum=0"`
	TotalTerms  int64 `json:"total_terms" jsonschema:"minimum=0"`
}

// HeldFixed is the configuration held fixed across the arms of a
// comparison; its canonical JSON is hashed into the comparability key.
//
// The data fields (metrics_version … resolved_mode) are required. The stage
// settings are written only when they apply to the run (a retrieval-only
// run has no judge_model); a pointer distinguishes an absent field from a
// zero value. Fields added by later metrics versions are optional, so older
// bundles stay valid.
type HeldFixed struct {
	MetricsVersion string `json:"metrics_version"`
	Benchmark      string `json:"benchmark"`
	// Split is the BEIR split; "" for a file.
	Split string `json:"split"`
	// NSamples is the number of queries the plan sampled.
	NSamples     int64 `json:"n_samples" jsonschema:"minimum=0"`
	SamplingSeed int64 `json:"sampling_seed"`
	// SampleIDDigest is the hex sha256 of the sorted sampled query ids.
	SampleIDDigest string `json:"sample_id_digest"`
	// Filters are the metadata filters applied before sampling (a sweep
	// entry's filters:), so that the sample can be drawn again from the
	// data (results validate --data); absent when none.
	Filters map[string]any `json:"filters,omitzero"`
	// CorpusFingerprint identifies the corpus searched (the dataset
	// revision, which also changes with the queries and judgements; the
	// corpus alone is Config.CorpusDigest); "" when the benchmark has no
	// corpus.
	CorpusFingerprint string `json:"corpus_fingerprint"`
	// CorpusProvenance is native (the default when absent), pooled_gold,
	// provided (a corpus file given beside a JSONL or CSV file), own_index
	// (the arm searched the user's own index, not the benchmark's corpus)
	// or none.
	CorpusProvenance lasagna.Provenance `json:"corpus_provenance,omitzero"`
	ResolvedMode     lasagna.Mode       `json:"resolved_mode"`
	EmbedderModel    *string            `json:"embedder_model,omitzero"`
	EmbedderDim      *int               `json:"embedder_dim,omitzero" jsonschema:"minimum=0"`
	Chunker          *string            `json:"chunker,omitzero"`
	RetrieverTopK    *int               `json:"retriever_top_k,omitzero" jsonschema:"minimum=0"`
	VectorBackend    *string            `json:"vector_backend,omitzero"`
	JudgeModel       *string            `json:"judge_model,omitzero"`
	BM25Stemming     *bool              `json:"bm25_stemming,omitzero"`
	// FixedStages maps each stage held fixed to its component and settings,
	// written as one canonical string (e.g. "bm25 k1=0.9 b=0.4").
	FixedStages     map[string]string `json:"fixed_stages,omitzero"`
	SimilarityModel *string           `json:"similarity_model,omitzero"`
	// Scorers maps each scorer of the user's the arm ran to its version
	// ("" when it names none): bundles scored by other scorers, or other
	// versions, never compare.
	Scorers map[string]string `json:"scorers,omitzero"`
	// CorpusIngestGap counts corpus documents that failed to index; above
	// zero raises PARTIAL_CORPUS.
	CorpusIngestGap *int `json:"corpus_ingest_gap,omitzero" jsonschema:"minimum=0"`
	// AnswerNormalization is orqa when answers were normalised by NQ-open's
	// rules; absent means squad (SQuAD v2.0's rules, the default).
	AnswerNormalization string `json:"answer_normalization,omitzero" jsonschema:"enum=squad,enum=orqa"`
	// MissingPredictions is zero when a query the replayed predictions
	// have no line for scored 0 on every metric (SQuAD v1.1's official
	// convention; its rows are marked missing); absent means such a query
	// is a failed row, left out of every mean (the default). Held fixed,
	// so that the two conventions never compare.
	MissingPredictions string `json:"missing_predictions,omitzero" jsonschema:"enum=zero"`
}

// Result holds the scores of one arm on one benchmark.
type Result struct {
	BenchmarkName string `json:"benchmark_name"`
	ConfigName    string `json:"config_name"`
	// Metrics maps a metric name to its aggregate value (the mean over the
	// queries that have a score for it).
	Metrics map[string]float64 `json:"metrics"`
	// MetricStats gives, per metric, the number of queries averaged, the mean
	// and its bootstrap confidence interval.
	MetricStats map[string]MetricStat `json:"metric_stats,omitzero"`
	// Slices break the metrics down by a query property: one entry per
	// value of each sliced key (a metadata key the run named, or
	// "answerable", the built-in split of a benchmark with unanswerable
	// queries: "true" and "false"), in key then value order, each with the
	// ids of its rows (in row order) and, per metric, the statistics of
	// those rows that score it (MetricStat, as metric_stats over the
	// whole result). Optional in schema 1.x: absent when the run sliced
	// nothing. Validate recomputes every figure from the rows; validation
	// against the data also checks that each row is in the slice its
	// query's metadata names.
	Slices []struct {
		Key         string                `json:"key" jsonschema:"minLength=1"`
		Value       string                `json:"value"`
		QueryIDs    []string              `json:"query_ids"`
		MetricStats map[string]MetricStat `json:"metric_stats"`
	} `json:"metric_slices,omitzero" jsonschema:"description=Per-slice metric statistics: one entry per value of each sliced query property with its rows' ids"`
	PerSampleScores []Sample `json:"per_sample_scores,omitzero"`
}

// MetricStat is the statistics of one aggregate metric: N queries, their
// Mean and the bootstrap confidence interval [CILow, CIHigh] at Level
// (NewMetricStat), drawn with the bundle's experiment.stats_seed
// (Bundle.StatsOptions), so that Validate can recompute it from the rows.
type MetricStat struct {
	N      int     `json:"n" jsonschema:"minimum=0"`
	Mean   float64 `json:"mean"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	Level  float64 `json:"level,omitzero" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
}

// Sample is the per-query row of a result.
//
// A failed query carries Error and no Scores (never zeros). RetrievedIDs is
// the ranked list the metrics were computed on and Retrieved the id, score
// and rank of each hit; the rank is authoritative (scores may tie). An empty
// ranked list is written as [] and is not the same as an absent one (a row
// that did not retrieve).
type Sample struct {
	QueryID      string             `json:"query_id" jsonschema:"minLength=1"`
	Scores       map[string]float64 `json:"scores,omitzero"`
	RetrievedIDs []string           `json:"_retrieved_ids,omitzero"`
	Retrieved    []Retrieved        `json:"_retrieved,omitzero"`
	// Answer is the generated answer; nil when the arm produced none (an
	// empty answer is an abstention and is written as "").
	Answer *string `json:"answer,omitzero"`
	// Abstained is true when the arm explicitly declined to answer; the
	// answer text (if any) was then not scored.
	Abstained bool `json:"abstained,omitzero"`
	// Error is the pipeline error of a failed query.
	Error string `json:"error,omitzero"`
	// JudgeError is the error of a failed judge call; the judged metrics are
	// then absent from Scores.
	JudgeError string `json:"judge_error,omitzero"`
	// Missing is true when the predictions replayed had no line for the
	// query and the run scored it 0 on every metric it scores
	// (held_fixed.missing_predictions zero, SQuAD v1.1's convention); such
	// a row has no output. Optional in schema 1.x.
	Missing bool `json:"missing,omitzero"`
	// LatencyMS is the wall time of the query's pipeline call in
	// milliseconds: optional in schema 1.x, written only when the run
	// asked for it (engine.BundleOptions.Latency), since wall time makes
	// the bundle differ from run to run; readers that do not know it
	// ignore it. It is a measurement, not a score: it enters no metric.
	LatencyMS *float64 `json:"latency_ms,omitzero" jsonschema:"minimum=0"`
	// QueryDigest identifies the query's content: the hex sha256 of its
	// id, text, reference answers, unanswerable flag, reference contexts
	// and judgements (datasets.QueryDigest). A baseline recorded on an
	// earlier revision of a benchmark gates the queries whose digest is
	// unchanged. Optional in schema 1.x: absent in bundles written before
	// it was recorded.
	QueryDigest string `json:"query_digest,omitzero" jsonschema:"pattern=^[0-9a-f]{64}$,description=Hex sha256 of the query's text; answers; contexts and judgements; unchanged queries of a grown benchmark keep it"`
}

// Retrieved is one hit of a ranked list.
type Retrieved struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Rank  int     `json:"rank" jsonschema:"minimum=1"`
}

// Integrity holds the integrity findings a run raised: the blocking ones
// and the warnings. In the bundle's JSON each is one line (see Finding).
type Integrity struct {
	Warnings []Finding `json:"warnings"`
	Blocking []Finding `json:"blocking"`
}

// Add records f under Blocking or Warnings according to its code's level,
// unless the same finding is already there.
func (in *Integrity) Add(f lasagna.Finding) {
	nf := newFinding(f)
	list := &in.Warnings
	if f.Blocking() {
		list = &in.Blocking
	}
	if !slices.ContainsFunc(*list, func(g Finding) bool { return g.String() == nf.String() }) {
		*list = append(*list, nf)
	}
}

// Config returns the config of the given benchmark and arm name.
func (b *Bundle) Config(benchmark, name string) (*Config, bool) {
	for i := range b.Configs {
		if b.Configs[i].Benchmark == benchmark && b.Configs[i].Name == name {
			return &b.Configs[i], true
		}
	}
	return nil, false
}

// Result returns the result of the given benchmark and arm name.
func (b *Bundle) Result(benchmark, config string) (*Result, bool) {
	for i := range b.Results {
		if b.Results[i].BenchmarkName == benchmark && b.Results[i].ConfigName == config {
			return &b.Results[i], true
		}
	}
	return nil, false
}

// WithoutLatency returns a copy of b without the rows' latency_ms,
// finalized (a new run_id): the bundle a run that left latency out would
// have written. Latency is wall time, so two runs of one evaluation differ
// in it and only in it; compare their WithoutLatency copies to check
// that everything else is equal (a resumed or a sharded run against a
// whole one, say). b is not modified.
func WithoutLatency(b *Bundle) (*Bundle, error) {
	c := *b
	c.Results = slices.Clone(b.Results)
	for i := range c.Results {
		rows := slices.Clone(c.Results[i].PerSampleScores)
		for j := range rows {
			rows[j].LatencyMS = nil
		}
		c.Results[i].PerSampleScores = rows
	}
	c.RunID = ""
	if err := Finalize(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// BundleProvenance returns how a bundle writes p: lasagna.ProvenanceNone
// (no corpus) becomes "none", the others are unchanged.
func BundleProvenance(p lasagna.Provenance) lasagna.Provenance {
	if p == lasagna.ProvenanceNone {
		return provenanceNone
	}
	return p
}

// NewHeldFixed returns the data fields of held_fixed for a run of mode on
// benchmark b: metrics_version, the benchmark's name, split, corpus
// fingerprint (its revision) and provenance, and the sampling facts the
// caller passes (nSamples queries drawn with seed, whose sorted ids hash to
// sampleDigest). Stage settings are left for the caller to set. Nothing of
// b's Source path is kept.
func NewHeldFixed(b *lasagna.Benchmark, mode lasagna.Mode, nSamples int, seed int64, sampleDigest string) HeldFixed {
	fp := ""
	if b.Provenance != lasagna.ProvenanceNone {
		fp = b.Revision
	}
	hf := HeldFixed{
		MetricsVersion:    MetricsVersion,
		Benchmark:         b.Name,
		Split:             b.Split,
		NSamples:          int64(nSamples),
		SamplingSeed:      seed,
		SampleIDDigest:    sampleDigest,
		CorpusFingerprint: fp,
		CorpusProvenance:  BundleProvenance(b.Provenance),
		ResolvedMode:      mode,
	}
	if b.AnswerNormalization == "orqa" {
		hf.AnswerNormalization = "orqa"
	}
	return hf
}

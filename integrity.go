package lasagna

import (
	"fmt"
	"slices"
	"strings"
)

// Code is a stable integrity code (docs/bundles.md), such as "PIPELINE_ERRORS".
type Code string

// Level says whether an integrity code blocks (fails validation and tests)
// or warns.
type Level string

const (
	LevelWarning  Level = "warning"
	LevelBlocking Level = "blocking"
)

// The integrity codes.
const (
	SingleRun                Code = "SINGLE_RUN"
	UnresolvedJudgeAlias     Code = "UNRESOLVED_JUDGE_ALIAS"
	PartialCorpus            Code = "PARTIAL_CORPUS"
	SyntheticBenchmark       Code = "SYNTHETIC_BENCHMARK"
	PooledGoldCorpus         Code = "POOLED_GOLD_CORPUS"
	UnknownDocID             Code = "UNKNOWN_DOC_ID"
	OutsideCorpusIDs         Code = "OUTSIDE_CORPUS_IDS"
	DuplicateRetrievedID     Code = "DUPLICATE_RETRIEVED_ID"
	ScoresOutOfOrder         Code = "SCORES_OUT_OF_ORDER"
	PipelineErrors           Code = "PIPELINE_ERRORS"
	JudgeErrors              Code = "JUDGE_ERRORS"
	MissingResults           Code = "MISSING_RESULTS"
	StageIsolation           Code = "STAGE_ISOLATION"
	SmallSample              Code = "SMALL_SAMPLE"
	RunIDMismatch            Code = "RUN_ID_MISMATCH"
	ComparabilityKeyMismatch Code = "COMPARABILITY_KEY_MISMATCH"
	SchemaVersion            Code = "SCHEMA_VERSION"
	InvalidBundle            Code = "INVALID_BUNDLE"
	InconsistentBundle       Code = "INCONSISTENT_BUNDLE"
)

// CodeInfo is one row of the integrity catalogue.
type CodeInfo struct {
	Code    Code
	Level   Level
	Meaning string // when the code is raised
	Fix     string // what to do about it
}

// Catalogue returns the integrity catalogue: every code with its level,
// meaning and fix, in the order of docs/bundles.md. The engine, the bundle
// validator and the documentation all read this one table. Each call
// returns a new slice, which the caller may keep and modify.
func Catalogue() []CodeInfo { return slices.Clone(catalogue) }

// catalogue is the table Catalogue copies; nothing modifies it.
var catalogue = []CodeInfo{
	{SingleRun, LevelWarning,
		"an LLM sampled (nothing_samples is false) and only one repeat or seed ran",
		"run each query several times (repeats: 3 in the sweep file, or --repeats 3) so the spread of sampled outputs is measured"},
	{UnresolvedJudgeAlias, LevelWarning,
		"the judge model was given as an alias and the server answered with a different, dated snapshot",
		"pin the judge to the dated snapshot the server named, so later runs are judged by the same model"},
	{PartialCorpus, LevelBlocking,
		"documents of the corpus failed to index (corpus_ingest_gap > 0) or the corpus was truncated",
		"fix the documents that failed to index (the run lists them) and run again on the whole corpus"},
	{SyntheticBenchmark, LevelWarning,
		"rows were written by an LLM (metadata.synthetic): scores read high and favour similar models",
		"use synthetic sets to compare configurations while building; report results on human-written questions"},
	{PooledGoldCorpus, LevelWarning,
		"retrieval ran on a corpus pooled from the rows' gold passages, with no hard negatives: easier than a real corpus",
		"compare such numbers only with other pooled_gold runs; for claims, evaluate on a real corpus (a BEIR folder)"},
	{UnknownDocID, LevelBlocking,
		"a pipeline returned a document id that is not in the corpus",
		"return the corpus ids the benchmark defines (chunk ids must map to them), or index the same corpus the benchmark ships"},
	{OutsideCorpusIDs, LevelWarning,
		"an arm that searches its own index returned ids that are not in the benchmark's corpus; they were scored as non-relevant",
		"none needed when your index holds more than the benchmark's corpus; if some of those documents answer the questions, add them to the benchmark's corpus file (corpus: beside the dataset) and name them in expected_docs, so they are judged"},
	{DuplicateRetrievedID, LevelBlocking,
		"one ranked list holds the same document id more than once",
		"deduplicate hits before returning them (keep the best-ranked occurrence)"},
	{ScoresOutOfOrder, LevelWarning,
		"a ranked list's scores rise with rank (a hit scores higher than the hit above it); lasagna scores the list in the order returned, but tools that rank by score (trec_eval, and so the --run-out file) rank it differently",
		"return hits best first with scores that never rise (a reranker sets the scores it ranks by), or give every hit the same score"},
	{PipelineErrors, LevelBlocking,
		"a query's pipeline call failed; the query was not scored (never scored as 0)",
		"fix the failing calls (the errors are listed per query) and rerun, with --resume to keep finished queries"},
	{JudgeErrors, LevelBlocking,
		"a judge call failed or returned output that could not be parsed; the query has no judge score",
		"check the judge endpoint and model, then rerun; cached successful calls are not paid again"},
	{MissingResults, LevelBlocking,
		"an arm or benchmark in the plan produced no results",
		"rerun the missing arms or shards, or merge the shard bundles that hold them"},
	{StageIsolation, LevelBlocking,
		"compared arms differ in a stage or setting that is not declared in varied_dimensions",
		"declare the differing stage in varied_dimensions, or hold it fixed across the arms"},
	{SmallSample, LevelWarning,
		"too few queries for the confidence interval asked for",
		"evaluate more queries (raise n_samples) before reading differences as real"},
	{RunIDMismatch, LevelBlocking,
		"the bundle's run_id is not the hash of its contents: it was edited after it was written",
		"regenerate the bundle from the run instead of editing it"},
	{ComparabilityKeyMismatch, LevelBlocking,
		"a config's comparability_key is not the hash of its held_fixed fields",
		"regenerate the bundle; never edit held_fixed by hand"},
	{SchemaVersion, LevelBlocking,
		"the bundle's schema_version is missing, malformed or outside 1.0 ≤ v < 2.0",
		"write the bundle with a lasagna release that speaks schema 1.x"},
	{InvalidBundle, LevelBlocking,
		"the bundle breaks the results schema or a structural rule of schema 1.x",
		"regenerate the bundle with lasagna; never edit a bundle by hand"},
	{InconsistentBundle, LevelBlocking,
		"the bundle's numbers disagree: an aggregate differs from its metric_stats mean or from the mean of its rows, n from the number of scored rows, or a confidence interval from the one recomputed from the rows with the recorded seed; a value lies outside its metric's range, or a row has no scores, no error and no output; a row's retrieval metrics cannot come from one ranked list (hit@1 0 with mrr@1 1), a list is longer than retriever_top_k or its scores rise unlisted, or a count-based warning (SMALL_SAMPLE) is missing; or, re-scored against the benchmark (results validate --data), a row's metric differs from the one its output and the benchmark give; or a judge calibration record (judge_calibrations) disagrees with itself (n with its confusion matrix, accuracy or Cohen's kappa with the matrix, the disagreement ids with its counts, the shape of kappa's interval) or with the arm's judge (judge_model, the prompt held_fixed.fixed_stages.judge names, one record per metric)",
		"regenerate the bundle from the run; numbers edited by hand disagree with the rows even when run_id is recomputed"},
}

// Info returns the catalogue row for c.
func (c Code) Info() (CodeInfo, bool) {
	for _, info := range catalogue {
		if info.Code == c {
			return info, true
		}
	}
	return CodeInfo{}, false
}

// Level returns the level of c; unknown codes block.
func (c Code) Level() Level {
	if info, ok := c.Info(); ok {
		return info.Level
	}
	return LevelBlocking
}

// Finding is one raised integrity code: what, where and a detail message.
// Where names benchmark/arm/query ids (e.g. "local/faq@0123456789ab/bm25/q17").
type Finding struct {
	Code   Code
	Where  string
	Detail string
}

// String formats the finding as one line: "CODE at WHERE: detail (fix: …)".
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(string(f.Code))
	if f.Where != "" {
		fmt.Fprintf(&b, " at %s", f.Where)
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", f.Detail)
	} else if info, ok := f.Code.Info(); ok {
		fmt.Fprintf(&b, ": %s", info.Meaning)
	}
	if info, ok := f.Code.Info(); ok {
		fmt.Fprintf(&b, " (fix: %s)", info.Fix)
	}
	return b.String()
}

// Blocking reports whether f's code blocks.
func (f Finding) Blocking() bool { return f.Code.Level() == LevelBlocking }

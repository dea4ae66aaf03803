package evaltest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/reporters"
)

// Config is what Run evaluates. The zero value of every field works (a
// Config needs at least one benchmark and one arm, from any source).
type Config struct {
	// Benchmarks are dataset paths — a .jsonl or .csv file or a BEIR folder
	// — relative to the test's package folder (or to FS when set). Each is
	// registered under its local name (local/<stem>@<12 hex>).
	Benchmarks []string
	// Corpora gives a JSONL or CSV benchmark of Benchmarks a corpus file
	// (BEIR corpus.jsonl layout: _id, title, text), keyed by the path as
	// written in Benchmarks, with the corpus path relative to the same
	// folder (or FS): {"testdata/faq.jsonl": "testdata/corpus.jsonl"}. The
	// rows' expected_docs then name its documents (see
	// datasets.Options.Corpus). A key missing from Benchmarks is an error.
	Corpora map[string]string
	// Sweep is the path of a sweep file (YAML, as `lasagna benchmark run
	// sweep.yaml` reads it), relative to the package folder (or to FS).
	// Its benchmarks (with their n_samples, seed and filters), its
	// built-in arms with their thresholds, its cutoffs, slices and gate
	// (unless Config sets its own) are the run's too: `go test` and the CLI
	// write the same bundle for one sweep file.
	Sweep string
	// FS, when set, is where Benchmarks and Sweep are read from instead of
	// the package folder: an embed.FS or fstest.MapFS, for example.
	FS fs.FS
	// Data are benchmarks already in memory (built by the caller or loaded
	// with package datasets); all their queries run.
	Data []*lasagna.Benchmark

	// Arms are the pipelines to evaluate: the user's own (see Arm) and
	// built-in baselines such as BM25(). Names must be unique.
	Arms []Arm
	// Thresholds apply to every arm, in addition to each arm's own.
	Thresholds []Threshold

	// Repeats runs each query of an arm that samples (Arm.Samples) this
	// many times; 0 or 1 runs it once, which raises the SINGLE_RUN warning
	// for such an arm. Arms that do not sample run once whatever Repeats
	// says. Pass decides, inside the query's subtest, how many repeats must
	// pass.
	Repeats int
	// Pass is the pass rule of repeated queries; the zero value is All().
	Pass PassRule

	// Baseline is the path of a committed baseline bundle, relative to the
	// package folder (never read from FS, since LASAGNA_UPDATE_BASELINE=1
	// rewrites it). When set, every arm is gated against its result in the
	// baseline (see Gate).
	Baseline string
	// Gate sets the regression gate against Baseline.
	Gate Gate

	// Cutoffs are the k of the @k retrieval metrics; nil means 1, 5 and 10
	// (each arm's depth is always added). A threshold or gate on a cutoff
	// missing here fails the test before any pipeline call.
	Cutoffs []int
	// Slices are metadata keys of the queries (docs/data.md) whose values
	// break every metric down in the bundle: per value, the mean, n and
	// 95% confidence interval of each metric over its queries (the
	// bundle's metric_slices). The answerable / unanswerable split is
	// built in for arms that answer on data with unanswerable questions.
	// nil means a sweep's slices: (with Sweep), else none. A key no query
	// has fails the test before any pipeline call, with "did you mean".
	Slices []string
	// AttrMetrics are the metrics each query subtest records with t.Attr
	// (as lasagna.<metric>), besides lasagna.query_id and, with Repeats,
	// lasagna.repeats and lasagna.pass_rate; nil means every metric the
	// query scored (ndcg@10, recall@10, mrr, exact_match and token_f1
	// first, then the others by name: every cutoff, the Vecta set
	// metrics, the judge's and the Scorers' metrics) and latency_ms (the
	// wall time of the query's pipeline call in milliseconds, also of a
	// failed call; the mean over repeats). A failed query records no
	// metric but latency_ms.
	AttrMetrics []string
	// Reporters receive the finished bundle after the built-in ones (the
	// JSON file, the console table logged by the test, and the Markdown
	// summary when $GITHUB_STEP_SUMMARY is set). An error fails the test.
	Reporters []reporters.Reporter
	// Scorers score every arm's queries with metrics of your own, before
	// each arm's own Arm.Scorers (see Scorer).
	Scorers []Scorer
	// StatsSeed seeds the bootstrap confidence intervals and randomisation
	// tests; 0 means 42.
	StatsSeed uint64
	// Deps are the LLM-backed components of the sweep's built-in arms
	// (dense and hybrid retrieval, generators, judges); the zero value
	// builds BM25 arms only. Use evalllm.Deps in a live test.
	Deps Deps
}

// Arm is one pipeline to evaluate. Set exactly one way of running it:
//
//   - Retriever (or BuildRetriever, to index each benchmark's corpus):
//     a retrieval arm; with Generator also set, a RAG arm whose generator
//     sees the documents of the first Passages hits.
//   - Generator alone: a generation arm, answering from the gold passages
//     of each row (its contexts).
//   - Pipeline (or Build): a whole system as one function from a query to
//     an Output; Mode says what it returns.
//
// Plain functions work through lasagna.RetrieverFunc, GeneratorFunc and
// PipelineFunc. Arm values are copied by Run and may be reused.
type Arm struct {
	// Name names the arm's subtests and its config in the bundle; unique in
	// a run, and -run-safe after '/' and spaces become '_'.
	Name string

	Retriever      lasagna.Retriever
	BuildRetriever func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error)
	Generator      lasagna.Generator
	Pipeline       lasagna.Pipeline
	Build          func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error)

	// Mode is what a Pipeline or Build arm returns: lasagna.ModeRetrieval
	// (ranked hits), ModeGeneration (answers) or ModeRAG (both; the
	// default). A Generator-only arm with Mode lasagna.ModeClosedBook sees
	// no passages. Other arms derive their mode.
	Mode lasagna.Mode
	// TopK is the depth of ranked lists (0 means 100); longer lists are cut.
	TopK int
	// Passages is how many retrieved documents a RAG arm's Generator sees;
	// 0 means engine.DefaultPassages (5).
	Passages int
	// Samples marks an arm that calls a sampling LLM: Config.Repeats then
	// applies to it, and a single run raises SINGLE_RUN. An arm whose
	// Generator says it samples (engine.Sampler: package generate's LLM
	// generators do) or that has a Judge counts as sampling without it.
	Samples bool
	// OwnIndex marks an arm whose retriever searches your own index, which
	// may hold documents the benchmark's corpus lacks (see engine.Arm):
	// ids outside the benchmark's corpus count as non-relevant and one
	// OUTSIDE_CORPUS_IDS warning counts them, instead of the blocking
	// UNKNOWN_DOC_ID that fails the query's subtest; held_fixed records
	// corpus_provenance own_index.
	OwnIndex bool
	// Stages, Settings and Varied describe the arm's components for the
	// bundle's held_fixed block and comparability key (see engine.Arm).
	// The components in which the arms of one Run differ are varied
	// without declaring them (engine.VaryComponents), so arms that differ
	// in their own retriever or settings compare; Varied adds dimensions.
	// Keep them stable: a baseline only gates an arm whose held_fixed block
	// is unchanged.
	Stages   map[lasagna.Stage]string
	Settings map[string]any
	Varied   []string
	// Thresholds apply to this arm only.
	Thresholds []Threshold
	// Judge, when set, scores the arm's answers with an LLM judge
	// (judge_correctness, groundedness, the RAG judge metrics, rubrics;
	// see evalllm.Judge, or
	// a Judge of your own). A failed
	// judge call is a JUDGE_ERRORS finding, never a score; judge_model and
	// the judge's prompts enter held_fixed; a judged arm samples, so
	// Config.Repeats applies and a single run raises SINGLE_RUN.
	Judge Judge
	// JudgeCalibrations are the paths of calibration records of the
	// judge's metrics (written by `lasagna judge calibrate`; in
	// Config.FS when set, else relative to the package folder). Run
	// refuses a record measured on another judge model or prompt before
	// any call, and the bundle carries them beside the arm's config.
	JudgeCalibrations []string
	// Scorers score the arm's queries with metrics of your own (after
	// Config.Scorers, which apply to every arm): see Scorer.
	Scorers []Scorer

	builtin *engine.ArmSpec
}

// BM25 returns the built-in BM25 baseline arm, named "bm25" (Snowball
// stemming on, English stop words, the retrieval/bm25 defaults of k1 and
// b). It indexes each benchmark's corpus. Change its Name, TopK or
// Thresholds on the returned value as needed.
func BM25() Arm {
	return Arm{Name: "bm25", builtin: &engine.ArmSpec{Name: "bm25", Retriever: engine.RetrieverBM25}}
}

// engineArm converts a into the engine's arm; the engine assembles it.
func (a Arm) engineArm() (engine.Arm, error) {
	if a.Name == "" {
		return engine.Arm{}, errors.New("an arm needs a Name")
	}
	if a.TopK < 0 {
		return engine.Arm{}, fmt.Errorf("arm %s: TopK is %d; want a positive depth (or 0 for %d)", a.Name, a.TopK, engine.DefaultTopK)
	}
	topK := a.TopK
	if topK == 0 {
		topK = engine.DefaultTopK
	}
	var arm engine.Arm
	if a.builtin != nil {
		spec := *a.builtin
		spec.Name = a.Name
		var err error
		if arm, err = engine.BuiltinArm(spec, topK); err != nil {
			return engine.Arm{}, err
		}
	} else {
		if (a.Retriever != nil && a.BuildRetriever != nil) || (a.Pipeline != nil && a.Build != nil) ||
			((a.Retriever != nil || a.BuildRetriever != nil) && (a.Pipeline != nil || a.Build != nil)) {
			return engine.Arm{}, fmt.Errorf("arm %s: set exactly one of Retriever (or BuildRetriever, optionally with Generator), Generator, Pipeline or Build", a.Name)
		}
		arm = engine.Arm{Name: a.Name, TopK: topK, Generator: a.Generator, Passages: a.Passages,
			Stages: a.Stages, Settings: a.Settings, Varied: a.Varied}
		if a.Retriever == nil && a.BuildRetriever == nil {
			arm.Mode = a.Mode // other arms derive their mode
		}
		switch {
		case a.Retriever != nil:
			r := a.Retriever
			arm.Retriever = func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) { return r, nil }
		case a.BuildRetriever != nil:
			arm.Retriever = a.BuildRetriever
		case a.Pipeline != nil:
			p := a.Pipeline
			arm.Pipeline = func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) { return p, nil }
		case a.Build != nil:
			arm.Pipeline = a.Build
		}
		if arm.Pipeline != nil {
			arm.Generator = nil
			if a.Generator != nil {
				return engine.Arm{}, fmt.Errorf("arm %s: a Pipeline (or Build) arm is the whole system; drop Generator, or use Retriever with Generator", a.Name)
			}
		}
	}
	arm.Samples = a.Samples
	arm.OwnIndex = a.OwnIndex
	if a.Judge != nil {
		arm = arm.WithJudge(a.Judge)
	}
	arm.Scorers = append(arm.Scorers, a.Scorers...)
	if err := arm.Check(); err != nil {
		return engine.Arm{}, err
	}
	return arm, nil
}

// Threshold is a bound on a metric: on the arm's mean over its scored
// queries (the default), or on every query (see PerQuery). Make one with
// AtLeast or AtMost. The engine checks it with the same wording as
// `lasagna benchmark run`.
type Threshold = engine.Threshold

// AtLeast returns the threshold metric ≥ min, e.g. AtLeast("ndcg@10", 0.6).
func AtLeast(metric string, min float64) Threshold { return engine.AtLeast(metric, min) }

// AtMost returns the threshold metric ≤ max, e.g. AtMost("latency_ms", 800).
func AtMost(metric string, max float64) Threshold { return engine.AtMost(metric, max) }

// NotWorseThan returns the threshold "metric is not significantly worse
// than arm's": set on an arm, it fails when the arm's mean of metric fell
// below that of the named arm of the same Run by more than Tolerance (0
// means 0.01) and the paired test on their shared queries says the drop
// is significant (Holm-adjusted across the arm's paired metrics, alpha
// 0.05), as the baseline gate decides. It is checked on the benchmark's
// subtest once both arms finished, e.g.
// Thresholds: []evaltest.Threshold{evaltest.NotWorseThan("bm25", "ndcg@10")}.
func NotWorseThan(arm, metric string) Threshold { return engine.NotWorseThan(arm, metric) }

// PerQuery returns th checked on each query's own score, inside the
// query's subtest, instead of on the arm's mean. A query that does not
// score th's metric (say, a query without judgements) is not checked.
func PerQuery(th Threshold) Threshold {
	th.PerQuery = true
	return th
}

// PassRule decides whether a repeated query passes, from how many of its
// repeats passed. The zero value is All().
type PassRule = engine.PassRule

// All passes a query when every repeat passes.
func All() PassRule { return engine.All() }

// Majority passes a query when more than half of its repeats pass.
func Majority() PassRule { return engine.Majority() }

// Any passes a query when at least one of its repeats passes.
func Any() PassRule { return engine.Any() }

// RateAtLeast passes a query when at least the share x (0 ≤ x ≤ 1) of its
// repeats pass.
func RateAtLeast(x float64) PassRule { return engine.RateAtLeast(x) }

// Gate is the regression gate against a baseline bundle:
// a gated metric fails only when it dropped by more than Tolerance AND its
// Holm-adjusted paired p-value is below Alpha.
type Gate = engine.Gate

// Verdict is one decision of the engine on a run: a failed query, a
// threshold, a paired threshold or the baseline gate, with the checked
// value, the rule and the message evaltest reports.
type Verdict = engine.Verdict

// VerdictKind says what a Verdict checked.
type VerdictKind = engine.VerdictKind

// The kinds of verdicts.
const (
	// VerdictQuery: the query's pipeline call failed, or its ranked list
	// could not be scored (an id twice, or one missing from the corpus).
	VerdictQuery = engine.VerdictQuery
	// VerdictThreshold: a threshold on an arm's mean, on each query's
	// score (with the pass rule over repeats), or not_worse_than another
	// arm.
	VerdictThreshold = engine.VerdictThreshold
	// VerdictGate: the significance-gated baseline gate.
	VerdictGate = engine.VerdictGate
)

// Deps are the model-backed components the built-in arms of a sweep need:
// embedders (dense and hybrid retrieval), generators, judges and vector
// stores (pgvector, Weaviate). evalllm.Deps builds them from an LLM
// client; the zero Deps builds BM25 arms only. Each function is called
// with the spec the sweep file gives (GeneratorSpec, JudgeSpec,
// VectorBackendSpec).
type Deps engine.Deps

// GeneratorSpec is a sweep arm's generator: block (kind grounded or
// closed_book, model, passages, max_tokens; docs/cli.md).
type GeneratorSpec = engine.GeneratorSpec

// JudgeSpec is a sweep arm's judge: block (model, metrics, embedding
// model, strictness, rubrics, calibrations; docs/cli.md).
type JudgeSpec = engine.JudgeSpec

// RubricSpec is one rubric of a JudgeSpec: the metric Name scores each
// answer by the judge's grade on Criterion, from 1 to Scale.
type RubricSpec = engine.RubricSpec

// VectorBackendSpec is a sweep's vector_backend: block (exact, pgvector
// with dsn:, weaviate with url:, and the HNSW index:); credentials come
// from the environment only.
type VectorBackendSpec = engine.VectorBackendSpec

// IndexSpec is the HNSW index: block of a VectorBackendSpec.
type IndexSpec = engine.IndexSpec

// Judge scores an arm's answers (judge_correctness, groundedness, …):
// evalllm.Judge builds one on an LLM client, or implement it yourself.
// A failed call is an error, never a score.
type Judge = engine.Judge

// Scorer is a scorer of your own with what identifies it: Name and
// Version (held fixed in the bundle, held_fixed.scorers, so that bundles
// scored by another scorer or version never compare), Metrics (the names
// it returns, known before anything runs: a threshold or gate on a name no
// scorer declares fails before the first pipeline call) and the
// lasagna.Scorer that scores one query's outcome. Its metrics behave like
// the built-in ones: t.Attr on each query's subtest, thresholds, the gate,
// bundle rows and means with confidence intervals, reports. A scorer error
// (or panic, or a name it did not declare, or a value that is not finite)
// leaves its metrics out of the query's row and raises JUDGE_ERRORS;
// never a 0. examples/scorer shows one.
type Scorer = engine.Scorer

// Judgement is a Judge's verdict on one answer: its scores by metric and
// the model that gave them.
type Judgement = engine.Judgement

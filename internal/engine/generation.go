package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/suggest"
)

// GeneratorSpec sets the LLM generator of a built-in arm (docs/cli.md). With a
// retriever, a grounded generator answers from the retriever's top
// Passages documents (mode rag); without one, from the row's gold contexts
// (mode generation). A closed_book generator sees no passages and takes no
// retriever (mode closed_book).
type GeneratorSpec struct {
	// Kind is "grounded" or "closed_book".
	Kind string `yaml:"kind"`
	// Model is the chat model; "" means the run's (--model, MODEL_NAME).
	Model string `yaml:"model"`
	// Passages is how many of the retrieved documents a rag arm's
	// generator sees; 0 means DefaultPassages.
	Passages int `yaml:"passages"`
	// MaxTokens caps an answer; 0 means the generator's default.
	MaxTokens int `yaml:"max_tokens"`
}

// JudgeSpec sets the LLM judge of an arm that generates. Its presence
// (even empty, `judge: {}`) turns judging on.
type JudgeSpec struct {
	// Model is the judge model; "" means the run's (--judge-model,
	// --model, MODEL_NAME).
	Model string `yaml:"model"`
	// Metrics are the judge metrics (JudgeMetrics) and rubric names to
	// score; empty means judge_correctness and groundedness (or
	// judge_correctness alone for a closed_book arm) and every rubric.
	Metrics []string `yaml:"metrics"`
	// EmbeddingModel is answer_relevancy's embedding model; "" means
	// DefaultEmbeddingModel.
	EmbeddingModel string `yaml:"embedding_model"`
	// Strictness is how many questions answer_relevancy generates from
	// an answer; 0 means 3.
	Strictness int `yaml:"strictness"`
	// Rubrics are judge metrics of the user's, each a criterion the judge
	// grades answers against (see RubricSpec).
	Rubrics []RubricSpec `yaml:"rubrics"`
	// Calibrations are the paths of the calibration records the judge
	// cites (`lasagna judge calibrate`), relative to the sweep file's
	// folder; ReadSweep reads them into Records.
	Calibrations []string `yaml:"calibrations"`
	// Records are the calibration records, one per path of Calibrations
	// (see Arm.JudgeCalibrations).
	Records []lasagna.JudgeCalibration `yaml:"-"`
}

// RubricSpec is a rubric judge: the metric Name scores each answer by
// the judge's grade s on Criterion, from 1 to Scale, as (s-1)/(Scale-1).
type RubricSpec struct {
	Name      string `yaml:"name"`
	Criterion string `yaml:"criterion"`
	// Scale is the top grade, 2 to 10; 0 means 5.
	Scale int `yaml:"scale"`
}

// Generator kinds of built-in arms.
const (
	GeneratorGrounded   = "grounded"
	GeneratorClosedBook = "closed_book"
)

// DefaultPassages is how many retrieved documents a rag arm's generator
// sees when GeneratorSpec.Passages is 0.
const DefaultPassages = 5

var generatorKinds = []string{GeneratorGrounded, GeneratorClosedBook}

// Known keys of the generator and judge blocks of a sweep file.
var (
	generatorKeys = []string{"kind", "model", "passages", "max_tokens"}
	judgeKeys     = []string{"model", "metrics", "embedding_model", "strictness", "rubrics", "calibrations"}
	rubricKeys    = []string{"name", "criterion", "scale"}
)

// checkGeneration returns the problems of a's generator and judge blocks.
func checkGeneration(a ArmSpec, at string) []error {
	var errs []error
	if g := a.Generator; g != nil {
		if !slices.Contains(generatorKinds, g.Kind) {
			errs = append(errs, fmt.Errorf("%sarm %q: generator kind %q is not one of %s%s", at, a.Name, g.Kind,
				strings.Join(generatorKinds, ", "), suggest.Hint(g.Kind, generatorKinds)))
		}
		if g.Kind == GeneratorClosedBook && a.Retriever != "" {
			errs = append(errs, fmt.Errorf("%sarm %q: a closed_book generator sees no passages; drop retriever: %s, or use generator kind grounded", at, a.Name, a.Retriever))
		}
		if g.Passages < 0 || g.MaxTokens < 0 {
			errs = append(errs, fmt.Errorf("%sarm %q: generator passages and max_tokens must be positive (or absent for the defaults)", at, a.Name))
		}
		if g.Passages > 0 && a.Retriever == "" {
			errs = append(errs, fmt.Errorf("%sarm %q: generator passages applies to retrieved documents, and the arm has no retriever (it answers from the rows' gold contexts); drop passages: or add a retriever", at, a.Name))
		}
	}
	if j := a.Judge; j != nil {
		if a.Generator == nil {
			errs = append(errs, fmt.Errorf("%sarm %q: judge: needs answers to judge; add generator: {kind: grounded} (or closed_book)", at, a.Name))
		}
		errs = append(errs, checkJudgeSpec(j, a, at)...)
	}
	return errs
}

// checkJudgeSpec returns the problems of arm a's judge block j: an unknown
// metric, a rubric whose name is malformed, repeated or a built-in
// metric's, an empty criterion or a scale out of range, a negative
// strictness, and metrics that need passages on a closed_book arm.
func checkJudgeSpec(j *JudgeSpec, a ArmSpec, at string) []error {
	var errs []error
	where := fmt.Sprintf("%sarm %q: judge", at, a.Name)
	known := JudgeMetrics()
	for i, r := range j.Rubrics {
		rw := fmt.Sprintf("%s: rubric %d", where, i+1)
		if r.Name != "" {
			rw = fmt.Sprintf("%s: rubric %s", where, r.Name)
		}
		base, _, _ := strings.Cut(r.Name, "@")
		switch {
		case r.Name == "":
			errs = append(errs, fmt.Errorf("%s: give it a name: (the metric's name)", rw))
		case !scorerName().MatchString(r.Name):
			errs = append(errs, fmt.Errorf("%s: the name %q is not a letter followed by letters, digits, dots, dashes or underscores", rw, r.Name))
		case slices.Contains(allMetricNames(), r.Name) || slices.Contains(retrievalFamilies, base):
			errs = append(errs, fmt.Errorf("%s: %q is a built-in metric's name; give the rubric a name of its own", rw, r.Name))
		case slices.Contains(known, r.Name):
			errs = append(errs, fmt.Errorf("%s: two rubrics are named %q", rw, r.Name))
		}
		if strings.TrimSpace(r.Criterion) == "" {
			errs = append(errs, fmt.Errorf("%s: criterion: is empty; say what a good answer does", rw))
		}
		if r.Scale != 0 && (r.Scale < 2 || r.Scale > 10) {
			errs = append(errs, fmt.Errorf("%s: scale is %d; want 2 to 10 (or absent for 5)", rw, r.Scale))
		}
		known = append(known, r.Name)
	}
	for _, m := range j.Metrics {
		if !slices.Contains(known, m) {
			errs = append(errs, fmt.Errorf("%s: unknown judge metric %q%s; judge metrics: %s", where, m,
				suggest.Hint(m, known), strings.Join(known, ", ")))
		}
	}
	if len(j.Metrics) > 0 {
		for _, r := range j.Rubrics {
			if !slices.Contains(j.Metrics, r.Name) {
				errs = append(errs, fmt.Errorf("%s: rubric %s is not in metrics: [%s]; add it or drop the rubric", where, r.Name, strings.Join(j.Metrics, ", ")))
			}
		}
	}
	if j.Strictness < 0 {
		errs = append(errs, fmt.Errorf("%s: strictness is %d; want 1 or more (or absent for 3)", where, j.Strictness))
	}
	if a.Generator != nil && a.Generator.Kind == GeneratorClosedBook {
		for _, m := range j.Metrics {
			if slices.Contains(passageMetrics(), m) {
				errs = append(errs, fmt.Errorf("%s: %s judges the passages the generator saw, and a closed_book generator sees none; drop it from the metrics", where, m))
			}
		}
	}
	return errs
}

// passageMetrics are the judge metrics that judge the passages a
// generator saw.
func passageMetrics() []string {
	return []string{MetricGroundedness, MetricFaithfulness, MetricContextPrecision, MetricContextRecall}
}

// judgeMetricsOf returns the metrics judge j scores: its Metrics() when it
// has that method, else every built-in judge metric.
func judgeMetricsOf(j Judge) []string {
	if m, ok := j.(interface{ Metrics() []string }); ok {
		return m.Metrics()
	}
	return JudgeMetrics()
}

// Judge scores an arm's answers (package engine/llmarms adapts the LLM
// judge of package judge). The engine calls Score for every query the arm
// answered, after exact match and token F1, and adds the scores to the
// query's; an error is recorded as the query's judge error (JUDGE_ERRORS)
// and the failed metrics are absent, never zero. Score must be safe for
// concurrent use. A judge that implements Describe() string names its
// model, metrics and prompt versions in fixed_stages.
type Judge interface {
	Score(ctx context.Context, q lasagna.Query, out lasagna.Output) (Judgement, error)
	// Model is the judge model as requested (judge_model in held_fixed).
	Model() string
}

// Judgement is a judge's verdict on one answer.
type Judgement struct {
	// Scores maps each judged metric to its score in [0, 1]; a metric that
	// does not apply or whose call failed is absent.
	Scores map[string]float64
	// Model is the model the judge's server named in its reply ("" when no
	// call was made).
	Model string
	// UnresolvedAlias is true when the judge was requested as an alias and
	// the server answered as a dated snapshot (UNRESOLVED_JUDGE_ALIAS).
	UnresolvedAlias bool
}

// The judge metrics (docs/metrics.md); faithfulness, answer_relevancy,
// context_precision and context_recall are Ragas's.
const (
	MetricJudgeCorrectness = "judge_correctness"
	MetricGroundedness     = "groundedness"
	MetricFaithfulness     = "faithfulness"
	MetricAnswerRelevancy  = "answer_relevancy"
	MetricContextPrecision = "context_precision"
	MetricContextRecall    = "context_recall"
)

// JudgeMetrics returns the built-in judge metrics, in a fixed order.
func JudgeMetrics() []string {
	return []string{MetricJudgeCorrectness, MetricGroundedness, MetricFaithfulness, MetricAnswerRelevancy, MetricContextPrecision, MetricContextRecall}
}

// StageJudge is the fixed_stages entry that describes an arm's judge
// (model, metrics, prompt versions). The judge scores and is not a
// pipeline stage (docs/evaltest.md), but its configuration is held fixed like one.
const StageJudge lasagna.Stage = "judge"

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
	// Metrics are the judge metrics (judge_correctness, groundedness);
	// empty means both, or judge_correctness alone for a closed_book arm.
	Metrics []string `yaml:"metrics"`
	// Calibrations are the paths of the calibration records the judge
	// cites (`lasagna judge calibrate`), relative to the sweep file's
	// folder; ReadSweep reads them into Records.
	Calibrations []string `yaml:"calibrations"`
	// Records are the calibration records, one per path of Calibrations
	// (see Arm.JudgeCalibrations).
	Records []lasagna.JudgeCalibration `yaml:"-"`
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
	judgeKeys     = []string{"model", "metrics", "calibrations"}
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
		for _, m := range j.Metrics {
			if !slices.Contains(JudgeMetrics(), m) {
				errs = append(errs, fmt.Errorf("%sarm %q: unknown judge metric %q%s; judge metrics: %s", at, a.Name, m,
					suggest.Hint(m, JudgeMetrics()), strings.Join(JudgeMetrics(), ", ")))
			}
		}
	}
	return errs
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

// The judge metrics (docs/metrics.md).
const (
	MetricJudgeCorrectness = "judge_correctness"
	MetricGroundedness     = "groundedness"
)

// JudgeMetrics returns the judge metrics, in a fixed order.
func JudgeMetrics() []string { return []string{MetricJudgeCorrectness, MetricGroundedness} }

// StageJudge is the fixed_stages entry that describes an arm's judge
// (model, metrics, prompt versions). The judge scores and is not a
// pipeline stage (docs/evaltest.md), but its configuration is held fixed like one.
const StageJudge lasagna.Stage = "judge"

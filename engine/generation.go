package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/generate"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/judge"
)

// GeneratorSpec sets the LLM generator of a built-in arm (SPEC §4). With a
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
	// MaxTokens caps an answer; 0 means generate.DefaultMaxTokens.
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
	judgeKeys     = []string{"model", "metrics"}
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
			if !slices.Contains(judge.AllMetrics(), m) {
				errs = append(errs, fmt.Errorf("%sarm %q: unknown judge metric %q%s; judge metrics: %s", at, a.Name, m,
					suggest.Hint(m, judge.AllMetrics()), strings.Join(judge.AllMetrics(), ", ")))
			}
		}
	}
	return errs
}

// Judge scores an arm's answers (package judge's *judge.Judge is one).
// The engine calls Score for every query the arm answered, after exact
// match and token F1, and adds the scores to the query's; an error is
// recorded as the query's judge error (JUDGE_ERRORS) and the failed metrics
// are absent, never zero. Score must be safe for concurrent use.
type Judge interface {
	Score(ctx context.Context, q lasagna.Query, out lasagna.Output) (judge.Result, error)
	// Model is the judge model as requested (judge_model in held_fixed).
	Model() string
}

// generationArm returns the built-in arm of a spec with a generator.
func (d Deps) generationArm(spec ArmSpec, topK int) (Arm, error) {
	where := fmt.Sprintf("%sarm %q", posPrefix(spec.Pos), spec.Name)
	if errs := checkGeneration(spec, posPrefix(spec.Pos)); len(errs) > 0 {
		return Arm{}, errs[0]
	}
	if d.LLM == nil {
		return Arm{}, fmt.Errorf("%s: the %s generator needs an LLM endpoint; configure one (see `lasagna help benchmark run`)", where, spec.Generator.Kind)
	}
	g := *spec.Generator
	cfg := generate.Config{Model: g.Model, MaxTokens: g.MaxTokens, Repeat: Repeat}
	var (
		gen *generate.Generator
		err error
	)
	if g.Kind == GeneratorClosedBook {
		gen, err = generate.NewClosedBook(d.LLM, cfg)
	} else {
		gen, err = generate.NewGrounded(d.LLM, cfg)
	}
	if err != nil {
		return Arm{}, fmt.Errorf("%s: %w", where, err)
	}
	var arm Arm
	switch {
	case g.Kind == GeneratorClosedBook:
		arm = Arm{Name: spec.Name, TopK: topK, Answers: true, ClosedBook: true, Stages: map[lasagna.Stage]string{}}
		arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
			return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
				return answerWith(ctx, gen, q, nil)
			}), nil
		}
		arm.Stages[lasagna.StageGenerator] = gen.Describe()
	case spec.Retriever == "":
		arm = Arm{Name: spec.Name, TopK: topK, Answers: true, Stages: map[lasagna.Stage]string{}}
		arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
			return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
				ps := make([]lasagna.Document, len(q.Contexts))
				for i, c := range q.Contexts {
					ps[i] = lasagna.Document{ID: "context-" + strconv.Itoa(i+1), Text: c}
				}
				return answerWith(ctx, gen, q, ps)
			}), nil
		}
		arm.Stages[lasagna.StageGenerator] = gen.Describe() + " passages=gold_contexts"
	default:
		rspec := spec
		rspec.Generator, rspec.Judge = nil, nil
		if arm, err = d.Arm(rspec, topK); err != nil {
			return Arm{}, err
		}
		n := g.Passages
		if n == 0 {
			n = DefaultPassages
		}
		retrieve := arm.Build
		arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
			p, err := retrieve(ctx, b)
			if err != nil {
				return nil, err
			}
			docs := make(map[string]*lasagna.Document, len(b.Corpus))
			for i := range b.Corpus {
				docs[b.Corpus[i].ID] = &b.Corpus[i]
			}
			rag := lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
				out, err := p.Run(ctx, q)
				if err != nil {
					return out, err
				}
				var ps []lasagna.Document
				for _, h := range out.Hits[:min(n, len(out.Hits))] {
					if d, ok := docs[h.ID]; ok {
						ps = append(ps, *d)
					}
				}
				ans, err := answerWith(ctx, gen, q, ps)
				ans.Hits = out.Hits
				return ans, err
			})
			if fr, ok := p.(FactReporter); ok {
				return pipelineFacts{rag, fr.Facts()}, nil
			}
			return rag, nil
		}
		arm.Answers = true
		arm.Stages[lasagna.StageGenerator] = gen.Describe() + " passages=" + strconv.Itoa(n)
	}
	arm.Samples = true
	arm.Varied = spec.Varied
	if arm.Settings == nil {
		arm.Settings = map[string]any{}
	}
	if spec.Judge != nil {
		metrics := spec.Judge.Metrics
		if len(metrics) == 0 {
			metrics = judge.AllMetrics()
			if arm.ClosedBook {
				metrics = []string{judge.Correctness}
			}
		}
		j, err := judge.New(d.LLM, judge.Config{Model: spec.Judge.Model, Metrics: metrics, Repeat: Repeat})
		if err != nil {
			return Arm{}, fmt.Errorf("%s: %w", where, err)
		}
		arm.Judge = j
		arm.Settings["judge_model"] = j.Model()
		// The judge is not a stage, but its prompts decide its scores:
		// keep them in fixed_stages so a changed prompt changes the key.
		arm.Stages[StageJudge] = j.Describe()
	}
	return arm, nil
}

// StageJudge is the fixed_stages entry that describes an arm's judge
// (model, metrics, prompt versions). The judge scores and is not a
// pipeline stage (SPEC §6), but its configuration is held fixed like one.
const StageJudge lasagna.Stage = "judge"

// answerWith asks gen for an answer to q from ps and returns it as an
// Output (Passages are the texts gen saw). A generator error is the
// query's error.
func answerWith(ctx context.Context, gen lasagna.Generator, q lasagna.Query, ps []lasagna.Document) (lasagna.Output, error) {
	a, err := gen.Generate(ctx, q, ps)
	if err != nil {
		return lasagna.Output{}, err
	}
	var texts []string
	if len(ps) > 0 {
		texts = make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.Text
		}
	}
	return lasagna.Output{Answer: a.Text, Answered: true, Abstained: a.Abstained, Passages: texts}, nil
}

// Package llmarms holds the LLM-backed components of the engine's built-in
// arms: the embedder of dense and hybrid retrieval, the generators and the
// judge, each calling an OpenAI-compatible server through package llm.
//
// The engine assembles arms from these components but imports no LLM
// client, so a program that evaluates retrieval alone (a test that imports
// only evaltest, say) links no LLM SDK. Import this package when an arm
// calls a model:
//
//	client, err := llm.New(cfg)
//	arms, err := llmarms.Deps(client).Arms(sweep)
package llmarms

import (
	"context"
	"slices"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/generate"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/retrieval/embed"
)

// Deps returns the engine's Deps on client: OpenAI-compatible embedders
// (package retrieval/embed), the grounded and closed-book generators
// (package generate) and the LLM judge (package judge). Generators and
// judges pass the repeat index of each call (engine.Repeat) to the client,
// so repeats are cached apart.
func Deps(client *llm.Client) engine.Deps {
	return engine.Deps{
		Embedder: func(model string) (lasagna.Embedder, error) {
			return embed.NewOpenAI(client, embed.Config{Model: model})
		},
		Generator: func(spec engine.GeneratorSpec) (lasagna.Generator, error) {
			cfg := generate.Config{Model: spec.Model, MaxTokens: spec.MaxTokens, Repeat: engine.Repeat}
			if spec.Kind == engine.GeneratorClosedBook {
				return generate.NewClosedBook(client, cfg)
			}
			return generate.NewGrounded(client, cfg)
		},
		Judge: func(spec engine.JudgeSpec, metrics []string) (engine.Judge, error) {
			cfg := judge.Config{Model: spec.Model, Metrics: slices.Clone(metrics), Repeat: engine.Repeat,
				EmbeddingModel: spec.EmbeddingModel, Strictness: spec.Strictness}
			if cfg.EmbeddingModel == "" && client.EmbeddingModel() == "" {
				cfg.EmbeddingModel = engine.DefaultEmbeddingModel
			}
			for _, r := range spec.Rubrics {
				cfg.Rubrics = append(cfg.Rubrics, judge.Rubric{Name: r.Name, Criterion: r.Criterion, Scale: r.Scale})
			}
			j, err := judge.New(client, cfg)
			if err != nil {
				return nil, err
			}
			return Judge(j), nil
		},
	}
}

// Judge adapts an LLM judge of package judge to the engine (an Arm's Judge,
// evaltest's Arm.Judge): its scores become the query's judge metrics, and
// a reply from a dated snapshot of a model requested as an alias raises
// UNRESOLVED_JUDGE_ALIAS.
func Judge(j *judge.Judge) engine.Judge { return judgeAdapter{j} }

type judgeAdapter struct{ j *judge.Judge }

func (a judgeAdapter) Score(ctx context.Context, q lasagna.Query, out lasagna.Output) (engine.Judgement, error) {
	res, err := a.j.Score(ctx, q, out)
	return engine.Judgement{
		Scores:          res.Scores,
		Model:           res.Model,
		UnresolvedAlias: judge.UnresolvedAlias(a.j.Model(), res.Model),
	}, err
}

func (a judgeAdapter) Model() string     { return a.j.Model() }
func (a judgeAdapter) Metrics() []string { return a.j.Metrics() }
func (a judgeAdapter) Describe() string  { return a.j.Describe() }
func (a judgeAdapter) PromptVersion(metric string) (id, sha256 string, ok bool) {
	return a.j.PromptVersion(metric)
}

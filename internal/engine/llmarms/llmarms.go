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
			e, err := embed.NewOpenAI(client, embed.Config{Model: model, BatchSize: embedBatch})
			if err != nil {
				return nil, err
			}
			if model == "" {
				model = client.EmbeddingModel()
			}
			return embedder{e, client, model}, nil
		},
		Generator: func(spec engine.GeneratorSpec) (lasagna.Generator, error) {
			cfg := generate.Config{Model: spec.Model, MaxTokens: spec.MaxTokens, Repeat: engine.Repeat}
			newGen := generate.NewGrounded
			if spec.Kind == engine.GeneratorClosedBook {
				newGen = generate.NewClosedBook
			}
			g, err := newGen(client, cfg)
			if err != nil {
				return nil, err
			}
			return generator{g, client}, nil
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
			return JudgeOn(client, j), nil
		},
	}
}

// Judge adapts an LLM judge of package judge to the engine (an Arm's Judge,
// evaltest's Arm.Judge): its scores become the query's judge metrics, and
// a reply from a dated snapshot of a model requested as an alias raises
// UNRESOLVED_JUDGE_ALIAS.
func Judge(j *judge.Judge) engine.Judge { return judgeAdapter{j: j} }

// JudgeOn is Judge for a judge on client, whose spending a run's cost
// cap (engine.Options.MaxCost) reads.
func JudgeOn(client *llm.Client, j *judge.Judge) engine.Judge { return judgeAdapter{j, client} }

type judgeAdapter struct {
	j      *judge.Judge
	client *llm.Client
}

func (a judgeAdapter) EstimateCalls(q lasagna.Query, passages []lasagna.Document, answer string) []engine.PlannedCalls {
	out := lasagna.Output{Answer: answer, Answered: true}
	for _, p := range passages {
		out.Passages = append(out.Passages, p.Text)
	}
	return planned(a.j.Plan(q, out))
}

func (a judgeAdapter) SpentUSD() (any, float64) { return spent(a.client) }

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

// embedBatch is the number of texts per embeddings request (the
// embedder's batch size), which the estimate counts requests by.
const embedBatch = 128

// embedder is an OpenAI-compatible embedder that estimates its calls.
type embedder struct {
	*embed.OpenAI
	client *llm.Client
	model  string
}

func (e embedder) EstimateEmbed(texts []string) []engine.PlannedCalls {
	var calls []llm.Call
	for lo := 0; lo < len(texts); lo += embedBatch {
		calls = append(calls, llm.Call{Stage: llm.StageEmbedder, Model: e.model, Texts: texts[lo:min(lo+embedBatch, len(texts))], Embed: true})
	}
	return planned(calls)
}

func (e embedder) SpentUSD() (any, float64) { return spent(e.client) }

// generator is a built-in generator that estimates its calls.
type generator struct {
	*generate.Generator
	client *llm.Client
}

func (g generator) EstimateCalls(q lasagna.Query, passages []lasagna.Document, _ string) []engine.PlannedCalls {
	return planned(g.Plan(q, passages))
}

func (g generator) SpentUSD() (any, float64) { return spent(g.client) }

// planned totals calls per stage and model, priced at llm.DefaultPrices.
func planned(calls []llm.Call) []engine.PlannedCalls {
	prices := llm.DefaultPrices()
	var out []engine.PlannedCalls
	for _, c := range calls {
		i := slices.IndexFunc(out, func(p engine.PlannedCalls) bool { return p.Stage == string(c.Stage) && p.Model == c.Model })
		if i < 0 {
			_, ok := prices[c.Model]
			out = append(out, engine.PlannedCalls{Stage: string(c.Stage), Model: c.Model, Priced: ok})
			i = len(out) - 1
		}
		p := &out[i]
		in, outTok := c.InputTokens(), int64(c.MaxTokens)
		p.Calls++
		p.InputTokens += in
		p.OutputTokens += outTok
		if pr, ok := prices[c.Model]; ok {
			p.CostUSD += (float64(in)*pr.InputPerMTok + float64(outTok)*pr.OutputPerMTok) / 1e6
		}
	}
	return out
}

// spent returns client's tracker and the cost it has recorded.
func spent(client *llm.Client) (any, float64) {
	if client == nil {
		return nil, 0
	}
	t := client.Usage()
	usd := 0.0
	for _, su := range t.Snapshot() {
		usd += su.CostUSD
	}
	return t, usd
}

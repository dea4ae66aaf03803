package generate

import (
	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/llmplan"
	"github.com/lasagna-go/lasagna/llm"
)

func init() {
	llmplan.Generator = func(g any, q lasagna.Query, passages []lasagna.Document) []llmplan.Call {
		gen, ok := g.(*Generator)
		if !ok {
			return nil
		}
		return []llmplan.Call{{Stage: string(llm.StageGenerator), Model: gen.cfg.Model, MaxTokens: gen.cfg.MaxTokens,
			Texts: []string{gen.prompt.System, gen.userMessage(q, passages)}}}
	}
}

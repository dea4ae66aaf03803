package generate

import (
	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

// Plan returns the call Generate would make to answer q from passages,
// without making it (the dry run's estimate and the cost cap).
func (g *Generator) Plan(q lasagna.Query, passages []lasagna.Document) []llm.Call {
	return []llm.Call{{Stage: llm.StageGenerator, Model: g.cfg.Model, MaxTokens: g.cfg.MaxTokens,
		Texts: []string{g.prompt.System, g.userMessage(q, passages)}}}
}

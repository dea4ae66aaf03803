// Package llmplan carries the LLM calls a component would make for one
// query, without making them, from the packages that make them (generate,
// judge) to the engine's llmarms: the dry run's estimate and the cost
// cap's (docs/llm.md, "Cost before you spend"). Package generate and
// package judge set the hooks when they are linked; nothing here is
// public API.
package llmplan

import "github.com/lasagna-go/lasagna"

// Call is one planned LLM call: what it would send and its reply cap.
type Call struct {
	// Stage is the llm.Stage the call is charged to ("generator",
	// "judge", "embedder"); a string, so this package links no LLM client.
	Stage string
	Model string
	// Texts are the texts sent: the system prompt and the messages of a
	// chat call, the inputs of an embeddings call (Embed).
	Texts []string
	// MaxTokens is the reply cap of a chat call (0 for embeddings).
	MaxTokens int
	Embed     bool
}

// InputTokens estimates the prompt tokens of the call with the rule the
// llm client's token rate limit uses: bytes/4 + 1 per text.
func (c Call) InputTokens() int64 {
	var n int64
	for _, t := range c.Texts {
		n += int64(len(t)/4 + 1)
	}
	return n
}

// Generator returns the call a *generate.Generator g would make to answer
// q from passages; set by package generate.
var Generator func(g any, q lasagna.Query, passages []lasagna.Document) []Call

// Judge returns the calls a *judge.Judge j would make to judge out, the
// output for q, assuming an answer that does not abstain; set by package
// judge.
var Judge func(j any, q lasagna.Query, out lasagna.Output) []Call

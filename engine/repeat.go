package engine

import "context"

type repeatKey struct{}

// WithRepeat returns a context that carries the 0-based repeat index n of a
// query run several times (evaltest's Repeats). Pipelines read it with
// Repeat and pass it on to sampled LLM calls (llm.ChatRequest.Repeat), so
// that the repeats of a query are cached apart instead of replaying one
// answer.
func WithRepeat(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, repeatKey{}, n)
}

// Repeat returns the repeat index WithRepeat put in ctx, or 0.
func Repeat(ctx context.Context) int {
	n, _ := ctx.Value(repeatKey{}).(int)
	return n
}

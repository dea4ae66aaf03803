package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

const answerFormat = `Reply with one JSON object and nothing else: {"answer": "<the answer>", "abstained": false}. ` +
	`Give the shortest answer that is complete: a name, number, date or short phrase, not a sentence. `

// closedBookPrompt returns the prompt of the closed-book generator.
func closedBookPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "closed-book-v1",
		System: "You answer questions from your own knowledge. " + answerFormat +
			`If you do not know the answer, or the question has none, reply {"answer": "", "abstained": true}.`,
		User: "Question: {{question}}",
	}
}

// groundedPrompt returns the prompt of the grounded generator.
func groundedPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "grounded-v1",
		System: "You answer questions using only the numbered passages given with the question, never your own knowledge. " + answerFormat +
			`If the passages do not contain the answer, reply {"answer": "", "abstained": true}.`,
		User: "Passages:\n{{passages}}\n\nQuestion: {{question}}",
	}
}

// defaultMaxTokens caps a generated answer when Config.MaxTokens is 0.
const defaultMaxTokens = 256

// Config configures a generator. The zero value uses the client's default
// model, 256 tokens and repeat index 0.
type Config struct {
	// Model is the chat model; "" means the client's default (MODEL_NAME).
	Model string
	// MaxTokens caps the answer; 0 means 256.
	MaxTokens int
	// Repeat returns the repeat index of a call from its context (pass
	// engine.Repeat), so the repeats of a query are cached apart; nil
	// means 0.
	Repeat func(context.Context) int
}

// Generator is a built-in LLM generator; make one with NewClosedBook or
// NewGrounded. It implements lasagna.Generator and is safe for concurrent
// use.
type Generator struct {
	client   *llm.Client
	cfg      Config
	prompt   llm.Prompt
	grounded bool
}

var _ lasagna.Generator = (*Generator)(nil)

// NewClosedBook returns a generator that answers from the question alone.
// It is an error to give it passages.
func NewClosedBook(client *llm.Client, cfg Config) (*Generator, error) {
	return newGenerator(client, cfg, closedBookPrompt(), false)
}

// NewGrounded returns a generator that answers only from the passages it
// is given, and abstains when they do not hold the answer.
func NewGrounded(client *llm.Client, cfg Config) (*Generator, error) {
	return newGenerator(client, cfg, groundedPrompt(), true)
}

func newGenerator(client *llm.Client, cfg Config, p llm.Prompt, grounded bool) (*Generator, error) {
	if client == nil {
		return nil, errors.New("generate: no llm client")
	}
	if cfg.Model == "" {
		cfg.Model = client.Model()
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("generate: no model: set the generator's model or %s", llm.EnvModel)
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("generate: max tokens is %d; want 0 (the default, %d) or more", cfg.MaxTokens, defaultMaxTokens)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = defaultMaxTokens
	}
	return &Generator{client: client, cfg: cfg, prompt: p, grounded: grounded}, nil
}

// Kind returns "grounded" or "closed_book".
func (g *Generator) Kind() string {
	if g.grounded {
		return "grounded"
	}
	return "closed_book"
}

// Model returns the model the generator asks for.
func (g *Generator) Model() string { return g.cfg.Model }

// Prompt returns the generator's prompt.
func (g *Generator) Prompt() llm.Prompt { return g.prompt }

// Samples reports that the generator calls an LLM, whose output may vary
// between calls even at temperature 0: an arm built on it counts as
// sampling (engine.Sampler), so repeats apply and one run raises
// SINGLE_RUN.
func (g *Generator) Samples() bool { return true }

// Describe returns the canonical description of the generator for an
// arm's fixed stages: kind, model, answer cap, prompt id and prompt sha256,
// e.g. "grounded model=gpt-4o-mini max_tokens=256 prompt=grounded-v1
// sha256=…".
func (g *Generator) Describe() string {
	return fmt.Sprintf("%s model=%s max_tokens=%d temperature=0 prompt=%s sha256=%s",
		g.Kind(), g.cfg.Model, g.cfg.MaxTokens, g.prompt.ID, g.prompt.SHA256())
}

// Generate answers q. A grounded generator shows the model the passages
// (numbered, with titles when set); a closed-book one refuses passages.
// The error of a failed call is the *llm.Error; an answer that is not the
// JSON object the prompt asks for is an error too, never an empty answer.
func (g *Generator) Generate(ctx context.Context, q lasagna.Query, passages []lasagna.Document) (lasagna.Answer, error) {
	if !g.grounded && len(passages) > 0 {
		return lasagna.Answer{}, fmt.Errorf("closed-book generator was given %d passages; it answers from the question alone", len(passages))
	}
	repeat := 0
	if g.cfg.Repeat != nil {
		repeat = g.cfg.Repeat(ctx)
	}
	resp, err := g.client.Chat(ctx, llm.ChatRequest{
		System:    g.prompt.System,
		Messages:  []llm.Message{{Role: "user", Content: g.userMessage(q, passages)}},
		Model:     g.cfg.Model,
		MaxTokens: g.cfg.MaxTokens,
		JSON:      true,
		Repeat:    repeat,
		Stage:     llm.StageGenerator,
		// An unparseable answer is never cached, so a rerun asks again.
		Validate: func(content string) error { _, err := parseAnswer(content); return err },
	})
	if err != nil {
		return lasagna.Answer{}, fmt.Errorf("generator: %w", err)
	}
	a, err := parseAnswer(resp.Content)
	if err != nil {
		return lasagna.Answer{}, fmt.Errorf("generator (model %s): %w", resp.Model, err)
	}
	return a, nil
}

func (g *Generator) userMessage(q lasagna.Query, passages []lasagna.Document) string {
	var ps strings.Builder
	for i, p := range passages {
		if i > 0 {
			ps.WriteString("\n\n")
		}
		fmt.Fprintf(&ps, "[%d] ", i+1)
		if p.Title != "" {
			ps.WriteString(p.Title)
			ps.WriteString("\n")
		}
		ps.WriteString(p.Text)
	}
	if len(passages) == 0 {
		ps.WriteString("(none)")
	}
	r := strings.NewReplacer("{{question}}", q.Text, "{{passages}}", ps.String())
	return r.Replace(g.prompt.User)
}

// parseAnswer parses a generator's reply: exactly one JSON object with a
// string "answer" and a boolean "abstained", and no other key. An
// abstention is returned with empty Text whatever the answer said; an empty
// answer that is not marked abstained, a missing key, a wrong type, an
// unknown key or trailing text are errors.
func parseAnswer(content string) (lasagna.Answer, error) {
	var v struct {
		Answer    *string `json:"answer"`
		Abstained *bool   `json:"abstained"`
	}
	if err := decodeStrict(content, &v); err != nil {
		return lasagna.Answer{}, err
	}
	switch {
	case v.Answer == nil:
		return lasagna.Answer{}, fmt.Errorf("unusable answer %s: no \"answer\" key", quote(content))
	case v.Abstained == nil:
		return lasagna.Answer{}, fmt.Errorf("unusable answer %s: no \"abstained\" key", quote(content))
	case *v.Abstained:
		return lasagna.Answer{Abstained: true}, nil
	case strings.TrimSpace(*v.Answer) == "":
		return lasagna.Answer{}, fmt.Errorf("unusable answer %s: empty answer without \"abstained\": true", quote(content))
	}
	return lasagna.Answer{Text: strings.TrimSpace(*v.Answer)}, nil
}

// decodeStrict decodes exactly one JSON object with no unknown field.
func decodeStrict(content string, v any) error {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("unusable answer %s: %v", quote(content), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unusable answer %s: text after the JSON object", quote(content))
	}
	if t := bytes.TrimSpace([]byte(content)); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("unusable answer %s: not a JSON object", quote(content))
	}
	return nil
}

func quote(s string) string {
	const n = 120
	if len(s) > n {
		s = s[:n] + "…"
	}
	return fmt.Sprintf("%q", s)
}

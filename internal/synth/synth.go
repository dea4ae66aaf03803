package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/llm"
)

// Chatter is what Synthesize needs of an LLM client; *llm.Client is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error)
}

// The reasons a planned question is dropped, as counted in
// Result.Dropped.
const (
	// DropLLMError: a call failed after the client's retries.
	DropLLMError = "llm_error"
	// DropUnparseable: the generation answer is not a JSON object with a
	// non-empty "question" (and, except for unanswerable questions, a
	// non-empty "answer").
	DropUnparseable = "unparseable"
	// DropUnparseableVerification: the verification answer is not a JSON
	// object with the boolean asked for.
	DropUnparseableVerification = "unparseable_verification"
	// DropUnsupported: the check found the answer not supported by the
	// source passages.
	DropUnsupported = "unsupported"
	// DropAnswerable: the check found an unanswerable question answered by
	// its passage or one of the three passages sharing the most words with
	// it.
	DropAnswerable = "answerable"
	// DropDuplicate: the question repeats an earlier kept question (same
	// words, case and spacing aside).
	DropDuplicate = "duplicate"
)

// Drop is one planned question that produced no row.
type Drop struct {
	Index  int // position in Plan.Questions
	Type   QuestionType
	Reason string // one of the Drop* constants
	Detail string
}

// Result is the outcome of Synthesize.
type Result struct {
	Plan Plan
	// Rows are the verified questions in plan order, with ids synth-0001,
	// synth-0002, … numbered in that order.
	Rows []datasets.Row
	// Dropped counts the dropped questions by reason; Drops lists them.
	Dropped map[string]int
	Drops   []Drop
}

// outcome is what one planned question produced.
type outcome struct {
	row      datasets.Row
	question string
	drop     *Drop
	calls    int // successful calls
	err      error
}

// Synthesize writes the questions of MakePlan(docs, opts) with client: per
// question a generation call (strict JSON {"question", "answer"}) and a
// verification call (the answer must be supported by the source passages;
// an unanswerable question must not be answered by its passage nor by the
// three passages sharing the most words with it). Calls carry the Stage
// llm.StageSynthesis, JSON mode and opts.Model. A question that fails
// either step is dropped and counted by reason (see the Drop* constants),
// never replaced by a made-up row, so Result.Rows may hold fewer than
// opts.N rows.
//
// Each row has the question, its answer (none for unanswerable questions),
// the source passages as contexts, and metadata question_type,
// source_doc_ids, prompt_id, prompt_sha256, model (as the server named
// it), seed, synthetic (true) and unanswerable. The rows do not depend on
// opts.Concurrency.
//
// Synthesize returns an error, with the Result so far, when the plan cannot
// be made, when ctx ends, or when every LLM call failed.
func Synthesize(ctx context.Context, client Chatter, docs []lasagna.Document, opts Options) (Result, error) {
	plan, err := MakePlan(docs, opts)
	if err != nil {
		return Result{}, err
	}
	res := Result{Plan: plan, Dropped: map[string]int{}}
	workers := opts.Concurrency
	if workers <= 0 {
		workers = 4
	}
	outs := make([]outcome, len(plan.Questions))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(plan.Questions)) {
		wg.Go(func() {
			for i := range next {
				outs[i] = ask(ctx, client, plan, i)
			}
		})
	}
feed:
	for i := range plan.Questions {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("synth: %w", err)
	}
	calls := 0
	var firstErr error
	seen := map[string]int{}
	for i, o := range outs {
		calls += o.calls
		if o.err != nil && firstErr == nil {
			firstErr = o.err
		}
		if o.drop == nil {
			key := strings.Join(strings.Fields(strings.ToLower(o.question)), " ")
			if j, dup := seen[key]; dup {
				o.drop = &Drop{Index: i, Type: plan.Questions[i].Type, Reason: DropDuplicate, Detail: fmt.Sprintf("same question as planned question %d", j+1)}
			} else {
				seen[key] = i
			}
		}
		if o.drop != nil {
			res.Drops = append(res.Drops, *o.drop)
			res.Dropped[o.drop.Reason]++
			continue
		}
		o.row.ID = fmt.Sprintf("synth-%04d", len(res.Rows)+1)
		res.Rows = append(res.Rows, o.row)
	}
	if calls == 0 && len(plan.Questions) > 0 {
		return res, fmt.Errorf("synth: every LLM call failed (%d questions dropped); first error: %w", len(plan.Questions), firstErr)
	}
	return res, nil
}

// ask generates and verifies planned question i.
func ask(ctx context.Context, client Chatter, plan Plan, i int) outcome {
	q := plan.Questions[i]
	drop := func(o outcome, reason, detail string) outcome {
		o.drop = &Drop{Index: i, Type: q.Type, Reason: reason, Detail: detail}
		return o
	}
	var o outcome
	resp, err := client.Chat(ctx, llm.ChatRequest{
		System:    q.Prompt.System,
		Messages:  []llm.Message{{Role: "user", Content: q.Prompt.User}},
		Model:     plan.Model,
		MaxTokens: GenerationMaxTokens,
		JSON:      true,
		Stage:     llm.StageSynthesis,
	})
	if err != nil {
		o.err = err
		return drop(o, DropLLMError, "generation: "+err.Error())
	}
	o.calls++
	var gen struct {
		Question *string `json:"question"`
		Answer   any     `json:"answer"`
	}
	if err := decodeObject(resp.Content, &gen); err != nil {
		return drop(o, DropUnparseable, err.Error())
	}
	question := ""
	if gen.Question != nil {
		question = strings.TrimSpace(*gen.Question)
	}
	if question == "" {
		return drop(o, DropUnparseable, `no non-empty "question" string`)
	}
	answer := ""
	if q.Type != Unanswerable {
		s, ok := gen.Answer.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return drop(o, DropUnparseable, `no non-empty "answer" string`)
		}
		answer = strings.TrimSpace(s)
	}
	o.question = question

	v := verificationPrompt(q, question, answer)
	vresp, err := client.Chat(ctx, llm.ChatRequest{
		System:    v.System,
		Messages:  []llm.Message{{Role: "user", Content: v.User}},
		Model:     plan.Model,
		MaxTokens: VerificationMaxTokens,
		JSON:      true,
		Stage:     llm.StageSynthesis,
	})
	if err != nil {
		o.err = err
		return drop(o, DropLLMError, "verification: "+err.Error())
	}
	o.calls++
	if q.Type == Unanswerable {
		var chk struct {
			Answered *bool `json:"answered"`
		}
		if err := decodeObject(vresp.Content, &chk); err != nil || chk.Answered == nil {
			return drop(o, DropUnparseableVerification, detailOr(err, `no boolean "answered"`))
		}
		if *chk.Answered {
			return drop(o, DropAnswerable, "the checker found the question answered by its passage or a neighbouring one")
		}
	} else {
		var chk struct {
			Supported *bool `json:"supported"`
		}
		if err := decodeObject(vresp.Content, &chk); err != nil || chk.Supported == nil {
			return drop(o, DropUnparseableVerification, detailOr(err, `no boolean "supported"`))
		}
		if !*chk.Supported {
			return drop(o, DropUnsupported, "the checker found the answer not supported by the source passages")
		}
	}

	row := datasets.Row{Question: question}
	docIDs := make([]string, 0, len(q.Sources))
	for _, p := range q.Sources {
		row.Contexts = append(row.Contexts, p.Text)
		docIDs = append(docIDs, p.DocID)
	}
	if answer != "" {
		row.Answers = []string{answer}
	}
	row.Metadata = map[string]any{
		"question_type":  string(q.Type),
		"source_doc_ids": docIDs,
		"prompt_id":      q.Prompt.ID,
		"prompt_sha256":  q.Prompt.SHA256,
		"model":          resp.Model,
		"seed":           plan.Seed,
		"synthetic":      true,
		"unanswerable":   q.Type == Unanswerable,
	}
	o.row = row
	return o
}

func detailOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// decodeObject parses content as one JSON object into v. A single Markdown
// code fence around the object is removed first; anything else around it
// is an error.
func decodeObject(content string, v any) error {
	s := strings.TrimSpace(content)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if body, ok := strings.CutSuffix(rest, "```"); ok {
			body = strings.TrimPrefix(body, "json")
			s = strings.TrimSpace(body)
		}
	}
	if !strings.HasPrefix(s, "{") {
		return fmt.Errorf("not a JSON object: %q", truncate(content, 80))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid JSON object (%v): %q", err, truncate(content, 80))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("text after the JSON object: %q", truncate(content, 80))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	b := bytes.Runes([]byte(s))
	if len(b) <= n {
		return s
	}
	return string(b[:n]) + "…"
}

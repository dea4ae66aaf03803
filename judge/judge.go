package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/llm"
)

// Judge metric names.
const (
	Correctness  = "judge_correctness"
	Groundedness = "groundedness"
)

// allMetrics lists the built-in judge metrics in a fixed order.
func allMetrics() []string { return append([]string{Correctness, Groundedness}, ragasMetrics()...) }

// defaultMetrics are the metrics judged when Config.Metrics is nil (with
// every rubric).
func defaultMetrics() []string { return []string{Correctness, Groundedness} }

// correctnessPrompt returns the prompt of judge_correctness.
func correctnessPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-correctness-v1",
		System: "You grade answers to questions against a reference answer. An answer is correct when it states the same " +
			"fact as the reference (wording, extra detail and format may differ) and says nothing that contradicts it; " +
			"otherwise it is incorrect. " +
			`Reply with one JSON object and nothing else: {"verdict": "correct" or "incorrect", "reason": "<one short sentence>"}.`,
		User: "Question: {{question}}\nReference answer: {{reference}}\nAnswer to grade: {{answer}}",
	}
}

// groundednessPrompt returns the prompt of groundedness.
func groundednessPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-groundedness-v1",
		System: "You check whether an answer is supported by the numbered passages given with it. It is supported when every " +
			"claim it makes is stated in or directly follows from the passages; otherwise (a claim not in the passages, or " +
			"contradicting them) it is unsupported. Do not use your own knowledge. " +
			`Reply with one JSON object and nothing else: {"verdict": "supported" or "unsupported", "reason": "<one short sentence>"}.`,
		User: "Passages:\n{{passages}}\n\nQuestion: {{question}}\nAnswer to check: {{answer}}",
	}
}

// defaultMaxTokens caps a judge reply when Config.MaxTokens is 0.
const defaultMaxTokens = 256

// Config configures a Judge. The zero value judges judge_correctness and
// groundedness with the client's default model.
type Config struct {
	// Model is the judge model; "" means the client's default.
	Model string
	// Metrics are the metrics to score: judge_correctness, groundedness,
	// faithfulness, answer_relevancy, context_precision, context_recall
	// and the names of Rubrics; nil means judge_correctness, groundedness
	// and every rubric. A rubric a non-nil Metrics leaves out is an error.
	Metrics []string
	// MaxTokens caps a reply; 0 means 256, and 1024 for the replies that
	// list statements (faithfulness, context_recall).
	MaxTokens int
	// EmbeddingModel is the embedding model of answer_relevancy; "" means
	// the client's (llm.Config.EmbeddingModel).
	EmbeddingModel string
	// Strictness is how many questions answer_relevancy generates from an
	// answer; 0 means 3.
	Strictness int
	// Rubrics are judge metrics of the user's (see Rubric).
	Rubrics []Rubric
	// Repeat returns the repeat index of a call from its context (pass
	// engine.Repeat); nil means 0.
	Repeat func(context.Context) int
}

// Judge scores answers with an LLM. Make one with New; it is safe for
// concurrent use.
type Judge struct {
	client *llm.Client
	cfg    Config
	// listMax caps the replies that list statements.
	listMax int
}

// New returns a judge on client. An unknown metric or a missing model is
// an error.
func New(client *llm.Client, cfg Config) (*Judge, error) {
	if client == nil {
		return nil, errors.New("judge: no llm client")
	}
	if cfg.Model == "" {
		cfg.Model = client.Model()
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("judge: no model: set the judge's model or %s", llm.EnvModel)
	}
	rubrics, err := checkRubrics(cfg.Rubrics)
	if err != nil {
		return nil, err
	}
	cfg.Rubrics = rubrics
	var rubricNames []string
	for _, r := range rubrics {
		rubricNames = append(rubricNames, r.Name)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = append(defaultMetrics(), rubricNames...)
	}
	known := append(allMetrics(), rubricNames...)
	for i, m := range cfg.Metrics {
		switch {
		case !slices.Contains(known, m):
			return nil, fmt.Errorf("judge: unknown metric %q; judge metrics: %s", m, strings.Join(known, ", "))
		case slices.Contains(cfg.Metrics[:i], m):
			return nil, fmt.Errorf("judge: metric %q is listed twice", m)
		}
	}
	for _, r := range rubricNames {
		if !slices.Contains(cfg.Metrics, r) {
			return nil, fmt.Errorf("judge: rubric %s is not among the metrics to score (%s); add it or drop the rubric", r, strings.Join(cfg.Metrics, ", "))
		}
	}
	if cfg.Strictness < 0 {
		return nil, fmt.Errorf("judge: strictness is %d; want 1 or more (or 0 for %d)", cfg.Strictness, defaultStrictness)
	}
	if cfg.Strictness == 0 {
		cfg.Strictness = defaultStrictness
	}
	if slices.Contains(cfg.Metrics, answerRelevancy) {
		if cfg.EmbeddingModel == "" {
			cfg.EmbeddingModel = client.EmbeddingModel()
		}
		if cfg.EmbeddingModel == "" {
			return nil, errors.New("judge: answer_relevancy compares embeddings and no embedding model is set: set Config.EmbeddingModel of the judge or of the llm client")
		}
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("judge: max tokens is %d; want 0 (the default, %d) or more", cfg.MaxTokens, defaultMaxTokens)
	}
	listMax := cfg.MaxTokens
	if listMax == 0 {
		listMax = listMaxTokens
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = defaultMaxTokens
	}
	cfg.Metrics = slices.Clone(cfg.Metrics)
	return &Judge{client: client, cfg: cfg, listMax: listMax}, nil
}

// Model returns the judge model as requested.
func (j *Judge) Model() string { return j.cfg.Model }

// Metrics returns the metrics the judge scores.
func (j *Judge) Metrics() []string { return slices.Clone(j.cfg.Metrics) }

// Describe returns the canonical description of the judge: model, metrics
// and the id and sha256 of each prompt, e.g. "llm-judge model=gpt-4o
// max_tokens=256 temperature=0 judge_correctness=judge-correctness-v1@…".
func (j *Judge) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm-judge model=%s max_tokens=%d temperature=0", j.cfg.Model, j.cfg.MaxTokens)
	for _, m := range j.cfg.Metrics {
		if m != Correctness && m != Groundedness {
			b.WriteString(" " + j.describeMetric(m))
			continue
		}
		p := promptOf(m)
		fmt.Fprintf(&b, " %s=%s@%s", m, p.ID, p.SHA256())
	}
	return b.String()
}

func promptOf(metric string) llm.Prompt {
	if metric == Groundedness {
		return groundednessPrompt()
	}
	return correctnessPrompt()
}

// Result is the judgement of one answer.
type Result struct {
	// Scores maps each judged metric to its score in [0, 1]. A metric
	// that does not apply (see the package doc) or whose call failed is
	// absent.
	Scores map[string]float64
	// Model is the model the server named in its reply ("" when no call
	// was made); it may be a dated snapshot of the model requested.
	Model string
	// Calls is the number of judge calls made (cache hits included).
	Calls int
	// Reasons maps each judged metric whose reply gave a reason to it.
	Reasons map[string]string
}

// Score judges out, the output of a pipeline for q. Metrics are judged one
// call each; the scores of the calls that succeeded are returned even when
// another failed, with an error naming every failed metric. A query the
// arm did not answer (Answered false) gets no scores and no error.
func (j *Judge) Score(ctx context.Context, q lasagna.Query, out lasagna.Output) (Result, error) {
	res := Result{Scores: map[string]float64{}}
	if !out.Answered {
		return res, nil
	}
	abstained := out.Abstained || metrics.NormalizeAnswer(out.Answer) == ""
	var errs []error
	for _, m := range j.cfg.Metrics {
		if m != Correctness && m != Groundedness {
			v, ok, err := j.scoreMore(ctx, m, q, out, abstained, &res)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m, err))
			}
			if ok {
				res.Scores[m] = v
			}
			continue
		}
		var (
			call bool
			val  float64
		)
		switch m {
		case Correctness:
			switch {
			case q.Unanswerable:
				val = b2f(abstained)
			case len(q.Answers) == 0:
				continue
			case abstained:
				val = 0
			default:
				call = true
			}
		case Groundedness:
			switch {
			case abstained:
				continue
			case len(out.Passages) == 0:
				val = 0
			default:
				call = true
			}
		}
		if call {
			v, model, reason, err := j.call(ctx, m, q, out)
			res.Calls++
			if reason != "" && err == nil {
				if res.Reasons == nil {
					res.Reasons = map[string]string{}
				}
				res.Reasons[m] = reason
			}
			if model != "" && res.Model == "" {
				res.Model = model
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m, err))
				continue
			}
			val = v
		}
		res.Scores[m] = val
	}
	return res, errors.Join(errs...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// call makes one judge call and returns the score, the model the server
// named and the reply's reason.
func (j *Judge) call(ctx context.Context, metric string, q lasagna.Query, out lasagna.Output) (float64, string, string, error) {
	p := promptOf(metric)
	var ps strings.Builder
	for i, t := range out.Passages {
		if i > 0 {
			ps.WriteString("\n\n")
		}
		fmt.Fprintf(&ps, "[%d] %s", i+1, t)
	}
	ref := ""
	if len(q.Answers) > 0 {
		ref = q.Answers[0]
	}
	user := strings.NewReplacer("{{question}}", q.Text, "{{reference}}", ref, "{{answer}}", out.Answer, "{{passages}}", ps.String()).Replace(p.User)
	repeat := 0
	if j.cfg.Repeat != nil {
		repeat = j.cfg.Repeat(ctx)
	}
	want := [2]string{"correct", "incorrect"}
	if metric == Groundedness {
		want = [2]string{"supported", "unsupported"}
	}
	resp, err := j.client.Chat(ctx, llm.ChatRequest{
		System:    p.System,
		Messages:  []llm.Message{{Role: "user", Content: user}},
		Model:     j.cfg.Model,
		MaxTokens: j.cfg.MaxTokens,
		JSON:      true,
		Repeat:    repeat,
		Stage:     llm.StageJudge,
		// An unparseable verdict is never cached, so a rerun asks again.
		Validate: func(content string) error { _, err := parseVerdict(content, want[0], want[1]); return err },
	})
	if err != nil {
		return 0, "", "", err
	}
	v, err := parseVerdict(resp.Content, want[0], want[1])
	return v, resp.Model, replyReason(resp.Content), err
}

// parseVerdict parses a judge reply: exactly one JSON object with a string
// "verdict" equal to pass (score 1) or fail (score 0) and an optional
// string "reason", and no other key. Anything else is an error.
func parseVerdict(content, pass, fail string) (float64, error) {
	var v struct {
		Verdict *string `json:"verdict"`
		Reason  *string `json:"reason"`
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if t := strings.TrimSpace(content); t == "" || t[0] != '{' {
		return 0, fmt.Errorf("unparseable judge reply %s: not a JSON object", quote(content))
	}
	if err := dec.Decode(&v); err != nil {
		return 0, fmt.Errorf("unparseable judge reply %s: %v", quote(content), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, fmt.Errorf("unparseable judge reply %s: text after the JSON object", quote(content))
	}
	switch {
	case v.Verdict == nil:
		return 0, fmt.Errorf("unparseable judge reply %s: no \"verdict\" key", quote(content))
	case *v.Verdict == pass:
		return 1, nil
	case *v.Verdict == fail:
		return 0, nil
	}
	return 0, fmt.Errorf("unparseable judge reply %s: verdict %q is neither %q nor %q", quote(content), *v.Verdict, pass, fail)
}

func quote(s string) string {
	const n = 120
	if len(s) > n {
		s = s[:n] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// datedSuffix matches a snapshot date at the end of a model name:
// -2024-08-06, -20240806 or OpenAI's older -0613 (month and day).
var datedSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-(?:(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))$`)
})

// dated reports whether model names a dated snapshot (a name ending in a
// date such as -2024-08-06, -20240806 or -0613), as opposed to an alias
// that a provider may move to a new snapshot at any time.
func dated(model string) bool { return datedSuffix().MatchString(model) }

// UnresolvedAlias reports whether a judge requested as model (an alias,
// not dated) was answered by the server as a different, dated snapshot
// answered: judgements then depend on whichever snapshot the alias points
// to that day (UNRESOLVED_JUDGE_ALIAS).
func UnresolvedAlias(requested, answered string) bool {
	return answered != "" && answered != requested && !dated(requested) && dated(answered)
}

package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

// The RAG judge metrics, defined as Ragas v0.4.0 defines them
// (src/ragas/metrics/collections/*/metric.py; docs/metrics.md, "LLM judge
// metrics").
const (
	faithfulness     = "faithfulness"
	answerRelevancy  = "answer_relevancy"
	contextPrecision = "context_precision"
	contextRecall    = "context_recall"
)

// ragasMetrics lists the RAG judge metrics in a fixed order.
func ragasMetrics() []string {
	return []string{faithfulness, answerRelevancy, contextPrecision, contextRecall}
}

// defaultStrictness is how many questions answer_relevancy generates from
// an answer when Config.Strictness is 0 (Ragas's strictness default).
const defaultStrictness = 3

// listMaxTokens caps a reply that lists statements (faithfulness,
// context_recall) when Config.MaxTokens is 0: a long answer yields many
// statements, each with a reason.
const listMaxTokens = 1024

// apEpsilon is the epsilon Ragas adds to the denominator of
// context_precision's average precision.
const apEpsilon = 1e-10

func statementsPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-faithfulness-statements-v1",
		System: "You break an answer into statements. Given a question and its answer, split each sentence of the answer into " +
			"one or more atomic statements, each fully understandable on its own: replace every pronoun with what it refers to. " +
			"Keep to what the answer says and add nothing. " +
			`Reply with one JSON object and nothing else: {"statements": ["<statement>", ...]} (an empty list when the answer states nothing).`,
		User: "Question: {{question}}\nAnswer: {{answer}}",
	}
}

func faithfulnessVerdictsPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-faithfulness-verdicts-v1",
		System: "You judge the faithfulness of numbered statements to a context. For each statement give verdict 1 if it can be " +
			"directly inferred from the context and 0 if it cannot (not stated there, or contradicted). Do not use your own knowledge. " +
			`Reply with one JSON object and nothing else: {"statements": [{"statement": "<the statement, word for word>", ` +
			`"reason": "<one short sentence>", "verdict": 0 or 1}, ...]}, one entry per statement, in the order given.`,
		User: "Context:\n{{context}}\n\nStatements:\n{{statements}}",
	}
}

func answerRelevancyPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-answer-relevancy-v1",
		System: "You write the question an answer responds to. Given an answer, write one question that it answers, and say " +
			"whether the answer is noncommittal: 1 if it is evasive, vague or ambiguous (\"I don't know\", \"I'm not sure\", " +
			"\"it depends\"), 0 if it is substantive. " +
			`Reply with one JSON object and nothing else: {"question": "<the question>", "noncommittal": 0 or 1}.`,
		User: "Answer: {{answer}}",
	}
}

func contextPrecisionPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-context-precision-v1",
		System: "You check whether a context was useful in arriving at the given answer to a question. Give verdict 1 if it " +
			"was useful and 0 if it was not. " +
			`Reply with one JSON object and nothing else: {"reason": "<one short sentence>", "verdict": 0 or 1}.`,
		User: "Question: {{question}}\nAnswer: {{reference}}\nContext: {{context}}",
	}
}

func contextRecallPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-context-recall-v1",
		System: "You check which statements of an answer a context supports. Split the answer into its statements and classify " +
			"each: attributed 1 if the statement can be attributed to the context, 0 if it cannot. Do not use your own knowledge. " +
			`Reply with one JSON object and nothing else: {"classifications": [{"statement": "<statement>", ` +
			`"reason": "<one short sentence>", "attributed": 0 or 1}, ...]}.`,
		User: "Question: {{question}}\nContext:\n{{context}}\n\nAnswer: {{reference}}",
	}
}

// promptsOf returns the prompts a RAG judge metric calls, in call order.
func promptsOf(metric string) []llm.Prompt {
	switch metric {
	case faithfulness:
		return []llm.Prompt{statementsPrompt(), faithfulnessVerdictsPrompt()}
	case answerRelevancy:
		return []llm.Prompt{answerRelevancyPrompt()}
	case contextPrecision:
		return []llm.Prompt{contextPrecisionPrompt()}
	case contextRecall:
		return []llm.Prompt{contextRecallPrompt()}
	}
	return nil
}

// describeMetric returns metric's part of Describe: its prompts (id@sha256,
// joined by "+") and the settings that decide its score.
func (j *Judge) describeMetric(metric string) string {
	if r, ok := j.rubric(metric); ok {
		p := rubricPrompt()
		return fmt.Sprintf("%s=%s@%s scale=%d criterion_sha256=%s", metric, p.ID, p.SHA256(), r.Scale, r.criterionSHA256())
	}
	var ids []string
	for _, p := range promptsOf(metric) {
		ids = append(ids, p.ID+"@"+p.SHA256())
	}
	s := metric + "=" + strings.Join(ids, "+")
	switch metric {
	case answerRelevancy:
		s += fmt.Sprintf(" strictness=%d embedding_model=%s", j.cfg.Strictness, j.cfg.EmbeddingModel)
	case faithfulness, contextRecall:
		s += fmt.Sprintf(" max_tokens=%d", j.maxTokens(metric))
	}
	return s
}

// maxTokens is the reply cap of metric's calls.
func (j *Judge) maxTokens(metric string) int {
	if metric == faithfulness || metric == contextRecall {
		return j.listMax
	}
	return j.cfg.MaxTokens
}

// scoreMore scores metric, one of the RAG judge metrics or a rubric, on
// out: ok is false when the metric does not apply (see the package doc).
func (j *Judge) scoreMore(ctx context.Context, metric string, q lasagna.Query, out lasagna.Output, abstained bool, res *Result) (val float64, ok bool, err error) {
	ref, hasRef := "", len(q.Answers) > 0 && !q.Unanswerable
	if hasRef {
		ref = q.Answers[0]
	}
	if r, isRubric := j.rubric(metric); isRubric {
		v, err := j.scoreRubric(ctx, r, q, out, res)
		return v, err == nil, err
	}
	switch metric {
	case faithfulness:
		switch {
		case abstained:
			return 0, false, nil
		case len(out.Passages) == 0:
			return 0, true, nil
		}
		v, claims, err := j.faithfulness(ctx, q, out, res)
		if err == nil && !claims {
			return 0, false, nil
		}
		return v, err == nil, err
	case answerRelevancy:
		if abstained {
			return 0, true, nil
		}
		v, err := j.answerRelevancy(ctx, q, out, res)
		return v, err == nil, err
	case contextPrecision:
		switch {
		case !hasRef:
			return 0, false, nil
		case len(out.Passages) == 0:
			return 0, true, nil
		}
		v, err := j.contextPrecision(ctx, q, ref, out, res)
		return v, err == nil, err
	case contextRecall:
		switch {
		case !hasRef:
			return 0, false, nil
		case len(out.Passages) == 0:
			return 0, true, nil
		}
		v, err := j.contextRecall(ctx, q, ref, out, res)
		return v, err == nil, err
	}
	return 0, false, fmt.Errorf("unknown judge metric %q", metric)
}

// chat makes one judge call with prompt p (its {{name}} placeholders
// replaced by vars) whose reply parse must accept; sample tells apart the
// calls of one metric that ask the same prompt several times
// (answer_relevancy's questions).
func (j *Judge) chat(ctx context.Context, metric string, p llm.Prompt, vars map[string]string, sample int, parse func(string) error, res *Result) error {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	r := strings.NewReplacer(pairs...)
	repeat := 0
	if j.cfg.Repeat != nil {
		repeat = j.cfg.Repeat(ctx)
	}
	if metric == answerRelevancy {
		repeat = repeat*j.cfg.Strictness + sample
	}
	resp, err := j.client.Chat(ctx, llm.ChatRequest{
		System:    r.Replace(p.System),
		Messages:  []llm.Message{{Role: "user", Content: r.Replace(p.User)}},
		Model:     j.cfg.Model,
		MaxTokens: j.maxTokens(metric),
		JSON:      true,
		Repeat:    repeat,
		Stage:     llm.StageJudge,
		Validate:  parse,
	})
	res.Calls++
	if resp.Model != "" && res.Model == "" {
		res.Model = resp.Model
	}
	if err != nil {
		return err
	}
	return parse(resp.Content)
}

// joinPassages joins the passages as Ragas joins retrieved_contexts: one
// newline between them.
func joinPassages(ps []string) string { return strings.Join(ps, "\n") }

// faithfulness is Ragas's Faithfulness: the answer's statements, each
// verified against the passages; supported / total. claims is false when
// the answer yields no statement (Ragas: NaN), which leaves the metric out.
func (j *Judge) faithfulness(ctx context.Context, q lasagna.Query, out lasagna.Output, res *Result) (float64, bool, error) {
	var st statementsReply
	if err := j.chat(ctx, faithfulness, statementsPrompt(), map[string]string{"question": q.Text, "answer": out.Answer}, 0,
		func(c string) error { st = statementsReply{}; return parseStatements(c, &st) }, res); err != nil {
		return 0, false, err
	}
	if len(st.Statements) == 0 {
		return 0, false, nil
	}
	var list strings.Builder
	for i, s := range st.Statements {
		fmt.Fprintf(&list, "%d. %s\n", i+1, s)
	}
	var verdicts []int
	if err := j.chat(ctx, faithfulness, faithfulnessVerdictsPrompt(),
		map[string]string{"context": joinPassages(out.Passages), "statements": strings.TrimSuffix(list.String(), "\n")}, 0,
		func(c string) error { var err error; verdicts, err = parseNLI(c, len(st.Statements)); return err }, res); err != nil {
		return 0, true, err
	}
	return mean01(verdicts), true, nil
}

// answerRelevancy is Ragas's AnswerRelevancy: Strictness questions
// generated from the answer, the mean cosine similarity of their
// embeddings to the question's, 0 when every generation calls the answer
// noncommittal.
func (j *Judge) answerRelevancy(ctx context.Context, q lasagna.Query, out lasagna.Output, res *Result) (float64, error) {
	var (
		questions []string
		allNon    = true
	)
	for i := range j.cfg.Strictness {
		var r relevancyReply
		if err := j.chat(ctx, answerRelevancy, answerRelevancyPrompt(), map[string]string{"answer": out.Answer}, i,
			func(c string) error { r = relevancyReply{}; return parseRelevancy(c, &r) }, res); err != nil {
			return 0, err
		}
		if r.Question == "" { // skipped, as Ragas skips an empty question
			continue
		}
		questions = append(questions, r.Question)
		allNon = allNon && r.Noncommittal == 1
	}
	if len(questions) == 0 {
		return 0, fmt.Errorf("the judge generated no question from the answer in %d calls", j.cfg.Strictness)
	}
	if allNon {
		return 0, nil
	}
	vecs, _, err := j.client.EmbedFor(ctx, llm.StageJudge, append([]string{q.Text}, questions...), j.cfg.EmbeddingModel)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(questions)+1 {
		return 0, fmt.Errorf("%d embeddings for %d texts", len(vecs), len(questions)+1)
	}
	sum := 0.0
	for _, v := range vecs[1:] {
		c, err := cosine(v, vecs[0])
		if err != nil {
			return 0, err
		}
		sum += c
	}
	return sum / float64(len(questions)), nil
}

// cosine returns the cosine similarity of a and b.
func cosine(a, b []float32) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("embeddings of %d and %d dimensions", len(a), len(b))
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0, errors.New("an embedding is the zero vector; its cosine similarity is undefined")
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb)), nil
}

// contextPrecision is Ragas's ContextPrecision (with reference): a verdict
// per passage, in rank order, on whether it helps reach the reference;
// then averagePrecision.
func (j *Judge) contextPrecision(ctx context.Context, q lasagna.Query, ref string, out lasagna.Output, res *Result) (float64, error) {
	verdicts := make([]int, len(out.Passages))
	for i, p := range out.Passages {
		if err := j.chat(ctx, contextPrecision, contextPrecisionPrompt(),
			map[string]string{"question": q.Text, "reference": ref, "context": p}, 0,
			func(c string) error { var err error; verdicts[i], err = parseVerdict01(c); return err }, res); err != nil {
			return 0, fmt.Errorf("passage %d: %w", i+1, err)
		}
	}
	return averagePrecision(verdicts), nil
}

// averagePrecision is Ragas's _calculate_average_precision: the sum over
// the useful ranks k of precision@k, over the number of useful passages
// plus 1e-10 (so no useful passage scores 0, and all useful scores
// n/(n+1e-10), a hair under 1, as in Ragas).
func averagePrecision(v []int) float64 {
	num, useful, seen := 0.0, 0, 0
	for i, x := range v {
		seen += x
		if x == 1 {
			num += float64(seen) / float64(i+1)
		}
		useful += x
	}
	return num / (float64(useful) + apEpsilon)
}

// contextRecall is Ragas's ContextRecall: the reference's statements, each
// classified as attributable to the passages or not; attributed / total.
func (j *Judge) contextRecall(ctx context.Context, q lasagna.Query, ref string, out lasagna.Output, res *Result) (float64, error) {
	var attributed []int
	if err := j.chat(ctx, contextRecall, contextRecallPrompt(),
		map[string]string{"question": q.Text, "context": joinPassages(out.Passages), "reference": ref}, 0,
		func(c string) error { var err error; attributed, err = parseRecall(c); return err }, res); err != nil {
		return 0, err
	}
	return mean01(attributed), nil
}

func mean01(v []int) float64 {
	n := 0
	for _, x := range v {
		n += x
	}
	return float64(n) / float64(len(v))
}

// decodeReply decodes content, which must be exactly one JSON object with
// no key v lacks, into v.
func decodeReply(content string, v any) error {
	if t := strings.TrimSpace(content); t == "" || t[0] != '{' {
		return fmt.Errorf("unparseable judge reply %s: not a JSON object", quote(content))
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("unparseable judge reply %s: %v", quote(content), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unparseable judge reply %s: text after the JSON object", quote(content))
	}
	return nil
}

// binary checks that x, the value of key, is 0 or 1.
func binary(content, key string, x *float64) (int, error) {
	switch {
	case x == nil:
		return 0, fmt.Errorf("unparseable judge reply %s: no %q key", quote(content), key)
	case *x == 0:
		return 0, nil
	case *x == 1:
		return 1, nil
	}
	return 0, fmt.Errorf("unparseable judge reply %s: %q is %s, not 0 or 1", quote(content), key, strconv.FormatFloat(*x, 'g', -1, 64))
}

type statementsReply struct {
	Statements []string `json:"statements"`
}

func parseStatements(content string, r *statementsReply) error {
	var v struct {
		Statements *[]string `json:"statements"`
	}
	if err := decodeReply(content, &v); err != nil {
		return err
	}
	if v.Statements == nil {
		return fmt.Errorf("unparseable judge reply %s: no \"statements\" key", quote(content))
	}
	for i, s := range *v.Statements {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("unparseable judge reply %s: statement %d is empty", quote(content), i+1)
		}
	}
	r.Statements = *v.Statements
	return nil
}

// parseNLI parses faithfulness's verdicts: one per statement, in order.
func parseNLI(content string, n int) ([]int, error) {
	var v struct {
		Statements *[]struct {
			Statement *string  `json:"statement"`
			Reason    *string  `json:"reason"`
			Verdict   *float64 `json:"verdict"`
		} `json:"statements"`
	}
	if err := decodeReply(content, &v); err != nil {
		return nil, err
	}
	if v.Statements == nil {
		return nil, fmt.Errorf("unparseable judge reply %s: no \"statements\" key", quote(content))
	}
	if len(*v.Statements) != n {
		return nil, fmt.Errorf("unparseable judge reply %s: %d verdicts for %d statements", quote(content), len(*v.Statements), n)
	}
	out := make([]int, n)
	for i, s := range *v.Statements {
		if s.Statement == nil {
			return nil, fmt.Errorf("unparseable judge reply %s: entry %d has no \"statement\" key", quote(content), i+1)
		}
		x, err := binary(content, "verdict", s.Verdict)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		out[i] = x
	}
	return out, nil
}

type relevancyReply struct {
	Question     string
	Noncommittal int
}

func parseRelevancy(content string, r *relevancyReply) error {
	var v struct {
		Question     *string  `json:"question"`
		Noncommittal *float64 `json:"noncommittal"`
	}
	if err := decodeReply(content, &v); err != nil {
		return err
	}
	if v.Question == nil {
		return fmt.Errorf("unparseable judge reply %s: no \"question\" key", quote(content))
	}
	nc, err := binary(content, "noncommittal", v.Noncommittal)
	if err != nil {
		return err
	}
	r.Question, r.Noncommittal = strings.TrimSpace(*v.Question), nc
	return nil
}

// parseVerdict01 parses context_precision's reply.
func parseVerdict01(content string) (int, error) {
	var v struct {
		Reason  *string  `json:"reason"`
		Verdict *float64 `json:"verdict"`
	}
	if err := decodeReply(content, &v); err != nil {
		return 0, err
	}
	return binary(content, "verdict", v.Verdict)
}

// parseRecall parses context_recall's classifications (at least one).
func parseRecall(content string) ([]int, error) {
	var v struct {
		Classifications *[]struct {
			Statement  *string  `json:"statement"`
			Reason     *string  `json:"reason"`
			Attributed *float64 `json:"attributed"`
		} `json:"classifications"`
	}
	if err := decodeReply(content, &v); err != nil {
		return nil, err
	}
	if v.Classifications == nil || len(*v.Classifications) == 0 {
		return nil, fmt.Errorf("unparseable judge reply %s: no classified statement (\"classifications\" is missing or empty)", quote(content))
	}
	out := make([]int, len(*v.Classifications))
	for i, c := range *v.Classifications {
		if c.Statement == nil {
			return nil, fmt.Errorf("unparseable judge reply %s: classification %d has no \"statement\" key", quote(content), i+1)
		}
		x, err := binary(content, "attributed", c.Attributed)
		if err != nil {
			return nil, fmt.Errorf("classification %d: %w", i+1, err)
		}
		out[i] = x
	}
	return out, nil
}

package judge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

// Plan returns the calls Score would make to judge out, an answer that
// does not abstain, for q, following Score's rules of which metric calls:
// the texts are the prompts filled in as Score fills them, except the
// statements faithfulness verifies and the questions answer_relevancy
// embeds, which come from replies not yet made (the answer and the
// question stand in for them).
func (j *Judge) Plan(q lasagna.Query, out lasagna.Output) []llm.Call {
	var calls []llm.Call
	chat := func(metric string, p llm.Prompt, vars ...string) {
		r := strings.NewReplacer(vars...)
		calls = append(calls, llm.Call{Stage: llm.StageJudge, Model: j.cfg.Model, MaxTokens: j.maxTokens(metric),
			Texts: []string{r.Replace(p.System), r.Replace(p.User)}})
	}
	ref, hasRef := "", len(q.Answers) > 0 && !q.Unanswerable
	if hasRef {
		ref = q.Answers[0]
	}
	var numbered strings.Builder
	for i, t := range out.Passages {
		if i > 0 {
			numbered.WriteString("\n\n")
		}
		fmt.Fprintf(&numbered, "[%d] %s", i+1, t)
	}
	for _, m := range j.cfg.Metrics {
		if r, ok := j.rubric(m); ok {
			chat(m, rubricPrompt(), "{{scale}}", strconv.Itoa(r.Scale), "{{criterion}}", r.Criterion, "{{question}}", q.Text, "{{answer}}", out.Answer)
			continue
		}
		switch m {
		case Correctness:
			if hasRef {
				chat(m, correctnessPrompt(), "{{question}}", q.Text, "{{reference}}", ref, "{{answer}}", out.Answer, "{{passages}}", numbered.String())
			}
		case Groundedness:
			if len(out.Passages) > 0 {
				chat(m, groundednessPrompt(), "{{question}}", q.Text, "{{reference}}", ref, "{{answer}}", out.Answer, "{{passages}}", numbered.String())
			}
		case faithfulness:
			if len(out.Passages) > 0 {
				chat(m, statementsPrompt(), "{{question}}", q.Text, "{{answer}}", out.Answer)
				chat(m, faithfulnessVerdictsPrompt(), "{{context}}", joinPassages(out.Passages), "{{statements}}", "1. "+out.Answer)
			}
		case answerRelevancy:
			texts := []string{q.Text}
			for range j.cfg.Strictness {
				chat(m, answerRelevancyPrompt(), "{{answer}}", out.Answer)
				texts = append(texts, q.Text)
			}
			calls = append(calls, llm.Call{Stage: llm.StageJudge, Model: j.cfg.EmbeddingModel, Texts: texts, Embed: true})
		case contextPrecision:
			if hasRef {
				for _, p := range out.Passages {
					chat(m, contextPrecisionPrompt(), "{{question}}", q.Text, "{{reference}}", ref, "{{context}}", p)
				}
			}
		case contextRecall:
			if hasRef && len(out.Passages) > 0 {
				chat(m, contextRecallPrompt(), "{{question}}", q.Text, "{{context}}", joinPassages(out.Passages), "{{reference}}", ref)
			}
		}
	}
	return calls
}

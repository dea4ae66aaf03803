package synth

import (
	"fmt"
	"strings"
)

// template is a versioned prompt template. Placeholders are {{name}}; the
// values are substituted in one pass, so a passage containing "{{...}}" is
// left as written.
type template struct {
	id     string
	system string
	user   string
}

// sha256 is the hex SHA-256 of the template: system, a blank line, user.
func (t template) sha256() string { return sha(t.system + "\n\n" + t.user) }

func (t template) render(kv ...string) Prompt {
	return Prompt{ID: t.id, SHA256: t.sha256(), System: t.system, User: strings.NewReplacer(kv...).Replace(t.user)}
}

const writerSystem = "You write test questions for evaluating a question-answering system over a collection of documents. Reply with a single JSON object and nothing else."

const checkerSystem = "You check test questions for a question-answering benchmark. Reply with a single JSON object and nothing else."

const standalone = `- The question must make sense on its own, to someone who has not seen the passages: never write "the passage", "the text" or "the document".`

// The prompt templates. Changing a template's text changes its SHA-256;
// bump its version in the id when the change is meant.
var (
	factoidTemplate = template{
		id:     "factoid-v1",
		system: writerSystem,
		user: `Write one factoid question about the passage below: a question answered by a short fact stated in the passage.

Rules:
` + standalone + `
- The answer is that short fact, a few words taken from the passage.

Reply with JSON only, in this form: {"question": "...", "answer": "..."}

Passage (from {{doc}}):
"""
{{passage}}
"""`,
	}
	multihopTemplate = template{
		id:     "multihop-v1",
		system: writerSystem,
		user: `Write one question that can be answered only by combining a fact from passage A with a fact from passage B: neither passage alone is enough to answer it.

Rules:
` + standalone + `
- The answer is short (a few words or one sentence) and follows from the two passages together.

Reply with JSON only, in this form: {"question": "...", "answer": "..."}

Passage A (from {{doc_a}}):
"""
{{passage_a}}
"""

Passage B (from {{doc_b}}):
"""
{{passage_b}}
"""`,
	}
	unanswerableTemplate = template{
		id:     "unanswerable-v1",
		system: writerSystem,
		user: `Write one question on the subject of the passage below that the passage does not answer: a question a reader of the passage could well ask, whose answer is neither stated in the passage nor follows from it.

Rules:
` + standalone + `
- Do not ask about anything the passage states.

Reply with JSON only, in this form: {"question": "...", "answer": null}

Passage (from {{doc}}):
"""
{{passage}}
"""`,
	}
	supportedTemplate = template{
		id:     "verify-supported-v1",
		system: checkerSystem,
		user: `Decide whether the answer to the question below is supported by the passages: the passages state the facts the answer needs, and the answer is a correct answer to the question.

Question: {{question}}
Answer: {{answer}}

{{passages}}

Reply with JSON only, in this form: {"supported": true} or {"supported": false}`,
	}
	answeredTemplate = template{
		id:     "verify-unanswered-v1",
		system: checkerSystem,
		user: `Decide whether any of the passages below answers the question: states its answer, or facts from which its answer follows.

Question: {{question}}

{{passages}}

Reply with JSON only, in this form: {"answered": true} or {"answered": false}`,
	}
)

// PromptTemplates returns the id and SHA-256 of every prompt template, the
// three generation prompts (recorded in each row's metadata) and the two
// verification prompts, keyed by id.
func PromptTemplates() map[string]string {
	m := map[string]string{}
	for _, t := range []template{factoidTemplate, multihopTemplate, unanswerableTemplate, supportedTemplate, answeredTemplate} {
		m[t.id] = t.sha256()
	}
	return m
}

func generationPrompt(q Question) Prompt {
	switch q.Type {
	case Multihop:
		a, b := q.Sources[0], q.Sources[1]
		return multihopTemplate.render("{{doc_a}}", a.DocID, "{{passage_a}}", a.Text, "{{doc_b}}", b.DocID, "{{passage_b}}", b.Text)
	case Unanswerable:
		return unanswerableTemplate.render("{{doc}}", q.Sources[0].DocID, "{{passage}}", q.Sources[0].Text)
	default:
		return factoidTemplate.render("{{doc}}", q.Sources[0].DocID, "{{passage}}", q.Sources[0].Text)
	}
}

// verificationPrompt renders the check of a generated question: support of
// the answer by the sources, or, for an unanswerable question, that neither
// its source nor its neighbours answer it.
func verificationPrompt(q Question, question, answer string) Prompt {
	var b strings.Builder
	list := q.Sources
	if q.Type == Unanswerable {
		list = append(append([]Passage(nil), q.Sources...), q.Neighbours...)
	}
	for i, p := range list {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Passage %d (from %s):\n\"\"\"\n%s\n\"\"\"", i+1, p.DocID, p.Text)
	}
	if q.Type == Unanswerable {
		return answeredTemplate.render("{{question}}", question, "{{passages}}", b.String())
	}
	return supportedTemplate.render("{{question}}", question, "{{answer}}", answer, "{{passages}}", b.String())
}

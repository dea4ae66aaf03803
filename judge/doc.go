// Package judge holds lasagna's LLM judge metrics (docs/metrics.md), computed
// through the one LLM client layer (package llm):
//
//   - judge_correctness: the judge sees the question, the FIRST reference
//     answer (docs/data.md: "the first is the reference the judge sees") and the
//     answer, and replies {"verdict": "correct"|"incorrect", "reason": "…"};
//     correct scores 1, incorrect 0.
//
//   - groundedness: the judge sees the passages the generator saw
//     (lasagna.Output.Passages), the question and the answer, and replies
//     {"verdict": "supported"|"unsupported", "reason": "…"}; supported
//     scores 1, unsupported 0.
//
//   - faithfulness, answer_relevancy, context_precision, context_recall:
//     Ragas v0.4.0's RAG metrics (docs/metrics.md, "LLM judge metrics"):
//     statements of the answer verified against the passages; questions
//     generated from the answer compared with the question by the cosine
//     of their embeddings (Config.EmbeddingModel, Config.Strictness); a
//     usefulness verdict per passage, averaged as average precision; the
//     reference's statements attributed to the passages.
//
//   - rubrics (Config.Rubrics): the judge grades the answer against a
//     criterion of the user's from 1 to Scale, scored (s-1)/(Scale-1).
//
// Some cases are decided without a call, by fixed rules that agree with
// SQuAD v2.0 scoring of exact match: on an unanswerable question an
// abstention (Output.Abstained, or an answer that normalises to empty)
// scores judge_correctness 1 and any other answer 0; on an answerable
// question an abstention scores 0; a question with no reference answer gets
// no judge_correctness. An abstention claims nothing and gets no
// groundedness; an answer given with no passages at all scores
// groundedness 0.
//
// Replies must be exactly one JSON object with "verdict" (one of the two
// values) and an optional string "reason", and nothing else. A failed call
// or a reply that does not parse is an error for that query
// (JUDGE_ERRORS), never a score. Calls ask for temperature 0 and carry
// versioned prompts whose ids and sha256 are part of Describe.
//
// A judge model given as an alias (no date suffix) that the server answers
// with a dated snapshot is reported by UnresolvedAlias, which the engine
// turns into UNRESOLVED_JUDGE_ALIAS.
package judge

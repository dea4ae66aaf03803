// Package synth writes synthetic benchmark questions from a folder of
// documents with an LLM, as `lasagna benchmark synthesize` does.
//
// MakePlan cuts the documents into 200-word passages with the fixed chunker
// (package retrieval/chunk), splits the number of questions between the
// three types of a Mix (factoid, multihop, unanswerable) by the largest
// remainder method, chooses the passages of each question from a PCG seeded
// with Options.Seed and renders the versioned prompts. It calls nothing: the
// same documents, N, Mix and Seed always give the same plan and
// byte-identical prompts.
//
// Synthesize carries a plan out: a generation call per question asking for
// strict JSON {"question", "answer"}, then a verification call (an answer
// must be supported by its source passages; an unanswerable question must
// not be answered by its passage nor by the three passages sharing the most
// words with it). Questions that fail are dropped and counted by reason;
// none is ever replaced by a made-up row. The rows, numbered synth-0001…,
// carry their provenance in metadata (question_type, source_doc_ids,
// prompt_id, prompt_sha256, model, seed, synthetic, unanswerable) and are
// written with datasets.WriteJSONL.
//
// Synthetic sets are for development, not for claims: questions an LLM
// wrote from a passage reuse its words, so retrievers (and pipelines built
// on the same family of models) find them easier than real users'
// questions, and the answerability check inherits the same model's
// mistakes. Compare configurations on them while building; report results
// on human-written questions.
//
// The package reads no environment variable and holds no state; Synthesize
// is safe to call concurrently with a client that is (as *llm.Client is).
package synth

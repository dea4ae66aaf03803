// Package generate holds lasagna's built-in generators, the generator stage
// (lasagna.Generator) on the one LLM client layer (package llm):
//
//   - ClosedBook answers from the question alone (the closed_book mode);
//   - Grounded answers only from the passages it is given (the generation
//     and rag modes), or abstains when they do not hold the answer.
//
// Both ask for temperature 0 (the client's default), send a versioned
// prompt (Prompt: an id such as "grounded-v1" and the sha256 of its text,
// both part of Describe, so a changed prompt changes the arm's fixed
// stages and its comparability key) and require a strict JSON answer,
// {"answer": "...", "abstained": false}. A failed call or an answer that
// does not parse is an error for that query, never an empty answer.
package generate

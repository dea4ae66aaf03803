// Package embed provides the OpenAI-compatible embedder: a lasagna.Embedder
// that sends texts in batches to any server speaking the OpenAI embeddings
// API (OpenAI, Azure, vLLM, Ollama, LiteLLM …) through the llm package, so
// it shares the llm client's retries, rate limits, concurrency cap,
// persistent response cache and per-stage usage accounting.
//
// Vectors come back in input order; every vector must have the same length
// (Dim), which is learnt from the first response unless configured.
package embed

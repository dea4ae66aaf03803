// Package judge shows how to test a judged RAG pipeline in CI with no key
// and no network (docs/evaltest.md, "A judged pipeline without a key"):
// TestRAG runs the keyword retriever of ../retrieval, package generate's
// grounded generator and package judge's LLM judge against the fake
// OpenAI-compatible server of package fixtures on the loopback interface,
// whose replies are scripted — the generator's answers by question, the
// judge's verdicts by fixtures.JudgeReply — and checks thresholds on
// judge_correctness and groundedness. TestRAGLive runs the same
// configuration against a real model when LASAGNA_LIVE=1 and a key are
// set, and skips otherwise. Run it with
//
//	go test -v ./examples/judge
package judge

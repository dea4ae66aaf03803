package judge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalllm"
	"github.com/lasagna-go/lasagna/examples/retrieval"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/generate"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

// TestRAG runs the judged pipeline offline: the model behind the
// generator and the judge is a fake OpenAI-compatible server on the
// loopback interface. fixtures.JudgeReply answers the judge's calls,
// judging every answer correct and grounded but the wrong one, and model
// answers the generator's; the arm must be judged correct, and grounded,
// on at least 80% of its answers.
func TestRAG(t *testing.T) {
	srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{
		Reply: fixtures.JudgeReply(func(metric string, c fixtures.ChatCall) bool {
			return !strings.Contains(c.LastUser, wrongAnswer)
		}, model),
	})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "gpt-4o-2024-08-06"})
	if err != nil {
		t.Fatal(err)
	}
	evaltest.Run(t, config(t, client))
}

// TestRAGLive runs the same configuration against a real model; it skips
// unless LASAGNA_LIVE=1 and a key are set (evalllm.Client).
func TestRAGLive(t *testing.T) {
	evaltest.Run(t, config(t, evalllm.Client(t)))
}

// config is the judged run on client: the keyword retriever, the grounded
// generator and the judge (judge_correctness and groundedness) with
// thresholds on both judge metrics.
func config(t *testing.T, client *llm.Client) evaltest.Config {
	gen, err := generate.NewGrounded(client, generate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return evaltest.Config{
		Benchmarks: []string{"testdata/glass.jsonl"},
		Arms: []evaltest.Arm{{
			Name: "rag",
			BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return retrieval.NewKeyword(b), nil
			},
			Generator: gen,
			Judge:     evalllm.Judge(t, client, judge.Config{}),
			Stages:    map[lasagna.Stage]string{lasagna.StageRetriever: "keyword-overlap"},
			TopK:      5,
			Thresholds: []evaltest.Threshold{
				evaltest.AtLeast("judge_correctness", 0.8),
				evaltest.AtLeast("groundedness", 0.8),
			},
		}},
	}
}

// wrongAnswer is the fake model's answer to one question, which the judge
// finds incorrect and unsupported.
const wrongAnswer = "Roman window panes"

// answers are the fake model's answers, by question (each question is
// in its prompt).
var answers = map[string]string{
	"What does the soda do in soda-lime glass?":                                     "It lowers the melting point of the silica.",
	"Where was glassblowing invented?":                                              "On the Syro-Palestinian coast",
	"What are the oldest known man-made glass objects?":                             wrongAnswer,
	"In what year were Venetian glassmakers ordered to move to Murano?":             "1291",
	"Who is credited with inventing cristallo?":                                     "Angelo Barovier",
	"Which island's glassmakers developed cristallo, and why were they sent there?": "Murano, to keep fires away from the wooden city",
}

// model answers a generator call as package generate asks (one JSON
// object, {"answer": "...", "abstained": false}), from answers.
func model(c fixtures.ChatCall) string {
	for q, a := range answers {
		if strings.Contains(c.LastUser, q) {
			return fmt.Sprintf(`{"answer": %q, "abstained": false}`, a)
		}
	}
	return `{"answer": "", "abstained": true}`
}

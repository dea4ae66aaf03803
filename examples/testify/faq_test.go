package testify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/suite"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/examples/retrieval"
)

// FAQSuite evaluates once and asserts on the values.
type FAQSuite struct {
	suite.Suite
	ev *evaltest.Evaluation
}

func TestFAQ(t *testing.T) {
	suite.Run(t, new(FAQSuite))
}

// SetupSuite runs the evaluation: the keyword retriever and the BM25
// baseline, both to depth 10, on the shipped FAQ dataset.
func (s *FAQSuite) SetupSuite() {
	bm25 := evaltest.BM25()
	bm25.TopK = 10
	ev, err := evaltest.Evaluate(s.T().Context(), "faq", evaltest.Config{
		Benchmarks: []string{"../data/faq.jsonl"},
		Arms: []evaltest.Arm{
			{Name: "keyword", TopK: 10, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return retrieval.NewKeyword(b), nil
			}, Thresholds: []evaltest.Threshold{evaltest.PerQuery(evaltest.AtLeast("recall@10", 1))}},
			bm25,
		},
	})
	s.Require().NoError(err)
	s.Require().NotNil(ev.Bundle, "no bundle: %s", ev.Tests[0].Failure())
	s.T().Logf("lasagna bundle: %s", ev.BundlePath)
	s.ev = ev
}

// metric returns an arm's value of a metric (an error, such as a misspelt
// name, fails the test; it is never read as 0).
func (s *FAQSuite) metric(arm, name string) float64 {
	v, err := s.ev.Metric(arm, name)
	s.Require().NoError(err)
	return v
}

func (s *FAQSuite) TestRanksWell() {
	s.GreaterOrEqual(s.metric("keyword", "ndcg@10"), 0.9, "keyword ndcg@10")
	s.GreaterOrEqual(s.metric("keyword", "recall@10"), 0.95, "keyword recall@10")
}

func (s *FAQSuite) TestCloseToBM25() {
	s.InDelta(s.metric("bm25", "ndcg@10"), s.metric("keyword", "ndcg@10"), 0.05,
		"keyword ndcg@10 is within 0.05 of BM25's")
}

// TestEveryQuestionFound reads per-question values (the 44 questions with
// relevant documents; unanswerable ones score no recall).
func (s *FAQSuite) TestEveryQuestionFound() {
	recall, err := s.ev.QueryValues("keyword", "recall@10")
	s.Require().NoError(err)
	s.Len(recall, 44, "questions scored")
	for id, v := range recall {
		s.Equal(1.0, v, "recall@10 of %s", id)
	}
}

func (s *FAQSuite) TestNoBlockingIntegrity() {
	s.Empty(s.ev.Bundle.Integrity.Blocking, "blocking integrity findings")
	s.False(s.ev.Failed(), "the evaluation failed")
}

// TestQueries makes one subtest per question of the keyword arm
// (TestFAQ/TestQueries/faq/keyword/glass-01, …) that records the
// question's lasagna.* attrs and fails with its message.
func (s *FAQSuite) TestQueries() {
	for _, q := range s.ev.Level(3) {
		name := strings.TrimPrefix(q.Name, s.ev.Name+"/")
		if !strings.Contains(name, "/keyword/") {
			continue
		}
		s.Run(name, func() {
			for _, a := range q.Attrs {
				s.T().Attr(a.Key, a.Value)
			}
			s.False(q.Failed, q.Failure())
		})
	}
}

package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// TestAnswerNormalization scores the same answers under both rules: a sweep
// entry's answer_normalization: orqa reaches the scorer (NQ-open's rules
// keep a reference that normalises to "", so an empty prediction matches
// it; SQuAD's drop it) and is held fixed in the bundle; squad is the
// default and leaves held_fixed as it was.
func TestAnswerNormalization(t *testing.T) {
	data := `{"id": "q1", "question": "Which article?", "answers": ["the", "Paris"]}
{"id": "q2", "question": "Which city?", "answers": [".", "Paris"]}
`
	answers := map[string]string{"q1": "the", "q2": ""}
	arm := Arm{Name: "canned", Mode: lasagna.ModeClosedBook, Pipeline: func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		return lasagna.PipelineFunc(func(_ context.Context, q lasagna.Query) (lasagna.Output, error) {
			return lasagna.Output{Answer: answers[q.ID], Answered: true}, nil
		}), nil
	}}
	for _, c := range []struct {
		norm   string
		wantEM float64 // mean exact match over q1, q2
		heldAs string
	}{
		{"", 0, ""},         // squad drops the references "the" and ".": only "paris" is left
		{"squad", 0, ""},    // the same, named
		{"orqa", 1, "orqa"}, // orqa keeps them: "" matches both
	} {
		t.Run("norm="+c.norm, func(t *testing.T) {
			sweep := "benchmarks:\n  - path: qa.jsonl\n"
			if c.norm != "" {
				sweep += "    answer_normalization: " + c.norm + "\n"
			}
			sweep += "arms:\n  - {name: bm25, retriever: bm25}\n"
			fsys := fstest.MapFS{"qa.jsonl": {Data: []byte(data)}, "sweep.yaml": {Data: []byte(sweep)}}
			s, err := ReadSweep(fsys, "sweep.yaml")
			if err != nil {
				t.Fatal(err)
			}
			runs, err := LoadBenchmarks(fsys, s)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), runs, []Arm{arm}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := rep.Bundle(BundleOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res := b.Results[0]
			if got := res.Metrics["exact_match"]; got != c.wantEM {
				t.Errorf("exact_match = %v, want %v", got, c.wantEM)
			}
			if got := b.Configs[0].HeldFixed.AnswerNormalization; got != c.heldAs {
				t.Errorf("held_fixed.answer_normalization = %q, want %q", got, c.heldAs)
			}
		})
	}
}

// TestAnswerNormalizationUnknown refuses an unknown rule at the sweep's
// line, and on a benchmark value built in code before anything runs.
func TestAnswerNormalizationUnknown(t *testing.T) {
	sweep := "benchmarks:\n  - path: qa.jsonl\n    answer_normalization: nq\narms:\n  - {name: bm25, retriever: bm25}\n"
	_, err := ReadSweep(fstest.MapFS{"sweep.yaml": {Data: []byte(sweep)}}, "sweep.yaml")
	if err == nil || !strings.Contains(err.Error(), "sweep.yaml:2") || !strings.Contains(err.Error(), "orqa") {
		t.Errorf("ReadSweep error = %v, want one at sweep.yaml:2 naming squad and orqa", err)
	}
	b := &lasagna.Benchmark{Name: "qa", AnswerNormalization: "NQ", Queries: []lasagna.Query{{ID: "q1", Text: "?", Answers: []string{"a"}}}}
	arm := Arm{Name: "canned", Mode: lasagna.ModeClosedBook, Pipeline: func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		t.Error("the pipeline was built for an invalid plan")
		return nil, nil
	}}
	if _, err := Run(context.Background(), []*BenchmarkRun{{Benchmark: b}}, []Arm{arm}, Options{}); err == nil || !strings.Contains(err.Error(), `"NQ"`) {
		t.Errorf("Run error = %v, want one naming \"NQ\"", err)
	}
}

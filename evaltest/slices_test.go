package evaltest_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
)

var slicesData = fstest.MapFS{"qa.jsonl": {Data: []byte(`{"id": "q1", "question": "a?", "answers": ["x"], "metadata": {"kind": "who"}}
{"id": "q2", "question": "b?", "answers": ["y"], "metadata": {"kind": "who"}}
{"id": "q3", "question": "c?", "answers": ["z"], "metadata": {"kind": "what"}}
{"id": "q4", "question": "d?", "metadata": {"unanswerable": true, "kind": "what"}}
`)}}

func slicesArm() evaltest.Arm {
	answers := map[string]string{"q1": "x", "q2": "no", "q3": "z", "q4": ""}
	return evaltest.Arm{Name: "fixed", Mode: lasagna.ModeClosedBook, Pipeline: lasagna.PipelineFunc(func(_ context.Context, q lasagna.Query) (lasagna.Output, error) {
		return lasagna.Output{Answer: answers[q.ID], Answered: true}, nil
	})}
}

func TestEvaltestConfigSlices(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	ev, err := evaltest.Evaluate(t.Context(), "TestQA", evaltest.Config{FS: slicesData, Benchmarks: []string{"qa.jsonl"},
		Arms: []evaltest.Arm{slicesArm()}, Slices: []string{"kind"}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Bundle == nil {
		t.Fatalf("no bundle: %+v", ev.Tests[0])
	}
	var got []string
	for _, s := range ev.Bundle.Results[0].Slices {
		got = append(got, s.Key+"="+s.Value+":"+strings.Join(s.QueryIDs, ","))
	}
	if want := "answerable=false:q4 answerable=true:q1,q2,q3 kind=what:q3,q4 kind=who:q1,q2"; strings.Join(got, " ") != want {
		t.Errorf("slices %v, want %s", got, want)
	}
	for _, s := range ev.Bundle.Results[0].Slices {
		if s.Key == "kind" && s.Value == "who" && s.MetricStats["exact_match"].Mean != 0.5 {
			t.Errorf("kind=who exact_match %+v, want 0.5", s.MetricStats["exact_match"])
		}
	}
}

func TestEvaltestConfigSlicesUnknownKey(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	called := false
	arm := slicesArm()
	inner := arm.Pipeline
	arm.Pipeline = lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
		called = true
		return inner.Run(ctx, q)
	})
	ev, err := evaltest.Evaluate(t.Context(), "TestQA", evaltest.Config{FS: slicesData, Benchmarks: []string{"qa.jsonl"},
		Arms: []evaltest.Arm{arm}, Slices: []string{"kinds"}})
	if err != nil {
		t.Fatal(err)
	}
	if root := ev.Tests[0]; !root.Failed || !strings.Contains(root.Failure(), `config: Slices: benchmark local/qa@`) || !strings.Contains(root.Failure(), `slice key "kinds": no query has metadata "kinds" (did you mean "kind"?)`) {
		t.Errorf("root test: %q", root.Failure())
	}
	if called {
		t.Error("the pipeline ran before the slice key was refused")
	}
}

package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// slicesJSONL has answerable and unanswerable questions with a topic
// (a string, a number, a list) in their metadata.
var slicesJSONL = []byte(`{"id": "a1", "question": "q a1", "answers": ["x"], "metadata": {"topic": "coins", "level": 1}}
{"id": "a2", "question": "q a2", "answers": ["y"], "metadata": {"topic": "coins", "level": 2}}
{"id": "a3", "question": "q a3", "answers": ["z"], "metadata": {"topic": ["maps", "coins"], "level": 1}}
{"id": "a4", "question": "q a4", "answers": ["w"], "metadata": {"topic": "maps"}}
{"id": "u1", "question": "q u1", "metadata": {"unanswerable": true, "topic": "maps", "level": 2}}
{"id": "u2", "question": "q u2", "metadata": {"unanswerable": true, "topic": "coins", "level": 1}}
`)

func slicesBench(t *testing.T) *BenchmarkRun {
	t.Helper()
	runs, err := LoadBenchmarks(fstest.MapFS{"s.jsonl": {Data: slicesJSONL}}, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "s.jsonl"}}, Arms: []ArmSpec{{Name: "x", Retriever: "bm25"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// answersArm answers x, y, "" (abstains), w wrongly, and leaves the
// queries of missing without a prediction (ErrNoPrediction).
func answersArm(missingZero bool, missing ...string) Arm {
	answers := map[string]string{"a1": "x", "a2": "y", "a3": "", "a4": "not w", "u1": "", "u2": "something"}
	return Arm{Name: "answers", Mode: lasagna.ModeClosedBook, MissingZero: missingZero,
		Stages: map[lasagna.Stage]string{lasagna.StageGenerator: "fixed answers"},
		Pipeline: func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
			return lasagna.PipelineFunc(func(_ context.Context, q lasagna.Query) (lasagna.Output, error) {
				for _, m := range missing {
					if m == q.ID {
						return lasagna.Output{}, fmt.Errorf("%w for %s", ErrNoPrediction, q.ID)
					}
				}
				return lasagna.Output{Answer: answers[q.ID], Answered: true}, nil
			}), nil
		}}
}

func sliceOf(t *testing.T, res results.Result, key, value string) ([]string, map[string]results.MetricStat) {
	t.Helper()
	for _, s := range res.Slices {
		if s.Key == key && s.Value == value {
			return s.QueryIDs, s.MetricStats
		}
	}
	t.Fatalf("no slice %s=%s among %d", key, value, len(res.Slices))
	return nil, nil
}

func TestSlicesMetadataAndAnswerable(t *testing.T) {
	br := slicesBench(t)
	rep, err := Run(context.Background(), []*BenchmarkRun{br}, []Arm{answersArm(false)}, Options{Slices: []string{"topic", "level"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := validBundle(t, rep)
	res := b.Results[0]
	var keys []string
	for _, s := range res.Slices {
		keys = append(keys, s.Key+"="+s.Value)
	}
	want := "answerable=false answerable=true level=1 level=2 topic=coins topic=maps"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("slices %s, want %s", got, want)
	}
	ids, st := sliceOf(t, res, "answerable", "true")
	if strings.Join(ids, ",") != "a1,a2,a3,a4" || st["exact_match"].Mean != 0.5 || st["exact_match"].N != 4 {
		t.Errorf("answerable=true: %v %+v", ids, st["exact_match"])
	}
	ids, st = sliceOf(t, res, "answerable", "false")
	if strings.Join(ids, ",") != "u1,u2" || st["exact_match"].Mean != 0.5 {
		t.Errorf("answerable=false: %v %+v", ids, st["exact_match"])
	}
	// A list puts its query in each of its values' slices.
	if ids, _ := sliceOf(t, res, "topic", "maps"); strings.Join(ids, ",") != "a3,a4,u1" {
		t.Errorf("topic=maps holds %v", ids)
	}
	if ids, _ := sliceOf(t, res, "topic", "coins"); strings.Join(ids, ",") != "a1,a2,a3,u2" {
		t.Errorf("topic=coins holds %v", ids)
	}
	// A number is its JSON text; a query without the key is in no slice.
	if ids, _ := sliceOf(t, res, "level", "2"); strings.Join(ids, ",") != "a2,u1" {
		t.Errorf("level=2 holds %v", ids)
	}
}

func TestSlicesRetrievalOnlyHasNoAnswerableSplit(t *testing.T) {
	rep, err := Run(context.Background(), []*BenchmarkRun{tinyBench(t)}, []Arm{goldArm("gold")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := validBundle(t, rep)
	if n := len(b.Results[0].Slices); n != 0 {
		t.Errorf("an unsliced retrieval run has %d slices", n)
	}
}

func TestSlicesShardsMergeToTheWholeRun(t *testing.T) {
	opts := Options{Slices: []string{"topic"}}
	whole, err := Run(context.Background(), []*BenchmarkRun{slicesBench(t)}, []Arm{answersArm(false)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	wb, wraw := validBundle(t, whole)
	var shards []*results.Bundle
	for i := 1; i <= 3; i++ {
		o := opts
		o.Shard = Shard{Index: i, Count: 3}
		rep, err := Run(context.Background(), []*BenchmarkRun{slicesBench(t)}, []Arm{answersArm(false)}, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := validBundle(t, rep)
		shards = append(shards, b)
	}
	merged, err := results.Merge(shards, nil)
	if err != nil {
		t.Fatal(err)
	}
	mraw, err := results.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mraw, wraw) || merged.RunID != wb.RunID {
		t.Errorf("the merged shards differ from the whole run:\n%s\nwant\n%s", mraw, wraw)
	}
}

func TestSlicesCheck(t *testing.T) {
	br := slicesBench(t)
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"topc"}, `slice key "topc": no query has metadata "topc" (did you mean "topic"?); its metadata keys: level, topic, unanswerable`},
		{[]string{"topic", "topic"}, `slice key "topic" is named twice`},
		{[]string{" "}, "a slice key is empty"},
	} {
		_, err := Run(context.Background(), []*BenchmarkRun{br}, []Arm{answersArm(false)}, Options{Slices: c.keys})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("slices %q: error %v, want %q", c.keys, err, c.want)
		}
	}
	p := &Plan{Benchmarks: []*BenchmarkRun{br}, Arms: []Arm{answersArm(false)}, Options: Options{Slices: []string{"levle"}}}
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), `did you mean "level"?`) {
		t.Errorf("Plan.Check: %v", err)
	}
	objects, err := LoadBenchmarks(fstest.MapFS{"o.jsonl": {Data: []byte(`{"id": "q1", "question": "q", "answers": ["a"], "metadata": {"src": {"a": 1}}}` + "\n")}},
		&Sweep{Benchmarks: []BenchmarkEntry{{Path: "o.jsonl"}}, Arms: []ArmSpec{{Name: "x", Retriever: "bm25"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSlices(objects, []string{"src"}); err == nil || !strings.Contains(err.Error(), `query "q1": metadata "src" is a map[string]interface {}; slices group queries by a string, number or boolean, or a list of them`) {
		t.Errorf("an object value: %v", err)
	}
}

func TestMissingZeroScoresZero(t *testing.T) {
	br := slicesBench(t)
	rep, err := Run(context.Background(), []*BenchmarkRun{br}, []Arm{answersArm(true, "a1", "u1")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := validBundle(t, rep)
	if hf := b.Configs[0].HeldFixed; hf.MissingPredictions != "zero" {
		t.Errorf("held_fixed.missing_predictions %q", hf.MissingPredictions)
	}
	res := b.Results[0]
	for _, row := range res.PerSampleScores {
		missing := row.QueryID == "a1" || row.QueryID == "u1"
		if row.Missing != missing || row.Error != "" {
			t.Errorf("row %s: missing %v, error %q", row.QueryID, row.Missing, row.Error)
		}
		if missing && (row.Scores["exact_match"] != 0 || row.Scores["token_f1"] != 0 || row.Answer != nil) {
			t.Errorf("missing row %s: %+v", row.QueryID, row)
		}
	}
	// a2 right, a3 and a4 wrong, u2 wrong; a1 and u1 count as 0: 1/6.
	if st := res.MetricStats["exact_match"]; st.N != 6 || st.Mean != 1.0/6 {
		t.Errorf("exact_match %+v, want 1/6 over 6", st)
	}
	for _, f := range rep.Findings {
		if f.Code == lasagna.PipelineErrors {
			t.Errorf("missing predictions scored 0 raised %s", f)
		}
	}

	// Without MissingZero the same queries are failed rows.
	rep, err = Run(context.Background(), []*BenchmarkRun{slicesBench(t)}, []Arm{answersArm(false, "a1", "u1")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := fb.Results[0].MetricStats["exact_match"]; st.N != 4 || fb.Configs[0].HeldFixed.MissingPredictions != "" {
		t.Errorf("without MissingZero: %+v, held_fixed %q", st, fb.Configs[0].HeldFixed.MissingPredictions)
	}
	if fb.Configs[0].ComparabilityKey == b.Configs[0].ComparabilityKey {
		t.Error("missing_predictions zero and the default share a comparability key")
	}
}

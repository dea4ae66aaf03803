package evaltest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// firstID is a scorer of a retrieval arm: first_relevant is 1 when the top
// hit is a relevant document, and it fails on q03 and returns a name it
// does not declare on q04.
func firstID(calls *atomic.Int32) Scorer {
	return Scorer{Name: "first", Version: "2", Metrics: []string{"first_relevant"}, Scorer: lasagna.ScorerFunc(
		func(ctx context.Context, q lasagna.Query, out lasagna.Output) (map[string]float64, error) {
			calls.Add(1)
			switch q.ID {
			case "q03":
				return nil, errors.New("the scorer's service is down")
			case "q04":
				return map[string]float64{"first_relevent": 1}, nil
			}
			v := 0.0
			if len(out.Hits) > 0 && strings.HasPrefix(out.Hits[0].ID, "d") {
				v = 1
			}
			return map[string]float64{"first_relevant": v}, nil
		})}
}

// TestScorerMetricsAreMetrics: a scorer's metric is recorded per query (as
// an attr), in the bundle (rows, mean with its interval, held_fixed.scorers)
// and checked by a threshold; a failed call or an undeclared name is a
// JUDGE_ERRORS row without the metric, never a 0.
func TestScorerMetricsAreMetrics(t *testing.T) {
	var calls atomic.Int32
	a := perfectArm("mine", nil)
	a.Thresholds = []Threshold{AtLeast("first_relevant", 0.5)}
	cfg := tinyConfig(a)
	cfg.Scorers = []Scorer{firstID(&calls)}
	got, failed, out := fakeEval(t, cfg, nil)
	if !failed || !strings.Contains(got, "integrity: JUDGE_ERRORS at local/tiny@") || !strings.Contains(got, "scorer first: the scorer's service is down") {
		t.Errorf("want a run failing on JUDGE_ERRORS from the scorer:\n%s", got)
	}
	if !strings.Contains(got, "lasagna.first_relevant") {
		t.Errorf("no query records the scorer's metric as an attr:\n%s", got)
	}
	b, err := results.ReadFile(filepath.Join(out, bundleName("TestRAG", noShard)))
	if err != nil {
		t.Fatal(err)
	}
	res := b.Results[0]
	if st, ok := res.MetricStats["first_relevant"]; !ok || st.N != 10 || res.Metrics["first_relevant"] != 1 {
		t.Errorf("first_relevant = %v over %+v; want 1 over the 10 queries it scored", res.Metrics["first_relevant"], res.MetricStats["first_relevant"])
	}
	for _, row := range res.PerSampleScores {
		_, has := row.Scores["first_relevant"]
		switch row.QueryID {
		case "q03", "q04":
			if has || row.JudgeError == "" {
				t.Errorf("%s: a failed scorer call gave %v (judge_error %q); want no value and the error", row.QueryID, row.Scores, row.JudgeError)
			}
			if row.QueryID == "q04" && !strings.Contains(row.JudgeError, `scorer first: returned metric "first_relevent", which it does not declare (Metrics: first_relevant)`) {
				t.Errorf("q04's judge_error %q does not name the undeclared metric", row.JudgeError)
			}
		default:
			if !has {
				t.Errorf("%s has no first_relevant", row.QueryID)
			}
		}
	}
	if v := b.Configs[0].HeldFixed.Scorers; v["first"] != "2" {
		t.Errorf("held_fixed.scorers = %v, want first: 2", v)
	}
	if calls.Load() != 12 {
		t.Errorf("%d scorer calls, want one per query (12)", calls.Load())
	}
}

// TestScorerThresholdCheckedFirst: a threshold on a name no scorer declares
// fails the test before any pipeline or scorer call, with "did you mean".
func TestScorerThresholdCheckedFirst(t *testing.T) {
	var calls, pipeline atomic.Int32
	a := perfectArm("mine", func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			pipeline.Add(1)
			return r.Retrieve(ctx, q, k)
		})
	})
	a.Thresholds = []Threshold{AtLeast("first_relevent", 0.5)}
	cfg := tinyConfig(a)
	cfg.Scorers = []Scorer{firstID(&calls)}
	got, failed, _ := fakeEval(t, cfg, nil)
	if !failed || !strings.Contains(got, `threshold on unknown metric "first_relevent" (did you mean "first_relevant"?)`) {
		t.Errorf("want the misspelt scorer metric refused:\n%s", got)
	}
	if calls.Load() != 0 || pipeline.Load() != 0 {
		t.Errorf("%d scorer and %d pipeline calls before the refusal; want none", calls.Load(), pipeline.Load())
	}
}

// TestScorerDefinitionRefused: scorers without a name, with a built-in
// metric's name or two with one name are refused before anything runs.
func TestScorerDefinitionRefused(t *testing.T) {
	var calls atomic.Int32
	ok := firstID(&calls)
	for name, tc := range map[string]struct {
		s    []Scorer
		want string
	}{
		"no name":          {[]Scorer{{Metrics: []string{"x"}, Scorer: ok.Scorer}}, "give it a Name"},
		"built-in name":    {[]Scorer{{Name: "s", Metrics: []string{"ndcg@10"}, Scorer: ok.Scorer}}, `metric "ndcg@10" is a built-in metric's name`},
		"no metrics":       {[]Scorer{{Name: "s", Scorer: ok.Scorer}}, "Metrics is empty"},
		"twice":            {[]Scorer{ok, ok}, `two scorers are named "first"`},
		"nil scorer":       {[]Scorer{{Name: "s", Metrics: []string{"x"}}}, "Scorer is nil"},
		"malformed metric": {[]Scorer{{Name: "s", Metrics: []string{"has space"}, Scorer: ok.Scorer}}, `metric name "has space" is not a letter`},
	} {
		t.Run(name, func(t *testing.T) {
			a := perfectArm("mine", nil)
			a.Scorers = tc.s
			got, failed, _ := fakeEval(t, tinyConfig(a), nil)
			if !failed || !strings.Contains(got, tc.want) {
				t.Errorf("want %q:\n%s", tc.want, got)
			}
		})
	}
	if calls.Load() != 0 {
		t.Errorf("%d scorer calls; want none", calls.Load())
	}
}

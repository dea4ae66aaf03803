package leaderboard

import (
	"reflect"
	"slices"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// TestContentKeyCoversEveryField: ContentKey writes every field of a
// per-query row but its latency (a new field of results.Sample fails here
// until the key covers it), and a change to any of them, to the arm's
// name, key, levels or metrics changes the key; the latency does not.
func TestContentKeyCoversEveryField(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[results.Sample]().Fields() {
		fields = append(fields, f.Name)
	}
	if want := append(slices.Clone(contentFields), contentSkipped...); !slices.Equal(slices.Sorted(slices.Values(fields)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("results.Sample has the fields %v; ContentKey writes %v and skips %v", fields, contentFields, contentSkipped)
	}
	answer, other, lat := "a", "b", 3.0
	base := func() (results.Config, results.Result) {
		return results.Config{Name: "bm25", ComparabilityKey: "k", VariedLevels: map[string]string{"x": "1"}},
			results.Result{Metrics: map[string]float64{"ndcg@10": 0.5}, PerSampleScores: []results.Sample{{
				QueryID: "q1", Scores: map[string]float64{"ndcg@10": 0.5}, RetrievedIDs: []string{"d1"},
				Retrieved: []results.Retrieved{{ID: "d1", Score: 1, Rank: 1}}, Answer: &answer, QueryDigest: "ab"}}}
	}
	c0, r0 := base()
	key := ContentKey(c0, r0)
	for name, edit := range map[string]func(c *results.Config, r *results.Result, s *results.Sample){
		"name":         func(c *results.Config, r *results.Result, s *results.Sample) { c.Name = "bm26" },
		"key":          func(c *results.Config, r *results.Result, s *results.Sample) { c.ComparabilityKey = "l" },
		"levels":       func(c *results.Config, r *results.Result, s *results.Sample) { c.VariedLevels["x"] = "2" },
		"metrics":      func(c *results.Config, r *results.Result, s *results.Sample) { r.Metrics["mrr"] = 0 },
		"QueryID":      func(c *results.Config, r *results.Result, s *results.Sample) { s.QueryID = "q2" },
		"Scores":       func(c *results.Config, r *results.Result, s *results.Sample) { s.Scores["ndcg@10"] = 0.25 },
		"RetrievedIDs": func(c *results.Config, r *results.Result, s *results.Sample) { s.RetrievedIDs = nil },
		"Retrieved":    func(c *results.Config, r *results.Result, s *results.Sample) { s.Retrieved[0].Rank = 2 },
		"Answer":       func(c *results.Config, r *results.Result, s *results.Sample) { s.Answer = &other },
		"Answer nil":   func(c *results.Config, r *results.Result, s *results.Sample) { s.Answer = nil },
		"Abstained":    func(c *results.Config, r *results.Result, s *results.Sample) { s.Abstained = true },
		"Error":        func(c *results.Config, r *results.Result, s *results.Sample) { s.Error = "x" },
		"JudgeError":   func(c *results.Config, r *results.Result, s *results.Sample) { s.JudgeError = "x" },
		"Missing":      func(c *results.Config, r *results.Result, s *results.Sample) { s.Missing = true },
		"QueryDigest":  func(c *results.Config, r *results.Result, s *results.Sample) { s.QueryDigest = "cd" },
		"string bounds": func(c *results.Config, r *results.Result, s *results.Sample) {
			c.Name, c.ComparabilityKey = "bm25k", ""
		},
	} {
		c, r := base()
		edit(&c, &r, &r.PerSampleScores[0])
		if ContentKey(c, r) == key {
			t.Errorf("%s: the key did not change", name)
		}
	}
	c, r := base()
	r.PerSampleScores[0].LatencyMS = &lat
	if ContentKey(c, r) != key {
		t.Error("the latency changed the key")
	}
}

package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// rescoreArm retrieves the gold documents first and answers q1 right, q2
// wrong, q3 with extra words, and abstains elsewhere (explicitly, with
// text), so every answer rule is exercised.
func rescoreArm() Arm {
	a := goldArm("rag")
	a.Generator = lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		switch q.ID {
		case "q1":
			return lasagna.Answer{Text: q.Answers[0]}, nil
		case "q2":
			return lasagna.Answer{Text: "Justinian"}, nil
		case "q3":
			return lasagna.Answer{Text: "it was " + q.Answers[0]}, nil
		}
		return lasagna.Answer{Text: "I cannot tell", Abstained: true}, nil
	})
	return a
}

func rescoreBundle(t *testing.T) (*results.Bundle, *lasagna.Benchmark) {
	t.Helper()
	br := tinyBench(t)
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{rescoreArm()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b, br.Benchmark
}

// TestBundleRescoredAgainstData re-scores a RAG bundle the engine wrote
// against its benchmark (results.ValidateAgainst): the genuine bundle
// passes with every retrieval and answer value recomputed, and each edit a
// forger can hide from the bundle-only checks (aggregates and hashes
// recomputed) is refused once the data is given.
func TestBundleRescoredAgainstData(t *testing.T) {
	clean, bench := rescoreBundle(t)
	validate := func(t *testing.T, b *results.Bundle) (results.Report, results.Rescored) {
		t.Helper()
		raw, err := results.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r, s, err := results.ValidateAgainst(raw, []*lasagna.Benchmark{bench})
		if err != nil {
			t.Fatal(err)
		}
		return r, s
	}
	r, s := validate(t, clean)
	for _, p := range r.Problems {
		if p.Code == lasagna.InconsistentBundle || p.Code == lasagna.MissingResults {
			t.Errorf("the genuine bundle is refused: %s", p)
		}
	}
	if s.Rows != 7 || s.Values < 7*10 {
		t.Errorf("re-scored %d rows, %d values; want all 7 rows and their retrieval and answer metrics", s.Rows, s.Values)
	}

	refit := func(t *testing.T, b *results.Bundle) {
		t.Helper()
		for i := range b.Results {
			b.Results[i].Metrics, b.Results[i].MetricStats = map[string]float64{}, nil
			if err := results.Aggregate(&b.Results[i], b.StatsOptions()); err != nil {
				t.Fatal(err)
			}
		}
		for i := range b.Configs {
			key, err := results.ComparabilityKey(b.Configs[i].HeldFixed)
			if err != nil {
				t.Fatal(err)
			}
			b.Configs[i].ComparabilityKey = key
		}
		b.RunID = ""
		if err := results.Finalize(b); err != nil {
			t.Fatal(err)
		}
	}
	row := func(b *results.Bundle, id string) *results.Sample {
		for i := range b.Results[0].PerSampleScores {
			if s := &b.Results[0].PerSampleScores[i]; s.QueryID == id {
				return s
			}
		}
		t.Fatalf("no row %s", id)
		return nil
	}
	for _, c := range []struct {
		name, want string
		edit       func(b *results.Bundle)
	}{
		{"spliced: the lists of another run under these numbers", "scores[\"ndcg@10\"] is 1, but the row's ranked list and the data give", func(b *results.Bundle) {
			r := row(b, "q1")
			slices.Reverse(r.RetrievedIDs)
			for j := range r.Retrieved {
				r.Retrieved[j].ID = r.RetrievedIDs[j] // scores and ranks stay in order
			}
		}},
		{"cherry-picked: the sample shrunk to hide a query", "but sample_id_digest is", func(b *results.Bundle) {
			rows := b.Results[0].PerSampleScores
			b.Results[0].PerSampleScores = slices.DeleteFunc(rows, func(s results.Sample) bool { return s.QueryID == "q2" })
			var ids []string
			for _, s := range b.Results[0].PerSampleScores {
				ids = append(ids, s.QueryID)
			}
			hf := &b.Configs[0].HeldFixed
			hf.NSamples = int64(len(ids))
			hf.SampleIDDigest = results.SampleIDDigest(ids)
		}},
		{"a wrong answer scored right", `scores["exact_match"] is 1, but the row's answer and the data give 0`, func(b *results.Bundle) {
			row(b, "q2").Scores["exact_match"] = 1
			row(b, "q2").Scores["token_f1"] = 1
		}},
		{"an abstention unmarked", `scores["exact_match"] is 1, but the row's answer and the data give 0`, func(b *results.Bundle) {
			for _, s := range b.Results[0].PerSampleScores {
				if s.Abstained && s.Scores["exact_match"] == 1 {
					row(b, s.QueryID).Abstained = false
					return
				}
			}
			t.Fatal("no abstention scored 1 (an unanswerable query)")
		}},
		{"a metric deleted from a row", "the row has no recall@10, but its ranked list and the data give", func(b *results.Bundle) {
			delete(row(b, "q3").Scores, "recall@10")
		}},
		{"an answer metric for a failed generation", `scores["token_f1"] is 0.5, but the data gives this row no token_f1: it has no answer`, func(b *results.Bundle) {
			r := row(b, "q4")
			r.Answer = nil
			r.Abstained = false
			r.Scores["token_f1"] = 0.5
			delete(r.Scores, "exact_match")
		}},
		{"a row about another question", "query_digest is", func(b *results.Bundle) {
			row(b, "q5").QueryDigest = row(b, "q1").QueryDigest
		}},
		{"an id outside the corpus, unlisted", `the ranked list holds "d404", which is not in the data's corpus`, func(b *results.Bundle) {
			r := row(b, "q6")
			r.RetrievedIDs[len(r.RetrievedIDs)-1] = "d404"
			r.Retrieved[len(r.Retrieved)-1].ID = "d404"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := results.Marshal(clean)
			if err != nil {
				t.Fatal(err)
			}
			b, err := results.Unmarshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			c.edit(b)
			refit(t, b)
			forged, err := results.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			alone := results.Validate(forged)
			if alone.Has(lasagna.RunIDMismatch) || alone.Has(lasagna.ComparabilityKeyMismatch) {
				t.Fatalf("the forger's hashes do not match: %v", alone.Problems)
			}
			r, _ := validate(t, b)
			var lines []string
			found := false
			for _, p := range r.Problems {
				lines = append(lines, p.String())
				if p.Blocking() && strings.Contains(p.String(), c.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no blocking problem says %q:\n%s", c.want, strings.Join(lines, "\n"))
			}
		})
	}

	// Data at another revision is refused, naming both.
	other := *bench
	other.Name, other.Revision = "local/tiny@000000000000", strings.Repeat("0", 64)
	raw, _ := results.Marshal(clean)
	if _, _, err := results.ValidateAgainst(raw, []*lasagna.Benchmark{&other}); err == nil || !strings.Contains(err.Error(), "the bundle ran on "+bench.Name+", but the data given is local/tiny@000000000000") {
		t.Errorf("err = %v, want the revisions named", err)
	}
}

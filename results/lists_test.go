package results

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// forgeBundle edits the clean retrieval bundle with f, recomputes the
// aggregates and intervals of every result from its rows (as a forger who
// read Aggregate would) and every hash, and validates the written bytes.
func forgeBundle(t *testing.T, f func(b *Bundle)) Report {
	t.Helper()
	b := retrievalBundle(t)
	f(b)
	for i := range b.Results {
		b.Results[i].Metrics, b.Results[i].MetricStats = map[string]float64{}, nil
		b.Results[i] = mustAggregate(t, b.Results[i])
	}
	if err := Finalize(b); err != nil {
		t.Fatal(err)
	}
	r := Validate(encode(t, b))
	if r.Has(lasagna.RunIDMismatch) || r.Has(lasagna.ComparabilityKeyMismatch) {
		t.Fatalf("the forger's hashes do not match, so this test proves nothing:%s", problemLines(r))
	}
	return r
}

func wantProblem(t *testing.T, r Report, code lasagna.Code, detail string) {
	t.Helper()
	for _, p := range r.Problems {
		if p.Code == code && strings.Contains(p.String(), detail) {
			if !p.Blocking() {
				t.Errorf("%s is not blocking", p)
			}
			return
		}
	}
	t.Errorf("no %s problem says %q:%s", code, detail, problemLines(r))
}

// The forgeries of issue 22 that a bundle alone shows, each with its
// aggregates, intervals and hashes recomputed.
func TestValidateBundleOnlyForgeries(t *testing.T) {
	rows := func(b *Bundle, arm int) *[]Sample { return &b.Results[arm].PerSampleScores }
	cases := []struct {
		name   string
		edit   func(b *Bundle)
		code   lasagna.Code
		detail string
	}{
		{"the worst query deleted", func(b *Bundle) {
			r := rows(b, 0)
			*r = slices.Delete(*r, 0, 1) // q01 scores 0
		}, lasagna.MissingResults, "the result holds 19 rows but 20 queries were sampled"},
		{"a row duplicated under a new id", func(b *Bundle) {
			r := rows(b, 0)
			dup := (*r)[5]
			dup.QueryID = "q01-again"
			(*r)[0] = dup
		}, lasagna.MissingResults, "the 20 rows' query ids do not hash to held_fixed.sample_id_digest"},
		{"a row moved to the other arm", func(b *Bundle) {
			from, to := rows(b, 0), rows(b, 1)
			(*to)[3] = (*from)[3]
			*from = slices.Delete(*from, 3, 4)
		}, lasagna.MissingResults, "at local/faq@0123456789ab/bm25: the result holds 19 rows"},
		{"a ranked list whose scores rise", func(b *Bundle) {
			h := (*rows(b, 0))[2].Retrieved
			h[1].Score = 20
		}, lasagna.InconsistentBundle, "_retrieved's score rises at rank 2 (20, above rank 1's 12.5) but integrity.warnings does not list SCORES_OUT_OF_ORDER"},
		{"a list longer than retriever_top_k", func(b *Bundle) {
			b.Configs[0].HeldFixed.RetrieverTopK = ptr(2)
			b.Configs[1].HeldFixed.RetrieverTopK = ptr(2)
		}, lasagna.InconsistentBundle, "the ranked list holds 3 ids but the arm retrieved to depth 2 (retriever_top_k)"},
		{"hit@1 0 with mrr@1 1", func(b *Bundle) {
			(*rows(b, 0))[1].Scores = map[string]float64{"hit@1": 0, "mrr@1": 1}
		}, lasagna.InconsistentBundle, "hit@1 is 0 but mrr@1 is not"},
		{"mrr that is no reciprocal rank", func(b *Bundle) {
			(*rows(b, 0))[1].Scores["mrr@10"] = 0.4
		}, lasagna.InconsistentBundle, "mrr@10 is 0.4, which is not 1/r for a whole rank r"},
		{"a first relevant hit beyond the list", func(b *Bundle) {
			(*rows(b, 0))[1].Scores["mrr"] = 0.2 // rank 5 of a 3-id list
		}, lasagna.InconsistentBundle, "mrr is 0.2, a first relevant id at rank 5 of a list of 3 ids"},
		{"recall that falls with depth", func(b *Bundle) {
			(*rows(b, 0))[1].Scores["recall@5"] = 1
		}, lasagna.InconsistentBundle, "recall@k falls from 1 at @5 to"},
		{"precision that counts more than the list", func(b *Bundle) {
			(*rows(b, 0))[1].Scores["precision@10"] = 0.5
		}, lasagna.InconsistentBundle, "precision@10 is 0.5: 5 relevant ids in the top 10 of a list of 3"},
		{"an unknown metrics_version", func(b *Bundle) {
			b.MetricsVersion = "2"
			for i := range b.Configs {
				b.Configs[i].HeldFixed.MetricsVersion = "2"
			}
		}, lasagna.InvalidBundle, `metrics_version "2" is not one this reader knows (1)`},
		{"SMALL_SAMPLE removed", func(b *Bundle) {
			for i := range b.Results {
				*rows(b, i) = (*rows(b, i))[:5]
			}
			b.Subset = &Subset{Selection: "test.run=TestRAG"} // so the missing rows are not the finding
		}, lasagna.InconsistentBundle, "5 scored queries; confidence intervals need at least 10, but integrity.warnings does not list SMALL_SAMPLE"},
		{"a subset that names nothing", func(b *Bundle) {
			b.Subset = &Subset{}
		}, lasagna.InvalidBundle, "the subset names neither a shard nor a selection"},
		{"shard 3 of 2", func(b *Bundle) {
			b.Subset = &Subset{ShardIndex: 3, ShardCount: 2}
		}, lasagna.InvalidBundle, "shard 3 of 2: want shard i of n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := forgeBundle(t, c.edit)
			wantProblem(t, r, c.code, c.detail)
		})
	}
}

// The genuine forms of what the forgeries imitate pass: a shard holds
// part of its sample, a list whose scores rise is valid when the bundle
// lists SCORES_OUT_OF_ORDER (as the engine does), and so is a small sample
// that lists SMALL_SAMPLE.
func TestValidateBundleOnlyGenuine(t *testing.T) {
	for name, edit := range map[string]func(b *Bundle){
		"as written": func(*Bundle) {},
		"shard 1 of 2": func(b *Bundle) {
			for i := range b.Results {
				b.Results[i].PerSampleScores = slices.DeleteFunc(b.Results[i].PerSampleScores, func(s Sample) bool { return s.QueryID[2]%2 == 0 })
			}
			b.Subset = &Subset{ShardIndex: 1, ShardCount: 2}
		},
		"rising scores listed": func(b *Bundle) {
			b.Results[0].PerSampleScores[2].Retrieved[1].Score = 20
			b.Integrity.Add(lasagna.Finding{Code: lasagna.ScoresOutOfOrder, Where: b.Configs[0].Benchmark + "/bm25", Detail: "1 ranked lists …"})
		},
		"a small selection that says so": func(b *Bundle) {
			for i := range b.Results {
				b.Results[i].PerSampleScores = b.Results[i].PerSampleScores[:5]
				if f, ok := findings.SmallSample(b.Configs[i].Benchmark+"/"+b.Configs[i].Name, 5); ok {
					b.Integrity.Add(f)
				}
			}
			b.Subset = &Subset{Selection: "test.run=TestRAG/faq/bm25/q0[1-5]"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := forgeBundle(t, edit)
			if r.Blocking() > 0 {
				t.Errorf("a genuine bundle is refused:%s", problemLines(r))
			}
		})
	}
}

// TestFamiliesHoldForTheScorer checks the family rules against the scorer
// itself: the metrics RetrievalScorer gives for random ranked lists and
// graded judgements (relevant, non-relevant, negative, unjudged; some
// queries with no relevant document) never break them, at the cutoffs
// lasagna uses and at odd ones.
func TestFamiliesHoldForTheScorer(t *testing.T) {
	sc, err := metrics.NewRetrievalScorer([]int{1, 3, 5, 10, 20, 100})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 22))
	for trial := range 3000 {
		n := rng.IntN(30)
		ranked := make([]string, n)
		perm := rng.Perm(40)
		for i := range ranked {
			ranked[i] = fmt.Sprintf("d%d", perm[i])
		}
		judged := map[string]int{}
		for d := range 40 {
			switch rng.IntN(6) {
			case 0:
				judged[fmt.Sprintf("d%d", d)] = 1 + rng.IntN(3)
			case 1:
				judged[fmt.Sprintf("d%d", d)] = 0
			case 2:
				if trial%5 == 0 {
					judged[fmt.Sprintf("d%d", d)] = -1
				}
			}
		}
		m, err := sc.Score(ranked, judged)
		if err != nil {
			t.Fatal(err)
		}
		var r Report
		checkFamilies(&r, "q", m, n, true)
		if len(r.Problems) > 0 {
			t.Fatalf("list %v, judgements %v: the scorer's own metrics %v break the rules:%s", ranked, judged, m, problemLines(r))
		}
	}
}

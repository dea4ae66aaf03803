package metrics

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func scoredID(s Scored) string { return s.ID }

func trecNear(a, b float64) bool { return math.Abs(a-b) < 5e-5 }

func TestSortTRECTiesAndRankColumn(t *testing.T) {
	l := []Scored{{"d1", 1}, {"d10", 5}, {"d9", 5}, {"MED-10", 2}, {"MED-2", 2}, {"x", math.Inf(1)}}
	SortTREC(l)
	var got []string
	for _, s := range l {
		got = append(got, s.ID)
	}
	want := []string{"x", "d9", "d10", "MED-2", "MED-10", "d1"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (score desc, then docno desc byte-wise)", got, want)
	}
}

// evalOne sorts a run the trec_eval way and evaluates it.
func evalOne(run []Scored, judged map[string]int, opts TrecOptions) TrecMeasures {
	l := slices.Clone(run)
	SortTREC(l)
	var e Evaluator
	return EvaluateQuery(&e, l, scoredID, judged, &opts)
}

func TestEvaluateQueryToys(t *testing.T) {
	opts := TrecOptions{RelLevel: 1, P: []int{1}, NDCGCut: []int{10}}
	// toys.md 1: tie broken by docno descending: d2 before the relevant d1.
	m := evalOne([]Scored{{"d1", 1}, {"d2", 1}}, map[string]int{"d1": 1, "d2": 0}, opts)
	if !trecNear(m.MAP, 0.5) || !trecNear(m.RecipRank, 0.5) || m.P[0] != 0 || !trecNear(m.NDCGCut[0], 1/math.Log2(3)) {
		t.Errorf("toy 1: %+v", m)
	}
	// toys.md 3: the rank column is not an input at all; scores decide.
	m = evalOne([]Scored{{"d9", 4.999999}, {"d10", 5}}, map[string]int{"d10": 1}, opts)
	if m.MAP != 1 || m.RecipRank != 1 || m.P[0] != 1 || m.NDCGCut[0] != 1 {
		t.Errorf("toy 3: %+v", m)
	}
	// toys.md 9: grade -1 is pooled but unjudged; graded nDCG.
	m = evalOne([]Scored{{"d2", 3}, {"d3", 2}, {"d1", 1}}, map[string]int{"d1": 1, "d2": -1, "d3": 2}, opts)
	if m.NumRel != 2 || !trecNear(m.MAP, (1.0/2+2.0/3)/2) || m.RecipRank != 0.5 {
		t.Errorf("toy 9: %+v", m)
	}
	dcg := 2/math.Log2(3) + 1/math.Log2(4)
	idcg := 2 + 1/math.Log2(3)
	if !trecNear(m.NDCGCut[0], dcg/idcg) || !trecNear(m.NDCGCut[0], 0.6697) {
		t.Errorf("toy 9 ndcg_cut_10 = %v, want %v", m.NDCGCut[0], dcg/idcg)
	}
}

// TestEvaluateQueryByHand checks every measure on a small graded case worked
// out on paper.
func TestEvaluateQueryByHand(t *testing.T) {
	// Ranking: a(2) b(-) c(0) d(1) e(3-not retrieved) ; judged: a=2, c=0, d=1, e=3, f=-1.
	ranked := []string{"a", "b", "c", "d"}
	judged := map[string]int{"a": 2, "c": 0, "d": 1, "e": 3, "f": -1}
	opts := TrecOptions{RelLevel: 1, P: []int{1, 2, 10}, Recall: []int{1, 4}, NDCGCut: []int{1, 3, 4}, MAPCut: []int{1, 4}, Success: []int{1, 3}}
	var e Evaluator
	m := EvaluateQuery(&e, ranked, func(s string) string { return s }, judged, &opts)
	// relevant (grade >= 1): a, d, e → NumRel 3; retrieved relevant: a (rank 1), d (rank 4).
	if m.NumRet != 4 || m.NumRel != 3 || m.NumRelRet != 2 {
		t.Fatalf("counts %d %d %d, want 4 3 2", m.NumRet, m.NumRel, m.NumRelRet)
	}
	wantMAP := (1.0/1 + 2.0/4) / 3
	checks := []struct {
		name      string
		got, want float64
	}{
		{"map", m.MAP, wantMAP},
		{"Rprec", m.RPrec, 1.0 / 3}, // top 3: a only
		{"recip_rank", m.RecipRank, 1},
		{"P_1", m.P[0], 1},
		{"P_2", m.P[1], 0.5},
		{"P_10", m.P[2], 0.2}, // divided by 10 although 4 retrieved
		{"recall_1", m.Recall[0], 1.0 / 3},
		{"recall_4", m.Recall[1], 2.0 / 3},
		// ideal gains 3, 2, 1: idcg@1 = 3, @3 = 3 + 2/log2(3) + 1/2.
		{"ndcg_cut_1", m.NDCGCut[0], 2.0 / 3},
		{"ndcg_cut_3", m.NDCGCut[1], 2 / (3 + 2/math.Log2(3) + 0.5)},
		{"ndcg_cut_4", m.NDCGCut[2], (2 + 1/math.Log2(5)) / (3 + 2/math.Log2(3) + 0.5)},
		{"ndcg", m.NDCG, (2 + 1/math.Log2(5)) / (3 + 2/math.Log2(3) + 0.5)},
		{"dcg", m.DCG, 2 + 1/math.Log2(5)},
		{"ideal_dcg", m.IdealDCG, 3 + 2/math.Log2(3) + 0.5},
		{"map_cut_1", m.MAPCut[0], 1.0 / 3},
		{"map_cut_4", m.MAPCut[1], wantMAP},
		{"success_1", m.Success[0], 1},
		{"success_3", m.Success[1], 1},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	// -l2: only a (2) and e (3) are relevant; ndcg unchanged.
	opts.RelLevel = 2
	m2 := EvaluateQuery(&e, ranked, func(s string) string { return s }, judged, &opts)
	if m2.NumRel != 2 || m2.NumRelRet != 1 || m2.MAP != 0.5 || m2.Recall[1] != 0.5 {
		t.Errorf("-l2: %+v", m2)
	}
	if m2.NDCG != m.NDCG || !slices.Equal(m2.NDCGCut, m.NDCGCut) {
		t.Errorf("-l2 changed ndcg: %v %v vs %v %v", m2.NDCG, m2.NDCGCut, m.NDCG, m.NDCGCut)
	}
}

func TestEvaluateQueryNoRelevant(t *testing.T) {
	opts := DefaultTrecOptions()
	m := evalOne([]Scored{{"d5", 2}, {"d6", 1}}, map[string]int{"d5": 0}, opts)
	if m.NumRel != 0 || m.MAP != 0 || m.NDCG != 0 || m.RPrec != 0 || m.RecipRank != 0 {
		t.Errorf("no relevant: %+v", m)
	}
	for _, v := range slices.Concat(m.P, m.Recall, m.NDCGCut, m.MAPCut, m.Success) {
		if v != 0 {
			t.Errorf("no relevant: a cutoff measure is %v", v)
		}
	}
	// Empty ranking (a query missing from the run under -c).
	var e Evaluator
	m = EvaluateQuery(&e, []Scored(nil), scoredID, map[string]int{"d1": 1, "d2": 2}, &opts)
	if m.NumRet != 0 || m.NumRel != 2 || m.MAP != 0 || m.NDCG != 0 {
		t.Errorf("empty ranking: %+v", m)
	}
}

func toyRun(lines ...Scored) []Scored { return lines }

func TestEvaluateRunAveraging(t *testing.T) {
	qrels := map[string]map[string]int{"q1": {"d1": 1}, "q2": {"d5": 1}, "q3": {"d9": 1}}
	run := map[string][]Scored{
		"q1": toyRun(Scored{"d1", 3}),
		"q3": toyRun(Scored{"d8", 2}, Scored{"d9", 1}),
		"q9": toyRun(Scored{"d1", 1}), // not judged: ignored
	}
	opts := TrecOptions{RelLevel: 1}

	_, err := EvaluateRun(qrels, run, scoredID, opts, AverageTrecEval)
	var me *MissingQueriesError
	if !errors.As(err, &me) || !slices.Equal(me.IDs, []string{"q2"}) {
		t.Fatalf("trec_eval averaging with q2 missing: err %v", err)
	}

	ev, err := EvaluateRun(qrels, run, scoredID, opts, AverageComplete)
	if err != nil {
		t.Fatal(err)
	}
	if ev.NumQ != 3 || ev.Summary.NumRet != 3 || ev.Summary.NumRel != 3 || !trecNear(ev.Summary.MAP, 0.5) || !trecNear(ev.Summary.RecipRank, 0.5) {
		t.Errorf("complete: %+v", ev.Summary)
	}
	if q := ev.Queries[1]; q.ID != "q2" || !q.Missing || q.NumRet != 0 || q.NumRel != 1 || q.MAP != 0 {
		t.Errorf("complete, q2: %+v", q)
	}
	// gm_map: geometric mean with 1e-5 floor: exp((0 + ln 1e-5 + ln 0.5)/3).
	if want := math.Exp((math.Log(gmMinMAP) + math.Log(0.5)) / 3); !trecNear(ev.Summary.GMMAP, want) {
		t.Errorf("gm_map %v, want %v", ev.Summary.GMMAP, want)
	}

	ev, err = EvaluateRun(qrels, run, scoredID, opts, AverageRun)
	if err != nil {
		t.Fatal(err)
	}
	if ev.NumQ != 2 || !trecNear(ev.Summary.MAP, 0.75) || ev.Queries[0].ID != "q1" || ev.Queries[1].ID != "q3" {
		t.Errorf("run averaging: %d %+v", ev.NumQ, ev.Summary)
	}

	if _, err := EvaluateRun(qrels, map[string][]Scored{"q7": nil}, scoredID, opts, AverageRun); err == nil {
		t.Error("no common query: no error")
	}
	if _, err := EvaluateRun(qrels, run, scoredID, TrecOptions{P: []int{5, 5}}, AverageRun); err == nil {
		t.Error("duplicate cutoffs: no error")
	}
}

func TestRetrieval(t *testing.T) {
	judged := map[string]int{"a": 1, "c": 2, "z": 0}
	m, err := Retrieval([]string{"b", "a", "c"}, judged, []int{1, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"ndcg@1": 0, "recall@1": 0, "precision@1": 0, "mrr@1": 0, "map@1": 0, "hit@1": 0,
		"recall@3": 1, "precision@3": 2.0 / 3, "mrr@3": 0.5, "hit@3": 1,
		"map@3": (1.0/2 + 2.0/3) / 2, "map": (1.0/2 + 2.0/3) / 2,
		"mrr": 0.5, "r_precision": 0.5,
	}
	ideal := 2 + 1/math.Log2(3)
	want["ndcg@3"] = (1/math.Log2(3) + 2/math.Log2(4)) / ideal
	want["ndcg"] = want["ndcg@3"]
	if len(m) != len(want) {
		t.Errorf("got %d metrics, want %d: %v", len(m), len(want), m)
	}
	for k, w := range want {
		if g, ok := m[k]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, w)
		}
	}
	// Rank order is authoritative: no re-sorting by id.
	m2, _ := Retrieval([]string{"c", "a"}, judged, []int{1})
	if m2["precision@1"] != 1 || m2["mrr@1"] != 1 {
		t.Errorf("rank order not kept: %v", m2)
	}
	if _, err := Retrieval([]string{"a", "b", "a"}, judged, []int{1}); err == nil {
		t.Error("duplicate id: no error")
	}
	if _, err := Retrieval([]string{"a"}, judged, []int{0}); err == nil {
		t.Error("cutoff 0: no error")
	}
}

func TestTrecOptionsValidate(t *testing.T) {
	d := DefaultTrecOptions()
	if err := d.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	for _, o := range []TrecOptions{{P: []int{0}}, {Recall: []int{10, 5}}, {Success: []int{1, 1}}} {
		if o.Validate() == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func BenchmarkEvaluateQuery(b *testing.B) {
	ranked := make([]Scored, 1000)
	judged := map[string]int{}
	for i := range ranked {
		id := "doc-" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		ranked[i] = Scored{id, float64(1000 - i)}
		if i%17 == 0 {
			judged[id] = i % 4
		}
	}
	opts := DefaultTrecOptions()
	var e Evaluator
	b.ReportAllocs()
	for b.Loop() {
		EvaluateQuery(&e, ranked, scoredID, judged, &opts)
	}
}

// TestEvaluateQuerySetMeasuresByHand checks bpref, the set measures,
// iprec_at_recall, Rprec_mult, relative_P and unj on a case worked out on
// paper.
func TestEvaluateQuerySetMeasuresByHand(t *testing.T) {
	// Ranking a(1) b(0) c(not judged) d(1); also judged: e(1), f(0).
	ranked := []string{"a", "b", "c", "d"}
	judged := map[string]int{"a": 1, "b": 0, "d": 1, "e": 1, "f": 0}
	opts := TrecOptions{RelLevel: 1, IPrecAtRecall: []float64{0, 0.5, 1}, RPrecMult: []float64{1, 2}, RelativeP: []int{2}, Unj: []int{2, 4}}
	var e Evaluator
	m := EvaluateQuery(&e, ranked, func(s string) string { return s }, judged, &opts)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"num_nonrel_judged_ret", float64(m.NumNonrelJudgedRet), 1},
		{"set_P", m.SetP, 0.5},
		{"set_recall", m.SetRecall, 2.0 / 3},
		{"set_relative_P", m.SetRelativeP, 2.0 / 3},
		{"set_map", m.SetMAP, 1.0 / 3},
		{"set_F", m.SetF, 4.0 / 7},
		{"utility", m.Utility, 0},
		// bpref: a before any non-relevant (1), d after b: 1 - 1/min(2, 3).
		{"bpref", m.Bpref, (1 + 0.5) / 3},
		{"iprec_at_recall_0.00", m.IPrecAtRecall[0], 1},
		{"iprec_at_recall_0.50", m.IPrecAtRecall[1], 0.5}, // round(1.5) = 2 relevant: rank 4
		{"iprec_at_recall_1.00", m.IPrecAtRecall[2], 0},
		{"Rprec_mult_1.00", m.RPrecMult[0], 1.0 / 3},
		{"Rprec_mult_2.00", m.RPrecMult[1], 2.0 / 6}, // beyond the 4 retrieved: divided by 6
		{"relative_P_2", m.RelativeP[0], 0.5},
		{"unj_2", m.Unj[0], 0},
		{"unj_4", m.Unj[1], 0.25},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestEvaluateQueryGainMeasuresByHand checks relstring, binG, G, infAP, rbp
// and rbp_resid on the case of TestEvaluateQueryByHand.
func TestEvaluateQueryGainMeasuresByHand(t *testing.T) {
	ranked := []string{"a", "b", "c", "d"}
	judged := map[string]int{"a": 2, "c": 0, "d": 1, "e": 3, "f": -1}
	opts := TrecOptions{RelLevel: 1, RelString: 10}
	var e Evaluator
	m := EvaluateQuery(&e, ranked, func(s string) string { return s }, judged, &opts)
	if m.RelString != "2-01" {
		t.Errorf("relstring %q, want 2-01", m.RelString)
	}
	p := 0.9
	checks := []struct {
		name      string
		got, want float64
	}{
		{"binG", m.BinG, (1 + 0.5) / 3},
		{"G", m.G, (2/math.Log2(3) + 1/math.Log2(6)) / 6},
		{"infAP", m.InfAP, (1 + 0.25 + 0.75*(2.0/3)*((1+infapEpsilon)/(2+2*infapEpsilon))) / 3},
		// gains normalised by the largest grade, 3.
		{"rbp", m.RBP, (1 - p) * (2.0/3 + 1.0/3*p*p*p)},
		{"rbp_resid", m.RBPResid, p*p*p*p + (1-p)*p},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestTrecOmit checks that each Omit bit zeroes exactly its measures and
// leaves every other value as the full evaluation computes it.
func TestTrecOmit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	opts := DefaultTrecOptions()
	var e Evaluator
	for q := range 50 {
		judged := map[string]int{}
		var ranked []Scored
		for d := range 200 {
			id := fmt.Sprintf("d%d", d)
			if rng.IntN(4) == 0 {
				judged[id] = rng.IntN(5) - 1
			}
			if rng.IntN(2) == 0 {
				ranked = append(ranked, Scored{ID: id, Score: float64(rng.IntN(50))})
			}
		}
		SortTREC(ranked)
		id := func(s Scored) string { return s.ID }
		full := EvaluateQuery(&e, ranked, id, judged, &opts)
		for _, c := range []struct {
			omit TrecOmit
			zero func(m *TrecMeasures)
		}{
			{OmitGain, func(m *TrecMeasures) { m.BinG, m.G, m.NDCGRel, m.RNDCG = 0, 0, 0, 0 }},
			{OmitInfAPRBP, func(m *TrecMeasures) { m.InfAP, m.RBP, m.RBPResid = 0, 0, 0 }},
			{Omit11pt, func(m *TrecMeasures) { m.Avg11pt = 0 }},
		} {
			o := opts
			o.Omit = c.omit
			got := EvaluateQuery(&e, ranked, id, judged, &o)
			want := full
			c.zero(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("query %d, omit %b: %+v; want %+v", q, c.omit, got, want)
			}
		}
		if full.BinG == 0 && full.InfAP == 0 && full.Avg11pt == 0 && full.NumRelRet > 0 {
			t.Fatalf("query %d: the omitted measures are 0 even in full; the test cannot fail", q)
		}
	}
}

// TestIprecRelevantRanksOnly checks iprec's walk over the relevant ranks
// against its walk over every rank, bit for bit, on random rankings at
// levels 0 to 3 and recall levels 0 to 1.
func TestIprecRelevantRanksOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	opts := DefaultTrecOptions()
	var e Evaluator
	for q := range 3000 {
		judged := map[string]int{}
		var ranked []Scored
		n := 1 + rng.IntN(300)
		for d := range n {
			id := fmt.Sprintf("d%d", d)
			if rng.IntN(3) == 0 {
				judged[id] = rng.IntN(5) - 1
			}
			if rng.IntN(4) != 0 {
				ranked = append(ranked, Scored{ID: id, Score: float64(n - d)})
			}
		}
		opts.RelLevel = q % 4
		m := EvaluateQuery(&e, ranked, scoredID, judged, &opts)
		if m.NumRet == 0 {
			continue
		}
		fast := make([]float64, len(DefaultRecallPoints))
		e.iprec(&m, DefaultRecallPoints, fast, opts.RelLevel)
		if len(e.relRanks) != m.NumRelRet {
			t.Fatalf("query %d: %d relevant ranks, NumRelRet %d", q, len(e.relRanks), m.NumRelRet)
		}
		e.relRanks = append(e.relRanks, -1) // no longer NumRelRet long: the walk over every rank
		slow := make([]float64, len(DefaultRecallPoints))
		e.iprec(&m, DefaultRecallPoints, slow, opts.RelLevel)
		for j := range fast {
			if math.Float64bits(fast[j]) != math.Float64bits(slow[j]) {
				t.Fatalf("query %d, level %d, recall %v: %v over relevant ranks, %v over all", q, opts.RelLevel, DefaultRecallPoints[j], fast[j], slow[j])
			}
		}
	}
}

// TestTrecEvalEdgeRules checks two rules of trec_eval 10 that
// cmd/lasagna/testdata/trec_eval holds its outputs for: under
// AverageComplete the summary's NumRel counts the grades above 0 whatever
// RelLevel, where the queries' NumRel follow RelLevel; at RelLevel 0 a
// query judged only grade 0 has Rndcg NaN, and so has the summary.
func TestTrecEvalEdgeRules(t *testing.T) {
	qrels := map[string]map[string]int{
		"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": -1},
		"q2": {"d5": 1, "d6": 3},
		"q3": {"d7": 1, "d8": 2}, // not in the run
	}
	run := map[string][]Scored{"q1": {{"d1", 3}, {"d3", 2}, {"d9", 1}}, "q2": {{"d6", 2}, {"d5", 1}}}
	for _, c := range []struct {
		level         int
		avg           Averaging
		queries, want int
	}{{2, AverageComplete, 3, 6}, {0, AverageComplete, 7, 6}, {1, AverageComplete, 6, 6}, {2, AverageRun, 2, 2}} {
		opts := DefaultTrecOptions()
		opts.RelLevel = c.level
		ev, err := EvaluateRun(qrels, run, scoredID, opts, c.avg)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, q := range ev.Queries {
			sum += q.NumRel
		}
		if sum != c.queries || ev.Summary.NumRel != c.want {
			t.Errorf("level %d, %s: queries' num_rel add up to %d, summary %d; want %d and %d", c.level, c.avg, sum, ev.Summary.NumRel, c.queries, c.want)
		}
	}

	zeros := map[string]map[string]int{"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 0, "d4": 0}}
	zrun := map[string][]Scored{"q1": {{"d2", 2}, {"d1", 1}}, "q2": {{"d3", 1}}}
	for _, level := range []int{0, 1} {
		opts := DefaultTrecOptions()
		opts.RelLevel = level
		ev, err := EvaluateRun(zeros, zrun, scoredID, opts, AverageTrecEval)
		if err != nil {
			t.Fatal(err)
		}
		q1, q2, all := ev.Queries[0].RNDCG, ev.Queries[1].RNDCG, ev.Summary.RNDCG
		if level == 0 && (math.IsNaN(q1) || !math.IsNaN(q2) || !math.IsNaN(all)) {
			t.Errorf("level 0: Rndcg q1 %v q2 %v all %v; want a number, NaN, NaN", q1, q2, all)
		}
		if level == 1 && (math.IsNaN(q1) || q2 != 0 || math.IsNaN(all)) {
			t.Errorf("level 1: Rndcg q1 %v q2 %v all %v; want numbers, q2 0", q1, q2, all)
		}
	}
}

package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/numfmt"
)

// ArmResult is one arm of one bundle, ready to compare: its config and result,
// under the label comparisons print.
type ArmResult struct {
	Label  string
	Config Config
	Result Result
	// StatsSeed is the stats seed of the arm's run (its bundle's
	// experiment.stats_seed); 0 means 42, the default. A comparison with
	// this arm as the candidate (Pair.Arm) seeds its sign-flip test with it
	// unless CompareOptions.Seed says otherwise.
	StatsSeed uint64
}

// Arms returns the arms of b that have both a config and a result, in the
// order of b.Configs, labelled prefix + config name.
func Arms(b *Bundle, prefix string) []ArmResult {
	var out []ArmResult
	for _, c := range b.Configs {
		if r, ok := b.Result(c.Benchmark, c.Name); ok {
			out = append(out, ArmResult{Label: prefix + c.Name, Config: c, Result: *r, StatsSeed: b.Experiment.StatsSeed})
		}
	}
	return out
}

// gateDefaults returns the metrics the regression gate checks by default
// for an arm of mode m (engine.Gate.GatedMetrics, which a test of the
// engine holds to this list): ndcg@10 and recall@10 when it retrieves
// (retrieval and rag, and an unknown mode, read as rag), token_f1 when it
// answers (every mode but retrieval).
func gateDefaults(m lasagna.Mode) []string {
	if m == "" {
		m = lasagna.ModeRAG
	}
	var ms []string
	if m == lasagna.ModeRetrieval || m == lasagna.ModeRAG {
		ms = append(ms, "ndcg@10", "recall@10")
	}
	if m != lasagna.ModeRetrieval {
		ms = append(ms, "token_f1")
	}
	return ms
}

// GateMetrics returns the metrics a comparison of pair p tests when no
// metric is chosen: the default gate metrics of the arm's resolved mode
// (ndcg@10 and recall@10 when it retrieves, token_f1 when it answers) that
// both arms score, in that order; when they share none of them, every
// metric both score, sorted. The regression gate, results compare, results
// report, the Markdown summary and the leaderboards all start from it, so
// their families (see Compare) match.
func GateMetrics(p Pair) []string {
	a, b := p.Arm, p.Baseline
	var ms []string
	for _, m := range gateDefaults(a.Config.HeldFixed.ResolvedMode) {
		_, inA := a.Result.Metrics[m]
		_, inB := b.Result.Metrics[m]
		if inA && inB {
			ms = append(ms, m)
		}
	}
	if len(ms) > 0 {
		return ms
	}
	for m := range a.Result.Metrics {
		if _, ok := b.Result.Metrics[m]; ok {
			ms = append(ms, m)
		}
	}
	slices.Sort(ms)
	return ms
}

// Pair is one comparison to make: Arm against Baseline (differences are
// Arm − Baseline).
type Pair struct {
	Arm, Baseline ArmResult
}

// PairWithin pairs the arms of each benchmark with that benchmark's
// baseline: the arm whose label or config name is baseline, or the first
// arm of the benchmark when baseline is "". It fails when a benchmark has no
// arm named baseline, or more than one.
func PairWithin(arms []ArmResult, baseline string) ([]Pair, error) {
	var benches []string
	by := map[string][]ArmResult{}
	for _, a := range arms {
		if _, ok := by[a.Config.Benchmark]; !ok {
			benches = append(benches, a.Config.Benchmark)
		}
		by[a.Config.Benchmark] = append(by[a.Config.Benchmark], a)
	}
	var pairs []Pair
	for _, bench := range benches {
		group := by[bench]
		base := 0
		if baseline != "" {
			base = -1
			for i, a := range group {
				if a.Label == baseline || a.Config.Name == baseline {
					if base >= 0 {
						return nil, fmt.Errorf("benchmark %s: baseline %q names both %s and %s; give the full label", bench, baseline, group[base].Label, a.Label)
					}
					base = i
				}
			}
			if base < 0 {
				return nil, fmt.Errorf("benchmark %s has no arm %q (arms: %s)", bench, baseline, strings.Join(labels(group), ", "))
			}
		}
		for i, a := range group {
			if i != base {
				pairs = append(pairs, Pair{Arm: a, Baseline: group[base]})
			}
		}
	}
	return pairs, nil
}

func labels(arms []ArmResult) []string {
	out := make([]string, len(arms))
	for i, a := range arms {
		out[i] = a.Label
	}
	return out
}

// PairAcross pairs the arms of candidate with the arms of baseline of the
// same benchmark and config name. When no name matches on a benchmark that
// has exactly one arm on each side, those two arms are paired. Arms left
// unpaired are returned by name so the caller can say so.
func PairAcross(candidate, baseline []ArmResult) (pairs []Pair, unpaired []string) {
	used := map[int]bool{}
	var left []int
	for i, a := range candidate {
		j := slices.IndexFunc(baseline, func(b ArmResult) bool {
			return b.Config.Benchmark == a.Config.Benchmark && b.Config.Name == a.Config.Name
		})
		if j < 0 {
			left = append(left, i)
			continue
		}
		used[j] = true
		pairs = append(pairs, Pair{Arm: a, Baseline: baseline[j]})
	}
	count := func(arms []ArmResult, bench string) int {
		n := 0
		for _, a := range arms {
			if a.Config.Benchmark == bench {
				n++
			}
		}
		return n
	}
	for _, i := range left {
		a := candidate[i]
		j := slices.IndexFunc(baseline, func(b ArmResult) bool { return b.Config.Benchmark == a.Config.Benchmark })
		if j >= 0 && !used[j] && count(candidate, a.Config.Benchmark) == 1 && count(baseline, a.Config.Benchmark) == 1 {
			used[j] = true
			pairs = append(pairs, Pair{Arm: a, Baseline: baseline[j]})
			continue
		}
		unpaired = append(unpaired, a.Label)
	}
	for j, b := range baseline {
		if !used[j] {
			unpaired = append(unpaired, b.Label)
		}
	}
	return pairs, unpaired
}

// CompareOptions configures Compare. The zero value works: every metric
// both arms score per query, 10000 resamples, the candidate's stats seed,
// 95% intervals and a 0.05 significance level on Holm-adjusted p-values.
type CompareOptions struct {
	// Metrics to compare; nil means every metric both arms of a pair score
	// per query, sorted by name.
	Metrics []string
	// PairMetrics, when set, gives the metrics to compare for each pair in
	// place of Metrics (nil again means every shared metric). The metrics
	// compared are part of the family (see Compare): the Holm correction
	// covers them only.
	PairMetrics func(Pair) []string
	Resamples   int
	// Seed seeds every paired test; 0 means each pair's candidate's
	// ArmResult.StatsSeed (42 when that is 0), so that the same two arms
	// get the same p wherever they are compared.
	Seed uint64
	// Level is the confidence level of the intervals (default 0.95); a
	// difference is significant when its Holm p-value is below 1 − Level.
	Level float64
	// NoIntervals leaves each comparison's bootstrap confidence interval
	// out (Stats.Lo and Stats.Hi are 0), for a tenth of the work: the
	// p-values, the Holm correction, significance and the smallest
	// detectable difference are the same. The leaderboards, which show
	// no interval per pair, compare so.
	NoIntervals bool
}

func (o CompareOptions) level() float64 {
	if !(o.Level > 0 && o.Level < 1) {
		return metrics.DefaultLevel
	}
	return o.Level
}

// PairedStats are the statistics of a paired comparison on the queries
// both sides scored: n, the mean difference with its 95% bootstrap
// interval, Cohen's d_z, the sign-flip randomisation p (exact for small
// n) and the paired t-test's p.
type PairedStats = metrics.Paired

// Comparison is one paired comparison of one metric: Arm against Baseline
// on the N queries both scored without error.
type Comparison struct {
	Benchmark    string
	Arm          string
	Baseline     string
	Metric       string
	Mean         float64 // Arm's mean over the paired queries
	BaselineMean float64 // Baseline's mean over the same queries
	Stats        PairedStats
	// HolmP is Stats.P adjusted by Holm over the comparison's family (see
	// Compare), and FamilySize the number of comparisons the family holds.
	HolmP       float64
	FamilySize  int
	Significant bool
	// Dropped counts the queries of either arm left out of the pairing:
	// absent from the other arm, failed in either, or scored on this metric
	// in one arm only (a query neither arm scores on it is not dropped:
	// the metric does not apply to it). DroppedWhy says how many for each
	// reason.
	Dropped    int
	DroppedWhy string
	Alpha      float64
	// MDE is the smallest detectable difference: the smallest true mean
	// difference the paired test would find significant with 80% power at
	// the level Alpha/FamilySize (the level Holm holds the first comparison
	// of the family to), given Stats.N and the standard deviation of the
	// observed differences (metrics.MinDetectable). 0 when it cannot be
	// estimated: fewer than two pairs, or differences without spread.
	MDE float64
}

// Refusal is a pair Compare would not compare, and why.
type Refusal struct {
	Benchmark     string
	Arm, Baseline string
	// Code is lasagna.StageIsolation when the arms differ in a stage or
	// setting they did not declare; "" when they are simply not comparable
	// (other data, other metrics version) or share nothing to compare.
	Code   lasagna.Code
	Fields []FieldDiff
	Reason string
}

// String formats the refusal as one line.
func (r Refusal) String() string {
	s := fmt.Sprintf("%s vs %s on %s: %s", r.Arm, r.Baseline, r.Benchmark, r.Reason)
	if r.Code != "" {
		s = string(r.Code) + ": " + s
	}
	return s
}

// FieldDiff is a held_fixed field whose value differs between two arms; A
// and B are the JSON values ("absent" when missing).
type FieldDiff struct {
	Field string
	A, B  string
}

// Comparisons is the outcome of Compare.
type Comparisons struct {
	Comparisons []Comparison
	Refusals    []Refusal
}

// dataFields are the held_fixed fields that describe the data and the
// metric definitions rather than a stage: a difference there makes arms not
// comparable at all.
var dataFields = []string{"metrics_version", "benchmark", "split", "n_samples", "sampling_seed",
	"sample_id_digest", "corpus_fingerprint", "corpus_provenance", "resolved_mode"}

// Comparable checks that a and b may be compared: their held_fixed blocks
// (and so their comparability keys) must be equal, and they must declare
// the same varied dimensions. It returns nil when they may.
func Comparable(a, b ArmResult) *Refusal {
	ref := &Refusal{Benchmark: b.Config.Benchmark, Arm: a.Label, Baseline: b.Label}
	diffs := HeldFixedDiff(a.Config.HeldFixed, b.Config.HeldFixed)
	if len(diffs) > 0 {
		ref.Fields = diffs
		var names []string
		for _, d := range diffs {
			names = append(names, fmt.Sprintf("%s (%s: %s, %s: %s)", d.Field, a.Label, d.A, b.Label, d.B))
			base, _, _ := strings.Cut(d.Field, ".")
			if !slices.Contains(dataFields, base) {
				ref.Code = lasagna.StageIsolation
			}
		}
		ref.Reason = "comparability keys differ: held_fixed differs in " + strings.Join(names, "; ")
		if ref.Code != "" {
			ref.Reason += "; declare the differing stage in varied_dimensions or hold it fixed"
		}
		return ref
	}
	da, db := slices.Sorted(slices.Values(a.Config.VariedDimensions)), slices.Sorted(slices.Values(b.Config.VariedDimensions))
	if !slices.Equal(da, db) {
		ref.Code = lasagna.StageIsolation
		ref.Reason = fmt.Sprintf("the arms declare different varied dimensions (%s: [%s], %s: [%s]), so a stage one of them varies is undeclared in the other",
			a.Label, strings.Join(da, ", "), b.Label, strings.Join(db, ", "))
		return ref
	}
	return nil
}

// HeldFixedDiff lists the held_fixed fields whose values differ between a
// and b, in field order; fixed_stages is compared stage by stage
// ("fixed_stages.reranker").
func HeldFixedDiff(a, b HeldFixed) []FieldDiff {
	ma, mb := fieldMap(a), fieldMap(b)
	var keys []string
	for _, m := range []map[string]string{ma, mb} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	order := heldFixedOrder()
	slices.SortFunc(keys, func(x, y string) int {
		bx, _, _ := strings.Cut(x, ".")
		by, _, _ := strings.Cut(y, ".")
		if c := slices.Index(order, bx) - slices.Index(order, by); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	var out []FieldDiff
	for _, k := range keys {
		va, oka := ma[k]
		vb, okb := mb[k]
		if oka && okb && va == vb {
			continue
		}
		if !oka {
			va = "absent"
		}
		if !okb {
			vb = "absent"
		}
		out = append(out, FieldDiff{Field: k, A: va, B: vb})
	}
	return out
}

// fieldMap flattens h into field → canonical JSON value, with fixed_stages
// split per stage.
func fieldMap(h HeldFixed) map[string]string {
	data, err := marshal(h)
	out := map[string]string{}
	if err != nil {
		return out
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return out
	}
	for k, v := range m {
		if k == "fixed_stages" {
			for stage, s := range h.FixedStages {
				out[k+"."+stage] = strconv.Quote(s)
			}
			continue
		}
		c, err := Canonical(v)
		if err != nil {
			c = v
		}
		out[k] = string(c)
	}
	return out
}

func heldFixedOrder() []string {
	data, _ := marshal(HeldFixed{})
	dec := json.NewDecoder(bytes.NewReader(data))
	var order []string
	dec.Token()
	for dec.More() {
		t, _ := dec.Token()
		order = append(order, t.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	// Optional fields are absent from the zero value; list them in struct order.
	for _, f := range []string{"corpus_provenance", "embedder_model", "embedder_dim", "chunker",
		"retriever_top_k", "vector_backend", "judge_model", "bm25_stemming", "fixed_stages",
		"similarity_model", "corpus_ingest_gap", "answer_normalization"} {
		if !slices.Contains(order, f) {
			order = append(order, f)
		}
	}
	return order
}

// Compare runs the paired comparisons of pairs: for each comparable pair
// and each metric (CompareOptions.PairMetrics or Metrics), the two arms'
// per-query scores are paired by query id (queries present and error-free
// in both, with the metric scored in both) and compared with
// metrics.ComparePaired (the sign-flip test seeded with CompareOptions.Seed,
// or the candidate's stats seed); the p-values are then Holm-adjusted
// family by family: a family is every comparison made between one arm and
// its baseline arm on one benchmark, one per metric compared (Metrics or
// PairMetrics; the commands and the gate pass GateMetrics unless metrics
// are chosen), less those refused; comparisons of other arms or other
// benchmarks, made in the same call or printed beside them, are other
// families (see holmFamilies). Pairs that are not comparable (see
// Comparable) or that share no scored query are returned as refusals,
// never compared. Equal inputs and options give identical results.
//
// Compare is the one place lasagna computes a Holm p: the regression gate,
// the not_worse_than thresholds, results compare and significance, results
// report, the Markdown summary, the dashboard's comparison page and the
// leaderboards' ties all call it, so one pair of arms compared on the same
// metrics gets the same p and the same Holm p in each of them.
func Compare(pairs []Pair, o CompareOptions) Comparisons {
	var out Comparisons
	var sds []float64 // the sd of each comparison's differences
	alpha := 1 - o.level()
	for _, p := range pairs {
		seed := o.Seed
		if seed == 0 {
			seed = cmp.Or(p.Arm.StatsSeed, defaultStatsSeed)
		}
		if ref := Comparable(p.Arm, p.Baseline); ref != nil {
			out.Refusals = append(out.Refusals, *ref)
			continue
		}
		ms := o.Metrics
		if o.PairMetrics != nil {
			ms = o.PairMetrics(p)
		}
		if ms == nil {
			ms = sharedMetrics(p.Arm.Result, p.Baseline.Result)
		}
		if len(ms) == 0 {
			out.Refusals = append(out.Refusals, Refusal{Benchmark: p.Arm.Config.Benchmark, Arm: p.Arm.Label, Baseline: p.Baseline.Label,
				Reason: "the arms share no per-query metric to compare"})
			continue
		}
		for _, m := range ms {
			a, b, dropped, why := pairScores(p.Arm.Result, p.Baseline.Result, m)
			if len(a) == 0 {
				out.Refusals = append(out.Refusals, Refusal{Benchmark: p.Arm.Config.Benchmark, Arm: p.Arm.Label, Baseline: p.Baseline.Label,
					Reason: fmt.Sprintf("no query has a %s score in both arms (%d queries dropped)", m, dropped)})
				continue
			}
			st, err := metrics.ComparePaired(a, b, metrics.PairedOptions{Resamples: o.Resamples, Seed: seed, Level: o.level(), NoInterval: o.NoIntervals})
			if err != nil {
				out.Refusals = append(out.Refusals, Refusal{Benchmark: p.Arm.Config.Benchmark, Arm: p.Arm.Label, Baseline: p.Baseline.Label,
					Reason: fmt.Sprintf("%s: %v", m, err)})
				continue
			}
			if !st.DzUndefined && constantDiffs(a, b) {
				// The differences are equal up to rounding; their sd is
				// noise and d_z would be an enormous meaningless number.
				st.Dz, st.DzUndefined = 0, true
			}
			out.Comparisons = append(out.Comparisons, Comparison{
				Benchmark: p.Arm.Config.Benchmark, Arm: p.Arm.Label, Baseline: p.Baseline.Label, Metric: m,
				Mean: mean(a), BaselineMean: mean(b), Stats: st, Dropped: dropped, DroppedWhy: why, Alpha: alpha,
			})
			sd := 0.0
			if !constantDiffs(a, b) {
				sd = metrics.SD(diffs(a, b))
			}
			sds = append(sds, sd)
		}
	}
	for _, idx := range holmFamilies(out.Comparisons) {
		ps := make([]float64, len(idx))
		for j, i := range idx {
			ps[j] = out.Comparisons[i].Stats.P
		}
		for j, h := range metrics.Holm(ps) {
			c := &out.Comparisons[idx[j]]
			c.HolmP, c.FamilySize, c.Significant = h, len(idx), h < alpha
			c.MDE, _ = metrics.MinDetectable(c.Stats.N, sds[idx[j]], alpha/float64(len(idx)))
		}
	}
	return out
}

// holmFamilies groups the indexes of cs by family, in order of first
// appearance: it is the one definition of which comparisons one Holm
// correction covers. A family is every comparison between one arm and its
// baseline arm on one benchmark (one per metric compared). Comparisons of
// other arms or other benchmarks are other families: the p of a comparison
// does not depend on what else is compared, and the regression gate, which
// decides arm by arm (in evaltest as each arm finishes, before later arms
// have run), uses the same families as the commands that read bundles
// afterwards.
func holmFamilies(cs []Comparison) [][]int {
	type key struct{ bench, arm, baseline string }
	var out [][]int
	at := map[key]int{}
	for i, c := range cs {
		k := key{c.Benchmark, c.Arm, c.Baseline}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// constantDiffs reports whether the differences a[i]−b[i] are all equal up
// to floating-point rounding (a relative tolerance of 1e-9) and not all 0.
func constantDiffs(a, b []float64) bool {
	if len(a) < 2 {
		return false
	}
	d0 := a[0] - b[0]
	lo, hi := d0, d0
	for i := range a {
		d := a[i] - b[i]
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return hi-lo <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) && (lo != 0 || hi != 0)
}

func diffs(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// sharedMetrics lists, sorted, the metrics both results score on at least
// one query.
func sharedMetrics(a, b Result) []string {
	names := func(r Result) map[string]bool {
		m := map[string]bool{}
		for _, row := range r.PerSampleScores {
			for k := range row.Scores {
				m[k] = true
			}
		}
		return m
	}
	na, nb := names(a), names(b)
	var out []string
	for k := range na {
		if nb[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// pairScores returns the scores of metric m of a and b paired by query id,
// in a's row order, and the number of queries of either side left out.
func pairScores(a, b Result, m string) (xa, xb []float64, dropped int, why string) {
	var missing, failed, oneSided int
	inB := map[string]Sample{}
	for _, row := range b.PerSampleScores {
		inB[row.QueryID] = row
	}
	seen := map[string]bool{}
	for _, row := range a.PerSampleScores {
		seen[row.QueryID] = true
		rb, inb := inB[row.QueryID]
		va, oka := row.Scores[m]
		vb, okb := rb.Scores[m]
		switch {
		case !inb:
			missing++
		case row.Error != "" || rb.Error != "":
			failed++
		case oka && okb:
			xa = append(xa, va)
			xb = append(xb, vb)
		case oka || okb:
			oneSided++
		default:
			// Scored in neither arm (the metric does not apply to the
			// query, e.g. an answer metric of an unanswerable question
			// both arms left unscored): nothing was dropped.
		}
	}
	for _, row := range b.PerSampleScores {
		if !seen[row.QueryID] {
			missing++
		}
	}
	var parts []string
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d in one arm only", missing))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed in an arm", failed))
	}
	if oneSided > 0 {
		parts = append(parts, fmt.Sprintf("%d scored on %s in one arm only", oneSided, m))
	}
	return xa, xb, missing + failed + oneSided, strings.Join(parts, ", ")
}

// HolmCell formats c's Holm p with the size of its family as tables
// print it: "0.062 (of 2)".
func (c Comparison) HolmCell() string {
	return fmt.Sprintf("%s (of %d)", numfmt.P(c.HolmP), c.FamilySize)
}

// HolmText formats c's Holm p with the size of its family, as the verdict
// lines and the gate print it: "0.062 over 2 comparisons".
func (c Comparison) HolmText() string {
	return fmt.Sprintf("%s over %d %s", numfmt.P(c.HolmP), c.FamilySize, plural(c.FamilySize, "comparison", "comparisons"))
}

// MDEText formats c's smallest detectable difference with its n, as the
// verdict lines and the gate print it: "0.061 at n=44" ("" when MDE is 0).
func (c Comparison) MDEText() string {
	if c.MDE <= 0 {
		return ""
	}
	s := numfmt.Number(c.MDE, 0)
	if c.MDE < 100 {
		s = strconv.FormatFloat(c.MDE, 'g', 2, 64)
	}
	return s + " at n=" + strconv.Itoa(c.Stats.N)
}

// Verdict returns the one-line reading of c, e.g.
//
//	bm25 beats dense by +0.091 ndcg@10 (d_z 0.38, Holm p = 1e-4 over 2 comparisons) on 100 queries; smallest detectable difference 0.061 at n=100
//	no significant difference: bm25 vs dense on ndcg@10 (+0.004, Holm p = 0.62 over 2 comparisons, 100 queries); smallest detectable difference 0.061 at n=100
//
// A significant negative difference is read the other way round (the
// baseline beats the arm). Dropped queries, small samples and the smallest
// detectable difference (MDE) are noted.
func (c Comparison) Verdict() string {
	var s string
	n := c.Stats.N
	if c.Significant && c.Stats.MeanDiff != 0 {
		win, lose := c.Arm, c.Baseline
		if c.Stats.MeanDiff < 0 {
			win, lose = lose, win
		}
		dz := "d_z n/a"
		if !c.Stats.DzUndefined {
			dz = "d_z " + numfmt.Number(math.Abs(c.Stats.Dz), 2)
		}
		s = fmt.Sprintf("%s beats %s by +%s %s (%s, Holm p = %s) on %d %s", win, lose,
			numfmt.Number(math.Abs(c.Stats.MeanDiff), 3), c.Metric, dz, c.HolmText(), n, plural(n, "query", "queries"))
	} else {
		s = fmt.Sprintf("no significant difference: %s vs %s on %s (%s, Holm p = %s, %d %s)", c.Arm, c.Baseline, c.Metric,
			numfmt.Signed(c.Stats.MeanDiff, 3), c.HolmText(), n, plural(n, "query", "queries"))
	}
	var notes []string
	if c.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d %s dropped: %s", c.Dropped, plural(c.Dropped, "query", "queries"), c.DroppedWhy))
	}
	if c.Stats.SmallSample {
		notes = append(notes, fmt.Sprintf("%s: %d pairs are too few for a reliable interval", lasagna.SmallSample, n))
	}
	if c.MDE > 0 {
		notes = append(notes, "smallest detectable difference "+c.MDEText())
	}
	if len(notes) > 0 {
		s += "; " + strings.Join(notes, "; ")
	}
	return s
}

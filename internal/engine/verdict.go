package engine

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/numfmt"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/results"
)

// MetricLatency is the wall time of a query's pipeline call in
// milliseconds. It is not a score (the bundle does not hold it), but
// thresholds may bound it: {metric: latency_ms, at_most: 800}.
const MetricLatency = "latency_ms"

// Threshold is a bound on a metric: on an arm's mean over its scored
// queries, or with PerQuery on every query's own score. Exactly one of
// AtLeast and AtMost is set; make one with AtLeast or AtMost in Go, or
// {metric: ndcg@10, at_least: 0.6} in a sweep's thresholds: list.
type Threshold struct {
	Metric   string   `yaml:"metric"`
	AtLeast  *float64 `yaml:"at_least"`
	AtMost   *float64 `yaml:"at_most"`
	PerQuery bool     `yaml:"per_query"`
	// NotWorseThan, instead of a bound, names another arm of the same
	// run: the threshold fails when the metric's mean fell below that
	// arm's by more than Tolerance (0 means 0.01) and the drop is
	// significant by the paired test on the queries both arms scored,
	// Holm-adjusted across the arm's paired metrics (alpha 0.05) — the
	// baseline gate's rule, against an arm instead of a baseline. Make one
	// with NotWorseThan, or {metric: ndcg@10, not_worse_than: bm25} in a
	// sweep.
	NotWorseThan string  `yaml:"not_worse_than"`
	Tolerance    float64 `yaml:"tolerance"`

	// Pos is where a sweep file set the threshold.
	Pos lasagna.Pos `yaml:"-"`
}

// AtLeast returns the threshold metric ≥ min, e.g. AtLeast("ndcg@10", 0.6).
func AtLeast(metric string, min float64) Threshold {
	return Threshold{Metric: metric, AtLeast: &min}
}

// AtMost returns the threshold metric ≤ max, e.g. AtMost("latency_ms", 800).
func AtMost(metric string, max float64) Threshold {
	return Threshold{Metric: metric, AtMost: &max}
}

// NotWorseThan returns the paired threshold "metric is not significantly
// worse than arm's by more than the tolerance" (Threshold.Tolerance, 0
// meaning 0.01), e.g. NotWorseThan("bm25", "ndcg@10").
func NotWorseThan(arm, metric string) Threshold {
	return Threshold{Metric: metric, NotWorseThan: arm}
}

// Paired reports whether th compares with another arm (NotWorseThan).
func (th Threshold) Paired() bool { return th.NotWorseThan != "" }

func (th Threshold) tolerance() float64 { return Gate{Tolerance: th.Tolerance}.tolerance() }

// Met reports whether the value v meets th.
func (th Threshold) Met(v float64) bool {
	switch {
	case th.AtMost != nil:
		return v <= *th.AtMost
	case th.AtLeast != nil:
		return v >= *th.AtLeast
	}
	return false
}

// Want formats th's bound: ">= 0.6", "<= 800", or "not worse than bm25
// by > 0.01".
func (th Threshold) Want() string {
	switch {
	case th.Paired():
		return "not significantly worse than " + th.NotWorseThan + " by > " + FormatValue(th.tolerance())
	case th.AtMost != nil:
		return "<= " + strconv.FormatFloat(*th.AtMost, 'g', -1, 64)
	case th.AtLeast != nil:
		return ">= " + strconv.FormatFloat(*th.AtLeast, 'g', -1, 64)
	}
	return "(no bound)"
}

// String formats th as "ndcg@10 >= 0.6" (with "per query" when it is one).
func (th Threshold) String() string {
	s := th.Metric + " " + th.Want()
	if th.PerQuery {
		s += " per query"
	}
	return s
}

func (th Threshold) check() error {
	switch {
	case th.Metric == "":
		return errors.New("a threshold has no metric")
	case th.Paired() && (th.AtLeast != nil || th.AtMost != nil || th.PerQuery):
		return fmt.Errorf("threshold on %s: not_worse_than compares arm means; drop at_least, at_most and per_query", th.Metric)
	case th.Paired() && (th.Tolerance < 0 || math.IsNaN(th.Tolerance) || math.IsInf(th.Tolerance, 0)):
		return fmt.Errorf("threshold on %s: tolerance must be a finite number ≥ 0", th.Metric)
	case th.Paired():
		return nil
	case th.Tolerance != 0:
		return fmt.Errorf("threshold on %s: tolerance applies to not_worse_than only", th.Metric)
	case (th.AtLeast == nil) == (th.AtMost == nil):
		return fmt.Errorf("threshold on %s: set exactly one of at_least and at_most", th.Metric)
	case th.AtLeast != nil && (math.IsNaN(*th.AtLeast) || math.IsInf(*th.AtLeast, 0)),
		th.AtMost != nil && (math.IsNaN(*th.AtMost) || math.IsInf(*th.AtMost, 0)):
		return fmt.Errorf("threshold on %s: the bound must be a finite number", th.Metric)
	}
	return nil
}

// PassRule decides whether a repeated query passes its per-query
// thresholds, from how many of its repeats passed. The zero value is All().
type PassRule struct {
	kind int // 0 all, 1 majority, 2 rate, 3 any
	rate float64
}

// Any passes a query when at least one of its repeats passes.
func Any() PassRule { return PassRule{kind: 3} }

// All passes a query when every repeat passes.
func All() PassRule { return PassRule{} }

// Majority passes a query when more than half of its repeats pass.
func Majority() PassRule { return PassRule{kind: 1} }

// RateAtLeast passes a query when at least the share x (0 ≤ x ≤ 1) of its
// repeats pass.
func RateAtLeast(x float64) PassRule { return PassRule{kind: 2, rate: x} }

// Passes reports whether passed of n repeats pass the rule.
func (p PassRule) Passes(passed, n int) bool {
	switch p.kind {
	case 1:
		return 2*passed > n
	case 2:
		return float64(passed) >= p.rate*float64(n)
	case 3:
		return passed > 0
	default:
		return passed == n
	}
}

// String names the rule: "all", "majority", "any" or "rate >= 0.8"; it
// is what ParsePassRule reads.
func (p PassRule) String() string {
	switch p.kind {
	case 1:
		return "majority"
	case 3:
		return "any"
	case 2:
		return "rate >= " + strconv.FormatFloat(p.rate, 'g', -1, 64)
	default:
		return "all"
	}
}

// Gate is the regression gate against a baseline bundle. For each arm, the
// gated metrics are compared with the baseline's arm of the same name on
// the same benchmark, query by query (paired by query id, results.Compare),
// and the p-values are Holm-adjusted over the family results.Compare
// defines: the arm's gated metrics against its baseline arm. A
// metric fails the gate only when it dropped by more than Tolerance AND its
// adjusted p-value is below Alpha. All gated metrics are read as
// higher-is-better.
type Gate struct {
	// Metrics are the gated metrics; nil means ndcg@10 and recall@10 for a
	// retrieving arm, and token_f1 for an answering arm.
	Metrics []string `yaml:"metrics"`
	// Tolerance is the largest drop of a metric's mean that passes even
	// when significant; 0 means 0.01.
	Tolerance float64 `yaml:"tolerance"`
	// Alpha is the significance level on Holm-adjusted p-values; 0 means
	// 0.05.
	Alpha float64 `yaml:"alpha"`
}

func (g Gate) tolerance() float64 {
	if g.Tolerance > 0 {
		return g.Tolerance
	}
	return 0.01
}

func (g Gate) alpha() float64 {
	if g.Alpha > 0 && g.Alpha < 1 {
		return g.Alpha
	}
	return 0.05
}

// GatedMetrics returns the metrics g gates for arm a: g.Metrics, or by
// default those of results.GateMetrics (a test holds the two lists equal).
func GatedMetrics(g Gate, a *Arm) []string {
	if g.Metrics != nil {
		return slices.Clone(g.Metrics)
	}
	var ms []string
	if a.Retrieves() {
		ms = append(ms, "ndcg@10", "recall@10")
	}
	if a.Answers() {
		ms = append(ms, "token_f1")
	}
	return ms
}

// VerdictKind says what a verdict checked.
type VerdictKind string

// Kinds of verdicts.
const (
	// VerdictQuery: the query's pipeline call failed, or its ranked list
	// could not be scored (duplicate or unknown id).
	VerdictQuery VerdictKind = "query"
	// VerdictThreshold: a threshold on an arm's mean or, per query, on a
	// query's score (with the pass rule over repeats).
	VerdictThreshold VerdictKind = "threshold"
	// VerdictGate: the significance-gated baseline gate.
	VerdictGate VerdictKind = "gate"
)

// Verdict is one checked rule and its outcome. Verdicts are values: the
// engine computes them, evaltest reports each on its subtest (a failed one
// with t.Error, a passing gate verdict with t.Log) and the CLI prints them
// and exits 1 when one failed, with the same wording.
type Verdict struct {
	Kind VerdictKind
	// Benchmark and Arm name the cell; Query is the query id of a
	// per-query verdict and "" for an arm's.
	Benchmark, Arm, Query string
	// Metric is the checked metric ("" for a failed query).
	Metric string
	// Got is the checked value (the mean for arm thresholds and the gate;
	// NaN when there was nothing to check), and Want the rule, e.g.
	// ">= 0.6" or "no significant drop > 0.01".
	Got  float64
	Want string
	// Pass is the outcome, Message the sentence that explains it.
	Pass    bool
	Message string
}

// Path returns "benchmark/arm" or "benchmark/arm/query".
func (v Verdict) Path() string {
	p := v.Benchmark + "/" + v.Arm
	if v.Query != "" {
		p += "/" + v.Query
	}
	return p
}

// String formats v as "path: message".
func (v Verdict) String() string { return v.Path() + ": " + v.Message }

// Failed returns the verdicts of vs that did not pass.
func Failed(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if !v.Pass {
			out = append(out, v)
		}
	}
	return out
}

// DefaultMetricCutoffs returns the @k cutoffs of retrieval metrics a run
// computes when none are given: 1, 5 and 10 (each arm's depth is always
// added).
func DefaultMetricCutoffs() []int { return []int{1, 5, 10} }

// KnownMetrics returns the metric names arm a scores with the given
// cutoffs (nil means DefaultMetricCutoffs), sorted: retrieval metrics
// when it retrieves, exact_match and token_f1 when it answers, the judge
// metrics when it is judged, and latency_ms.
func KnownMetrics(a *Arm, cutoffs []int) []string {
	ms := []string{MetricLatency}
	if a.Retrieves() {
		ms = append(ms, "ndcg", "mrr", "map", "r_precision")
		for _, k := range cutoffsOf(a, cutoffs) {
			s := strconv.Itoa(k)
			ms = append(ms, "ndcg@"+s, "recall@"+s, "precision@"+s, "map@"+s, "hit@"+s, "mrr@"+s)
		}
	}
	if a.Answers() {
		ms = append(ms, "exact_match", "token_f1")
	}
	if a.Judge != nil {
		ms = append(ms, judgeMetricsOf(a.Judge)...)
	}
	for _, s := range a.Scorers {
		ms = append(ms, s.Metrics...)
	}
	slices.Sort(ms)
	return slices.Compact(ms)
}

func cutoffsOf(a *Arm, cutoffs []int) []int {
	cs := append(slices.Clone(orDefault(cutoffs, DefaultMetricCutoffs())), a.topK())
	slices.Sort(cs)
	return slices.Compact(cs)
}

// retrievalFamilies are the metric names that take an @k cutoff.
var retrievalFamilies = metrics.CutoffFamilies()

// checkMetrics reports, before anything runs, every metric name that arm
// a cannot score with the given cutoffs (nil means DefaultMetricCutoffs):
// a misspelt name (with "did you mean"), an @k cutoff the run does not
// compute (with the fix: add k to the cutoffs, named by cutoffsName, e.g.
// "Config.Cutoffs" or "cutoffs:"), or a metric of a kind the arm does not
// return (an answer metric on a retrieval arm). what names where the
// names come from ("threshold", "gate").
func checkMetrics(a *Arm, cutoffs []int, cutoffsName, what string, names []string) error {
	known := KnownMetrics(a, cutoffs)
	var errs []error
	for _, m := range names {
		if slices.Contains(known, m) {
			continue
		}
		if a.Retrieves() && slices.Contains(metrics.VectaMetricNames(), m) {
			continue // scored where the benchmark and the hits allow (see lasagna.Hit)
		}
		fam, cut, hasCut := strings.Cut(m, "@")
		k, kerr := strconv.Atoi(cut)
		switch {
		case hasCut && slices.Contains(retrievalFamilies, fam) && kerr == nil && k > 0 && a.Retrieves():
			errs = append(errs, fmt.Errorf("arm %s: %s %s needs the cutoff %d, which the run does not compute; add %d to %s", a.Name, what, m, k, k, cutoffsName))
		case slices.Contains(allMetricNames(), m) || (hasCut && slices.Contains(retrievalFamilies, fam) && kerr == nil && k > 0):
			errs = append(errs, fmt.Errorf("arm %s: %s %s: the arm (mode %s) does not score %s; it scores %s", a.Name, what, m, a.ResolvedMode(), m, strings.Join(known, ", ")))
		default:
			errs = append(errs, fmt.Errorf("arm %s: %s on unknown metric %q%s; the arm scores %s", a.Name, what, m, suggest.Hint(m, known), strings.Join(known, ", ")))
		}
	}
	return errors.Join(errs...)
}

// allMetricNames lists every metric name without a cutoff.
func allMetricNames() []string {
	ms := append([]string{MetricLatency, "ndcg", "mrr", "map", "r_precision", "exact_match", "token_f1"}, metrics.VectaMetricNames()...)
	return append(ms, JudgeMetrics()...)
}

// checkThresholds checks each threshold's form and metric (checkMetrics).
func checkThresholds(a *Arm, cutoffs []int, cutoffsName string, ths []Threshold) error {
	var errs []error
	var names []string
	for _, th := range ths {
		if err := th.check(); err != nil {
			errs = append(errs, fmt.Errorf("%sarm %s: %w", posPrefix(th.Pos), a.Name, err))
			continue
		}
		names = append(names, th.Metric)
	}
	if err := checkMetrics(a, cutoffs, cutoffsName, "threshold", names); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// value returns query result r's value of metric m.
func value(r *QueryResult, m string) (float64, bool) {
	if m == MetricLatency {
		return r.LatencyMS()
	}
	v, ok := r.Scores[m]
	return v, ok
}

// QueryVerdicts checks one query of cell c, run once or repeated (reps
// holds one result per repeat): a failed pipeline call, a ranked list that
// could not be scored, and each per-query threshold of ths under the pass
// rule. It returns only failures, each with the dataset file:line, the
// query, `metric = got, want …` and, for the first failed threshold, what
// was missing (-want +got).
func QueryVerdicts(c *Cell, reps []*QueryResult, ths []Threshold, rule PassRule) []Verdict {
	if len(reps) == 0 {
		return nil
	}
	q := reps[0].Query
	n := len(reps)
	fail := func(metric, msg string) Verdict {
		return Verdict{Kind: VerdictQuery, Benchmark: c.Bench.Benchmark.Name, Arm: c.Arm.Name, Query: q.ID, Metric: metric, Got: math.NaN(), Message: msg}
	}
	for rep, r := range reps {
		if r.Err != nil {
			which := ""
			if n > 1 {
				which = fmt.Sprintf(" (repeat %d of %d)", rep+1, n)
			}
			return []Verdict{fail("", fmt.Sprintf("%s\npipeline failed%s: %v", header(q), which, r.Err))}
		}
	}
	for _, r := range reps {
		if r.Duplicate != "" {
			info, _ := lasagna.DuplicateRetrievedID.Info()
			return []Verdict{fail("", fmt.Sprintf("%s\nthe ranked list holds %q twice, so it was not scored (%s); %s", header(q), r.Duplicate, lasagna.DuplicateRetrievedID, info.Fix))}
		}
		if r.Unknown != "" {
			info, _ := lasagna.UnknownDocID.Info()
			return []Verdict{fail("", fmt.Sprintf("%s\nthe ranked list holds %q, which is not in the corpus of %d documents (%s); %s", header(q), r.Unknown, len(c.Bench.Benchmark.Corpus), lasagna.UnknownDocID, info.Fix))}
		}
	}
	var per []Threshold
	for _, th := range ths {
		if th.PerQuery {
			per = append(per, th)
		}
	}
	if len(per) == 0 {
		return nil
	}
	passed := 0
	var lines []string
	var first *Threshold
	var firstGot float64
	diffed := false
	for rep, r := range reps {
		ok := true
		for i, th := range per {
			v, scored := value(r, th.Metric)
			if !scored || th.Met(v) {
				continue
			}
			ok = false
			if first == nil {
				first, firstGot = &per[i], v
			}
			line := fmt.Sprintf("%s = %s, want %s", th.Metric, FormatValue(v), th.Want())
			if n > 1 {
				line = fmt.Sprintf("repeat %d: %s", rep+1, line)
			}
			lines = append(lines, line)
			// The first failure of the first failing repeat says what was
			// missing; later ones are usually the same story.
			if !diffed {
				if d := Diff(c.Bench.Benchmark, r, th.Metric); d != "" {
					lines = append(lines, d)
					diffed = true
				}
			}
		}
		if ok {
			passed++
		}
	}
	if rule.Passes(passed, n) || first == nil {
		return nil
	}
	v := Verdict{Kind: VerdictThreshold, Benchmark: c.Bench.Benchmark.Name, Arm: c.Arm.Name, Query: q.ID,
		Metric: first.Metric, Got: firstGot, Want: first.Want()}
	if n > 1 {
		v.Want = rule.String()
		v.Got = float64(passed) / float64(n)
		v.Message = fmt.Sprintf("%s: %d of %d repeats passed, want %s\n%s", header(q), passed, n, rule, strings.Join(lines, "\n"))
	} else {
		v.Message = fmt.Sprintf("%s\n%s", header(q), strings.Join(lines, "\n"))
	}
	return []Verdict{v}
}

// header is the first line of a query's failure message.
func header(q *lasagna.Query) string {
	text := q.Text
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	s := fmt.Sprintf("query %s %q", q.ID, text)
	if p := q.Pos.String(); p != "" {
		s = p + ": " + s
	}
	return s
}

// maxGot is how many retrieved non-relevant documents a diff lists.
const maxGot = 5

// Diff explains a low score of metric m for query result r of benchmark
// b: the relevant documents missing from the top k and what was retrieved
// instead, or the reference answers against the answer given, as a
// -want +got list. It is "" when there is nothing to show.
func Diff(b *lasagna.Benchmark, r *QueryResult, m string) string {
	q := r.Query
	switch m {
	case "exact_match", "token_f1":
		var sb strings.Builder
		sb.WriteString("answer (-want +got):")
		if q.Unanswerable {
			sb.WriteString("\n  -(abstain: the question is unanswerable)")
		}
		for _, a := range q.Answers {
			fmt.Fprintf(&sb, "\n  -%q", a)
		}
		switch {
		case r.Output.Abstained:
			sb.WriteString("\n  +(abstained)")
		default:
			fmt.Fprintf(&sb, "\n  +%q", r.Output.Answer)
		}
		return sb.String()
	}
	judged, ok := b.Qrels[q.ID]
	if !ok || m == MetricLatency {
		return ""
	}
	k := 10
	if _, cut, found := strings.Cut(m, "@"); found {
		if c, err := strconv.Atoi(cut); err == nil && c > 0 {
			k = c
		}
	}
	rank := map[string]int{}
	for i, h := range r.Output.Hits {
		if _, dup := rank[h.ID]; !dup {
			rank[h.ID] = i + 1
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "relevant documents in the top %d (-want +got):", k)
	for _, id := range b.Qrels.Relevant(q.ID) {
		switch r, ok := rank[id]; {
		case !ok:
			fmt.Fprintf(&sb, "\n  -%s (not retrieved)", id)
		case r > k:
			fmt.Fprintf(&sb, "\n  -%s (rank %d)", id, r)
		}
	}
	shown, more := 0, 0
	for i, h := range r.Output.Hits[:min(k, len(r.Output.Hits))] {
		switch {
		case judged[h.ID] > 0:
		case shown < maxGot:
			fmt.Fprintf(&sb, "\n  +%s (rank %d)", h.ID, i+1)
			shown++
		default:
			more++
		}
	}
	if more > 0 {
		fmt.Fprintf(&sb, "\n  +… %d more non-relevant", more)
	}
	return sb.String()
}

// FormatValue formats a metric value for attrs and messages: four
// significant digits, no exponent for ordinary values ("0.6131", "1", "0").
func FormatValue(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// CellVerdicts checks the arm-level thresholds of ths (those without
// PerQuery) on the mean of cell c's scored queries, with its 95%
// bootstrap CI (seeded by seed), and that every threshold's metric was
// scored by at least one query. It returns a verdict per threshold.
func CellVerdicts(c *Cell, ths []Threshold, seed uint64) []Verdict {
	if len(ths) == 0 {
		return nil
	}
	per := map[string][]float64{}
	for i := range c.Queries {
		r := &c.Queries[i]
		if r.Err != nil {
			continue
		}
		for k, v := range r.Scores {
			per[k] = append(per[k], v)
		}
		if v, ok := value(r, MetricLatency); ok {
			per[MetricLatency] = append(per[MetricLatency], v)
		}
	}
	known := slices.Sorted(maps.Keys(per))
	var out []Verdict
	for _, th := range ths {
		v := Verdict{Kind: VerdictThreshold, Benchmark: c.Bench.Benchmark.Name, Arm: c.Arm.Name, Metric: th.Metric, Got: math.NaN(), Want: th.Want()}
		xs, ok := per[th.Metric]
		if !ok {
			v.Message = fmt.Sprintf("threshold %s: no query of arm %s scored %s%s; scored metrics: %s",
				th, c.Arm.Name, th.Metric, suggest.Hint(th.Metric, known), strings.Join(known, ", "))
			out = append(out, v)
			continue
		}
		if th.PerQuery || th.Paired() {
			continue
		}
		s := metrics.Summarize(xs, metrics.BootstrapOptions{Seed: seed})
		v.Got, v.Pass = s.Mean, th.Met(s.Mean)
		v.Message = fmt.Sprintf("%s = %s, want %s (mean of %d scored queries of arm %s on %s, 95%% CI %s–%s)",
			th.Metric, FormatValue(s.Mean), th.Want(), s.N, c.Arm.Name, c.Bench.Benchmark.Name,
			numfmt.Number(s.Lo, 3), numfmt.Number(s.Hi, 3))
		out = append(out, v)
	}
	return out
}

// GateOptions set the baseline gate of GateVerdicts.
type GateOptions struct {
	Gate Gate
	// Baseline is the baseline bundle and Path where it was read from.
	Baseline *results.Bundle
	Path     string
	// Varied are the dimensions the arms of the run vary (see CellConfig).
	Varied []string
	// Seed seeds the paired tests (0 means DefaultSeed).
	Seed uint64
	// UpdateHint is how the user records a new baseline, for messages:
	// "LASAGNA_UPDATE_BASELINE=1" in tests, "--update-baseline" in the CLI.
	UpdateHint string
}

// GateVerdicts compares cell c with the same arm on the same benchmark in
// the baseline bundle, metric by metric (the arm's gated metrics it
// scores), paired by query id with Holm-adjusted p-values. A metric fails
// when it dropped by more than the tolerance and the drop is significant;
// a baseline without the arm, or one that cannot be compared, fails too.
// Passing verdicts say why they passed. Every verdict gives the smallest
// drop the paired test could detect (results.Comparison.MDE); a passing
// one whose tolerance is below it says the tolerance was undetectable, and
// a failing one names its worst queries (worstQueries).
//
// A baseline recorded on an earlier revision of the benchmark (a query
// added, changed or removed since) gates the queries whose id and content
// are unchanged, when the corpus is the same (or both corpora are pooled,
// or there is none); the verdicts say how many queries were added,
// changed and removed. A changed corpus, or a baseline that records no
// corpus and query digests, is refused with the fix (see grownBaseline).
func GateVerdicts(c *Cell, o GateOptions) []Verdict {
	seed := o.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	g := o.Gate
	bench, arm := c.Bench.Benchmark.Name, c.Arm.Name
	fail := func(metric, msg string) []Verdict {
		return []Verdict{{Kind: VerdictGate, Benchmark: bench, Arm: arm, Metric: metric, Got: math.NaN(), Want: "a comparable baseline", Message: msg}}
	}
	cur := cellArm(c, o.Varied, arm, seed)
	var prev []results.ArmResult
	for _, a := range results.Arms(o.Baseline, "baseline ") {
		if a.Config.Benchmark == bench && a.Config.Name == arm {
			prev = append(prev, a)
		}
	}
	var grew *growth
	if len(prev) == 0 {
		a, b, g, refusal, found := grownBaseline(c, cur, o)
		if refusal != "" {
			return fail("", refusal)
		}
		if found {
			cur, prev, grew = a, []results.ArmResult{b}, g
		}
	}
	if len(prev) == 0 {
		var have []string
		for _, cfg := range o.Baseline.Configs {
			have = append(have, cfg.Benchmark+"/"+cfg.Name)
		}
		return fail("", fmt.Sprintf("baseline gate: %s holds no result for arm %s on %s (it holds %s); if the data or the arm changed on purpose, record a new baseline with %s",
			o.Path, arm, bench, strings.Join(have, ", "), o.UpdateHint))
	}
	gated := GatedMetrics(g, c.Arm)
	var ms []string
	for _, m := range gated {
		if _, ok := cur.Result.Metrics[m]; ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return fail("", fmt.Sprintf("baseline gate: arm %s scores none of the gated metrics %s", arm, strings.Join(gated, ", ")))
	}
	pair := results.Pair{Arm: cur, Baseline: prev[0]}
	cmp := results.Compare([]results.Pair{pair}, results.CompareOptions{Metrics: ms, Seed: seed, Level: 1 - g.alpha()})
	note := ""
	if grew != nil {
		note = "; " + grew.note()
	}
	var out []Verdict
	for _, ref := range cmp.Refusals {
		out = append(out, fail("", fmt.Sprintf("baseline gate: cannot compare with %s: %s; if the change is intended, record a new baseline with %s", o.Path, ref, o.UpdateHint))...)
	}
	want := "no significant drop > " + FormatValue(g.tolerance())
	for _, cm := range cmp.Comparisons {
		drop := cm.BaselineMean - cm.Mean
		v := Verdict{Kind: VerdictGate, Benchmark: bench, Arm: arm, Metric: cm.Metric, Got: cm.Mean, Want: want}
		if drop > g.tolerance() && cm.Significant {
			v.Message = fmt.Sprintf("regression: %s fell from %s to %s (drop %s > tolerance %s) and the drop is significant (Holm p = %s < %s over %s, %d paired queries)%s; baseline %s; fix the regression, or if it is intended record a new baseline with %s%s%s",
				cm.Metric, FormatValue(cm.BaselineMean), FormatValue(cm.Mean), FormatValue(drop), FormatValue(g.tolerance()),
				numfmt.P(cm.HolmP), FormatValue(g.alpha()), comparisons(cm.FamilySize), cm.Stats.N, note, o.Path, o.UpdateHint,
				detectable(cm, 0), worstQueries(pair, cm.Metric, c.Bench.Benchmark))
			out = append(out, v)
			continue
		}
		why := passReason(drop, g.tolerance())
		v.Pass = true
		v.Message = fmt.Sprintf("baseline gate: %s %s → %s (%s, Holm p = %s, %d paired queries): %s, passes%s%s",
			cm.Metric, FormatValue(cm.BaselineMean), FormatValue(cm.Mean), numfmt.Signed(cm.Mean-cm.BaselineMean, 4),
			cm.HolmText(), cm.Stats.N, why, detectable(cm, g.tolerance()), note)
		out = append(out, v)
	}
	return out
}

// detectable says what drop the paired test of cm could detect: with
// tol 0 (a failed gate) "; smallest detectable drop 0.061 at n=44"; with
// the tolerance of a passing gate the same, or when the tolerance is
// below it ", but a drop of 0.01 was undetectable: smallest detectable
// drop 0.061 at n=44; add queries". "" when cm has no MDE (the
// differences have no spread).
func detectable(cm results.Comparison, tol float64) string {
	switch {
	case cm.MDE <= 0:
		return ""
	case tol > 0 && tol < cm.MDE:
		return ", but a drop of " + FormatValue(tol) + " was undetectable: smallest detectable drop " + cm.MDEText() + "; add queries"
	}
	return "; smallest detectable drop " + cm.MDEText()
}

// worstShown is how many queries a failed gate names.
const worstShown = 5

// worstQueries lists, one a line, the queries of pair whose metric fell
// the most (results.Pair.QueryChanges, with bench for the questions and
// the relevant documents), at most worstShown of them: "" when none fell.
func worstQueries(pair results.Pair, metric string, bench *lasagna.Benchmark) string {
	var fell []results.QueryChange
	for _, q := range pair.QueryChanges(metric, []*lasagna.Benchmark{bench}) {
		if q.Change() < 0 {
			fell = append(fell, q)
		}
	}
	if len(fell) == 0 {
		return ""
	}
	var sb strings.Builder
	if len(fell) > worstShown {
		fmt.Fprintf(&sb, "\nthe %d worst of the %d queries that fell:", worstShown, len(fell))
		fell = fell[:worstShown]
	} else {
		fmt.Fprintf(&sb, "\nthe %s that fell, worst first:", plural(len(fell), "query", "queries"))
	}
	for _, q := range fell {
		fmt.Fprintf(&sb, "\n  %s: %s → %s", q.QueryID, FormatValue(q.Before), FormatValue(q.After))
		if q.Question != "" {
			fmt.Fprintf(&sb, ", %q", clipText(q.Question, 60))
		}
		switch {
		case q.BeforeAnswer != nil || q.AfterAnswer != nil:
			fmt.Fprintf(&sb, ", answer %s → %s", quoteAnswer(q.BeforeAnswer), quoteAnswer(q.AfterAnswer))
		case len(q.Lost) > 0 && q.Relevant:
			fmt.Fprintf(&sb, ", relevant lost: %s", strings.Join(q.Lost, " "))
		case len(q.Lost) > 0:
			fmt.Fprintf(&sb, ", lost from the top: %s", strings.Join(q.Lost, " "))
		}
	}
	return sb.String()
}

// plural formats n with the singular or plural noun: "1 query", "3
// queries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func quoteAnswer(a *string) string {
	if a == nil {
		return "none"
	}
	return strconv.Quote(clipText(*a, 40))
}

// clipText shortens s to at most n runes on one line, ending with "…"
// when cut.
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// comparisons says how many comparisons a Holm family holds: "2
// comparisons", "1 comparison".
func comparisons(n int) string {
	if n == 1 {
		return "1 comparison"
	}
	return strconv.Itoa(n) + " comparisons"
}

// passReason says why a paired comparison whose mean dropped by drop
// (negative: rose) passes with tolerance tol.
func passReason(drop, tol float64) string {
	switch {
	case drop > tol:
		return "drop not significant"
	case drop > 0:
		return "drop within tolerance"
	}
	return "no drop"
}

// cellArm returns cell c as results.Compare reads an arm: its config and
// per-query rows (Metrics only marks the metrics scored) with their ranked
// lists and answers (for results.Pair.QueryChanges), with the run's stats
// seed, which the bundle of the run records.
func cellArm(c *Cell, varied []string, label string, seed uint64) results.ArmResult {
	cur := results.ArmResult{Label: label, Config: cellConfig(c, varied), Result: results.Result{Metrics: map[string]float64{}}, StatsSeed: seed}
	for _, q := range c.Queries {
		row := results.Sample{QueryID: q.Query.ID, Scores: q.Scores}
		if q.Err != nil {
			row.Error = q.Err.Error()
		}
		if c.Arm.Retrieves() && q.Err == nil && !q.Missing {
			row.RetrievedIDs = make([]string, len(q.Output.Hits))
			for i, h := range q.Output.Hits {
				row.RetrievedIDs[i] = h.ID
			}
		}
		if q.Output.Answered {
			a := q.Output.Answer
			row.Answer = &a
		}
		for m := range q.Scores {
			cur.Result.Metrics[m] = 0 // marks the metric as scored
		}
		cur.Result.PerSampleScores = append(cur.Result.PerSampleScores, row)
	}
	return cur
}

// PairedVerdicts checks the paired thresholds of ths (NotWorseThan) of
// cell c against the cells of the same benchmark in cells, with the
// baseline gate's rule and wording: for each other arm, its metrics are
// compared query by query (results.Compare, Holm-adjusted across them);
// a metric fails when its mean fell by more than the tolerance below the
// other arm's and the drop is significant. An arm the run does not hold,
// or cells that cannot be compared, fail. varied are the dimensions the
// run's arms vary; seed seeds the paired tests (0 means DefaultSeed).
func PairedVerdicts(c *Cell, cells []*Cell, ths []Threshold, varied []string, seed uint64) []Verdict {
	if seed == 0 {
		seed = DefaultSeed
	}
	bench, arm := c.Bench.Benchmark.Name, c.Arm.Name
	byArm := map[string][]Threshold{}
	var order []string
	for _, th := range ths {
		if !th.Paired() {
			continue
		}
		if _, ok := byArm[th.NotWorseThan]; !ok {
			order = append(order, th.NotWorseThan)
		}
		byArm[th.NotWorseThan] = append(byArm[th.NotWorseThan], th)
	}
	var out []Verdict
	for _, than := range order {
		group := byArm[than]
		fail := func(th Threshold, msg string) {
			out = append(out, Verdict{Kind: VerdictThreshold, Benchmark: bench, Arm: arm, Metric: th.Metric, Got: math.NaN(), Want: th.Want(), Message: msg})
		}
		var other *Cell
		for _, oc := range cells {
			if oc.Bench.Benchmark.Name == bench && oc.Arm.Name == than && oc.BuildErr == nil {
				other = oc
			}
		}
		if other == nil {
			for _, th := range group {
				fail(th, fmt.Sprintf("threshold %s: arm %s has no results on %s in this run, so arm %s cannot be compared with it", th.Metric+" "+th.Want(), than, bench, arm))
			}
			continue
		}
		ms := make([]string, len(group))
		for i, th := range group {
			ms[i] = th.Metric
		}
		pair := results.Pair{Arm: cellArm(c, varied, arm, seed), Baseline: cellArm(other, varied, than, seed)}
		cmp := results.Compare([]results.Pair{pair}, results.CompareOptions{Metrics: ms, Seed: seed, Level: 0.95})
		for _, ref := range cmp.Refusals {
			for _, th := range group {
				fail(th, fmt.Sprintf("threshold %s: cannot compare arm %s with arm %s: %s", th.Metric+" "+th.Want(), arm, than, ref))
			}
		}
		for _, cm := range cmp.Comparisons {
			i := slices.Index(ms, cm.Metric)
			if i < 0 {
				continue
			}
			th := group[i]
			drop := cm.BaselineMean - cm.Mean
			v := Verdict{Kind: VerdictThreshold, Benchmark: bench, Arm: arm, Metric: cm.Metric, Got: cm.Mean, Want: th.Want()}
			if drop > th.tolerance() && cm.Significant {
				v.Message = fmt.Sprintf("worse than %s: %s is %s against %s's %s (drop %s > tolerance %s) and the drop is significant (Holm p = %s < 0.05 over %s, %d paired queries); improve arm %s, or loosen the threshold%s",
					than, cm.Metric, FormatValue(cm.Mean), than, FormatValue(cm.BaselineMean), FormatValue(drop), FormatValue(th.tolerance()),
					numfmt.P(cm.HolmP), comparisons(cm.FamilySize), cm.Stats.N, arm, detectable(cm, 0)+worstQueries(pair, cm.Metric, c.Bench.Benchmark))
				out = append(out, v)
				continue
			}
			why := passReason(drop, th.tolerance())
			v.Pass = true
			v.Message = fmt.Sprintf("not worse than %s: %s %s vs %s (%s, Holm p = %s, %d paired queries): %s, passes%s",
				than, cm.Metric, FormatValue(cm.Mean), FormatValue(cm.BaselineMean), numfmt.Signed(cm.Mean-cm.BaselineMean, 4),
				cm.HolmText(), cm.Stats.N, why, detectable(cm, th.tolerance()))
			out = append(out, v)
		}
	}
	return out
}

// MergeRepeats returns the result of a query's repeats as the bundle holds
// it: the first repeat's output, each metric's mean over the repeats that
// scored it, the mean latency, and the first error (a query with a failed
// repeat is a failed query).
func MergeRepeats(reps []*QueryResult) QueryResult {
	res := mergeRepeats(reps)
	if len(reps) > 1 {
		var sum time.Duration
		for _, r := range reps {
			sum += r.Latency
		}
		res.Latency = sum / time.Duration(len(reps))
	}
	return res
}

func mergeRepeats(reps []*QueryResult) QueryResult {
	n := len(reps)
	for rep, r := range reps {
		if r.Err != nil {
			err := r.Err
			if n > 1 {
				err = fmt.Errorf("repeat %d of %d: %w", rep+1, n, err)
			}
			return QueryResult{Query: r.Query, Err: err, Latency: r.Latency}
		}
	}
	res := *reps[0]
	if n > 1 {
		res.Scores = MeanScores(reps)
		for _, r := range reps[1:] {
			if res.Duplicate == "" {
				res.Duplicate = r.Duplicate
			}
			if res.Unknown == "" {
				res.Unknown = r.Unknown
			}
		}
	}
	return res
}

// MeanScores averages each metric over the repeats that scored it.
func MeanScores(reps []*QueryResult) map[string]float64 {
	if len(reps) == 1 {
		return reps[0].Scores
	}
	sum := map[string]float64{}
	cnt := map[string]int{}
	for _, r := range reps {
		for k, v := range r.Scores {
			sum[k] += v
			cnt[k]++
		}
	}
	if len(sum) == 0 {
		return nil
	}
	for k := range sum {
		sum[k] /= float64(cnt[k])
	}
	return sum
}

// BaselineUpdate says whether a run may rewrite its baseline: it refuses
// (with the reason) a run that ran one shard or left out some queries
// (partial), that fails a threshold or a query, or that has blocking
// integrity findings. The gate's own verdicts do not count: a deliberate
// regression is what an update records.
func BaselineUpdate(vs []Verdict, findings []lasagna.Finding, shard Shard, partial bool) error {
	var failed []string
	for _, v := range vs {
		if !v.Pass && v.Kind != VerdictGate {
			failed = append(failed, v.Path()+" "+v.Metric)
		}
	}
	blocking := 0
	for _, f := range findings {
		if f.Blocking() {
			blocking++
		}
	}
	switch {
	case shard.Count > 1:
		return fmt.Errorf("the run is shard %d of %d, and a baseline must hold every query; update it from an unsharded run", shard.Index, shard.Count)
	case partial:
		return errors.New("the run left out some benchmarks, arms or queries, and a baseline must hold them all; update it from a full run")
	case len(failed) > 0:
		return fmt.Errorf("the run fails %d threshold or query checks (%s); fix them first", len(failed), list(failed))
	case blocking > 0:
		return fmt.Errorf("the run has %d blocking integrity findings; fix them first", blocking)
	}
	return nil
}

// VerdictPlan sets what Verdicts checks on a finished report.
type VerdictPlan struct {
	// Thresholds are each arm's thresholds, by arm name.
	Thresholds map[string][]Threshold
	// Gate, when set, gates every cell against its baseline (GateVerdicts);
	// a nil Gate.Varied means the dimensions the report's arms vary.
	Gate *GateOptions
	// Seed seeds the bootstrap confidence intervals (0 means DefaultSeed).
	Seed uint64
}

// Verdicts checks every cell of rep, in plan order: each query
// (QueryVerdicts, over its repeats with the arm's pass rule), the arm's thresholds (CellVerdicts) and the
// baseline gate (GateVerdicts). It is what `lasagna benchmark run` checks,
// with the same rules and wording as evaltest.
func Verdicts(rep *Report, p VerdictPlan) []Verdict {
	seed := p.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	var out []Verdict
	var varied []string
	for _, c := range rep.Cells {
		varied = append(varied, c.Arm.Varied...)
	}
	for _, c := range rep.Cells {
		if c.BuildErr != nil {
			continue // MISSING_RESULTS says it
		}
		ths := p.Thresholds[c.Arm.Name]
		for i := range c.Queries {
			reps := c.Queries[i].Repeats
			if reps == nil {
				reps = []*QueryResult{&c.Queries[i]}
			}
			out = append(out, QueryVerdicts(c, reps, ths, c.Arm.Pass)...)
		}
		out = append(out, CellVerdicts(c, ths, seed)...)
		out = append(out, PairedVerdicts(c, rep.Cells, ths, varied, seed)...)
		if p.Gate != nil {
			o := *p.Gate
			if o.Seed == 0 {
				o.Seed = seed
			}
			if o.Varied == nil {
				o.Varied = varied
			}
			out = append(out, GateVerdicts(c, o)...)
		}
	}
	return out
}

// Thresholds returns the thresholds of s's arms, by arm name.
func (s *Sweep) Thresholds() map[string][]Threshold {
	out := map[string][]Threshold{}
	for _, a := range s.Arms {
		if len(a.Thresholds) > 0 {
			out[a.Name] = slices.Clone(a.Thresholds)
		}
	}
	return out
}

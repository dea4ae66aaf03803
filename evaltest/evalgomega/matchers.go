package evalgomega

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/results"
)

// MetricMatcher is the matcher HaveMetric returns. ForArm and
// ForBenchmark narrow it to some of a bundle's results.
type MetricMatcher struct {
	metric    string
	inner     types.GomegaMatcher
	arm       string
	benchmark string

	failure string // set by Match for the failure messages
}

// HaveMetric succeeds when the metric's value matches m: a Gomega matcher
// (BeNumerically(">=", 0.6)), or a plain number (1 and 1.0 both mean
// BeNumerically("==", 1)).
// actual may be:
//
//   - a results.Result or *results.Result: its aggregate metric (the mean
//     over the queries that scored it);
//   - a results.Sample or *results.Sample: the query's own score;
//   - a *results.Bundle or *evaltest.Evaluation (read through its Bundle):
//     the aggregate metric of every result the matcher selects — every
//     benchmark × arm, or those named with ForArm and ForBenchmark — which
//     must all match; the failure message names the ones that do not.
//
// A metric the actual does not hold fails, listing the metrics it has
// (with a "did you mean" hint); it is never read as 0.
func HaveMetric(metric string, m any) *MetricMatcher {
	inner, ok := m.(types.GomegaMatcher)
	if !ok {
		switch m.(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
			inner = gomega.BeNumerically("==", m)
		default:
			inner = gomega.Equal(m)
		}
	}
	return &MetricMatcher{metric: metric, inner: inner}
}

// ForArm returns a copy of mm that reads only the results of the arm
// (config) named arm.
func (mm *MetricMatcher) ForArm(arm string) *MetricMatcher {
	c := *mm
	c.arm = arm
	return &c
}

// ForBenchmark returns a copy of mm that reads only the results of the
// benchmark named name: its full name ("local/faq@ea3e86b12545") or its
// short name ("faq"), as the subtests name it.
func (mm *MetricMatcher) ForBenchmark(name string) *MetricMatcher {
	c := *mm
	c.benchmark = name
	return &c
}

// Match implements types.GomegaMatcher.
func (mm *MetricMatcher) Match(actual any) (bool, error) {
	mm.failure = ""
	switch a := actual.(type) {
	case results.Result:
		return mm.matchValues(a.Metrics, "the result of arm "+a.ConfigName+" on "+a.BenchmarkName)
	case *results.Result:
		if a == nil {
			return false, fmt.Errorf("HaveMetric: the *results.Result is nil")
		}
		return mm.matchValues(a.Metrics, "the result of arm "+a.ConfigName+" on "+a.BenchmarkName)
	case results.Sample:
		return mm.matchSample(&a)
	case *results.Sample:
		if a == nil {
			return false, fmt.Errorf("HaveMetric: the *results.Sample is nil (no row for that query in the bundle)")
		}
		return mm.matchSample(a)
	case *evaltest.Evaluation:
		b, err := bundleOf(a)
		if err != nil {
			return false, fmt.Errorf("HaveMetric: %w", err)
		}
		return mm.matchBundle(b)
	case *results.Bundle:
		if a == nil {
			return false, fmt.Errorf("HaveMetric: the *results.Bundle is nil")
		}
		return mm.matchBundle(a)
	}
	return false, fmt.Errorf("HaveMetric reads a *results.Bundle, results.Result, results.Sample or *evaltest.Evaluation, not %T", actual)
}

func (mm *MetricMatcher) matchSample(s *results.Sample) (bool, error) {
	if s.Error != "" {
		mm.failure = fmt.Sprintf("query %s was not scored: its pipeline failed: %s", s.QueryID, s.Error)
		return false, nil
	}
	return mm.matchValues(s.Scores, "query "+s.QueryID)
}

// matchValues matches the metric of one set of values, described by what.
func (mm *MetricMatcher) matchValues(values map[string]float64, what string) (bool, error) {
	v, ok := values[mm.metric]
	if !ok && len(values) == 0 {
		mm.failure = fmt.Sprintf("%s has no metric %q: it holds no scores (a query without relevant documents or reference answers is not scored)", what, mm.metric)
		return false, nil
	}
	if !ok {
		names := slices.Sorted(maps.Keys(values))
		mm.failure = fmt.Sprintf("%s has no metric %q%s; it has %s", what, mm.metric, suggest.Hint(mm.metric, names), strings.Join(names, ", "))
		return false, nil
	}
	ok, err := mm.inner.Match(v)
	if err != nil {
		return false, fmt.Errorf("HaveMetric(%q): %w", mm.metric, err)
	}
	if !ok {
		mm.failure = fmt.Sprintf("%s: %s = %s\n%s", what, mm.metric, formatFloat(v), indent(mm.inner.FailureMessage(v)))
	} else {
		mm.failure = fmt.Sprintf("%s: %s = %s\n%s", what, mm.metric, formatFloat(v), indent(mm.inner.NegatedFailureMessage(v)))
	}
	return ok, nil
}

func (mm *MetricMatcher) matchBundle(b *results.Bundle) (bool, error) {
	var picked []*results.Result
	var arms, benches []string
	for i := range b.Results {
		r := &b.Results[i]
		arms = appendNew(arms, r.ConfigName)
		benches = appendNew(benches, r.BenchmarkName)
		if mm.arm != "" && r.ConfigName != mm.arm {
			continue
		}
		if mm.benchmark != "" && r.BenchmarkName != mm.benchmark && evaltest.ShortName(r.BenchmarkName) != mm.benchmark {
			continue
		}
		picked = append(picked, r)
	}
	if len(picked) == 0 {
		switch {
		case mm.arm != "" && !slices.Contains(arms, mm.arm):
			mm.failure = fmt.Sprintf("the bundle has no arm %q%s; its arms are %s", mm.arm, suggest.Hint(mm.arm, arms), strings.Join(arms, ", "))
		case mm.benchmark != "":
			mm.failure = fmt.Sprintf("the bundle has no result for benchmark %q (arm %q); its benchmarks are %s", mm.benchmark, mm.arm, strings.Join(benches, ", "))
		default:
			mm.failure = "the bundle holds no results"
		}
		return false, nil
	}
	var bad, good []string
	for _, r := range picked {
		ok, err := mm.matchValues(r.Metrics, "arm "+r.ConfigName+" on "+r.BenchmarkName)
		if err != nil {
			return false, err
		}
		if ok {
			good = append(good, mm.failure)
		} else {
			bad = append(bad, mm.failure)
		}
	}
	if len(bad) > 0 {
		mm.failure = strings.Join(bad, "\n")
		return false, nil
	}
	mm.failure = strings.Join(good, "\n")
	return true, nil
}

// FailureMessage implements types.GomegaMatcher.
func (mm *MetricMatcher) FailureMessage(actual any) string {
	return "Expected " + mm.metric + " to match:\n" + mm.failure
}

// NegatedFailureMessage implements types.GomegaMatcher.
func (mm *MetricMatcher) NegatedFailureMessage(actual any) string {
	return "Expected " + mm.metric + " not to match:\n" + mm.failure
}

// HaveNoBlockingIntegrity succeeds when a *results.Bundle, a
// results.Integrity or an *evaltest.Evaluation (through its Bundle) holds
// no blocking integrity finding (docs/bundles.md). Its failure message gives,
// for each finding, the code, where it was raised (benchmark/arm/query),
// the detail and the fix from the integrity catalogue. Warnings never
// fail it.
func HaveNoBlockingIntegrity() types.GomegaMatcher { return &integrityMatcher{} }

type integrityMatcher struct{ blocking []results.Finding }

func (im *integrityMatcher) Match(actual any) (bool, error) {
	var in results.Integrity
	switch a := actual.(type) {
	case results.Integrity:
		in = a
	case *results.Integrity:
		if a == nil {
			return false, fmt.Errorf("HaveNoBlockingIntegrity: the *results.Integrity is nil")
		}
		in = *a
	case *results.Bundle:
		if a == nil {
			return false, fmt.Errorf("HaveNoBlockingIntegrity: the *results.Bundle is nil")
		}
		in = a.Integrity
	case *evaltest.Evaluation:
		b, err := bundleOf(a)
		if err != nil {
			return false, fmt.Errorf("HaveNoBlockingIntegrity: %w", err)
		}
		in = b.Integrity
	default:
		return false, fmt.Errorf("HaveNoBlockingIntegrity reads a *results.Bundle, results.Integrity or *evaltest.Evaluation, not %T", actual)
	}
	im.blocking = in.Blocking
	return len(in.Blocking) == 0, nil
}

func (im *integrityMatcher) FailureMessage(actual any) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Expected no blocking integrity finding, found %d:", len(im.blocking))
	for _, f := range im.blocking {
		sb.WriteString("\n")
		sb.WriteString(DescribeFinding(f))
	}
	return sb.String()
}

func (im *integrityMatcher) NegatedFailureMessage(actual any) string {
	return "Expected a blocking integrity finding, found none"
}

// DescribeFinding formats an integrity finding of a bundle as an indented
// block:
//
//	UNKNOWN_DOC_ID
//	  where: local/faq@ea3e86b12545/keyword/glass-05
//	  what:  a pipeline returned a document id that is not in the corpus
//	  fix:   return the corpus ids the benchmark defines …
//
// A line that does not start with an integrity code is returned indented
// as it is.
func DescribeFinding(f results.Finding) string {
	if f.Code == "" {
		return "  " + f.String()
	}
	detail := f.Detail
	_, known := f.Code.Info()
	var sb strings.Builder
	fmt.Fprintf(&sb, "  %s (%s)", f.Code, f.Code.Level())
	if f.Where != "" {
		fmt.Fprintf(&sb, "\n    where: %s", f.Where)
	}
	if detail != "" {
		fmt.Fprintf(&sb, "\n    what:  %s", detail)
	}
	if known {
		// The fix as said inside go test, where the CLI's flags do not exist.
		fmt.Fprintf(&sb, "\n    fix:   %s", engine.GoTestFix(f.Code))
	}
	return sb.String()
}

// Pass succeeds when an *evaltest.Evaluation or an *evaltest.TestResult
// passed (a skipped test passes). Its failure message lists every failing
// test with its messages — the dataset file:line, the query,
// `metric = got, want …` — as go test would print them.
func Pass() types.GomegaMatcher { return &passMatcher{} }

type passMatcher struct{ report string }

func (pm *passMatcher) Match(actual any) (bool, error) {
	var tests []*evaltest.TestResult
	switch a := actual.(type) {
	case *evaltest.Evaluation:
		if a == nil || len(a.Tests) == 0 {
			return false, fmt.Errorf("Pass: the evaluation is nil or ran no test")
		}
		tests = a.Tests
	case *evaltest.TestResult:
		if a == nil {
			return false, fmt.Errorf("Pass: the *evaltest.TestResult is nil")
		}
		tests = []*evaltest.TestResult{a}
	default:
		return false, fmt.Errorf("Pass reads an *evaltest.Evaluation or *evaltest.TestResult, not %T", actual)
	}
	var sb strings.Builder
	for _, t := range tests {
		if !t.Failed || len(t.Errors) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\n--- FAIL: %s\n%s", t.Name, indent(t.Failure()))
	}
	pm.report = sb.String()
	return !tests[0].Failed, nil
}

func (pm *passMatcher) FailureMessage(actual any) string {
	return "Expected the evaluation to pass; it failed:" + pm.report
}

func (pm *passMatcher) NegatedFailureMessage(actual any) string {
	return "Expected the evaluation to fail; it passed"
}

// bundleOf returns ev's bundle, or an error quoting why there is none.
func bundleOf(ev *evaltest.Evaluation) (*results.Bundle, error) {
	if ev == nil {
		return nil, fmt.Errorf("the evaluation is nil")
	}
	if ev.Bundle != nil {
		return ev.Bundle, nil
	}
	why := "no query ran"
	if len(ev.Tests) > 0 && len(ev.Tests[0].Errors) > 0 {
		why = ev.Tests[0].Failure()
	}
	return nil, fmt.Errorf("evaluation %s has no bundle: %s", ev.Name, why)
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

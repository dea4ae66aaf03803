package evalginkgo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalgomega"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// Query is one query of an evaluated arm: the parameter of the table
// entries Entries makes.
type Query struct {
	// Benchmark is the benchmark's subtest name ("faq"), Arm the arm's
	// and ID the query's original id.
	Benchmark, Arm, ID string
	// Test is the query's test: outcome, failure messages (dataset
	// file:line, query, `metric = got, want …`) and attrs.
	Test *evaltest.TestResult
	// Sample is the query's row of the bundle (scores, ranked list,
	// error); nil when the bundle holds no row for it.
	Sample *results.Sample
}

// String names q as its entry does: "faq/mine/q17".
func (q Query) String() string { return q.Benchmark + "/" + q.Arm + "/" + q.ID }

// Record adds each lasagna.* attr of the query's test (lasagna.ndcg@10, …)
// as a Ginkgo report entry — a float64 for numbers, else the string — so
// that ginkgo --junit-report writes them as the spec's <properties>
// (Ginkgo writes each value as JSON: 0.6131, and "q17" with its quotes).
// Call it inside a spec. The entries are printed only for a failed spec
// or a verbose run (ginkgo -v, go test -args -ginkgo.v), as GinkgoWriter's
// output is: a passing suite stays quiet, and the JUnit properties are
// written either way.
func (q Query) Record() {
	if q.Test == nil {
		return
	}
	for _, a := range q.Test.Attrs {
		var v any = a.Value
		if f, err := strconv.ParseFloat(a.Value, 64); err == nil {
			v = f
		}
		ginkgo.AddReportEntry(a.Key, v, ginkgo.ReportEntryVisibilityFailureOrVerbose, ginkgo.Offset(1))
	}
}

// Queries returns the queries of the arm named arm (its Name, or its
// subtest name) in ev, on every benchmark, in the order they ran. The
// error names the arms ev has when it has no such arm.
func Queries(ev *evaltest.Evaluation, arm string) ([]Query, error) {
	if ev == nil {
		return nil, fmt.Errorf("the evaluation is nil")
	}
	var out []Query
	var arms []string
	for _, t := range ev.Level(3) {
		if sub := evaltest.SubtestName(t.Arm); !slices.Contains(arms, sub) {
			arms = append(arms, sub)
		}
		if t.Arm != arm && evaltest.SubtestName(t.Arm) != arm {
			continue
		}
		q := Query{Benchmark: evaltest.ShortName(t.Benchmark), Arm: arm, ID: t.Query, Test: t}
		q.Sample = sample(ev.Bundle, t)
		out = append(out, q)
	}
	if len(out) == 0 {
		if len(arms) == 0 {
			why := "no query ran"
			if len(ev.Tests) > 0 && ev.Tests[0].Failed {
				why = ev.Tests[0].Failure()
			}
			return nil, fmt.Errorf("evaluation %s has no queries: %s", ev.Name, why)
		}
		return nil, fmt.Errorf("evaluation %s has no arm %q; its arms are %s", ev.Name, arm, strings.Join(arms, ", "))
	}
	return out, nil
}

// Entries returns one DescribeTable entry per query of the arm named arm
// in ev (see Queries), described "benchmark/arm/query-id" and passing the
// Query to the table's body:
//
//	DescribeTable("queries", func(q evalginkgo.Query) {
//		Expect(q.Test).To(evalgomega.Pass())
//	}, evalginkgo.Entries(ev, "mine"))
//
// When ev has no such arm, Entries returns a single entry whose Query's
// Test has failed with the reason (the arms ev has), so Pass reports it
// instead of the table silently holding no spec.
func Entries(ev *evaltest.Evaluation, arm string) []ginkgo.TableEntry {
	loc := types.NewCodeLocation(1) // the entries point at the caller
	qs, err := Queries(ev, arm)
	if err != nil {
		name := arm
		if ev != nil {
			name = ev.Name + "/" + arm
		}
		q := Query{Arm: arm, Test: &evaltest.TestResult{Name: name, Level: 2, Failed: true, Errors: []string{err.Error()}}}
		return []ginkgo.TableEntry{ginkgo.Entry(arm+": no queries", q, loc)}
	}
	out := make([]ginkgo.TableEntry, len(qs))
	for i, q := range qs {
		out[i] = ginkgo.Entry(q.String(), q, loc)
	}
	return out
}

// ReportAfterSuite registers a Ginkgo ReportAfterSuite node (call it at
// the top level: var _ = evalginkgo.ReportAfterSuite(…)) that, once the
// suite has run, writes to GinkgoWriter where the evaluation's bundle was
// written and its summary table, then passes the bundle to each reporter
// (reporters.JSONFile{Path: …} to keep a copy beside the suite's reports,
// reporters.Markdown, htmlreport.Reporter{}, or your own), writing the
// path of each file one writes (reporters.FileReporter). eval returns the
// evaluation the suite made. The node fails the suite when the evaluation
// has no bundle or a reporter fails. It returns what
// ginkgo.ReportAfterSuite returns.
func ReportAfterSuite(text string, eval func() *evaltest.Evaluation, reps ...reporters.Reporter) bool {
	return ginkgo.ReportAfterSuite(text, func(ctx ginkgo.SpecContext, _ ginkgo.Report) {
		if err := report(ctx, eval(), ginkgo.GinkgoWriter, reps); err != nil {
			ginkgo.Fail(err.Error())
		}
	}, ginkgo.Offset(1))
}

// report is ReportAfterSuite's body.
func report(ctx context.Context, ev *evaltest.Evaluation, w io.Writer, reps []reporters.Reporter) error {
	if ev == nil {
		return fmt.Errorf("evalginkgo: no evaluation to report")
	}
	if ev.Bundle == nil {
		why := "no query ran"
		if len(ev.Tests) > 0 && ev.Tests[0].Failed {
			why = ev.Tests[0].Failure()
		}
		return fmt.Errorf("evalginkgo: evaluation %s has no bundle: %s", ev.Name, why)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "lasagna bundle: %s\n", ev.BundlePath)
	buf.WriteString(reporters.Table(ev.Bundle, ev.Columns))
	for _, f := range ev.Bundle.Integrity.Blocking {
		fmt.Fprintf(&buf, "integrity:\n%s\n", evalgomega.DescribeFinding(f))
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("evalginkgo: %w", err)
	}
	// Reporters may write beside the bundle (htmlreport.Reporter), and
	// one that writes a file says where.
	ctx = reporters.WithBundlePath(ctx, ev.BundlePath)
	for i, r := range reps {
		if err := r.Report(ctx, ev.Bundle); err != nil {
			return fmt.Errorf("evalginkgo: reporter %d (%T): %w", i+1, r, err)
		}
		if fr, ok := r.(reporters.FileReporter); ok && fr.File(ctx) != "" {
			if _, err := fmt.Fprintf(w, "lasagna report: %s\n", fr.File(ctx)); err != nil {
				return fmt.Errorf("evalginkgo: %w", err)
			}
		}
	}
	return nil
}

// sample returns q's row of b, or nil.
func sample(b *results.Bundle, t *evaltest.TestResult) *results.Sample {
	if b == nil {
		return nil
	}
	for i := range b.Results {
		r := &b.Results[i]
		if r.ConfigName != t.Arm || r.BenchmarkName != t.Benchmark {
			continue
		}
		for j := range r.PerSampleScores {
			if r.PerSampleScores[j].QueryID == t.Query {
				return &r.PerSampleScores[j]
			}
		}
	}
	return nil
}

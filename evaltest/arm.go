package evaltest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
)

// armRun is one arm on one benchmark while its queries run.
type armRun struct {
	r       *runner
	plan    armPlan
	arm     *engine.Arm
	br      *engine.BenchmarkRun
	ctx     context.Context
	queries []*lasagna.Query
	runs    []*engine.CellRun // one per repeat
	mu      sync.Mutex
	started []*outcome // by query index; nil when -run left the query out
}

// outcome is one query's repeats.
type outcome struct {
	done chan struct{}
	res  []*engine.QueryResult
}

// startArm prepares plan's arm on br: one engine cell per repeat, sharing
// one pipeline (engine.StartRepeats). A pipeline that fails to build is
// recorded (with its MISSING_RESULTS) and returned as buildErr; err is a
// problem that stops the arm (a benchmark that cannot support it, a
// journal error).
func (r *runner) startArm(ctx context.Context, br *engine.BenchmarkRun, plan armPlan) (ar *armRun, buildErr, err error) {
	ar = &armRun{r: r, plan: plan, arm: &plan.arm, br: br, ctx: ctx, queries: r.set.shard.Select(br.Benchmark)}
	ar.started = make([]*outcome, len(ar.queries))
	ar.runs, err = engine.StartRepeats(ctx, br, ar.arm, ar.queries, engine.Options{Cutoffs: r.cfg.Cutoffs})
	if err != nil {
		return nil, nil, fmt.Errorf("arm %s cannot run on %s: %v", plan.arm.Name, br.Benchmark.Name, err)
	}
	if err := ar.runs[0].Cell().BuildErr; err != nil {
		ar.close()
		r.record(&engine.Cell{Bench: br, Arm: ar.arm, BuildErr: err}, false, nil)
		return nil, fmt.Errorf("arm %s could not be built for %s, so none of its queries ran: %v", plan.arm.Name, br.Benchmark.Name, err), nil
	}
	return ar, nil, nil
}

// close closes the cells and returns the first journal error.
func (ar *armRun) close() error {
	var first error
	for _, cr := range ar.runs {
		if err := cr.Close(); err != nil && first == nil {
			first = fmt.Errorf("arm %s: %v", ar.arm.Name, err)
		}
	}
	return first
}

// runArm runs the arm's queries as parallel subtests of t and checks the
// arm when they have finished.
func (r *runner) runArm(t tb, br *engine.BenchmarkRun, plan armPlan) {
	t.Helper()
	ar, buildErr, err := r.startArm(t.Context(), br, plan)
	switch {
	case err != nil:
		t.Fatalf("%v", err)
	case buildErr != nil:
		t.Errorf("%v", buildErr)
		return
	}
	t.Cleanup(func() {
		t.Helper()
		ar.finish().report(t)
	})
	ids := make([]string, len(ar.queries))
	for i, q := range ar.queries {
		ids[i] = q.ID
	}
	for i, name := range uniqueNames(ids) {
		t.Run(name, func(t tb) {
			t.Helper()
			o := ar.dispatch(i)
			t.Parallel()
			<-o.done
			attrs, msgs := ar.check(i, o)
			for _, a := range attrs {
				t.Attr(a.Key, a.Value)
			}
			msgs.report(t)
		})
	}
}

// dispatch starts the repeats of query i under the run's limiter.
func (ar *armRun) dispatch(i int) *outcome {
	n := len(ar.runs)
	o := &outcome{done: make(chan struct{}), res: make([]*engine.QueryResult, n)}
	ar.mu.Lock()
	ar.started[i] = o
	ar.mu.Unlock()
	var wg sync.WaitGroup
	q := ar.queries[i]
	for rep, cr := range ar.runs {
		wg.Go(func() {
			select {
			case ar.r.lim <- struct{}{}:
			case <-ar.ctx.Done():
				o.res[rep] = &engine.QueryResult{Query: q, Err: ar.ctx.Err()}
				return
			}
			defer func() { <-ar.r.lim }()
			res, err := cr.Query(ar.ctx, q.ID)
			if err != nil {
				res = &engine.QueryResult{Query: q, Err: err}
			}
			o.res[rep] = res
		})
	}
	go func() {
		wg.Wait()
		close(o.done)
	}()
	return o
}

// check turns query i's outcome into attrs and the engine's verdicts.
func (ar *armRun) check(i int, o *outcome) ([]Attr, messages) {
	q := ar.queries[i]
	attrs := []Attr{{"lasagna.query_id", q.ID}}
	// Latency is recorded for failed calls too: a timeout is worth seeing.
	if slices.Contains(ar.plan.attrs, engine.MetricLatency) {
		merged := engine.MergeRepeats(o.res)
		if ms, ok := merged.LatencyMS(); ok {
			attrs = append(attrs, Attr{"lasagna." + engine.MetricLatency, engine.FormatValue(ms)})
		}
	}
	var msgs messages
	vs := engine.QueryVerdicts(ar.runs[0].Cell(), o.res, ar.plan.thresholds, ar.arm.Pass)
	ar.r.addVerdicts(vs)
	for _, v := range vs {
		msgs.errorf("%s", v.Message)
		if v.Kind == engine.VerdictQuery {
			return attrs, msgs
		}
	}
	scores := engine.MeanScores(o.res)
	for _, m := range ar.plan.attrs {
		if v, ok := scores[m]; ok && m != engine.MetricLatency {
			attrs = append(attrs, Attr{"lasagna." + m, engine.FormatValue(v)})
		}
	}
	if n := len(o.res); n > 1 {
		passed := ar.perQueryPassed(o)
		attrs = append(attrs, Attr{"lasagna.repeats", strconv.Itoa(n)},
			Attr{"lasagna.pass_rate", engine.FormatValue(float64(passed) / float64(n))})
	}
	return attrs, msgs
}

// perQueryPassed counts the repeats of o that meet every per-query
// threshold.
func (ar *armRun) perQueryPassed(o *outcome) int {
	passed := 0
	for _, r := range o.res {
		if len(engine.QueryVerdicts(ar.runs[0].Cell(), []*engine.QueryResult{r}, ar.plan.thresholds, engine.All())) == 0 {
			passed++
		}
	}
	return passed
}

// finish runs after every query of the arm: it closes the cells, records
// the merged cell for the bundle, and checks thresholds and the gate.
func (ar *armRun) finish() messages {
	var msgs messages
	if err := ar.close(); err != nil {
		msgs.errorf("%v", err)
	}
	cell := &engine.Cell{Bench: ar.br, Arm: ar.arm}
	ran := 0
	for i, o := range ar.started {
		if o == nil {
			continue
		}
		<-o.done
		ran++
		merged := engine.MergeRepeats(o.res)
		merged.Query = ar.queries[i]
		cell.Queries = append(cell.Queries, merged)
	}
	if ran == 0 {
		return msgs
	}
	partial := ran < len(ar.queries)
	if partial {
		ar.r.record(cell, true, nil)
		if len(ar.plan.thresholds) > 0 || ar.r.baseline != nil {
			msgs.logf("thresholds and baseline gate not checked: -run selected %d of the arm's %d queries", ran, len(ar.queries))
		}
		return msgs
	}
	vs := engine.CellVerdicts(cell, ar.plan.thresholds, ar.r.seed)
	if ar.r.baseline != nil {
		vs = append(vs, engine.GateVerdicts(cell, ar.r.gateOptions())...)
	}
	ar.r.record(cell, false, vs)
	for _, v := range vs {
		switch {
		case !v.Pass:
			msgs.errorf("%s", v.Message)
		case v.Kind == engine.VerdictGate:
			msgs.logf("%s", v.Message)
		}
	}
	return msgs
}

package evaltest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/engine"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// armRun is one arm on one benchmark while its query subtests run.
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
	errs []error
}

func (r *runner) runArm(t tb, br *engine.BenchmarkRun, plan armPlan) {
	t.Helper()
	arm := plan.arm
	// The repeats of a cell share one pipeline: build it once.
	build := arm.Build
	var (
		once sync.Once
		pipe lasagna.Pipeline
		berr error
	)
	arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
		once.Do(func() { pipe, berr = build(ctx, b) })
		return pipe, berr
	}
	reps := 1
	if arm.Samples && r.cfg.Repeats > 1 {
		reps = r.cfg.Repeats
	}
	ar := &armRun{r: r, plan: plan, arm: &arm, br: br, ctx: t.Context(), queries: r.set.shard.Select(br.Benchmark)}
	ar.started = make([]*outcome, len(ar.queries))
	for range reps {
		cr, err := engine.StartCell(ar.ctx, br, &arm, ar.queries, engine.Options{Cutoffs: r.cfg.Cutoffs})
		if err != nil {
			ar.close(t)
			t.Fatalf("arm %s cannot run on %s: %v", arm.Name, br.Benchmark.Name, err)
		}
		ar.runs = append(ar.runs, cr)
	}
	if err := ar.runs[0].Cell().BuildErr; err != nil {
		ar.close(t)
		r.record(&engine.Cell{Bench: br, Arm: &arm, BuildErr: err}, false, false)
		t.Errorf("arm %s could not be built for %s, so none of its queries ran: %v", arm.Name, br.Benchmark.Name, err)
		return
	}
	t.Cleanup(func() { ar.finish(t) })
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
			ar.check(t, i, o)
		})
	}
}

func (ar *armRun) close(t tb) {
	t.Helper()
	for _, cr := range ar.runs {
		if err := cr.Close(); err != nil {
			t.Errorf("arm %s: %v", ar.arm.Name, err)
		}
	}
}

// dispatch starts the repeats of query i under the run's limiter.
func (ar *armRun) dispatch(i int) *outcome {
	n := len(ar.runs)
	o := &outcome{done: make(chan struct{}), res: make([]*engine.QueryResult, n), errs: make([]error, n)}
	ar.mu.Lock()
	ar.started[i] = o
	ar.mu.Unlock()
	var wg sync.WaitGroup
	id := ar.queries[i].ID
	for rep, cr := range ar.runs {
		wg.Go(func() {
			select {
			case ar.r.lim <- struct{}{}:
			case <-ar.ctx.Done():
				o.errs[rep] = ar.ctx.Err()
				return
			}
			defer func() { <-ar.r.lim }()
			o.res[rep], o.errs[rep] = cr.Query(engine.WithRepeat(ar.ctx, rep), id)
			if o.errs[rep] == nil && o.res[rep].Err != nil {
				o.errs[rep] = o.res[rep].Err
			}
		})
	}
	go func() {
		wg.Wait()
		close(o.done)
	}()
	return o
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

// check turns query i's outcome into attrs and failures.
func (ar *armRun) check(t tb, i int, o *outcome) {
	t.Helper()
	q := ar.queries[i]
	n := len(o.res)
	t.Attr("lasagna.query_id", q.ID)
	for rep, err := range o.errs {
		if err == nil {
			continue
		}
		which := ""
		if n > 1 {
			which = fmt.Sprintf(" (repeat %d of %d)", rep+1, n)
		}
		t.Errorf("%s\npipeline failed%s: %v", header(q), which, err)
		return
	}
	for _, res := range o.res {
		if res.Duplicate != "" {
			fix, _ := lasagna.DuplicateRetrievedID.Info()
			t.Errorf("%s\nthe ranked list holds %q twice, so it was not scored (%s); %s", header(q), res.Duplicate, lasagna.DuplicateRetrievedID, fix.Fix)
			return
		}
		if res.Unknown != "" {
			fix, _ := lasagna.UnknownDocID.Info()
			t.Errorf("%s\nthe ranked list holds %q, which is not in the corpus of %d documents (%s); %s", header(q), res.Unknown, len(ar.br.Benchmark.Corpus), lasagna.UnknownDocID, fix.Fix)
			return
		}
	}
	scores := meanScores(o.res)
	for _, m := range ar.plan.attrs {
		if v, ok := scores[m]; ok {
			t.Attr("lasagna."+m, formatValue(v))
		}
	}
	var perQuery []Threshold
	for _, th := range ar.plan.thresholds {
		if th.perQuery {
			perQuery = append(perQuery, th)
		}
	}
	passed := 0
	var lines []string
	diffed := false
	for rep, res := range o.res {
		ok := true
		for _, th := range perQuery {
			v, scored := res.Scores[th.metric]
			if !scored || th.ok(v) {
				continue
			}
			ok = false
			line := fmt.Sprintf("%s = %s, want %s", th.metric, formatValue(v), th.want())
			if n > 1 {
				line = fmt.Sprintf("repeat %d: %s", rep+1, line)
			}
			lines = append(lines, line)
			// The first failure of the first failing repeat says what was
			// missing; later ones are usually the same story.
			if !diffed {
				if d := ar.diff(q, res, th.metric); d != "" {
					lines = append(lines, d)
					diffed = true
				}
			}
		}
		if ok {
			passed++
		}
	}
	firstFail := strings.Join(lines, "\n")
	if n > 1 {
		t.Attr("lasagna.repeats", strconv.Itoa(n))
		t.Attr("lasagna.pass_rate", formatValue(float64(passed)/float64(n)))
	}
	if ar.r.cfg.Pass.passes(passed, n) {
		return
	}
	if n > 1 {
		t.Errorf("%s: %d of %d repeats passed, want %s\n%s", header(q), passed, n, ar.r.cfg.Pass, firstFail)
		return
	}
	t.Errorf("%s\n%s", header(q), firstFail)
}

// diff explains a low score of metric m: the relevant documents missing
// from the top k and what was retrieved instead, or the reference answers
// against the answer given.
func (ar *armRun) diff(q *lasagna.Query, res *engine.QueryResult, m string) string {
	b := ar.br.Benchmark
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
		case res.Output.Abstained:
			sb.WriteString("\n  +(abstained)")
		default:
			fmt.Fprintf(&sb, "\n  +%q", res.Output.Answer)
		}
		return sb.String()
	}
	judged, ok := b.Qrels[q.ID]
	if !ok {
		return ""
	}
	k := 10
	if _, cut, found := strings.Cut(m, "@"); found {
		if c, err := strconv.Atoi(cut); err == nil && c > 0 {
			k = c
		}
	}
	rank := map[string]int{}
	for i, h := range res.Output.Hits {
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
	for i, h := range res.Output.Hits[:min(k, len(res.Output.Hits))] {
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

// maxGot is how many retrieved non-relevant documents a diff lists.
const maxGot = 5

// meanScores averages each metric over the repeats that scored it.
func meanScores(rs []*engine.QueryResult) map[string]float64 {
	if len(rs) == 1 {
		return rs[0].Scores
	}
	sum := map[string]float64{}
	cnt := map[string]int{}
	for _, r := range rs {
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

// formatValue formats a metric value for attrs and messages: four
// significant digits, no exponent for ordinary values ("0.6131", "1", "0").
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// finish runs after every query subtest of the arm: it closes the cell,
// records it for the bundle, and checks thresholds and the gate.
func (ar *armRun) finish(t tb) {
	t.Helper()
	ar.close(t)
	cell := &engine.Cell{Bench: ar.br, Arm: ar.arm}
	ran := 0
	for i, o := range ar.started {
		if o == nil {
			continue
		}
		<-o.done
		ran++
		cell.Queries = append(cell.Queries, merge(ar.queries[i], o))
	}
	if ran == 0 {
		return
	}
	partial := ran < len(ar.queries)
	ar.r.record(cell, len(ar.runs) > 1, partial)
	if partial {
		if len(ar.plan.thresholds) > 0 || ar.r.baseline != nil {
			t.Logf("thresholds and baseline gate not checked: -run selected %d of the arm's %d queries", ran, len(ar.queries))
		}
		return
	}
	ar.checkThresholds(t, cell)
	if ar.r.baseline != nil {
		ar.gate(t, cell)
	}
}

// merge returns the result of a query's repeats as the bundle holds it:
// the first repeat's output, each metric's mean over the repeats, and the
// first error (a query with a failed repeat is a failed query).
func merge(q *lasagna.Query, o *outcome) engine.QueryResult {
	n := len(o.res)
	for rep, err := range o.errs {
		if err != nil {
			if n > 1 {
				err = fmt.Errorf("repeat %d of %d: %w", rep+1, n, err)
			}
			return engine.QueryResult{Query: q, Err: err}
		}
	}
	res := *o.res[0]
	if n > 1 {
		res.Scores = meanScores(o.res)
		for _, r := range o.res[1:] {
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

func (ar *armRun) checkThresholds(t tb, cell *engine.Cell) {
	t.Helper()
	per := map[string][]float64{}
	for _, r := range cell.Queries {
		for k, v := range r.Scores {
			per[k] = append(per[k], v)
		}
	}
	known := slices.Sorted(maps.Keys(per))
	for _, th := range ar.plan.thresholds {
		xs, ok := per[th.metric]
		if !ok {
			t.Errorf("threshold %s: no query of arm %s scored %s%s; scored metrics: %s",
				th, ar.arm.Name, th.metric, suggest.Hint(th.metric, known), strings.Join(known, ", "))
			continue
		}
		if th.perQuery {
			continue
		}
		s := metrics.Summarize(xs, metrics.BootstrapOptions{Seed: ar.r.seed})
		if !th.ok(s.Mean) {
			t.Errorf("%s = %s, want %s (mean of %d scored queries of arm %s on %s, 95%% CI %s–%s)",
				th.metric, formatValue(s.Mean), th.want(), s.N, ar.arm.Name, ar.br.Benchmark.Name,
				results.FormatNumber(s.Lo, 3), results.FormatNumber(s.Hi, 3))
		}
	}
}

// gate compares the arm with its result in the baseline bundle.
func (ar *armRun) gate(t tb, cell *engine.Cell) {
	t.Helper()
	base := ar.r.baseline
	path := ar.r.cfg.Baseline
	cur := results.Arm{Label: ar.arm.Name, Config: engine.CellConfig(cell, ar.r.varied), Result: results.Result{Metrics: map[string]float64{}}}
	for _, q := range cell.Queries {
		row := results.Sample{QueryID: q.Query.ID, Scores: q.Scores}
		if q.Err != nil {
			row.Error = q.Err.Error()
		}
		for m := range q.Scores {
			cur.Result.Metrics[m] = 0 // marks the metric as scored
		}
		cur.Result.PerSampleScores = append(cur.Result.PerSampleScores, row)
	}
	benchName := ar.br.Benchmark.Name
	var prev []results.Arm
	for _, a := range results.Arms(base, "baseline ") {
		if a.Config.Benchmark == benchName && a.Config.Name == ar.arm.Name {
			prev = append(prev, a)
		}
	}
	if len(prev) == 0 {
		var have []string
		for _, c := range base.Configs {
			have = append(have, c.Benchmark+"/"+c.Name)
		}
		t.Errorf("baseline gate: %s holds no result for arm %s on %s (it holds %s); if the data or the arm changed on purpose, record a new baseline with %s=1",
			path, ar.arm.Name, benchName, strings.Join(have, ", "), EnvUpdateBaseline)
		return
	}
	var ms []string
	for _, m := range ar.plan.gated {
		if _, ok := cur.Result.Metrics[m]; ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		t.Errorf("baseline gate: arm %s scores none of the gated metrics %s", ar.arm.Name, strings.Join(ar.plan.gated, ", "))
		return
	}
	g := ar.r.cfg.Gate
	cmp := results.Compare([]results.Pair{{Arm: cur, Baseline: prev[0]}}, results.CompareOptions{Metrics: ms, Seed: ar.r.seed, Level: 1 - g.alpha()})
	for _, ref := range cmp.Refusals {
		t.Errorf("baseline gate: cannot compare with %s: %s; if the change is intended, record a new baseline with %s=1", path, ref, EnvUpdateBaseline)
	}
	for _, c := range cmp.Comparisons {
		drop := c.BaselineMean - c.Mean
		if drop > g.tolerance() && c.Significant {
			t.Errorf("regression: %s fell from %s to %s (drop %s > tolerance %s) and the drop is significant (Holm p = %s < %s across %d gated metrics, %d paired queries); baseline %s; fix the regression, or if it is intended record a new baseline with %s=1",
				c.Metric, formatValue(c.BaselineMean), formatValue(c.Mean), formatValue(drop), formatValue(g.tolerance()),
				results.FormatP(c.HolmP), formatValue(g.alpha()), len(ms), c.Stats.N, path, EnvUpdateBaseline)
			continue
		}
		verdict := "no drop"
		switch {
		case drop > g.tolerance():
			verdict = "drop not significant"
		case drop > 0:
			verdict = "drop within tolerance"
		}
		t.Logf("baseline gate: %s %s → %s (%s, Holm p = %s, %d paired queries): %s, passes",
			c.Metric, formatValue(c.BaselineMean), formatValue(c.Mean), results.FormatSigned(c.Mean-c.BaselineMean, 4),
			results.FormatP(c.HolmP), c.Stats.N, verdict)
	}
}

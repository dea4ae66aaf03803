package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
)

type repeatKey struct{}

// WithRepeat returns a context that carries the 0-based repeat index n of a
// query run several times (evaltest's Repeats). Pipelines read it with
// Repeat and pass it on to sampled LLM calls (llm.ChatRequest.Repeat), so
// that the repeats of a query are cached apart instead of replaying one
// answer.
func WithRepeat(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, repeatKey{}, n)
}

// Repeat returns the repeat index WithRepeat put in ctx, or 0.
func Repeat(ctx context.Context) int {
	n, _ := ctx.Value(repeatKey{}).(int)
	return n
}

// ParsePassRule reads a pass rule as sweep files (pass:) and the CLI
// (--pass) write it: all, majority, any, or rate >= X with 0 ≤ X ≤ 1
// (spaces optional). "" is All().
func ParsePassRule(s string) (PassRule, error) {
	t := strings.Join(strings.Fields(s), "")
	switch t {
	case "", "all":
		return All(), nil
	case "majority":
		return Majority(), nil
	case "any":
		return Any(), nil
	}
	if x, ok := strings.CutPrefix(t, "rate>="); ok {
		v, err := strconv.ParseFloat(x, 64)
		if err == nil && v >= 0 && v <= 1 {
			return RateAtLeast(v), nil
		}
	}
	return PassRule{}, fmt.Errorf("pass rule %q: want all, majority, any or rate >= X with X between 0 and 1 (e.g. rate >= 0.8)", s)
}

// RunsPerQuery is how many times each query of a runs: Repeats (at least
// 1) for an arm that samples (Sampling), else 1, since a deterministic
// arm gives the same answer each time.
func (a *Arm) RunsPerQuery() int {
	if !a.Sampling() {
		return 1
	}
	return max(1, a.Repeats)
}

// startRepeats starts one cellRun per run of the cell's arm's queries
// (RunsPerQuery), all sharing one pipeline, built once (see startCell for
// journals, resume and a pipeline that fails to build): the cellRun of
// repeat r runs its queries with WithRepeat(ctx, r) and, with a journal,
// keeps its own. Each cellRun's cell describes the arm itself. When the
// pipeline fails to build, every cell records it (Cell.BuildErr). The
// caller closes every cellRun; the shared pipeline is released by the
// first. cell receives the merged results (mergeRuns).
func startRepeats(ctx context.Context, cell *Cell, queries []*lasagna.Query, ids *idSet, opts Options) ([]*cellRun, error) {
	arm := cell.Arm
	n := arm.RunsPerQuery()
	if n == 1 {
		cr, err := startCell(ctx, cell, queries, ids, opts)
		if err != nil {
			return nil, err
		}
		return []*cellRun{cr}, nil
	}
	shared := *arm
	var (
		once sync.Once
		pipe lasagna.Pipeline
		berr error
	)
	shared.Pipeline = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
		once.Do(func() { pipe, berr = arm.Build(ctx, b) })
		return pipe, berr
	}
	shared.Retriever, shared.Generator, shared.Passages = nil, nil, 0
	shared.Mode = arm.ResolvedMode()
	var runs []*cellRun
	for r := range n {
		o := opts
		o.repeat = r
		cr, err := startCell(ctx, &Cell{Bench: cell.Bench, Arm: &shared}, queries, ids, o)
		if err != nil {
			for _, c := range runs {
				c.Close()
			}
			return nil, err
		}
		// The cell describes the arm as planned, not the wrapper that
		// shares its pipeline.
		cr.cell.Arm = arm
		cr.repeat = r
		cr.sharedPipe = r > 0
		runs = append(runs, cr)
	}
	return runs, nil
}

// mergeRuns fills cell (the arm's cell of a report) from the finished
// CellRuns of its repeats: query by query, MergeRepeats of the runs, with
// the runs themselves in QueryResult.Repeats when there are several.
func mergeRuns(cell *Cell, runs []*cellRun) {
	if len(runs) == 1 {
		*cell = *runs[0].cell
		return
	}
	first := runs[0].cell
	cell.BuildErr, cell.Facts = first.BuildErr, first.Facts
	cell.Queries = make([]QueryResult, len(first.Queries))
	for i := range first.Queries {
		reps := make([]*QueryResult, len(runs))
		for r, cr := range runs {
			reps[r] = &cr.cell.Queries[i]
		}
		m := MergeRepeats(reps)
		m.Repeats = reps
		cell.Queries[i] = m
	}
	for _, cr := range runs {
		cell.Resumed = max(cell.Resumed, cr.cell.Resumed)
	}
}

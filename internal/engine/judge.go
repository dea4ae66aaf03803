package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/lasagna-go/lasagna"
)

// judgeQuery runs the arm's judge on a scored query r: the scores join
// r.Scores, a failure is r.JudgeErr. Failed and unanswered queries are not
// judged.
func (cr *CellRun) judgeQuery(ctx context.Context, r *QueryResult) {
	j := cr.cell.Arm.Judge
	if j == nil || r.Err != nil || !r.Output.Answered {
		return
	}
	res, err := j.Score(ctx, *r.Query, r.Output)
	r.JudgeModel, r.JudgeAlias = res.Model, res.UnresolvedAlias
	r.JudgeErr = err
	if len(res.Scores) > 0 {
		if r.Scores == nil {
			r.Scores = make(map[string]float64, len(res.Scores))
		}
		maps.Copy(r.Scores, res.Scores)
	}
}

// judgeFindings raises JUDGE_ERRORS (queries whose judge call failed) and
// UNRESOLVED_JUDGE_ALIAS (a judge model requested as an alias and answered
// by a dated snapshot) for cell c.
func judgeFindings(c *Cell) []lasagna.Finding {
	if c.Arm.Judge == nil {
		return scorerFindings(c)
	}
	var (
		out      []lasagna.Finding
		failed   []string
		firstErr error
		judged   int
		answered = map[string]int{}
	)
	for i := range c.Queries {
		r := &c.Queries[i]
		if r.Err != nil || (!r.Output.Answered && len(c.Arm.Scorers) == 0) {
			continue
		}
		judged++
		if r.JudgeErr != nil {
			failed = append(failed, r.Query.ID)
			if firstErr == nil {
				firstErr = r.JudgeErr
			}
		}
		if r.JudgeModel != "" && r.JudgeAlias {
			answered[r.JudgeModel]++
		}
	}
	if len(failed) > 0 {
		out = append(out, lasagna.Finding{Code: lasagna.JudgeErrors, Where: c.Where(),
			Detail: fmt.Sprintf("%d of %d judged queries have no judge score for a failed judge call: %s; first error: %v", len(failed), judged, list(failed), firstErr)})
	}
	requested := c.Arm.Judge.Model()
	for _, m := range slices.Sorted(maps.Keys(answered)) {
		out = append(out, lasagna.Finding{Code: lasagna.UnresolvedJudgeAlias, Where: c.Where(),
			Detail: fmt.Sprintf("judge model %q is an alias; the server answered %d queries as %q; request %q to pin it", requested, answered[m], m, m)})
	}
	return out
}

// scorerFindings raises JUDGE_ERRORS for the queries of cell c whose
// scorer failed, on an arm without a judge.
func scorerFindings(c *Cell) []lasagna.Finding {
	if len(c.Arm.Scorers) == 0 {
		return nil
	}
	var (
		failed   []string
		firstErr error
		scored   int
	)
	for i := range c.Queries {
		r := &c.Queries[i]
		if r.Err != nil {
			continue
		}
		scored++
		if r.JudgeErr != nil {
			failed = append(failed, r.Query.ID)
			if firstErr == nil {
				firstErr = r.JudgeErr
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return []lasagna.Finding{{Code: lasagna.JudgeErrors, Where: c.Where(),
		Detail: fmt.Sprintf("%d of %d scored queries have no score from a failed scorer: %s; first error: %v", len(failed), scored, list(failed), firstErr)}}
}

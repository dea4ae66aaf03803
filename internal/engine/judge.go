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
func (cr *cellRun) judgeQuery(ctx context.Context, r *QueryResult) {
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

// judgeFindings raises JUDGE_ERRORS (queries whose judge or scorer call
// failed) and UNRESOLVED_JUDGE_ALIAS (a judge model requested as an alias
// and answered by a dated snapshot) for cell c. A judge judges answered
// queries; scorers score every query that did not fail.
func judgeFindings(c *Cell) []lasagna.Finding {
	judge := c.Arm.Judge
	if judge == nil && len(c.Arm.Scorers) == 0 {
		return nil
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
		what := "judged queries have no judge score for a failed judge call"
		if judge == nil {
			what = "scored queries have no score from a failed scorer"
		}
		out = append(out, lasagna.Finding{Code: lasagna.JudgeErrors, Where: c.Where(),
			Detail: fmt.Sprintf("%d of %d %s: %s; first error: %v", len(failed), judged, what, list(failed), firstErr)})
	}
	for _, m := range slices.Sorted(maps.Keys(answered)) {
		out = append(out, lasagna.Finding{Code: lasagna.UnresolvedJudgeAlias, Where: c.Where(),
			Detail: fmt.Sprintf("judge model %q is an alias; the server answered %d queries as %q; request %q to pin it", judge.Model(), answered[m], m, m)})
	}
	return out
}

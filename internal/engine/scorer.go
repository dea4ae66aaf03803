package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
)

// Scorer is a scorer of the user's with what identifies it: its name and
// version, held fixed in the bundle (held_fixed.scorers) so that bundles
// scored differently never compare, and the metric names it returns, known
// before anything runs so that thresholds and gates on them are checked by
// name.
type Scorer struct {
	Name    string
	Version string
	Metrics []string
	Scorer  lasagna.Scorer
}

// scorerName is what a scorer's name and its metrics' names may be: a
// letter, then letters, digits, '_', '-' or '.'.
var scorerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`) })

// checkScorers reports what is wrong with the arm's scorers: a missing or
// repeated name, no metrics, a metric name that is malformed, built in, or
// returned by two scorers, a nil Scorer.
func checkScorers(a *Arm) error {
	var errs []error
	names := map[string]bool{}
	owner := map[string]string{}
	if a.Judge != nil {
		for _, m := range judgeMetricsOf(a.Judge) {
			owner[m] = "the judge"
		}
	}
	builtin := allMetricNames()
	for i, s := range a.Scorers {
		where := fmt.Sprintf("arm %s: scorer %d", a.Name, i+1)
		if s.Name != "" {
			where = fmt.Sprintf("arm %s: scorer %s", a.Name, s.Name)
		}
		switch {
		case s.Name == "":
			errs = append(errs, fmt.Errorf("%s: give it a Name (held fixed in the bundle, with its Version)", where))
		case !scorerName().MatchString(s.Name):
			errs = append(errs, fmt.Errorf("%s: the name %q is not a letter followed by letters, digits, dots, dashes or underscores", where, s.Name))
		case names[s.Name]:
			errs = append(errs, fmt.Errorf("%s: two scorers are named %q", where, s.Name))
		}
		names[s.Name] = true
		if s.Scorer == nil {
			errs = append(errs, fmt.Errorf("%s: Scorer is nil", where))
		}
		if len(s.Metrics) == 0 {
			errs = append(errs, fmt.Errorf("%s: Metrics is empty; list the metric names it returns", where))
		}
		for _, m := range s.Metrics {
			base, _, _ := strings.Cut(m, "@")
			switch {
			case slices.Contains(builtin, m) || slices.Contains(retrievalFamilies, base) || m == MetricLatency:
				errs = append(errs, fmt.Errorf("%s: metric %q is a built-in metric's name; give it a name of its own", where, m))
			case !scorerName().MatchString(m):
				errs = append(errs, fmt.Errorf("%s: metric name %q is not a letter followed by letters, digits, dots, dashes or underscores", where, m))
			case owner[m] == "the judge":
				errs = append(errs, fmt.Errorf("%s: metric %q is also scored by the arm's judge (a rubric); give one of them another name", where, m))
			case owner[m] != "":
				errs = append(errs, fmt.Errorf("%s: metric %q is also returned by scorer %s", where, m, owner[m]))
			}
			owner[m] = s.Name
		}
	}
	return errors.Join(errs...)
}

// checkJudgeMetrics reports a judge metric of arm a's judge that is not a
// built-in judge metric (a rubric) and is malformed or a built-in metric's
// name.
func checkJudgeMetrics(a *Arm) error {
	if a.Judge == nil {
		return nil
	}
	var errs []error
	for _, m := range judgeMetricsOf(a.Judge) {
		if slices.Contains(JudgeMetrics(), m) {
			continue
		}
		base, _, _ := strings.Cut(m, "@")
		switch {
		case !scorerName().MatchString(m):
			errs = append(errs, fmt.Errorf("arm %s: judge metric %q is not a letter followed by letters, digits, dots, dashes or underscores", a.Name, m))
		case slices.Contains(allMetricNames(), m) || slices.Contains(retrievalFamilies, base):
			errs = append(errs, fmt.Errorf("arm %s: judge metric %q is a built-in metric's name; give the rubric a name of its own", a.Name, m))
		}
	}
	return errors.Join(errs...)
}

// scoreQuery runs the arm's scorers on a query r that did not fail: their
// values join r.Scores; a failure (an error, a panic, a metric the scorer
// did not declare, a value that is not a finite number) is r.JudgeErr, and
// that scorer's metrics are left out of the row.
func (cr *cellRun) scoreQuery(ctx context.Context, r *QueryResult) {
	if r.Err != nil {
		return
	}
	for _, s := range cr.cell.Arm.Scorers {
		m, err := callScorer(ctx, s, *r.Query, r.Output)
		if err == nil {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				v := m[name]
				switch {
				case !slices.Contains(s.Metrics, name):
					err = fmt.Errorf("returned metric %q, which it does not declare (Metrics: %s)", name, strings.Join(s.Metrics, ", "))
				case math.IsNaN(v) || math.IsInf(v, 0):
					err = fmt.Errorf("returned %s = %v; a score is a finite number (return an error when there is none)", name, v)
				}
				if err != nil {
					break
				}
			}
		}
		if err != nil {
			r.JudgeErr = errors.Join(r.JudgeErr, fmt.Errorf("scorer %s: %w", s.Name, err))
			continue
		}
		if len(m) > 0 && r.Scores == nil {
			r.Scores = make(map[string]float64, len(m))
		}
		maps.Copy(r.Scores, m)
	}
}

// callScorer calls s, turning a panic into an error.
func callScorer(ctx context.Context, s Scorer, q lasagna.Query, out lasagna.Output) (m map[string]float64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: panicStack()}
		}
	}()
	return s.Scorer.Score(ctx, q, out)
}

// scorerSettings is held_fixed.scorers of arm a: each scorer's name and
// version ("" for none).
func scorerSettings(a *Arm) map[string]string {
	if len(a.Scorers) == 0 {
		return nil
	}
	out := make(map[string]string, len(a.Scorers))
	for _, s := range a.Scorers {
		out[s.Name] = s.Version
	}
	return out
}

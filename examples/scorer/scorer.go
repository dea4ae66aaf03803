// Package scorer shows a scorer of your own: cites_source, 1 when an
// answer names a document of its ranked list, else 0, with a threshold on
// it (docs/evaltest.md, "Scorers of your own").
package scorer

import (
	"context"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// CitesSource scores cites_source: 1 when the answer names, in brackets,
// the id of a document of the query's ranked list ("… [glass-01]"), 0 when
// it names none. An abstention or a missing answer is not scored.
func CitesSource(ctx context.Context, q lasagna.Query, out lasagna.Output) (map[string]float64, error) {
	if !out.Answered || out.Abstained {
		return nil, nil
	}
	for _, h := range out.Hits {
		if strings.Contains(out.Answer, "["+h.ID+"]") {
			return map[string]float64{"cites_source": 1}, nil
		}
	}
	return map[string]float64{"cites_source": 0}, nil
}

// Quoting is a stand-in generator, so the example runs offline: it answers
// with the first reference answer and cites the first passage it was given,
// except for the questions in uncited, which it answers without a source.
func Quoting(uncited ...string) lasagna.Generator {
	return lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, passages []lasagna.Document) (lasagna.Answer, error) {
		if len(q.Answers) == 0 {
			return lasagna.Answer{Abstained: true}, nil
		}
		a := q.Answers[0]
		for _, id := range uncited {
			if id == q.ID {
				return lasagna.Answer{Text: a}, nil
			}
		}
		if len(passages) > 0 {
			a += " [" + passages[0].ID + "]"
		}
		return lasagna.Answer{Text: a}, nil
	})
}

package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

// Rubric is a judge metric of the user's: the judge grades each answer
// against Criterion on an integer scale from 1 to Scale, and the metric
// Name scores (s-1)/(Scale-1), so 1 is 0 and Scale is 1. The judge sees the
// question and the answer. The criterion's sha256 and the scale are part
// of Describe (held fixed), so bundles judged with another criterion never
// compare.
type Rubric struct {
	// Name is the metric's name: a letter, then letters, digits, '_', '-'
	// or '.'; not the name of a built-in metric.
	Name string
	// Criterion is what a good answer does, in the user's words, e.g.
	// "The answer is polite and never blames the customer."
	Criterion string
	// Scale is the top of the scale, 2 to 10; 0 means 5.
	Scale int
}

// defaultScale is a rubric's scale when Rubric.Scale is 0.
const defaultScale = 5

// rubricName is what a rubric's name may be.
var rubricName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`) })

// criterionSHA256 is the hex sha256 of the rubric's criterion.
func (r Rubric) criterionSHA256() string {
	h := sha256.Sum256([]byte(r.Criterion))
	return hex.EncodeToString(h[:])
}

func rubricPrompt() llm.Prompt {
	return llm.Prompt{
		ID: "judge-rubric-v1",
		System: "You grade an answer to a question against one criterion, on an integer scale from 1 (does not meet the " +
			"criterion at all) to {{scale}} (meets it fully). Judge the criterion only. " +
			`Reply with one JSON object and nothing else: {"score": <an integer from 1 to {{scale}}>, "reason": "<one short sentence>"}.`,
		User: "Criterion: {{criterion}}\n\nQuestion: {{question}}\nAnswer: {{answer}}",
	}
}

// checkRubrics checks rs and returns them with their defaults: a name
// that is malformed, repeated or a built-in metric's, an empty criterion, a
// scale out of range are errors.
func checkRubrics(rs []Rubric) ([]Rubric, error) {
	out := slices.Clone(rs)
	seen := map[string]bool{}
	for i := range out {
		r := &out[i]
		where := fmt.Sprintf("judge: rubric %d", i+1)
		if r.Name != "" {
			where = "judge: rubric " + r.Name
		}
		switch {
		case r.Name == "":
			return nil, fmt.Errorf("%s: give it a Name (the metric's name)", where)
		case !rubricName().MatchString(r.Name):
			return nil, fmt.Errorf("%s: the name %q is not a letter followed by letters, digits, dots, dashes or underscores", where, r.Name)
		case slices.Contains(allMetrics(), r.Name):
			return nil, fmt.Errorf("%s: %q is a built-in judge metric; give the rubric a name of its own", where, r.Name)
		case seen[r.Name]:
			return nil, fmt.Errorf("%s: two rubrics are named %q", where, r.Name)
		case strings.TrimSpace(r.Criterion) == "":
			return nil, fmt.Errorf("%s: the criterion is empty; say what a good answer does", where)
		}
		seen[r.Name] = true
		if r.Scale == 0 {
			r.Scale = defaultScale
		}
		if r.Scale < 2 || r.Scale > 10 {
			return nil, fmt.Errorf("%s: scale is %d; want 2 to 10 (or 0 for %d)", where, r.Scale, defaultScale)
		}
	}
	return out, nil
}

// rubric returns the rubric named metric.
func (j *Judge) rubric(metric string) (Rubric, bool) {
	for _, r := range j.cfg.Rubrics {
		if r.Name == metric {
			return r, true
		}
	}
	return Rubric{}, false
}

// scoreRubric grades out against r: (s-1)/(scale-1).
func (j *Judge) scoreRubric(ctx context.Context, r Rubric, q lasagna.Query, out lasagna.Output, res *Result) (float64, error) {
	var s int
	err := j.chat(ctx, r.Name, rubricPrompt(),
		map[string]string{"scale": strconv.Itoa(r.Scale), "criterion": r.Criterion, "question": q.Text, "answer": out.Answer}, 0,
		func(c string) error { var err error; s, err = parseRubricScore(c, r.Scale); return err }, res)
	if err != nil {
		return 0, err
	}
	return float64(s-1) / float64(r.Scale-1), nil
}

// parseRubricScore parses a rubric reply: exactly one JSON object with an
// integer "score" from 1 to scale and an optional string "reason".
func parseRubricScore(content string, scale int) (int, error) {
	var v struct {
		Score  *float64 `json:"score"`
		Reason *string  `json:"reason"`
	}
	if err := decodeReply(content, &v); err != nil {
		return 0, err
	}
	switch {
	case v.Score == nil:
		return 0, fmt.Errorf("unparseable judge reply %s: no \"score\" key", quote(content))
	case *v.Score != math.Trunc(*v.Score) || *v.Score < 1 || *v.Score > float64(scale):
		return 0, fmt.Errorf("unparseable judge reply %s: score %s is not an integer from 1 to %d", quote(content), strconv.FormatFloat(*v.Score, 'g', -1, 64), scale)
	}
	return int(*v.Score), nil
}

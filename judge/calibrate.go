package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/llm"
)

// Label is one answer labelled by a person, for Calibrate: a line of a
// labels file (docs/metrics.md, "Calibrating the judge"):
//
//	{"id": "q1", "question": "…", "reference": "…", "answer": "…", "label": true}
//
// Label is the person's verdict: true when the answer is correct
// (judge_correctness) or supported by the passages (groundedness).
type Label struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Reference is the reference answer the judge compares with
	// (judge_correctness).
	Reference string `json:"reference,omitempty"`
	Answer    string `json:"answer"`
	// Passages are the passages the answer was given from (groundedness).
	Passages []string `json:"passages,omitempty"`
	Label    bool     `json:"label"`
}

// Check returns what label l lacks to be judged on metric, as an error
// naming the field and the fix: an id, a question and an answer always
// (an abstention is decided by rule, not by the model: leave it out), a
// reference for judge_correctness, passages for groundedness.
func (l Label) Check(metric string) error {
	switch {
	case strings.TrimSpace(l.ID) == "":
		return errors.New(`field "id" is missing or empty; give each label a unique id`)
	case strings.TrimSpace(l.Question) == "":
		return errors.New(`field "question" is missing or empty; give the question the answer replies to`)
	case metrics.NormalizeAnswer(l.Answer) == "":
		return errors.New(`field "answer" is missing or empty; an abstention is judged by rule, not by the model: leave it out of the labels`)
	}
	if needs := labelNeeds(metric); needs.reference && strings.TrimSpace(l.Reference) == "" {
		return fmt.Errorf(`field "reference" is missing or empty; %s compares the answer with a reference answer: give it`, metric)
	} else if needs.passages && len(l.Passages) == 0 {
		return fmt.Errorf(`field "passages" is missing or empty; %s checks the answer against passages: give the passages it was answered from`, metric)
	}
	return nil
}

// labelNeeds says which optional fields of a Label a metric reads.
func labelNeeds(metric string) (needs struct{ reference, passages bool }) {
	switch metric {
	case Correctness:
		needs.reference = true
	case Groundedness, faithfulness:
		needs.passages = true
	case contextPrecision, contextRecall:
		needs.reference, needs.passages = true, true
	}
	return needs
}

// PromptVersion returns the id and sha256 of the prompt that decides
// metric, the identity a calibration record holds; ok is false when the
// judge does not score metric. A metric decided by several prompts or by
// settings (the RAG judge metrics, rubrics) has the ids of its prompts
// joined by "+" as id, and as sha256 the hash of its whole part of
// Describe: every prompt's hash, the criterion's and the settings.
func (j *Judge) PromptVersion(metric string) (id, sha256hex string, ok bool) {
	if !slices.Contains(j.cfg.Metrics, metric) {
		return "", "", false
	}
	if metric == Correctness || metric == Groundedness {
		p := promptOf(metric)
		return p.ID, p.SHA256(), true
	}
	ps := promptsOf(metric)
	if _, isRubric := j.rubric(metric); isRubric {
		ps = []llm.Prompt{rubricPrompt()}
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	sum := sha256.Sum256([]byte(j.describeMetric(metric)))
	return strings.Join(ids, "+"), hex.EncodeToString(sum[:]), true
}

// calibrationThreshold is the score from which Calibrate counts a
// verdict as positive.
const calibrationThreshold = 0.5

// calibrationSeed is the bootstrap seed when Calibrate is given 0.
const calibrationSeed = 1

// Calibrate measures the judge's metric against labels, each judged once
// through Score (so through the client's cache, concurrency cap and rate
// limits; up to the client's MaxConcurrency labels at once, 8 when it has
// no cap): accuracy, Cohen's kappa with its 95% percentile bootstrap
// interval (metrics.DefaultResamples resamples of the (label, verdict)
// pairs, seeded with seed; 0 means 1), the confusion matrix and the ids of
// the disagreements with the judge's reasons. A verdict is positive when
// the score is at least 0.5, which for the yes/no metrics is the verdict
// itself.
//
// Labels that lack what the metric needs (Label.Check), duplicate ids and
// a metric the judge does not score are errors before any call. A failed
// judge call is never a verdict: the record counts the labels judged (N)
// and those that failed (Failed), and the error names each failure; when
// every call failed there is no record. The caller sets LabelsFile,
// LabelsSHA256 and LasagnaVersion; Date is today (UTC).
func (j *Judge) Calibrate(ctx context.Context, metric string, labels []Label, seed uint64) (lasagna.JudgeCalibration, error) {
	id, sha, ok := j.PromptVersion(metric)
	if !ok {
		return lasagna.JudgeCalibration{}, fmt.Errorf("judge: calibrate %s: the judge does not score it; it scores %s", metric, strings.Join(j.cfg.Metrics, ", "))
	}
	if len(labels) == 0 {
		return lasagna.JudgeCalibration{}, errors.New("judge: calibrate: no labels")
	}
	var errs []error
	seen := map[string]int{}
	for i, l := range labels {
		if err := l.Check(metric); err != nil {
			errs = append(errs, fmt.Errorf("label %d (id %q): %w", i+1, l.ID, err))
		}
		if first, dup := seen[l.ID]; dup && l.ID != "" {
			errs = append(errs, fmt.Errorf("label %d: id %q is also label %d's; ids must be unique", i+1, l.ID, first))
		} else {
			seen[l.ID] = i + 1
		}
	}
	if len(errs) > 0 {
		return lasagna.JudgeCalibration{}, fmt.Errorf("judge: calibrate: %w", errors.Join(errs...))
	}
	if seed == 0 {
		seed = calibrationSeed
	}

	one := &Judge{client: j.client, cfg: j.cfg}
	one.cfg.Metrics = []string{metric}
	type verdict struct {
		score  float64
		reason string
		model  string
		err    error
	}
	got := make([]verdict, len(labels))
	workers := j.client.MaxConcurrency()
	if workers <= 0 {
		workers = 8
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(labels)) {
		wg.Go(func() {
			for i := range next {
				l := labels[i]
				q := lasagna.Query{ID: l.ID, Text: l.Question}
				if l.Reference != "" {
					q.Answers = []string{l.Reference}
				}
				res, err := one.Score(ctx, q, lasagna.Output{Answer: l.Answer, Answered: true, Passages: l.Passages})
				v := verdict{reason: res.Reasons[metric], model: res.Model, err: err}
				if s, ok := res.Scores[metric]; ok && err == nil {
					v.score = s
				} else if err == nil {
					v.err = fmt.Errorf("%s: no score", metric)
				}
				got[i] = v
			}
		})
	}
feed:
	for i := range labels {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return lasagna.JudgeCalibration{}, fmt.Errorf("judge: calibrate: %w", err)
	}

	rec := lasagna.JudgeCalibration{
		Metric: metric, JudgeModel: j.cfg.Model, PromptID: id, PromptSHA256: sha,
		Threshold: calibrationThreshold, Level: metrics.DefaultLevel, Resamples: metrics.DefaultResamples, Seed: seed,
		Date: time.Now().UTC().Format(time.DateOnly),
	}
	var (
		ls, vs []bool
		failed []error
	)
	for i, v := range got {
		l := labels[i]
		if v.err != nil {
			failed = append(failed, fmt.Errorf("label %q: %w", l.ID, v.err))
			continue
		}
		if v.model != "" && v.model != rec.JudgeModel && rec.ServedModel == "" {
			rec.ServedModel = v.model
		}
		pos := v.score >= calibrationThreshold
		ls, vs = append(ls, l.Label), append(vs, pos)
		if pos == l.Label {
			continue
		}
		if pos {
			rec.FalsePositiveIDs = append(rec.FalsePositiveIDs, l.ID)
		} else {
			rec.FalseNegativeIDs = append(rec.FalseNegativeIDs, l.ID)
		}
		if v.reason != "" {
			if rec.Reasons == nil {
				rec.Reasons = map[string]string{}
			}
			rec.Reasons[l.ID] = v.reason
		}
	}
	rec.Failed = len(failed)
	var failErr error
	if len(failed) > 0 {
		failErr = fmt.Errorf("judge: calibrate: %d of %d judge calls failed: %w", len(failed), len(labels), errors.Join(failed...))
	}
	if len(ls) == 0 {
		return lasagna.JudgeCalibration{}, failErr
	}
	c := metrics.ConfusionOf(ls, vs)
	rec.N = c.N()
	rec.TruePositives, rec.FalsePositives, rec.FalseNegatives, rec.TrueNegatives = c.TP, c.FP, c.FN, c.TN
	rec.Accuracy = c.Accuracy()
	if k, ok := c.Kappa(); ok {
		rec.Kappa = &k
		if lo, hi, _, ok := metrics.KappaInterval(ls, vs, metrics.BootstrapOptions{Resamples: rec.Resamples, Seed: seed, Level: rec.Level}); ok {
			rec.KappaLo, rec.KappaHi = &lo, &hi
		}
	}
	return rec, failErr
}

// replyReason returns the "reason" of a judge reply, "" when it has none
// or does not parse.
func replyReason(content string) string {
	var v struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal([]byte(content), &v) != nil {
		return ""
	}
	return strings.TrimSpace(v.Reason)
}

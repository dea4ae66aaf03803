package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// checkCalibrations re-derives what can be re-derived of each arm's
// judge_calibrations and reports INCONSISTENT_BUNDLE where a record
// disagrees with itself or with the arm:
//
//   - n is the sum of the confusion matrix, every count ≥ 0, n ≥ 1;
//   - accuracy is (true_positives + true_negatives) / n;
//   - kappa is Cohen's kappa of the matrix, present exactly when it is
//     defined; its interval has both ends or none (none without kappa),
//     low ≤ high, both in [-1, 1], at a level in (0, 1) over at least one
//     resample;
//   - false_positive_ids and false_negative_ids list as many distinct ids
//     as the matrix counts;
//   - the record's judge_model is the arm's held_fixed.judge_model (an arm
//     without a judge cites none), one record per metric;
//   - when held_fixed.fixed_stages.judge describes lasagna's LLM judge
//     (package judge: "llm-judge model=… METRIC=PROMPT@SHA256 …"), the
//     record's metric is one it scores and its prompt_id and
//     prompt_sha256 are that judge's for the metric (the sha256 of the
//     metric's description for the RAG metrics and rubrics, as
//     judge.(*Judge).PromptVersion gives it).
//
// The bootstrap interval itself is not recomputed: it resamples the
// (label, verdict) pairs in the labels' order, which the bundle does not
// hold.
func checkCalibrations(r *Report, b *Bundle) {
	for ci := range b.Configs {
		c := &b.Configs[ci]
		if len(c.JudgeCalibrations) == 0 {
			continue
		}
		where := c.Benchmark + "/" + c.Name
		seen := map[string]bool{}
		var parts map[string]string
		describes := false
		if d, ok := c.HeldFixed.FixedStages["judge"]; ok && strings.HasPrefix(d, "llm-judge ") {
			parts, describes = judgeParts(d), true
		}
		for i, rec := range c.JudgeCalibrations {
			field := fmt.Sprintf("judge_calibrations[%d]", i)
			if rec.Metric != "" {
				field = fmt.Sprintf("judge_calibrations[%q]", rec.Metric)
			}
			bad := func(format string, args ...any) {
				r.add(lasagna.InconsistentBundle, where, "%s: %s", field, fmt.Sprintf(format, args...))
			}
			if seen[rec.Metric] {
				bad("a second record of metric %q; an arm cites one record per metric", rec.Metric)
			}
			seen[rec.Metric] = true
			checkCalibrationNumbers(rec, bad)
			switch {
			case c.HeldFixed.JudgeModel == nil:
				bad("the arm has no judge (held_fixed has no judge_model), so it cites no calibration")
			case rec.JudgeModel != *c.HeldFixed.JudgeModel:
				bad("judge_model is %q, but the arm's judge is %q (held_fixed.judge_model)", rec.JudgeModel, *c.HeldFixed.JudgeModel)
			}
			if !describes {
				continue
			}
			part, ok := parts[rec.Metric]
			if !ok {
				bad("the arm's judge (held_fixed.fixed_stages.judge) does not score %q", rec.Metric)
				continue
			}
			id, sha := promptVersionOf(rec.Metric, part)
			if id != rec.PromptID || sha != rec.PromptSHA256 {
				bad("prompt %s@%.12s, but the arm's judge scores %s with %s@%.12s (held_fixed.fixed_stages.judge)", rec.PromptID, rec.PromptSHA256, rec.Metric, id, sha)
			}
		}
	}
}

// checkCalibrationNumbers checks the numbers of one record against each
// other, reporting each disagreement through bad.
func checkCalibrationNumbers(rec lasagna.JudgeCalibration, bad func(format string, args ...any)) {
	cm := metrics.Confusion{TP: rec.TruePositives, FP: rec.FalsePositives, FN: rec.FalseNegatives, TN: rec.TrueNegatives}
	if min(cm.TP, cm.FP, cm.FN, cm.TN, rec.Failed) < 0 {
		bad("a count of the confusion matrix (or failed) is negative: %d %d / %d %d, failed %d", cm.TP, cm.FN, cm.FP, cm.TN, rec.Failed)
		return
	}
	if rec.N < 1 {
		bad("n is %d; a record measures at least one label", rec.N)
		return
	}
	if cm.N() != rec.N {
		bad("n is %d, but the confusion matrix (true_positives %d, false_positives %d, false_negatives %d, true_negatives %d) sums to %d", rec.N, cm.TP, cm.FP, cm.FN, cm.TN, cm.N())
		return
	}
	if acc := cm.Accuracy(); !near(rec.Accuracy, acc) {
		bad("accuracy is %v, but the confusion matrix gives (%d + %d) / %d = %v", rec.Accuracy, cm.TP, cm.TN, cm.N(), acc)
	}
	k, defined := cm.Kappa()
	switch {
	case defined && rec.Kappa == nil:
		bad("kappa is absent, but the confusion matrix gives %v", k)
	case !defined && rec.Kappa != nil:
		bad("kappa is %v, but it is undefined for this confusion matrix (every label and every verdict in one class)", *rec.Kappa)
	case defined && !near(*rec.Kappa, k):
		bad("kappa is %v, but the confusion matrix gives %v", *rec.Kappa, k)
	}
	lo, hi := rec.KappaLo, rec.KappaHi
	switch {
	case (lo == nil) != (hi == nil):
		bad("the kappa interval has one end (kappa_ci_lo and kappa_ci_hi come together)")
	case lo != nil && rec.Kappa == nil:
		bad("a kappa interval [%v, %v] without kappa", *lo, *hi)
	case lo != nil && !(-1 <= *lo && *lo <= *hi && *hi <= 1):
		bad("the kappa interval [%v, %v] is not an interval within [-1, 1]", *lo, *hi)
	}
	if math.IsNaN(rec.Level) || rec.Level <= 0 || rec.Level >= 1 {
		bad("level is %v; it must lie in (0, 1)", rec.Level)
	}
	if rec.Resamples < 1 {
		bad("resamples is %d; the interval needs at least one", rec.Resamples)
	}
	if len(rec.FalsePositiveIDs) != cm.FP {
		bad("false_positive_ids lists %d ids, but false_positives is %d", len(rec.FalsePositiveIDs), cm.FP)
	}
	if len(rec.FalseNegativeIDs) != cm.FN {
		bad("false_negative_ids lists %d ids, but false_negatives is %d", len(rec.FalseNegativeIDs), cm.FN)
	}
	ids := append(slices.Clone(rec.FalsePositiveIDs), rec.FalseNegativeIDs...)
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			bad("id %q is listed twice among the disagreements; each label is one disagreement at most", ids[i])
			break
		}
	}
}

// judgeParts splits package judge's description of a judge ("llm-judge
// model=M max_tokens=N temperature=0 METRIC=PROMPT@SHA [settings] …") into
// each metric's part: the token naming its prompts (the first with an
// "@") and the settings tokens after it, up to the next metric's.
func judgeParts(desc string) map[string]string {
	parts := map[string]string{}
	var metric string
	var cur []string
	flush := func() {
		if metric != "" {
			parts[metric] = strings.Join(cur, " ")
		}
	}
	for _, tok := range strings.Fields(desc) {
		if k, v, ok := strings.Cut(tok, "="); ok && strings.Contains(v, "@") {
			flush()
			metric, cur = k, []string{tok}
			continue
		}
		if metric != "" {
			cur = append(cur, tok)
		}
	}
	flush()
	return parts
}

// promptVersionOf is judge.(*Judge).PromptVersion from the metric's part
// of the judge's description: the prompt id and sha256 of
// judge_correctness and groundedness, else the prompt ids joined by "+"
// and the sha256 of the part.
func promptVersionOf(metric, part string) (id, sha string) {
	_, prompts, _ := strings.Cut(strings.Fields(part)[0], "=")
	if metric == "judge_correctness" || metric == "groundedness" {
		id, sha, _ = strings.Cut(prompts, "@")
		return id, sha
	}
	var ids []string
	for _, p := range strings.Split(prompts, "+") {
		pid, _, _ := strings.Cut(p, "@")
		ids = append(ids, pid)
	}
	sum := sha256.Sum256([]byte(part))
	return strings.Join(ids, "+"), hex.EncodeToString(sum[:])
}

package htmlreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// calibView is an arm's calibration record of a judge metric, as the
// metric's section shows it.
type calibView struct {
	Arm, Model, Prompt, Labels, Date string
	N, Failed                        int
	Accuracy, Kappa                  string
	TP, FP, FN, TN                   int
	Disagreements                    string
}

// judgeMetric reports whether arm a's judge scores metric m: the judge's
// description in fixed_stages names it (package judge's "m=prompt@sha"),
// or it is one of the built-in judge metrics.
func judgeMetric(a results.ArmResult, m string) bool {
	if a.Config.HeldFixed.JudgeModel == nil {
		return false
	}
	if strings.Contains(" "+a.Config.HeldFixed.FixedStages["judge"], " "+m+"=") {
		return true
	}
	return m == "judge_correctness" || m == "groundedness"
}

// withCalibration adds to mv, the section of metric mv.Name, the
// calibration record of each arm whose judge scores it, and the arms
// whose judge has none.
func withCalibration(mv metricView, arms []results.ArmResult) metricView {
	for _, a := range arms {
		if _, scored := a.Result.Metrics[mv.Name]; !scored || !judgeMetric(a, mv.Name) {
			continue
		}
		i := slices.IndexFunc(a.Config.JudgeCalibrations, func(c lasagna.JudgeCalibration) bool { return c.Metric == mv.Name })
		if i < 0 {
			mv.Uncalibrated = append(mv.Uncalibrated, a.Label)
			continue
		}
		c := a.Config.JudgeCalibrations[i]
		cv := calibView{
			Arm: a.Label, Model: c.JudgeModel, Prompt: c.PromptID + "@" + short(c.PromptSHA256), Date: c.Date,
			N: c.N, Failed: c.Failed, Accuracy: reporters.FormatNumber(c.Accuracy, 3), Kappa: "undefined",
			TP: c.TruePositives, FP: c.FalsePositives, FN: c.FalseNegatives, TN: c.TrueNegatives,
			Labels:        c.LabelsFile,
			Disagreements: strings.Join(append(slices.Clone(c.FalsePositiveIDs), c.FalseNegativeIDs...), ", "),
		}
		if c.ServedModel != "" {
			cv.Model += " (" + c.ServedModel + ")"
		}
		if c.LabelsSHA256 != "" {
			cv.Labels += " sha256 " + short(c.LabelsSHA256)
		}
		if c.Kappa != nil {
			cv.Kappa = reporters.FormatNumber(*c.Kappa, 3)
			if c.KappaLo != nil && c.KappaHi != nil {
				cv.Kappa += fmt.Sprintf(" [%s, %s]", reporters.FormatNumber(*c.KappaLo, 3), reporters.FormatNumber(*c.KappaHi, 3))
			}
		}
		mv.Calibrations = append(mv.Calibrations, cv)
	}
	return mv
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12] + "…"
	}
	return sha
}

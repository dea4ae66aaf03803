package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// PromptVersioner is a Judge that names the prompt deciding each of its
// metrics (package judge's does), so that a calibration record can be
// checked against it.
type PromptVersioner interface {
	// PromptVersion returns the id and sha256 of the prompt of metric; ok
	// is false when the judge does not score metric.
	PromptVersion(metric string) (id, sha256 string, ok bool)
}

// isSHA256Hex reports whether s is a sha256 in lower-case hex, 64
// characters. (A function, not a package-level regexp: nothing is compiled
// at start; BENCHMARKS.md, "Start-up".)
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ReadJudgeCalibration reads the calibration record at name in fsys
// (written by `lasagna judge calibrate`). Unknown fields, missing
// identity fields and numbers that contradict each other (a confusion
// matrix that does not sum to n, an accuracy it does not give) are errors
// naming the file and the field.
func ReadJudgeCalibration(fsys fs.FS, name string) (lasagna.JudgeCalibration, error) {
	data, err := datasets.ReadFile(fsys, name)
	if err != nil {
		return lasagna.JudgeCalibration{}, fmt.Errorf("judge calibration: %w", err)
	}
	var rec lasagna.JudgeCalibration
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return lasagna.JudgeCalibration{}, fmt.Errorf("%s: not a judge calibration record (write one with `lasagna judge calibrate`): %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return lasagna.JudgeCalibration{}, fmt.Errorf("%s: text after the calibration record's JSON object", name)
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: field %q: %s", name, field, fmt.Sprintf(format, args...)))
	}
	for field, v := range map[string]string{"metric": rec.Metric, "judge_model": rec.JudgeModel, "prompt_id": rec.PromptID, "date": rec.Date, "lasagna_version": rec.LasagnaVersion} {
		if v == "" {
			bad(field, "missing or empty; the record names the judge it measured: write it again with `lasagna judge calibrate`")
		}
	}
	if !isSHA256Hex(rec.PromptSHA256) {
		bad("prompt_sha256", "%q is not a hex sha256", rec.PromptSHA256)
	}
	if rec.LabelsSHA256 != "" && !isSHA256Hex(rec.LabelsSHA256) {
		bad("labels_sha256", "%q is not a hex sha256", rec.LabelsSHA256)
	}
	sum := rec.TruePositives + rec.FalsePositives + rec.FalseNegatives + rec.TrueNegatives
	switch {
	case rec.N < 1:
		bad("n", "%d labels judged; a record measures at least one", rec.N)
	case min(rec.TruePositives, rec.FalsePositives, rec.FalseNegatives, rec.TrueNegatives, rec.Failed) < 0:
		bad("true_positives", "a count of the confusion matrix (or failed) is negative")
	case sum != rec.N:
		bad("n", "%d, but the confusion matrix sums to %d", rec.N, sum)
	case math.Abs(rec.Accuracy-float64(rec.TruePositives+rec.TrueNegatives)/float64(rec.N)) > 1e-9:
		bad("accuracy", "%v, but the confusion matrix gives %v", rec.Accuracy, float64(rec.TruePositives+rec.TrueNegatives)/float64(rec.N))
	}
	if len(errs) > 0 {
		return lasagna.JudgeCalibration{}, errors.Join(errs...)
	}
	rec.File = name
	return rec, nil
}

// checkCalibrations checks the calibration records arm a cites against its
// judge: a judge to cite them, the same judge model, a metric the judge
// scores with the same prompt (id and sha256), one record per metric.
func checkCalibrations(a *Arm) error {
	if len(a.JudgeCalibrations) == 0 {
		return nil
	}
	where := func(c lasagna.JudgeCalibration) string {
		if c.File != "" {
			return "judge calibration " + c.File
		}
		return "judge calibration of " + c.Metric
	}
	if a.Judge == nil {
		return fmt.Errorf("arm %s cites a %s but has no judge; give it a judge or drop the calibration", a.Name, where(a.JudgeCalibrations[0]))
	}
	var errs []error
	seen := map[string]string{}
	pv, _ := a.Judge.(PromptVersioner)
	for _, c := range a.JudgeCalibrations {
		if other, dup := seen[c.Metric]; dup {
			errs = append(errs, fmt.Errorf("arm %s: %s and %s both calibrate %s; cite one record per metric", a.Name, other, where(c), c.Metric))
			continue
		}
		seen[c.Metric] = where(c)
		if c.JudgeModel != a.Judge.Model() {
			errs = append(errs, fmt.Errorf("arm %s: %s measured judge model %q, and the arm's judge is %q; calibrate this judge (lasagna judge calibrate LABELS --model %s --metric %s) or cite its record",
				a.Name, where(c), c.JudgeModel, a.Judge.Model(), a.Judge.Model(), c.Metric))
			continue
		}
		if pv == nil {
			errs = append(errs, fmt.Errorf("arm %s: its judge names no prompt versions (no PromptVersion method), so %s cannot be checked against it", a.Name, where(c)))
			continue
		}
		id, sha, ok := pv.PromptVersion(c.Metric)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("arm %s: %s calibrates %s, which the arm's judge does not score; add it to the judge's metrics or drop the record", a.Name, where(c), c.Metric))
		case id != c.PromptID || sha != c.PromptSHA256:
			errs = append(errs, fmt.Errorf("arm %s: %s measured prompt %s@%.12s of %s, and the arm's judge uses %s@%.12s; calibrate again with this release's prompt",
				a.Name, where(c), c.PromptID, c.PromptSHA256, c.Metric, id, sha))
		}
	}
	return errors.Join(errs...)
}

// bundleCalibrations returns the records of a as the bundle carries them:
// in metric order, without the judge's reasons.
func bundleCalibrations(a *Arm) []lasagna.JudgeCalibration {
	if len(a.JudgeCalibrations) == 0 {
		return nil
	}
	out := make([]lasagna.JudgeCalibration, len(a.JudgeCalibrations))
	for i, c := range a.JudgeCalibrations {
		c.Reasons, c.File = nil, ""
		c.FalsePositiveIDs, c.FalseNegativeIDs = slices.Clone(c.FalsePositiveIDs), slices.Clone(c.FalseNegativeIDs)
		out[i] = c
	}
	slices.SortFunc(out, func(x, y lasagna.JudgeCalibration) int {
		if x.Metric < y.Metric {
			return -1
		}
		if x.Metric > y.Metric {
			return 1
		}
		return 0
	})
	return out
}

package lasagna

// JudgeCalibration is the record of a judge metric measured against human
// labels (docs/metrics.md, "Calibrating the judge"): which judge (the model
// as requested and as served, the prompt's id and sha256), on which labels
// (the file's sha256), and how often it agreed with them: accuracy,
// Cohen's kappa with its percentile bootstrap interval, and the 2×2
// confusion matrix. `lasagna judge calibrate` writes one as JSON; a run
// cites it (a sweep's judge: calibrations:, evaltest's
// Arm.JudgeCalibrations), the engine checks that it matches the run's
// judge and the bundle carries it beside the arm's config.
//
// A label of true is the positive class; the judge's verdict is positive
// when its score reaches Threshold (a yes/no judge metric scores 0 or 1).
// Kappa and its interval are absent when kappa is undefined: every label
// and every verdict in the same class. It holds no secret, no path and no
// label text: ids only.
type JudgeCalibration struct {
	// Metric is the judge metric calibrated, e.g. "judge_correctness".
	Metric string `json:"metric"`
	// JudgeModel is the judge model as requested (held_fixed.judge_model of
	// a run that cites the record must be the same).
	JudgeModel string `json:"judge_model"`
	// ServedModel is the model the server named in its replies, when it
	// differs from JudgeModel (a dated snapshot of an alias).
	ServedModel string `json:"served_model,omitzero"`
	// PromptID and PromptSHA256 identify the prompt that decides Metric.
	PromptID     string `json:"prompt_id"`
	PromptSHA256 string `json:"prompt_sha256" jsonschema:"pattern=^[0-9a-f]{64}$"`
	// LabelsFile is the base name of the labels file and LabelsSHA256 the
	// hex sha256 of its bytes (`sha256sum FILE`).
	LabelsFile   string `json:"labels_file,omitzero"`
	LabelsSHA256 string `json:"labels_sha256,omitzero" jsonschema:"pattern=^[0-9a-f]{64}$"`
	// N is the number of labels judged (failed calls not included).
	N int `json:"n" jsonschema:"minimum=1"`
	// Failed is the number of labels whose judge call failed; they are not
	// counted anywhere else.
	Failed int `json:"failed,omitzero" jsonschema:"minimum=0"`
	// Threshold is the score from which a verdict is positive.
	Threshold float64 `json:"threshold"`
	// Accuracy is the share of labels the judge agreed with.
	Accuracy float64 `json:"accuracy" jsonschema:"minimum=0,maximum=1"`
	// Kappa is Cohen's kappa between the labels and the verdicts,
	// (p_o − p_e)/(1 − p_e); KappaLo and KappaHi bound its percentile
	// bootstrap interval at Level over Resamples resamples of the
	// (label, verdict) pairs drawn with Seed. Resamples in which kappa is
	// undefined are left out of the interval.
	Kappa     *float64 `json:"kappa,omitzero"`
	KappaLo   *float64 `json:"kappa_ci_lo,omitzero"`
	KappaHi   *float64 `json:"kappa_ci_hi,omitzero"`
	Level     float64  `json:"level"`
	Resamples int      `json:"resamples" jsonschema:"minimum=1"`
	Seed      uint64   `json:"seed"`
	// The confusion matrix: label true and verdict positive (TruePositives),
	// label false and verdict positive (FalsePositives), label true and
	// verdict negative (FalseNegatives), both false (TrueNegatives).
	TruePositives  int `json:"true_positives" jsonschema:"minimum=0"`
	FalsePositives int `json:"false_positives" jsonschema:"minimum=0"`
	FalseNegatives int `json:"false_negatives" jsonschema:"minimum=0"`
	TrueNegatives  int `json:"true_negatives" jsonschema:"minimum=0"`
	// FalsePositiveIDs and FalseNegativeIDs are the ids of the
	// disagreements, in the labels' order.
	FalsePositiveIDs []string `json:"false_positive_ids,omitzero"`
	FalseNegativeIDs []string `json:"false_negative_ids,omitzero"`
	// Reasons holds the judge's reason for each disagreement that gave one,
	// by id. It stays in the record file: a bundle carries no reasons.
	Reasons map[string]string `json:"reasons,omitzero"`
	// Date is the day of the calibration (UTC, YYYY-MM-DD).
	Date string `json:"date"`
	// LasagnaVersion is the release that measured it.
	LasagnaVersion string `json:"lasagna_version"`
	// File is where the record was read from; it is never written.
	File string `json:"-"`
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

func newJudgeCmd(stdout io.Writer) *cobra.Command {
	group := &cobra.Command{Use: "judge", Short: "Calibrate the LLM judge against human labels"}
	group.AddCommand(newJudgeCalibrateCmd(stdout))
	return group
}

type calibrateFlags struct {
	metric, model, out string
	seed               uint64
	concurrency, rpm   int
	allowFailures      bool
}

func newJudgeCalibrateCmd(stdout io.Writer) *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate LABELS.jsonl",
		Short: "Measure a judge metric against labels: accuracy, Cohen's kappa, confusion matrix",
		Long: `Judge each labelled answer of LABELS.jsonl once with the LLM judge and compare
the verdicts with the labels: n, accuracy, Cohen's kappa with its 95% percentile
bootstrap interval (10000 resamples of the (label, verdict) pairs, --seed), the
confusion matrix and every disagreement with the judge's reason. Then write the
calibration record (JSON) that a run cites with a judge's calibrations:.

Each line of LABELS.jsonl is {"id", "question", "reference", "answer", "label":
true|false}, with "passages" (a list of strings) for groundedness. The judge is
configured from the environment as benchmark run's is (OPENAI_API_KEY,
OPENAI_BASE_URL, MODEL_NAME or --model, …); replies are cached, so a rerun
costs nothing.

A failed judge call is never a verdict: when any failed, nothing is written and
the command exits 1, unless --allow-failures, which calibrates on the labels
judged and records how many failed.

Exit status: 1 when a judge call failed (without --allow-failures) or the
labels file has problems; 2 for a usage or LLM configuration error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return judgeCalibrate(c, stdout, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metric, "metric", judge.Correctness, "judge `METRIC` to calibrate (judge_correctness, groundedness, faithfulness, answer_relevancy, context_precision, context_recall)")
	fl.StringVar(&f.model, "model", "", "judge `MODEL` (default $MODEL_NAME)")
	fl.StringVarP(&f.out, "out", "o", "", "calibration record `FILE` to write (default LABELS.METRIC.calibration.json beside the labels)")
	fl.Uint64Var(&f.seed, "seed", 1, "`SEED` of the bootstrap of kappa's interval")
	fl.IntVar(&f.concurrency, "concurrency", 4, "judge calls in flight at once (`C`)")
	fl.IntVar(&f.rpm, "rpm", 0, "at most `N` judge requests per minute (0: no limit)")
	fl.BoolVar(&f.allowFailures, "allow-failures", false, "calibrate on the labels judged when some judge calls failed (the record counts them)")
	return cmd
}

func judgeCalibrate(c *cobra.Command, w io.Writer, target string, f calibrateFlags) error {
	if f.concurrency < 1 {
		return usageError("judge calibrate: --concurrency is %d; give 1 or more", f.concurrency)
	}
	if f.rpm < 0 {
		return usageError("judge calibrate: --rpm is %d; give a positive rate (or 0 for no limit)", f.rpm)
	}
	if f.seed == 0 {
		return usageError("judge calibrate: --seed is 0; give a positive seed")
	}
	cfg, err := llm.ConfigFromEnv(os.Getenv)
	if err != nil {
		return usageError("judge calibrate needs an LLM judge: %v", err)
	}
	if f.model != "" {
		cfg.Model = f.model
	}
	if cfg.Model == "" {
		return usageError("judge calibrate: no judge model: pass --model or set %s", llm.EnvModel)
	}
	if cfg.CacheDir, err = cacheDir("llm"); err != nil {
		return err
	}
	cfg.MaxConcurrency, cfg.RequestsPerMinute = f.concurrency, f.rpm
	client, err := llm.New(cfg)
	if err != nil {
		return usageError("judge calibrate: %v", err)
	}
	j, err := judge.New(client, judge.Config{Model: cfg.Model, Metrics: []string{f.metric}})
	if err != nil {
		return usageError("judge calibrate: --metric: %v", err)
	}

	fsys, p := cliPath(target)
	data, err := datasets.ReadFile(fsys, p)
	if err != nil {
		return problems(fmt.Errorf("judge calibrate: %w", err))
	}
	rows, err := datasets.ReadJudgeLabels(fsys, p, func(l datasets.JudgeLabel) error { return labelOf(l).Check(f.metric) })
	if err != nil {
		return problems(fmt.Errorf("judge calibrate: %s has problems:\n%w", target, err))
	}
	labels := make([]judge.Label, len(rows))
	for i, r := range rows {
		labels[i] = labelOf(r)
	}
	out := f.out
	if out == "" {
		stem := strings.TrimSuffix(path.Base(p), path.Ext(p))
		out = filepath.Join(filepath.Dir(target), stem+"."+f.metric+".calibration.json")
	}

	rec, err := j.Calibrate(c.Context(), f.metric, labels, f.seed)
	if rec.N == 0 || (err != nil && !f.allowFailures) {
		if err == nil {
			err = errors.New("judge calibrate: no verdict")
		}
		printLLMUsage(w, client.Usage())
		if rec.Failed > 0 {
			return problems(fmt.Errorf("%w\nno record written: a failed call is never a verdict; rerun (the verdicts received are cached) or pass --allow-failures to calibrate on the %d labels judged", err, rec.N))
		}
		return problems(err)
	}
	sum := sha256.Sum256(data)
	rec.LabelsFile, rec.LabelsSHA256, rec.LasagnaVersion = path.Base(p), hex.EncodeToString(sum[:]), version()
	printCalibration(w, rec, labels)
	printLLMUsage(w, client.Usage())
	body, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, append(body, '\n'), 0o644); err != nil {
		return problems(fmt.Errorf("judge calibrate: %w", err))
	}
	fmt.Fprintf(w, "wrote %s\n", out)
	return nil
}

func labelOf(r datasets.JudgeLabel) judge.Label {
	return judge.Label{ID: r.ID, Question: r.Question, Reference: r.Reference, Answer: r.Answer, Passages: r.Passages, Label: r.Label}
}

// printCalibration prints a calibration record: who judged, the
// agreement, the confusion matrix and the disagreements.
func printCalibration(w io.Writer, rec lasagna.JudgeCalibration, labels []judge.Label) {
	model := rec.JudgeModel
	if rec.ServedModel != "" {
		model += " (served as " + rec.ServedModel + ")"
	}
	fmt.Fprintf(w, "%s judged by %s, prompt %s (sha256 %s…)\n", rec.Metric, model, rec.PromptID, rec.PromptSHA256[:12])
	failed := fmt.Sprintf("%d failed", rec.Failed)
	if rec.Failed > 0 {
		failed += " (not counted)"
	}
	fmt.Fprintf(w, "%s: %d labels (sha256 %s…), %d judged, %s\n\n", rec.LabelsFile, len(labels), rec.LabelsSHA256[:12], rec.N, failed)
	fmt.Fprintf(w, "n         %d\n", rec.N)
	fmt.Fprintf(w, "accuracy  %.3f  (%d of %d agree)\n", rec.Accuracy, rec.TruePositives+rec.TrueNegatives, rec.N)
	switch {
	case rec.Kappa == nil:
		fmt.Fprintln(w, "kappa     undefined: every label and every verdict is the same")
	case rec.KappaLo == nil:
		fmt.Fprintf(w, "kappa     %.3f  (no interval: kappa is undefined in every resample)\n", *rec.Kappa)
	default:
		fmt.Fprintf(w, "kappa     %.3f  %.0f%% CI [%.3f, %.3f]  (percentile bootstrap, %d resamples of the label pairs, seed %d)\n",
			*rec.Kappa, rec.Level*100, *rec.KappaLo, *rec.KappaHi, rec.Resamples, rec.Seed)
	}
	if rec.N < metrics.SmallSampleN {
		fmt.Fprintf(w, "warning: %d labels; below %d the interval is indicative only\n", rec.N, metrics.SmallSampleN)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-11s  %12s  %13s\n", "", "verdict true", "verdict false")
	fmt.Fprintf(w, "%-11s  %12d  %13d\n", "label true", rec.TruePositives, rec.FalseNegatives)
	fmt.Fprintf(w, "%-11s  %12d  %13d\n", "label false", rec.FalsePositives, rec.TrueNegatives)
	n := len(rec.FalsePositiveIDs) + len(rec.FalseNegativeIDs)
	if n == 0 {
		fmt.Fprintln(w, "\nno disagreements")
		return
	}
	fmt.Fprintf(w, "\n%d disagreements:\n", n)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tlabel\tverdict\treason")
	fp, fn := map[string]bool{}, map[string]bool{}
	for _, id := range rec.FalsePositiveIDs {
		fp[id] = true
	}
	for _, id := range rec.FalseNegativeIDs {
		fn[id] = true
	}
	for _, l := range labels {
		if !fp[l.ID] && !fn[l.ID] {
			continue
		}
		reason := rec.Reasons[l.ID]
		if r := []rune(reason); len(r) > 100 {
			reason = string(r[:100]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%t\t%t\t%s\n", l.ID, l.Label, fp[l.ID], reason)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

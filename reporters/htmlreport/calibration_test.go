package htmlreport

import (
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// TestReportJudgeCalibration: a judge metric's section shows the
// calibration record of the arm that cites one, and says of the arm
// whose judge has none that its agreement with human labels is
// unmeasured.
func TestReportJudgeCalibration(t *testing.T) {
	b := calibratedRun(t)
	page := render(t, []Input{{Bundle: b}}, Options{Metrics: []string{"ndcg@10", "judge_correctness"}})
	section := page[strings.Index(page, `data-metric="judge_correctness"`):]
	section = section[:strings.Index(section, "</section>")]
	for _, want := range []string{
		`<table class="calibration">`,
		`<td>bm25</td><td>gpt-4o-mini (gpt-4o-mini-2024-07-18)</td><td><code>judge-correctness-v1@1d1d1d1d1d1d…</code></td><td>labels.jsonl sha256 eaeaeaeaeaea…</td><td class="num">12</td><td class="num">0.750</td><td class="num">0.471 [-0.125, 1.000]</td><td class="num">6 1 / 2 3</td><td class="id">l07, l12, l04</td><td>2026-12-02</td>`,
		`judge_correctness is judged by an LLM with no calibration record for bm25-nostem: its agreement with human labels is unmeasured`,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the judge_correctness section lacks %q:\n%s", want, section)
		}
	}
	ndcg := page[strings.Index(page, `data-metric="ndcg@10"`):]
	if ndcg = ndcg[:strings.Index(ndcg, "</section>")]; strings.Contains(ndcg, "calibration") {
		t.Errorf("a retrieval metric's section speaks of calibration:\n%s", ndcg)
	}
}

// calibratedRun is the two-arm faq run with a judge_correctness mean on
// each arm, the first citing a calibration record, the second none.
func calibratedRun(t *testing.T) *results.Bundle {
	t.Helper()
	b, _ := faqRun(t, "")
	model := "gpt-4o-mini"
	k, lo, hi := 0.4706, -0.125, 1.0
	for i := range b.Configs {
		b.Configs[i].HeldFixed.JudgeModel = &model
		b.Configs[i].HeldFixed.FixedStages = map[string]string{"judge": "llm-judge model=gpt-4o-mini max_tokens=256 temperature=0 judge_correctness=judge-correctness-v1@1dc96e29"}
		b.Results[i].Metrics["judge_correctness"] = 0.75
	}
	b.Configs[0].JudgeCalibrations = []lasagna.JudgeCalibration{{
		Metric: "judge_correctness", JudgeModel: model, ServedModel: "gpt-4o-mini-2024-07-18", PromptID: "judge-correctness-v1",
		PromptSHA256: strings.Repeat("1d", 32), LabelsFile: "labels.jsonl", LabelsSHA256: strings.Repeat("ea", 32), N: 12,
		Accuracy: 0.75, Kappa: &k, KappaLo: &lo, KappaHi: &hi, TruePositives: 6, FalseNegatives: 1, FalsePositives: 2, TrueNegatives: 3,
		FalsePositiveIDs: []string{"l07", "l12"}, FalseNegativeIDs: []string{"l04"}, Date: "2026-12-02",
	}}
	return b
}

// TestReportDefaultMetricsShowJudgeAndScorers: without Options.Metrics a
// report shows, after the summary metrics, the judge's and scorers'
// metrics the bundle scores (so the judge metric's calibration table and
// note appear by default), and no further retrieval cutoff.
func TestReportDefaultMetricsShowJudgeAndScorers(t *testing.T) {
	b := calibratedRun(t)
	for i := range b.Results {
		b.Results[i].Metrics["cites_source"] = 0.5
		b.Results[i].Metrics["recall@100"] = 1
	}
	page := render(t, []Input{{Bundle: b}}, Options{})
	for _, want := range []string{`data-metric="ndcg@10"`, `data-metric="judge_correctness"`, `data-metric="cites_source"`, `<table class="calibration">`, `no calibration record for bm25-nostem`} {
		if !strings.Contains(page, want) {
			t.Errorf("the default report lacks %s", want)
		}
	}
	if strings.Contains(page, `data-metric="recall@100"`) {
		t.Error("the default report plots a retrieval cutoff beyond the summary metrics")
	}
	if i, j := strings.Index(page, `data-metric="cites_source"`), strings.Index(page, `data-metric="judge_correctness"`); i > j {
		t.Error("the extra metrics are not in sorted order")
	}
}

package judge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
)

// calibrationLabels returns 12 labels and a fake judge that answers each
// with a known verdict: label/verdict true/true 5 times, true/false once,
// false/true twice, false/false 4 times.
func calibrationLabels() ([]Label, *fixtures.FakeOpenAI) {
	type row struct{ label, verdict bool }
	rows := []row{
		{true, true}, {true, true}, {false, true}, {true, true}, {false, false}, {true, false},
		{false, false}, {true, true}, {false, true}, {false, false}, {true, true}, {false, false},
	}
	var labels []Label
	replies := map[string]string{}
	for i, r := range rows {
		id := fmt.Sprintf("c%02d", i+1)
		answer := "answer " + id
		labels = append(labels, Label{ID: id, Question: "question " + id, Reference: "reference " + id, Answer: answer, Label: r.label})
		v := "incorrect"
		if r.verdict {
			v = "correct"
		}
		replies["Answer to grade: "+answer] = fmt.Sprintf(`{"verdict": %q, "reason": "reason of %s"}`, v, id)
	}
	return labels, fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Answers: replies, ModelNames: map[string]string{"judge": "judge-2025-01-31"}})
}

func TestCalibrateAgainstHandWorkedKappa(t *testing.T) {
	labels, f := calibrationLabels()
	defer f.Close()
	j, err := New(client(t, f, "judge"), Config{Metrics: []string{Correctness}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := j.Calibrate(context.Background(), Correctness, labels, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Worked by hand: TP 5, FN 1, FP 2, TN 4; p_o = 9/12 = 0.75; the labels
	// are true 6/12 times, the verdicts 7/12, so p_e = 0.5·7/12 + 0.5·5/12
	// = 0.5 and kappa = (0.75 − 0.5)/(1 − 0.5) = 0.5 (Cohen 1960, as
	// scikit-learn's cohen_kappa_score computes it).
	if rec.N != 12 || rec.TruePositives != 5 || rec.FalseNegatives != 1 || rec.FalsePositives != 2 || rec.TrueNegatives != 4 {
		t.Errorf("confusion: n %d tp %d fn %d fp %d tn %d", rec.N, rec.TruePositives, rec.FalseNegatives, rec.FalsePositives, rec.TrueNegatives)
	}
	if rec.Accuracy != 0.75 || rec.Kappa == nil || *rec.Kappa != 0.5 {
		t.Errorf("accuracy %v, kappa %v; want 0.75, 0.5", rec.Accuracy, rec.Kappa)
	}
	if rec.KappaLo == nil || rec.KappaHi == nil || !(*rec.KappaLo < 0.5 && 0.5 < *rec.KappaHi) {
		t.Errorf("kappa interval %v %v", rec.KappaLo, rec.KappaHi)
	}
	if strings.Join(rec.FalsePositiveIDs, ",") != "c03,c09" || strings.Join(rec.FalseNegativeIDs, ",") != "c06" || rec.Reasons["c06"] != "reason of c06" || len(rec.Reasons) != 3 {
		t.Errorf("disagreements: fp %v fn %v reasons %v", rec.FalsePositiveIDs, rec.FalseNegativeIDs, rec.Reasons)
	}
	p := correctnessPrompt()
	if rec.JudgeModel != "judge" || rec.ServedModel != "judge-2025-01-31" || rec.PromptID != p.ID || rec.PromptSHA256 != p.SHA256() || rec.Metric != Correctness || rec.Seed != 1 || rec.Resamples != 10000 {
		t.Errorf("identity: %+v", rec)
	}
	again, _ := j.Calibrate(context.Background(), Correctness, labels, 0)
	if *again.KappaLo != *rec.KappaLo || *again.KappaHi != *rec.KappaHi {
		t.Errorf("same seed, interval [%v, %v] then [%v, %v]", *rec.KappaLo, *rec.KappaHi, *again.KappaLo, *again.KappaHi)
	}
}

func TestCalibrateFailedCallIsNoVerdict(t *testing.T) {
	labels, f := calibrationLabels()
	defer f.Close()
	labels[1].Answer = "answer unparseable" // the fake answers "echo: …", not a verdict
	j, _ := New(client(t, f, "judge"), Config{})
	rec, err := j.Calibrate(context.Background(), Correctness, labels, 7)
	if err == nil || !strings.Contains(err.Error(), `1 of 12 judge calls failed`) || !strings.Contains(err.Error(), `label "c02"`) {
		t.Fatalf("error %v", err)
	}
	// c02 was true/true: one true positive fewer, nothing else moves.
	if rec.N != 11 || rec.Failed != 1 || rec.TruePositives != 4 || rec.FalsePositives != 2 || rec.FalseNegatives != 1 || rec.TrueNegatives != 4 {
		t.Errorf("record %+v", rec)
	}
}

func TestCalibrateRefusesBadLabels(t *testing.T) {
	labels, f := calibrationLabels()
	defer f.Close()
	j, _ := New(client(t, f, "judge"), Config{Metrics: []string{Correctness}})
	bad := append([]Label(nil), labels...)
	bad[2].Reference = ""
	bad[4].ID = "c01"
	_, err := j.Calibrate(context.Background(), Correctness, bad, 0)
	for _, want := range []string{`label 3 (id "c03"): field "reference" is missing`, `label 5: id "c01" is also label 1's`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v; want %q", err, want)
		}
	}
	if _, err := j.Calibrate(context.Background(), Groundedness, labels, 0); err == nil || !strings.Contains(err.Error(), "does not score it") {
		t.Errorf("groundedness on a correctness judge: %v", err)
	}
	if err := (Label{ID: "x", Question: "q", Answer: "Paris"}).Check(Groundedness); err == nil || !strings.Contains(err.Error(), `"passages"`) {
		t.Errorf("groundedness without passages: %v", err)
	}
	if calls := f.Count("chat"); calls != 0 {
		t.Errorf("%d calls made for refused labels", calls)
	}
}

// A record of a RAG judge metric or a rubric names all of its prompts, and
// its hash moves with every setting that decides the score.
func TestCalibratePromptVersionOfRagasAndRubrics(t *testing.T) {
	_, f := calibrationLabels()
	defer f.Close()
	version := func(cfg Config, metric string) (string, string) {
		t.Helper()
		j, err := New(client(t, f, "judge"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		id, sum, ok := j.PromptVersion(metric)
		if !ok {
			t.Fatalf("PromptVersion(%s) not ok", metric)
		}
		return id, sum
	}
	id, sum := version(Config{Metrics: []string{"faithfulness"}}, "faithfulness")
	if id != "judge-faithfulness-statements-v1+judge-faithfulness-verdicts-v1" || len(sum) != 64 {
		t.Errorf("faithfulness: %s %s", id, sum)
	}
	_, s3 := version(Config{Metrics: []string{"answer_relevancy"}, Strictness: 3, EmbeddingModel: "text-embedding-3-small"}, "answer_relevancy")
	_, s5 := version(Config{Metrics: []string{"answer_relevancy"}, Strictness: 5, EmbeddingModel: "text-embedding-3-small"}, "answer_relevancy")
	if s3 == s5 {
		t.Error("answer_relevancy: strictness 3 and 5 hash alike")
	}
	polite := func(c string) Config {
		return Config{Rubrics: []Rubric{{Name: "polite", Criterion: c, Scale: 5}}, Metrics: []string{"polite"}}
	}
	idA, a := version(polite("The answer is polite."), "polite")
	_, b := version(polite("The answer is rude."), "polite")
	if idA != "judge-rubric-v1" || a == b {
		t.Errorf("rubric: id %s, criteria hash alike: %v", idA, a == b)
	}
	if _, c := version(Config{Metrics: []string{Correctness}}, Correctness); c != correctnessPrompt().SHA256() {
		t.Errorf("judge_correctness hash %s, want its prompt's", c)
	}
}

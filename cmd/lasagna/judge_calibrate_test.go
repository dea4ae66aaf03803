package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
)

// calibLabel is a label of docs/llm.md's labels.jsonl with the verdict the
// scripted judge gives it.
type calibLabel struct {
	id, question, reference, answer string
	label, verdict                  bool
	reason                          string
}

// calibLabels are the labels of docs/llm.md, "Calibrating the judge".
var calibLabels = []calibLabel{
	{"l01", "What does the soda do in soda-lime glass?", "It lowers the melting point of the silica.", "It lowers the silica's melting point.", true, true, "Same fact in other words."},
	{"l02", "Which ingredient makes soda-lime glass stable in water?", "Lime", "Calcium oxide (lime).", true, true, "Lime is calcium oxide."},
	{"l03", "Where was glassblowing invented?", "On the Syro-Palestinian coast", "In Venice.", false, false, "Venice is not the Syro-Palestinian coast."},
	{"l04", "When was glassblowing invented?", "In the first century BC", "About 2,000 years ago.", true, false, "The answer names no century."},
	{"l05", "What share of the glass made today is soda-lime glass?", "About nine tenths", "Roughly 90%.", true, true, "90% is nine tenths."},
	{"l06", "What is a gather?", "A blob of molten glass on the end of a blowpipe", "Molten glass on a blowpipe.", true, true, "Same thing."},
	{"l07", "What is lime?", "Calcium oxide", "Calcium carbonate.", false, true, "Both name the calcium compound of lime."},
	{"l08", "What is soda?", "Sodium carbonate", "Sodium carbonate.", true, true, "Identical."},
	{"l09", "What is the blowpipe made of?", "Iron", "Bronze.", false, false, "Bronze is not iron."},
	{"l10", "What did glassblowing make cheap?", "Glass tableware", "Window glass.", false, false, "Windows are not tableware."},
	{"l11", "What is melted with soda and lime?", "Silica sand", "Sand.", true, true, "Sand is the silica."},
	{"l12", "Across which empire did glass tableware become cheap?", "The Roman Empire", "The Byzantine Empire.", false, true, "The Byzantine Empire is the Eastern Roman Empire."},
}

// calibLabelsJSONL is labels.jsonl of docs/llm.md.
func calibLabelsJSONL() []byte {
	var b strings.Builder
	for _, l := range calibLabels {
		fmt.Fprintf(&b, `{"id": %q, "question": %q, "reference": %q, "answer": %q, "label": %t}`+"\n", l.id, l.question, l.reference, l.answer, l.label)
	}
	return []byte(b.String())
}

// calibJudge is the scripted judge: each label's verdict and reason.
func calibJudge() fixtures.FakeOpenAIOptions {
	answers := map[string]string{}
	for _, l := range calibLabels {
		v := "incorrect"
		if l.verdict {
			v = "correct"
		}
		answers["Answer to grade: "+l.answer] = fmt.Sprintf(`{"verdict": %q, "reason": %q}`, v, l.reason)
	}
	return fixtures.FakeOpenAIOptions{Answers: answers, ModelNames: map[string]string{"gpt-4o-mini": "gpt-4o-mini-2024-07-18"}}
}

// TestJudgeCalibrateCommand runs the command on the scripted judge and
// checks its numbers against the confusion matrix counted here and kappa
// computed by scikit-learn's cohen_kappa_score formula (1 − Σ off-diagonal
// observed / Σ off-diagonal expected, sklearn/metrics/_classification.py).
func TestJudgeCalibrateCommand(t *testing.T) {
	useFakeOpenAI(t, calibJudge())
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(labels, calibLabelsJSONL(), 0o644); err != nil {
		t.Fatal(err)
	}
	var m [2][2]float64 // [label][verdict], index 1 = true
	var fp, fn []string
	for _, l := range calibLabels {
		m[b2i(l.label)][b2i(l.verdict)]++
		if l.label && !l.verdict {
			fn = append(fn, l.id)
		} else if !l.label && l.verdict {
			fp = append(fp, l.id)
		}
	}
	n := float64(len(calibLabels))
	accuracy := (m[0][0] + m[1][1]) / n
	rows := [2]float64{m[0][0] + m[0][1], m[1][0] + m[1][1]}
	cols := [2]float64{m[0][0] + m[1][0], m[0][1] + m[1][1]}
	kappa := 1 - (m[0][1]+m[1][0])/(rows[0]*cols[1]/n+rows[1]*cols[0]/n)

	stdout, stderr, code := runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		fmt.Sprintf("accuracy  %.3f  (%d of 12 agree)", accuracy, int(m[0][0]+m[1][1])),
		fmt.Sprintf("kappa     %.3f  95%% CI [", kappa),
		fmt.Sprintf("label true   %12d  %13d", int(m[1][1]), int(m[1][0])),
		fmt.Sprintf("label false  %12d  %13d", int(m[0][1]), int(m[0][0])),
		"l04  true   false    The answer names no century.",
		"l07  false  true     Both name the calcium compound of lime.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "labels.judge_correctness.calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec lasagna.JudgeCalibration
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.N != 12 || math.Abs(rec.Accuracy-accuracy) > 1e-12 || rec.Kappa == nil || math.Abs(*rec.Kappa-kappa) > 1e-12 ||
		rec.TruePositives != int(m[1][1]) || rec.FalseNegatives != int(m[1][0]) || rec.FalsePositives != int(m[0][1]) || rec.TrueNegatives != int(m[0][0]) ||
		strings.Join(rec.FalsePositiveIDs, ",") != strings.Join(fp, ",") || strings.Join(rec.FalseNegativeIDs, ",") != strings.Join(fn, ",") {
		t.Errorf("record %+v; want accuracy %v, kappa %v, confusion %v", rec, accuracy, kappa, m)
	}
	if rec.JudgeModel != "gpt-4o-mini" || rec.ServedModel != "gpt-4o-mini-2024-07-18" || rec.PromptID != "judge-correctness-v1" || rec.LabelsFile != "labels.jsonl" || len(rec.LabelsSHA256) != 64 || rec.LasagnaVersion != version() || rec.Date == "" {
		t.Errorf("record identity %+v", rec)
	}
	if strings.Contains(string(data), "test-key") {
		t.Error("the record holds the API key")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestJudgeCalibrateFailures(t *testing.T) {
	opts := calibJudge()
	delete(opts.Answers, "Answer to grade: "+calibLabels[3].answer) // l04 gets "echo: …", no verdict
	useFakeOpenAI(t, opts)
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(labels, calibLabelsJSONL(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini")
	if code != 1 || !strings.Contains(stderr, `1 of 12 judge calls failed`) || !strings.Contains(stderr, `label "l04"`) || !strings.Contains(stderr, "--allow-failures") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	rec := filepath.Join(dir, "labels.judge_correctness.calibration.json")
	if _, err := os.Stat(rec); err == nil {
		t.Fatal("a record was written although a call failed")
	}
	stdout, stderr, code = runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini", "--allow-failures")
	if code != 0 || !strings.Contains(stdout, "12 labels (sha256 ") || !strings.Contains(stdout, "11 judged, 1 failed (not counted)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(rec)
	if !strings.Contains(string(data), `"failed": 1`) || !strings.Contains(string(data), `"n": 11`) {
		t.Errorf("record:\n%s", data)
	}
}

func TestJudgeCalibrateBadLabels(t *testing.T) {
	useFakeOpenAI(t, calibJudge())
	dir := t.TempDir()
	labels := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(labels, []byte(`{"id": "a", "question": "q?", "reference": "r", "answer": "Paris", "label": "yes"}
{"id": "b", "question": "q?", "answer": "Paris", "label": true}
{"id": "a", "question": "q?", "reference": "r", "answer": "Paris", "label": false, "lable": true}
{"id": "c", "question": "q?", "reference": "r", "answer": "Paris"}
{"id": ["d"], "question": "q?", "reference": "r", "answer": "Paris", "label": true}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini")
	for _, want := range []string{
		`bad.jsonl:1: field "label" must be true or false (the person's verdict), got a string`,
		`bad.jsonl:2: field "reference" is missing or empty; judge_correctness compares the answer with a reference answer: give it`,
		`bad.jsonl:3: unknown field "lable" (did you mean "label"?)`,
		`bad.jsonl:4: missing field "label"`,
		`bad.jsonl:5: field "id" must be a non-empty string or a number, got a list`,
	} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	os.WriteFile(labels, []byte("{\"id\": \"a\", \"question\": \"q?\", \"reference\": \"r\", \"answer\": \"Paris\", \"label\": true}\n{\"id\": \"a\", \"question\": \"q?\", \"reference\": \"r\", \"answer\": \"Rome\", \"label\": false}\n"), 0o644)
	if _, stderr, code := runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini"); code != 1 || !strings.Contains(stderr, `bad.jsonl:2: duplicate id "a" (first at line 1)`) {
		t.Errorf("duplicate id: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "judge", "calibrate", labels, "--model", "gpt-4o-mini", "--metric", "faithfulnes"); code != 2 || !strings.Contains(stderr, "unknown metric") {
		t.Errorf("unknown metric: exit %d\n%s", code, stderr)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// The SQuAD fixtures of testdata/squad come from gen.py; v1-official.json
// and v2-official.json are what the official evaluate-v1.1.py and
// evaluate-v2.0.py printed on the same cases (see testdata/squad/README.md).

// squadFigures returns the JSON object printed after "SQuAD v… figures"
// in a score's console output.
func squadFigures(t *testing.T, out string) map[string]float64 {
	t.Helper()
	i := strings.Index(out, "figures of ")
	if i < 0 {
		t.Fatalf("no SQuAD figures in\n%s", out)
	}
	rest := out[i:]
	rest = rest[strings.Index(rest, "\n")+1:]
	dec := json.NewDecoder(strings.NewReader(rest))
	var m map[string]float64
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("SQuAD figures: %v in\n%s", err, rest)
	}
	return m
}

func readOfficial(t *testing.T, name string) map[string]float64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "squad", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func squadCompare(t *testing.T, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("figures %v, want the official script's %v", got, want)
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("%s = %v, official script %v", k, g, w)
		}
	}
}

func squadValidate(t *testing.T, bundle, data string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"results", "validate", bundle, "--data", data}, &out, &errb)
	return out.String() + errb.String(), exitCode(err, &errb)
}

func TestScoreSQuADv2HasAnsNoAnsOfficial(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("testdata", "squad", "v2.jsonl")
	bundle := filepath.Join(dir, "v2.json")
	out, errOut, code := scoreRun(t, data, filepath.Join("testdata", "squad", "v2-predictions.jsonl"), "--slice", "question_type", "-o", bundle)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	want := readOfficial(t, "v2-official.json")
	squadCompare(t, squadFigures(t, out), want)

	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	res := b.Results[0]
	byValue := map[string]int{}
	for i, s := range res.Slices {
		byValue[s.Key+"="+s.Value] = i
	}
	for value, prefix := range map[string]string{"true": "HasAns", "false": "NoAns"} {
		i, ok := byValue["answerable="+value]
		if !ok {
			t.Fatalf("no answerable=%s slice in %v", value, byValue)
		}
		s := res.Slices[i]
		if em := s.MetricStats["exact_match"]; math.Abs(100*em.Mean-want[prefix+"_exact"]) > 1e-12 || float64(em.N) != want[prefix+"_total"] || float64(len(s.QueryIDs)) != want[prefix+"_total"] {
			t.Errorf("bundle slice answerable=%s: exact_match %v n %d (%d ids), official %s_exact %v of %v", value, em.Mean, em.N, len(s.QueryIDs), prefix, want[prefix+"_exact"], want[prefix+"_total"])
		}
		if f1 := s.MetricStats["token_f1"]; math.Abs(100*f1.Mean-want[prefix+"_f1"]) > 1e-12 {
			t.Errorf("bundle slice answerable=%s: token_f1 %v, official %v", value, f1.Mean, want[prefix+"_f1"])
		}
	}
	if _, ok := byValue["question_type=what"]; !ok {
		t.Errorf("no question_type=what slice in %v", byValue)
	}
	if !strings.Contains(out, "question_type=what") || !strings.Contains(out, "answerable=false") {
		t.Errorf("the console shows no slices:\n%s", out)
	}

	// The bundle's slices follow from its rows and the data.
	if msg, code := squadValidate(t, bundle, data); code != 0 {
		t.Fatalf("validate --data: exit %d\n%s", code, msg)
	}

	// A slice mean that its rows do not give is refused, with or without data.
	raw, _ := os.ReadFile(bundle)
	edited := *b
	edited.Results = []results.Result{res}
	edited.Results[0].Slices = append(edited.Results[0].Slices[:0:0], res.Slices...)
	sl := edited.Results[0].Slices[byValue["answerable=true"]]
	stats := map[string]results.MetricStat{}
	for m, st := range sl.MetricStats {
		stats[m] = st
	}
	st := stats["exact_match"]
	st.Mean += 0.05
	stats["exact_match"] = st
	sl.MetricStats = stats
	edited.Results[0].Slices[byValue["answerable=true"]] = sl
	tampered := filepath.Join(dir, "tampered.json")
	writeTestBundle(t, tampered, &edited)
	if msg, code := squadValidate(t, tampered, data); code != 1 || !strings.Contains(msg, "INCONSISTENT_BUNDLE") || !strings.Contains(msg, "answerable=true") {
		t.Errorf("a slice mean its rows do not give: exit %d\n%s", code, msg)
	}

	// Rows moved between slices, with figures recomputed from them: the
	// bundle is consistent alone, but the data refuses it.
	var moved results.Bundle
	if err := json.Unmarshal(raw, &moved); err != nil {
		t.Fatal(err)
	}
	mr := &moved.Results[0]
	hasAns := mr.Slices[byValue["answerable=true"]].QueryIDs
	noAns := mr.Slices[byValue["answerable=false"]].QueryIDs
	o := moved.StatsOptions()
	mr.AddSlice("answerable", "true", hasAns[1:], o)
	mr.AddSlice("answerable", "false", append([]string{hasAns[0]}, noAns...), o)
	movedPath := filepath.Join(dir, "moved.json")
	writeTestBundle(t, movedPath, &moved)
	var vout, verr bytes.Buffer
	if err := run(context.Background(), []string{"results", "validate", movedPath}, &vout, &verr); err != nil {
		t.Errorf("moved rows, validated alone: %v\n%s%s", err, vout.String(), verr.String())
	}
	if msg, code := squadValidate(t, movedPath, data); code != 1 || !strings.Contains(msg, "slice answerable=") {
		t.Errorf("moved rows against the data: exit %d\n%s", code, msg)
	}
}

func TestScoreSQuADv1MissingZeroOfficial(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("testdata", "squad", "v1.jsonl")
	preds := filepath.Join("testdata", "squad", "v1-predictions.jsonl")
	zero := filepath.Join(dir, "zero.json")
	out, errOut, code := scoreRun(t, data, preds, "--missing", "zero", "-o", zero)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	want := readOfficial(t, "v1-official.json")
	squadCompare(t, squadFigures(t, out), want)
	if !strings.Contains(out, "13 dataset queries have no prediction (scored 0 on every metric, --missing zero") {
		t.Errorf("no note of the 13 missing predictions:\n%s", out)
	}
	b, err := results.ReadFile(zero)
	if err != nil {
		t.Fatal(err)
	}
	res := b.Results[0]
	if got := 100 * res.Metrics["exact_match"]; math.Abs(got-want["exact_match"]) > 1e-12 {
		t.Errorf("bundle exact_match×100 = %v, official %v", got, want["exact_match"])
	}
	if got := 100 * res.Metrics["token_f1"]; math.Abs(got-want["f1"]) > 1e-12 {
		t.Errorf("bundle token_f1×100 = %v, official %v", got, want["f1"])
	}
	missing := 0
	for _, row := range res.PerSampleScores {
		if row.Missing {
			missing++
			if row.Answer != nil || row.Error != "" || row.Scores["exact_match"] != 0 || row.Scores["token_f1"] != 0 || len(row.Scores) != 2 {
				t.Errorf("missing row %+v: want no answer, no error, exact_match and token_f1 0", row)
			}
		}
	}
	if missing != 13 {
		t.Errorf("%d rows marked missing, want 13", missing)
	}
	if hf := b.Configs[0].HeldFixed; hf.MissingPredictions != "zero" {
		t.Errorf("held_fixed.missing_predictions = %q, want zero", hf.MissingPredictions)
	}
	if msg, code := squadValidate(t, zero, data); code != 0 {
		t.Fatalf("validate --data: exit %d\n%s", code, msg)
	}

	// The default fails the 13 rows: exit 1, and a bundle that does not
	// compare with the zero one.
	fail := filepath.Join(dir, "fail.json")
	out, _, code = scoreRun(t, data, preds, "-o", fail)
	if code != 1 || !strings.Contains(out, "13 dataset queries have no prediction (failed rows") {
		t.Fatalf("--missing fail: exit %d\n%s", code, out)
	}
	fb, err := results.ReadFile(fail)
	if err != nil {
		t.Fatal(err)
	}
	if fb.Configs[0].HeldFixed.MissingPredictions != "" || fb.Configs[0].ComparabilityKey == b.Configs[0].ComparabilityKey {
		t.Errorf("fail and zero bundles share comparability key %s", fb.Configs[0].ComparabilityKey)
	}
	if st := fb.Results[0].MetricStats["exact_match"]; st.N != 48 {
		t.Errorf("--missing fail scores %d queries, want 48", st.N)
	}
}

func TestScoreSQuADFlagErrors(t *testing.T) {
	data := filepath.Join("testdata", "squad", "v2.jsonl")
	preds := filepath.Join("testdata", "squad", "v2-predictions.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--missing", "skip"}, 2, `--missing "skip" is not one of fail, zero`},
		{[]string{"--normalization", "nq"}, 2, `--normalization "nq" is not one of squad, orqa`},
		{[]string{"--slice", "question_typ"}, 1, `slice key "question_typ": no query has metadata "question_typ" (did you mean "question_type"?)`},
		{[]string{"--slice", ""}, 2, "--slice needs a metadata key"},
	} {
		out, errOut, code := scoreRun(t, append([]string{data, preds}, c.args...)...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
}

func TestScoreSQuADNormalizationORQA(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("testdata", "squad", "v2.jsonl")
	preds := filepath.Join("testdata", "squad", "v2-predictions.jsonl")
	orqa, squad := filepath.Join(dir, "orqa.json"), filepath.Join(dir, "squad.json")
	if out, errOut, code := scoreRun(t, data, preds, "--normalization", "orqa", "-o", orqa); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if out, errOut, code := scoreRun(t, data, preds, "-o", squad); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	ob, err := results.ReadFile(orqa)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := results.ReadFile(squad)
	if err != nil {
		t.Fatal(err)
	}
	if ob.Configs[0].HeldFixed.AnswerNormalization != "orqa" || sb.Configs[0].HeldFixed.AnswerNormalization != "" || ob.Configs[0].ComparabilityKey == sb.Configs[0].ComparabilityKey {
		t.Errorf("held_fixed answer_normalization: orqa bundle %q, squad bundle %q", ob.Configs[0].HeldFixed.AnswerNormalization, sb.Configs[0].HeldFixed.AnswerNormalization)
	}
	if msg, code := squadValidate(t, orqa, data); code != 0 {
		t.Fatalf("validate --data of the orqa bundle: exit %d\n%s", code, msg)
	}
}

// writeTestBundle writes b, finalized under a new run_id, to path.
func writeTestBundle(t *testing.T, path string, b *results.Bundle) {
	t.Helper()
	b.RunID = ""
	if err := results.WriteFile(path, b); err != nil {
		t.Fatal(err)
	}
}

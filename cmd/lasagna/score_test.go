package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// scoreRun runs "benchmark score" with args and returns stdout, stderr and
// the exit code main would use.
func scoreRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"benchmark", "score"}, args...), &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// scoreRow returns the fields "n mean" of the table row for metric, or "".
func scoreRow(out, metric string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == metric {
			return f[1] + " " + f[2]
		}
	}
	return ""
}

// checkRows compares table rows with want (metric → "n mean").
func checkRows(t *testing.T, out string, want map[string]string) {
	t.Helper()
	for m, w := range want {
		if got := scoreRow(out, m); got != w {
			t.Errorf("%s: got %q, want %q in\n%s", m, got, w, out)
		}
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestScoreAnswers(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris"}
{"id": "q2", "question": "Who designed it?", "answers": ["Gustave Eiffel", "Eiffel"]}
{"id": "q3", "question": "What did the solidus cost to mint?", "metadata": {"unanswerable": true}}
{"id": "q4", "question": "When was it built?", "answer": "1887–1889"}
`,
		"preds.jsonl": `{"id": "q1", "answer": "in Paris, France"}
{"id": "q2", "answer": "the Eiffel"}
{"id": "q3", "answer": "", "abstained": true}
{"id": "q9", "answer": "42"}
`,
	})
	tsv := filepath.Join(dir, "pq.tsv")
	out, stderr, code := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"), "--per-query", tsv)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	checkRows(t, out, map[string]string{"exact_match": "4 0.5000", "token_f1": "4 0.6250"})
	// q1: "in paris france" vs "paris": P 1/3, R 1, F1 0.5, EM 0; q2: "eiffel"
	// matches the second reference; q3: abstention on an unanswerable
	// question scores 1; q4: no prediction scores 0. EM 2/4, F1 2.5/4.
	for _, want := range []string{
		"1 dataset query has no prediction (scored 0 in each average that includes it): q4",
		"1 prediction id is not in the dataset (ignored): q9",
		"* n < 10",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	got, err := os.ReadFile(tsv)
	if err != nil {
		t.Fatal(err)
	}
	want := "id\texact_match\ttoken_f1\nq1\t0\t0.5\nq2\t1\t1\nq3\t1\t1\nq4\t0\t0\n"
	if string(got) != want {
		t.Errorf("per-query TSV:\n%s\nwant:\n%s", got, want)
	}
	again, _, _ := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"))
	if again != out {
		t.Errorf("second run differs:\n%s\nvs\n%s", again, out)
	}
}

func TestScoreTrecRunOnBEIR(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"beir/corpus.jsonl": `{"_id": "d1", "title": "", "text": "one"}
{"_id": "d2", "title": "", "text": "two"}
{"_id": "d3", "title": "", "text": "three"}
`,
		"beir/queries.jsonl": `{"_id": "q1", "text": "first"}
{"_id": "q2", "text": "second"}
{"_id": "q3", "text": "third"}
`,
		"beir/qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq3\td2\t0\n",
		"run.txt": `q1 Q0 d1 1 3.0 sys
q1 Q0 d2 2 2.0 sys
q2 Q0 d2 1 2.0 sys
q2 Q0 d3 2 1.0 sys
`,
	})
	tsv := filepath.Join(dir, "pq.tsv")
	out, stderr, code := scoreRun(t, filepath.Join(dir, "beir"), filepath.Join(dir, "run.txt"), "-k", "1,10", "--per-query", tsv)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	checkRows(t, out, map[string]string{"ndcg@10": "2 0.8155", "mrr@10": "2 0.7500", "precision@10": "2 0.1000",
		"hit@1": "2 0.5000", "recall@10": "2 1.0000", "r_precision": "2 0.5000", "map": "2 0.7500"})
	// q1: relevant d1 at rank 1 → every metric 1. q2: relevant d3 at rank 2
	// → ndcg 1/log2(3) = 0.6309, mrr 0.5, precision@10 0.1, hit@1 0.
	// q3 has no relevant document: left out of the averages.
	for _, want := range []string{
		"1 dataset query has no prediction (scored 0 in each average that includes it): q3",
		"averaged over the 2 queries with a relevant document; 1 without one are left out",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "exact_match") {
		t.Errorf("a TREC run has no answers, but the output scores them:\n%s", out)
	}
	got, _ := os.ReadFile(tsv)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "id\tndcg@1\trecall@1\t") || !strings.HasPrefix(lines[2], "q2\t0\t0\t0\t0\t0\t0\t0.63092975357145") {
		t.Errorf("per-query TSV:\n%s", got)
	}
}

func TestScoreVecta(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"bench.csv": `id,question,answer,chunk_ids,page_nums,source_paths
e1,What is the maximum dosage of ibuprofen?,1200mg,chunk_42|chunk_87,3|4,drug_guide.pdf
e2,Who wrote it?,The FDA,chunk_9,,
`,
		"preds.jsonl": `{"id": "e1", "answer": "1200 mg", "retrieved": ["chunk_42", "chunk_7"]}
{"id": "e2", "answer": "the FDA", "retrieved": ["chunk_9"]}
`,
	})
	out, stderr, code := scoreRun(t, filepath.Join(dir, "bench.csv"), filepath.Join(dir, "preds.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	checkRows(t, out, map[string]string{"chunk_precision": "2 0.7500", "chunk_recall": "2 0.7500", "chunk_f1": "2 0.7500", "exact_match": "2 0.5000"})
	// e1: chunks R {42, 7}, G {42, 87}: P 0.5 R 0.5; e2: perfect. Means 0.75.
	// Answers: "1200 mg" vs "1200mg" → EM 0, F1 0; "the FDA" matches.
	for _, want := range []string{
		"page_* and document_* metrics not available",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestScoreErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl":    `{"id": "q1", "question": "Q?", "answer": "A"}` + "\n",
		"bad.jsonl":   `{"id": "q1", "anwser": "A"}` + "\n",
		"empty.jsonl": `{"id": "q1", "retrieved": ["a", "a"]}` + "\n",
	})
	qa := filepath.Join(dir, "qa.jsonl")
	if _, stderr, code := scoreRun(t, qa, filepath.Join(dir, "bad.jsonl")); code != 1 || !strings.Contains(stderr, "bad.jsonl:1") || !strings.Contains(stderr, "anwser") {
		t.Errorf("bad predictions: exit %d, stderr %q; want 1 naming bad.jsonl:1 and the field", code, stderr)
	}
	if _, _, code := scoreRun(t, qa); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	if _, _, code := scoreRun(t, qa, qa, "-k", "0"); code != 2 {
		t.Errorf("-k 0: exit %d, want 2", code)
	}
	if _, stderr, code := scoreRun(t, qa, filepath.Join(dir, "missing.jsonl")); code != 1 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestScoreWritesBundle(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris", "contexts": ["The Eiffel Tower is in Paris."], "expected_docs": ["d1"]}
{"id": "q2", "question": "Who designed it?", "answer": "Eiffel", "contexts": ["Gustave Eiffel's company designed it."], "expected_docs": ["d2"]}
{"id": "q3", "question": "When was it built?", "answer": "1889", "contexts": ["It was finished in 1889."], "expected_docs": ["d3"]}
`,
		"noctx.jsonl":   `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris"}` + "\n",
		"answers.jsonl": `{"id": "q1", "answer": "paris"}` + "\n",
		"preds.jsonl": `{"id": "q1", "answer": "Paris", "retrieved": ["d1", "d3"]}
{"id": "q2", "answer": "Gustave", "retrieved": [{"id": "d3", "score": 2}, {"id": "d2", "score": 1}]}
`,
	})
	bundle := filepath.Join(dir, "b.json")
	out, stderr, code := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"), "-o", bundle, "-k", "1,2")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	res := b.Results[0]
	if res.ConfigName != "preds" || res.Metrics["exact_match"] != 0.5 || res.Metrics["mrr@2"] != 0.75 {
		t.Errorf("bundle result %s: exact_match %v mrr@2 %v, want 0.5 and 0.75 over the two predicted queries", res.ConfigName, res.Metrics["exact_match"], res.Metrics["mrr@2"])
	}
	if len(b.Integrity.Blocking) != 1 || !strings.Contains(b.Integrity.Blocking[0], `PIPELINE_ERRORS`) || !strings.Contains(b.Integrity.Blocking[0], `no prediction for query "q3"`) {
		t.Errorf("blocking = %q, want the missing q3 as PIPELINE_ERRORS", b.Integrity.Blocking)
	}
	raw, _ := os.ReadFile(bundle)
	if r := results.Validate(raw); r.Blocking() != 1 {
		t.Errorf("validate: %v", r.Problems)
	}

	// Answers on data without contexts are scored as closed-book.
	out, stderr, code = scoreRun(t, filepath.Join(dir, "noctx.jsonl"), filepath.Join(dir, "answers.jsonl"), "-o", bundle)
	if code != 0 {
		t.Fatalf("answers only: exit %d\n%s%s", code, out, stderr)
	}
	if b, err = results.ReadFile(bundle); err != nil {
		t.Fatal(err)
	}
	if b.Results[0].Metrics["exact_match"] != 1 || b.Configs[0].HeldFixed.ResolvedMode != lasagna.ModeClosedBook {
		t.Errorf("answers only: %v, mode %s", b.Results[0].Metrics, b.Configs[0].HeldFixed.ResolvedMode)
	}
}

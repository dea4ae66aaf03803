package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// scoreRow returns the fields "n mean" of the per-metric table row for
// metric (benchmark, arm, metric, n, mean, CI), or "".
func scoreRow(out, metric string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[2] == metric {
			return f[3] + " " + f[4]
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

// checkConsoleMatchesBundle checks that every metric of the bundle's
// first result is printed with the bundle's n and mean.
func checkConsoleMatchesBundle(t *testing.T, out string, b *results.Bundle) {
	t.Helper()
	res := b.Results[0]
	if len(res.Metrics) == 0 {
		t.Fatal("the bundle has no metric")
	}
	for m, st := range res.MetricStats {
		if got, want := scoreRow(out, m), fmt.Sprintf("%d %.4f", st.N, st.Mean); got != want {
			t.Errorf("%s: console %q, bundle %q", m, got, want)
		}
	}
}

// tempWriter returns a function that writes a file of a new temporary
// folder and returns its path.
func tempWriter(t *testing.T) func(name, body string) string {
	dir := t.TempDir()
	return func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
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
	bundle := filepath.Join(dir, "b.json")
	out, stderr, code := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"), "--per-query", tsv, "-o", bundle)
	// q4 has no prediction: a failed row (PIPELINE_ERRORS), so exit 1.
	if code != 1 || !strings.Contains(stderr, "1 blocking integrity problem") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	// q1: "in paris france" vs "paris": P 1/3, R 1, F1 0.5, EM 0; q2: "eiffel"
	// matches the second reference; q3: abstention on an unanswerable
	// question scores 1; q4 failed and is in no mean. EM 2/3, F1 2.5/3.
	checkRows(t, out, map[string]string{"exact_match": "3 0.6667", "token_f1": "3 0.8333"})
	for _, want := range []string{
		"replayed as arm preds (mode closed_book)",
		"1 dataset query has no prediction (failed rows, left out of every mean; PIPELINE_ERRORS): q4",
		`blocking: PIPELINE_ERRORS at local/qa@`,
		`no prediction for query "q4" in preds.jsonl`,
		"1 prediction id is not in the dataset (ignored): q9",
		"warning: SMALL_SAMPLE",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	// The console prints the bundle: same n and mean for every metric.
	checkConsoleMatchesBundle(t, out, b)
	if n := len(b.Results[0].PerSampleScores); n != 4 {
		t.Errorf("bundle rows = %d, want 4 (q4 as a failed row)", n)
	}
	got, err := os.ReadFile(tsv)
	if err != nil {
		t.Fatal(err)
	}
	want := "id\texact_match\ttoken_f1\terror\nq1\t0\t0.5\t\nq2\t1\t1\t\nq3\t1\t1\t\nq4\t\t\tno prediction for query \"q4\" in preds.jsonl\n"
	if string(got) != want {
		t.Errorf("per-query TSV:\n%s\nwant:\n%s", got, want)
	}
	again, _, _ := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"), "-o", bundle)
	if again != out {
		t.Errorf("second run differs:\n%s\nvs\n%s", again, out)
	}
}

// TestScoreNullAnswer: "answer": null on a line of an answering run is a
// failed row, not a query that silently leaves the averages.
func TestScoreNullAnswer(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris"}
{"id": "q2", "question": "Who designed it?", "answer": "Eiffel"}
`,
		"preds.jsonl": `{"id": "q1", "answer": "Paris"}
{"id": "q2", "answer": null}
`,
	})
	out, _, code := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl"))
	if code != 1 || !strings.Contains(out, `preds.jsonl:2: the prediction for query "q2" has no answer ("answer" is null or absent)`) {
		t.Errorf("exit %d\n%s", code, out)
	}
	checkRows(t, out, map[string]string{"exact_match": "1 1.0000"})
	if !regexp.MustCompile(`(?m)^local/qa@\S+\s+preds\s+2\s+1\s`).MatchString(out) {
		t.Errorf("the summary table does not count 2 queries, 1 failed:\n%s", out)
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
		"full.txt": `q1 Q0 d1 1 3.0 sys
q1 Q0 d2 2 2.0 sys
q2 Q0 d2 1 2.0 sys
q2 Q0 d3 2 1.0 sys
q3 Q0 d1 1 1.0 sys
`,
	})
	tsv := filepath.Join(dir, "pq.tsv")
	out, stderr, code := scoreRun(t, filepath.Join(dir, "beir"), filepath.Join(dir, "run.txt"), "-k", "1,10", "--per-query", tsv)
	// q3 is not in the run: a failed row, so exit 1.
	if code != 1 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	// q1: relevant d1 at rank 1 → every metric 1. q2: relevant d3 at rank 2
	// → ndcg 1/log2(3) = 0.6309, mrr 0.5, precision@10 0.1, hit@1 0.
	checkRows(t, out, map[string]string{"ndcg@10": "2 0.8155", "mrr@10": "2 0.7500", "precision@10": "2 0.1000",
		"hit@1": "2 0.5000", "recall@10": "2 1.0000", "r_precision": "2 0.5000", "map": "2 0.7500"})
	for _, want := range []string{
		"(TREC run, 2 queries), replayed as arm run (mode retrieval)",
		"1 dataset query has no prediction (failed rows, left out of every mean; PIPELINE_ERRORS): q3",
		"blocking: PIPELINE_ERRORS",
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
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "id\thit@1\thit@2\thit@10\tmap\t") || !strings.HasSuffix(lines[0], "\terror") ||
		!strings.HasPrefix(lines[3], "q3\t\t") || !strings.Contains(lines[2], "\t0.6309297535714574\t") {
		t.Errorf("per-query TSV:\n%s", got)
	}

	// With q3 in the run: q3 has judgements (one non-relevant document),
	// so it is in the retrieval averages (the engine's averaging set, that
	// of trec_eval), scoring 0.
	bundle := filepath.Join(dir, "b.json")
	out, stderr, code = scoreRun(t, filepath.Join(dir, "beir"), filepath.Join(dir, "full.txt"), "-k", "1,10", "-o", bundle)
	if code != 0 {
		t.Fatalf("full run: exit %d\n%s%s", code, out, stderr)
	}
	checkRows(t, out, map[string]string{"ndcg@10": "3 0.5436", "recall@10": "3 0.6667"})
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	checkConsoleMatchesBundle(t, out, b)
	if hf := b.Configs[0].HeldFixed; hf.ResolvedMode != lasagna.ModeRetrieval || hf.CorpusProvenance != "native" {
		t.Errorf("held_fixed mode %s provenance %s", hf.ResolvedMode, hf.CorpusProvenance)
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
		"chunks.jsonl": `{"id": "e1", "retrieved": ["chunk_42", "chunk_7"]}
{"id": "e2", "retrieved": ["chunk_9"]}
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
		"Vecta set metrics (from the same replay; not bundle metrics)",
		"page_* and document_* metrics not available",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "UNKNOWN_DOC_ID") {
		t.Errorf("chunk ids of a Vecta CSV (no corpus) must not be unknown documents:\n%s", out)
	}
	// Retrieved chunk ids alone: printed, but a bundle would hold nothing.
	out, _, code = scoreRun(t, filepath.Join(dir, "bench.csv"), filepath.Join(dir, "chunks.jsonl"))
	if code != 0 || scoreRow(out, "chunk_f1") != "2 0.7500" {
		t.Errorf("chunk ids only: exit %d\n%s", code, out)
	}
	if _, stderr, code := scoreRun(t, filepath.Join(dir, "bench.csv"), filepath.Join(dir, "chunks.jsonl"), "-o", filepath.Join(dir, "b.json")); code != 1 || !strings.Contains(stderr, "would hold no metric") {
		t.Errorf("chunk ids only with -o: exit %d, %s", code, stderr)
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
	// Retrieved lists on data without passages: refused with the reason.
	if _, stderr, code := scoreRun(t, qa, filepath.Join(dir, "empty.jsonl")); code != 1 || !strings.Contains(stderr, "cannot run the retrieval track") {
		t.Errorf("lists without a corpus: exit %d, stderr %q", code, stderr)
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
	if code != 1 || !strings.Contains(out, "bundle: "+bundle) {
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
	checkConsoleMatchesBundle(t, out, b)
	if len(b.Integrity.Blocking) != 1 || b.Integrity.Blocking[0].Code != lasagna.PipelineErrors || !strings.Contains(b.Integrity.Blocking[0].Detail, `no prediction for query "q3"`) {
		t.Errorf("blocking = %q, want the missing q3 as PIPELINE_ERRORS", b.Integrity.Blocking)
	}
	// Retrieval ran on the pool of the rows' contexts, and the bundle says so.
	if !slices.ContainsFunc(b.Integrity.Warnings, func(w results.Finding) bool { return w.Code == lasagna.PooledGoldCorpus }) {
		t.Errorf("warnings = %q, want POOLED_GOLD_CORPUS", b.Integrity.Warnings)
	}
	raw, _ := os.ReadFile(bundle)
	if r := results.Validate(raw); r.Blocking() != 1 {
		t.Errorf("validate: %v", r.Problems)
	}

	// Answers on data without contexts are scored as closed-book.
	out, stderr, code = scoreRun(t, filepath.Join(dir, "noctx.jsonl"), filepath.Join(dir, "answers.jsonl"), "-o", bundle, "--arm", "mine")
	if code != 0 {
		t.Fatalf("answers only: exit %d\n%s%s", code, out, stderr)
	}
	if b, err = results.ReadFile(bundle); err != nil {
		t.Fatal(err)
	}
	if b.Results[0].Metrics["exact_match"] != 1 || b.Configs[0].HeldFixed.ResolvedMode != lasagna.ModeClosedBook || b.Configs[0].Name != "mine" {
		t.Errorf("answers only: %v, mode %s, arm %s", b.Results[0].Metrics, b.Configs[0].HeldFixed.ResolvedMode, b.Configs[0].Name)
	}
}

// checkValidateAsksNothingMore validates the bundle at path and fails the
// test for any problem whose code the bundle's integrity lists do not
// hold: the bundle must carry every finding validate expects of it.
func checkValidateAsksNothingMore(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	have := map[lasagna.Code]bool{}
	for _, f := range slices.Concat(b.Integrity.Blocking, b.Integrity.Warnings) {
		have[f.Code] = true
	}
	for _, p := range results.Validate(raw).Problems {
		if !have[p.Code] {
			t.Errorf("validate raises %s, which the bundle does not list: %s", p.Code, p)
		}
	}
}

// TestScoreBundleCarriesPooledGoldWarning: answers on data with contexts
// (a pooled_gold corpus) make a bundle whose configs record
// corpus_provenance pooled_gold; the bundle lists POOLED_GOLD_CORPUS, as
// validate asks, whether or not the arm retrieved.
func TestScoreBundleCarriesPooledGoldWarning(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris", "contexts": ["The Eiffel Tower is in Paris."]}
{"id": "q2", "question": "Who designed it?", "answer": "Eiffel", "contexts": ["Gustave Eiffel's company designed it."]}
`,
		"answers.jsonl": `{"id": "q1", "answer": "Paris"}
{"id": "q2", "answer": "Eiffel"}
`,
		"rag.jsonl": `{"id": "q1", "answer": "Paris", "retrieved": ["d1"]}
{"id": "q2", "answer": "Eiffel", "retrieved": ["d2"]}
`,
	})
	for _, preds := range []string{"answers.jsonl", "rag.jsonl"} {
		bundle := filepath.Join(dir, preds+".json")
		out, stderr, _ := scoreRun(t, filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, preds), "-o", bundle)
		if !strings.Contains(out, "warning: POOLED_GOLD_CORPUS") {
			t.Errorf("%s: the console shows no POOLED_GOLD_CORPUS:\n%s%s", preds, out, stderr)
		}
		checkValidateAsksNothingMore(t, bundle)
	}
}

// TestScoreAndResultsBundleAgree: `benchmark score -o` and `results bundle
// --predictions` are one code path: the same bundle bytes, the same exit
// status; a line without "answer" (absent, not null) among answering lines
// is a failed row in both, and the console shows the bundle's n and mean.
func TestScoreAndResultsBundleAgree(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl": `{"id": "q1", "question": "Where is the Eiffel Tower?", "answer": "Paris", "contexts": ["The Eiffel Tower is in Paris."]}
{"id": "q2", "question": "Who designed it?", "answer": "Eiffel", "contexts": ["Gustave Eiffel's company designed it."]}
{"id": "q3", "question": "When was it built?", "answer": "1889", "contexts": ["It was finished in 1889."]}
`,
		"preds.jsonl": `{"id": "q1", "answer": "Paris", "retrieved": []}
{"id": "q2", "retrieved": []}
{"id": "q3", "answer": "in 1889", "retrieved": []}
`,
	})
	qa, preds := filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl")
	viaScore, viaBundle := filepath.Join(dir, "score.json"), filepath.Join(dir, "bundle.json")
	out, _, code := scoreRun(t, qa, preds, "-o", viaScore)
	if code != 1 || !strings.Contains(out, `the prediction for query "q2" has no answer`) {
		t.Fatalf("score: exit %d, want 1 with q2 failed\n%s", code, out)
	}
	if _, _, code := runResults(t, "bundle", qa, "--predictions", preds, "-o", viaBundle); code != 1 {
		t.Errorf("results bundle: exit %d, want 1", code)
	}
	a, _ := os.ReadFile(viaScore)
	b, _ := os.ReadFile(viaBundle)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("score -o and results bundle wrote different bundles")
	}
	bun, err := results.ReadFile(viaScore)
	if err != nil {
		t.Fatal(err)
	}
	if rows := bun.Results[0].PerSampleScores; len(rows) != 3 || rows[1].QueryID != "q2" || rows[1].Error == "" {
		t.Errorf("rows = %+v, want 3 with q2 failed", rows)
	}
	checkConsoleMatchesBundle(t, out, bun)
	checkRows(t, out, map[string]string{"token_f1": "2 0.8333"})
	checkValidateAsksNothingMore(t, viaScore)
}

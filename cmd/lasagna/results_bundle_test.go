package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

func TestResultsBundleRoundTrip(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"beir/corpus.jsonl": `{"_id": "d1", "title": "", "text": "one"}
{"_id": "d2", "title": "", "text": "two"}
{"_id": "d3", "title": "", "text": "three"}
`,
		"beir/queries.jsonl": `{"_id": "q1", "text": "first"}
{"_id": "q2", "text": "second"}
`,
		"beir/qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n",
		"run.trec": `q1 Q0 d1 1 3.0 sys
q1 Q0 d2 2 2.0 sys
q2 Q0 d2 1 2.0 sys
q2 Q0 d3 2 1.0 sys
`,
		"preds.jsonl": `{"id": "q1", "retrieved": ["d1", "d2"]}
{"id": "q2", "retrieved": [{"id": "d2", "score": 2}, {"id": "d3", "score": 1}]}
`,
	})
	beir := filepath.Join(dir, "beir")
	fromRun := filepath.Join(dir, "run.json")
	out, errOut, code := runCLI(t, "results", "bundle", beir, "--run", filepath.Join(dir, "run.trec"), "-o", fromRun, "--arm", "sys")
	if code != 0 || !strings.Contains(out, "bundle: "+fromRun) || !strings.Contains(out, "replayed as arm sys (mode retrieval)") {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "results", "validate", fromRun)
	if code != 0 {
		t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
	}
	b, err := results.ReadFile(fromRun)
	if err != nil {
		t.Fatal(err)
	}
	if b.Configs[0].Name != "sys" || b.Configs[0].HeldFixed.ResolvedMode != lasagna.ModeRetrieval || b.Results[0].Metrics["ndcg@10"] < 0.81 || b.Results[0].Metrics["ndcg@10"] > 0.82 {
		t.Errorf("bundle: %+v %v", b.Configs[0], b.Results[0].Metrics)
	}

	// --top-k states the depth: longer lists are cut, and held_fixed
	// records it.
	cut := filepath.Join(dir, "cut.json")
	if _, errOut, code := runCLI(t, "results", "bundle", beir, "--run", filepath.Join(dir, "run.trec"), "-o", cut, "--top-k", "1"); code != 0 {
		t.Fatalf("--top-k 1: exit %d\n%s", code, errOut)
	}
	if cb, err := results.ReadFile(cut); err != nil || *cb.Configs[0].HeldFixed.RetrieverTopK != 1 || cb.Results[0].Metrics["recall@10"] != 0.5 {
		t.Errorf("--top-k 1: %v %+v", err, cb)
	}

	// The same lists as predictions JSONL make the same bundle, and score
	// -o is the same code path.
	fromPreds := filepath.Join(dir, "preds.json")
	if _, errOut, code := runCLI(t, "results", "bundle", beir, "--predictions", filepath.Join(dir, "preds.jsonl"), "--arm", "sys", "-o", fromPreds); code != 0 {
		t.Fatalf("--predictions: exit %d\n%s", code, errOut)
	}
	fromScore := filepath.Join(dir, "score.json")
	if _, errOut, code := runCLI(t, "benchmark", "score", beir, filepath.Join(dir, "preds.jsonl"), "--arm", "sys", "-o", fromScore); code != 0 {
		t.Fatalf("score -o: exit %d\n%s", code, errOut)
	}
	a, _ := os.ReadFile(fromPreds)
	c, _ := os.ReadFile(fromScore)
	if !bytes.Equal(a, c) {
		t.Error("results bundle and benchmark score -o wrote different bundles")
	}
	pb, err := results.ReadFile(fromPreds)
	if err != nil {
		t.Fatal(err)
	}
	if pb.Results[0].Metrics["ndcg@10"] != b.Results[0].Metrics["ndcg@10"] || pb.Configs[0].ComparabilityKey == "" {
		t.Errorf("predictions bundle: %v", pb.Results[0].Metrics)
	}

	// Without -o the bundle goes to lasagna-out/<run id>.json.
	t.Chdir(dir)
	out, _, code = runCLI(t, "results", "bundle", "beir", "--run", "run.trec")
	if code != 0 || !strings.Contains(out, "bundle: "+filepath.Join("lasagna-out", "")) {
		t.Fatalf("default -o: exit %d\n%s", code, out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "lasagna-out", "*.json")); len(m) != 1 {
		t.Errorf("lasagna-out holds %v", m)
	}
}

// TestResultsBundleOwnIndex: lists from a system that searches its own
// index may name documents the dataset's corpus lacks.
func TestResultsBundleOwnIndex(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"beir/corpus.jsonl":   `{"_id": "d1", "title": "", "text": "one"}` + "\n" + `{"_id": "d2", "title": "", "text": "two"}` + "\n",
		"beir/queries.jsonl":  `{"_id": "q1", "text": "first"}` + "\n",
		"beir/qrels/test.tsv": "q1\td1\t1\n",
		"run.trec":            "q1 Q0 prod-77 1 3.0 sys\nq1 Q0 d1 2 2.0 sys\n",
	})
	beir, run := filepath.Join(dir, "beir"), filepath.Join(dir, "run.trec")
	out, _, code := runCLI(t, "results", "bundle", beir, "--run", run, "-o", filepath.Join(dir, "a.json"))
	if code != 1 || !strings.Contains(out, "blocking: UNKNOWN_DOC_ID") {
		t.Errorf("without --own-index: exit %d\n%s", code, out)
	}
	b := filepath.Join(dir, "b.json")
	out, errOut, code := runCLI(t, "results", "bundle", beir, "--run", run, "-o", b, "--own-index")
	if code != 0 || !strings.Contains(out, "warning: OUTSIDE_CORPUS_IDS") {
		t.Fatalf("--own-index: exit %d\n%s%s", code, out, errOut)
	}
	bundle, err := results.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if hf := bundle.Configs[0].HeldFixed; hf.CorpusProvenance != lasagna.ProvenanceOwnIndex || bundle.Results[0].Metrics["mrr"] != 0.5 {
		t.Errorf("provenance %q, metrics %v", hf.CorpusProvenance, bundle.Results[0].Metrics)
	}
}

func TestResultsBundleErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qa.jsonl":    `{"id": "q1", "question": "Q?", "answer": "A"}` + "\n",
		"preds.jsonl": `{"id": "q1", "answer": "A"}` + "\n",
		"none.jsonl":  `{"id": "q2", "answer": "A"}` + "\n",
	})
	qa, preds := filepath.Join(dir, "qa.jsonl"), filepath.Join(dir, "preds.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{qa}, 2, "give exactly one of --predictions F.jsonl and --run RUN.trec"},
		{[]string{qa, "--predictions", preds, "--run", preds}, 2, "give exactly one of"},
		{[]string{}, 2, "want 1 argument"},
		{[]string{qa, "--predictions", preds, "--format", "xml"}, 2, `--format "xml"`},
		{[]string{qa, "--predictions", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
		// No query has a prediction: every row fails, and the bundle says so.
		{[]string{qa, "--predictions", filepath.Join(dir, "none.jsonl"), "-o", filepath.Join(dir, "b.json")}, 1, "1 blocking integrity problem(s); the bundle was written"},
	} {
		out, errOut, code := runCLI(t, append([]string{"results", "bundle"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
}

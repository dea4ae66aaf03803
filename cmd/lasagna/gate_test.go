package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// pairsData is 12 questions, each with two passages that both name its
// object: BM25 ranks both on top, so an arm of depth 1 finds half of the
// relevant documents of every query (recall@10 0.5 instead of 1).
func pairsData() string {
	things := []string{"kettle", "lantern", "bicycle", "violin", "teapot", "umbrella", "compass", "anchor", "saddle", "trumpet", "lighthouse", "windmill"}
	colours := []string{"red", "blue", "green", "yellow", "purple", "orange", "black", "white", "grey", "pink", "brown", "silver"}
	var sb strings.Builder
	for i, thing := range things {
		row, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("q%02d", i+1), "question": "What colour is the " + thing + "?", "answer": colours[i],
			"contexts": []string{"The " + thing + " is " + colours[i] + ".", "Every " + thing + " in the museum was painted " + colours[i] + " by hand."},
		})
		sb.Write(row)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// gateDir writes pairs.jsonl and the named sweep files into a new folder.
func gateDir(t *testing.T, sweeps map[string]string) string {
	t.Helper()
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	files := map[string]string{"pairs.jsonl": pairsData()}
	for name, body := range sweeps {
		files[name] = body
	}
	return writeFiles(t, files)
}

// sweepYAML is a one-arm BM25 sweep on pairs.jsonl at depth topK, the arm
// varying retriever_top_k (so arms of different depths stay comparable),
// with extra lines appended to the arm.
func sweepYAML(topK int, armExtra string) string {
	return fmt.Sprintf(`benchmarks:
  - {path: pairs.jsonl}
top_k: %d
arms:
  - name: bm25
    retriever: bm25
    varied: [retriever_top_k]
%s`, topK, armExtra)
}

func TestBenchmarkRunThresholds(t *testing.T) {
	dir := gateDir(t, map[string]string{
		"pass.yaml": sweepYAML(10, `    thresholds:
      - {metric: ndcg@10, at_least: 0.9}
      - {metric: latency_ms, at_most: 60000, per_query: true}
`),
		"fail.yaml": sweepYAML(1, `    thresholds:
      - {metric: ndcg@10, at_least: 0.9}
      - {metric: mrr, at_least: 0.9}
`),
		"perquery.yaml": sweepYAML(1, `    thresholds:
      - {metric: recall@10, at_least: 0.6, per_query: true}
`),
	})
	bundle := filepath.Join(dir, "b.json")
	out, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "pass.yaml"), "-o", bundle)
	if code != 0 || strings.Contains(out, "fail:") {
		t.Fatalf("passing thresholds: exit %d\n%s%s", code, out, errOut)
	}

	// ndcg@10 falls to 0.6131 at depth 1; mrr stays 1.
	out, errOut, code = runCLI(t, "benchmark", "run", filepath.Join(dir, "fail.yaml"), "-o", bundle)
	want := "fail: local/pairs@"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "/bm25: ndcg@10 = 0.6131, want >= 0.9 (mean of 12 scored queries of arm bm25") ||
		strings.Contains(out, "mrr =") || !strings.Contains(errOut, "1 check(s) failed") {
		t.Errorf("failing threshold: exit %d\n%s%s", code, out, errOut)
	}
	// The bundle is written all the same.
	if _, err := os.Stat(bundle); err != nil {
		t.Error(err)
	}

	// A per-query threshold names the query, its line and what was missing;
	// past 10 failed queries of a cell, the rest are counted.
	out, _, code = runCLI(t, "benchmark", "run", filepath.Join(dir, "perquery.yaml"), "-o", bundle)
	for _, want := range []string{
		`/pairs.jsonl:1: query q01 "What colour is the kettle?"`,
		"      recall@10 = 0.5, want >= 0.6",
		"      relevant documents in the top 10 (-want +got):",
		"/bm25: … and 2 more failed queries",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("per-query threshold: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}

func TestBenchmarkRunThresholdMetricsCheckedFirst(t *testing.T) {
	dir := gateDir(t, map[string]string{
		"typo.yaml": sweepYAML(10, `    thresholds:
      - {metric: ndgc@10, at_least: 0.9}
`),
		"cutoff.yaml": sweepYAML(10, `    thresholds:
      - {metric: recall@20, at_least: 0.9}
`),
		"answers.yaml": sweepYAML(10, `    thresholds:
      - {metric: token_f1, at_least: 0.9}
`),
		"key.yaml": sweepYAML(10, `    thresholds:
      - {metric: ndcg@10, at_leest: 0.9}
`),
		"gate.yaml": sweepYAML(10, "") + "gate: {metrics: [recal@10]}\n",
	})
	baseline := filepath.Join(dir, "baseline.json")
	if _, _, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "gate.yaml"), "--baseline", baseline, "--update-baseline", "-o", filepath.Join(dir, "base.json")); code != 0 {
		t.Fatal("recording the baseline failed")
	}
	bundle := filepath.Join(dir, "b.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"typo.yaml"}, `arm bm25: threshold on unknown metric "ndgc@10" (did you mean "ndcg@10"?)`},
		{[]string{"cutoff.yaml"}, "threshold recall@20 needs the cutoff 20, which the run does not compute; add 20 to cutoffs: in the sweep file"},
		{[]string{"answers.yaml"}, "does not score token_f1"},
		{[]string{"key.yaml"}, `unknown key "at_leest" in a threshold (did you mean "at_least"?)`},
		{[]string{"gate.yaml", "--baseline", baseline}, `gate on unknown metric "recal@10" (did you mean "recall@10"?)`},
	} {
		args := append([]string{"benchmark", "run", filepath.Join(dir, c.args[0]), "-o", bundle}, c.args[1:]...)
		out, errOut, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s%s", c.args, code, c.want, out, errOut)
		}
		// Nothing ran: no table, no bundle.
		if out != "" {
			t.Errorf("%v: printed %q before refusing", c.args, out)
		}
		if _, err := os.Stat(bundle); err == nil {
			t.Errorf("%v: a bundle was written", c.args)
		}
	}
}

func TestBenchmarkRunBaseline(t *testing.T) {
	dir := gateDir(t, map[string]string{
		"base.yaml":  sweepYAML(10, ""),
		"worse.yaml": sweepYAML(1, ""),
		"strict.yaml": sweepYAML(1, `    thresholds:
      - {metric: ndcg@10, at_least: 0.9}
`),
	})
	base, worse := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "worse.yaml")
	baseline := filepath.Join(dir, "baseline.json")
	bundle := filepath.Join(dir, "b.json")

	// No baseline yet: refused before running, naming the fix.
	_, errOut, code := runCLI(t, "benchmark", "run", base, "--baseline", baseline, "-o", bundle)
	if code != 2 || !strings.Contains(errOut, "--baseline "+baseline+" does not exist; record it from a passing run with --baseline "+baseline+" --update-baseline") {
		t.Errorf("missing baseline: exit %d\n%s", code, errOut)
	}

	out, errOut, code := runCLI(t, "benchmark", "run", base, "--baseline", baseline, "--update-baseline", "-o", bundle)
	if code != 0 || !strings.Contains(out, "baseline: "+baseline+" rewritten from this run (--update-baseline); review and commit it") {
		t.Fatalf("--update-baseline: exit %d\n%s%s", code, out, errOut)
	}
	recorded, _ := os.ReadFile(baseline)
	written, _ := os.ReadFile(bundle)
	if !bytes.Equal(recorded, written) {
		t.Error("the baseline differs from the run's bundle")
	}
	if r := results.Validate(recorded); r.Blocking() > 0 {
		t.Errorf("the baseline does not validate: %v", r.Problems)
	}

	// The unchanged arm passes, with a line per gated metric.
	out, errOut, code = runCLI(t, "benchmark", "run", base, "--baseline", baseline, "-o", bundle)
	if code != 0 || !strings.Contains(out, "pass: local/pairs@") ||
		!strings.Contains(out, "/bm25: baseline gate: ndcg@10 1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes") ||
		!strings.Contains(out, "baseline gate: recall@10") {
		t.Errorf("unchanged arm: exit %d\n%s%s", code, out, errOut)
	}

	// Depth 1 finds one of the two relevant passages of every query: a
	// drop far above the tolerance, in the same direction on all 12
	// queries, so significant.
	out, errOut, code = runCLI(t, "benchmark", "run", worse, "--baseline", baseline, "-o", bundle)
	for _, want := range []string{
		"/bm25: regression: recall@10 fell from 1 to 0.5 (drop 0.5 > tolerance 0.01) and the drop is significant (Holm p = 9.8e-4 < 0.05 over 2 comparisons, 12 paired queries); baseline " + baseline + "; fix the regression, or if it is intended record a new baseline with --update-baseline",
		"/bm25: regression: ndcg@10 fell from 1 to 0.6131",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("worse arm: exit %d, output lacks %q\n%s%s", code, want, out, errOut)
		}
	}
	if !strings.Contains(errOut, "2 check(s) failed") {
		t.Errorf("stderr: %s", errOut)
	}

	// --update-baseline is refused when a threshold fails, and the
	// baseline is left as it was.
	out, errOut, code = runCLI(t, "benchmark", "run", filepath.Join(dir, "strict.yaml"), "--baseline", baseline, "--update-baseline", "-o", bundle)
	if code != 1 || !strings.Contains(errOut, "baseline "+baseline+" not rewritten (--update-baseline): the run fails 1 threshold or query checks") ||
		strings.Contains(out, "rewritten from this run") {
		t.Errorf("update with a failing threshold: exit %d\n%s%s", code, out, errOut)
	}
	if now, _ := os.ReadFile(baseline); !bytes.Equal(now, recorded) {
		t.Error("a refused --update-baseline changed the baseline")
	}
	// A deliberate regression is what an update records.
	if _, _, code := runCLI(t, "benchmark", "run", worse, "--baseline", baseline, "--update-baseline", "-o", bundle); code != 0 {
		t.Errorf("update to a worse arm: exit %d", code)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{base, "--update-baseline"}, "--update-baseline needs --baseline FILE"},
		{[]string{base, "--baseline", baseline, "--update-baseline", "--shard", "1/2"}, "the run is shard 1 of 2, and a baseline must hold every query"},
	} {
		_, errOut, code := runCLI(t, append([]string{"benchmark", "run"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", c.args, code, c.want, errOut)
		}
	}

	// A tampered baseline is refused.
	os.WriteFile(baseline, bytes.Replace(recorded, []byte(`"ndcg@10": 1`), []byte(`"ndcg@10": 0.5`), 1), 0o644)
	if _, errOut, code := runCLI(t, "benchmark", "run", base, "--baseline", baseline); code != 1 || !strings.Contains(errOut, "--baseline "+filepath.ToSlash(baseline)+" is not a valid bundle (RUN_ID_MISMATCH at run_id") {
		t.Errorf("tampered baseline: exit %d\n%s", code, errOut)
	}
}

// TestBenchmarkRunAbsoluteSweepPath: a sweep's benchmark may be an absolute
// path (docs/cli.md), and error positions keep the path as written.
func TestBenchmarkRunAbsoluteSweepPath(t *testing.T) {
	data := gateDir(t, nil)
	sweeps := writeFiles(t, map[string]string{
		"abs.yaml": "benchmarks:\n  - {path: " + filepath.ToSlash(filepath.Join(data, "pairs.jsonl")) + "}\narms:\n  - {name: bm25, retriever: bm25}\n",
		"bad.yaml": "benchmarks:\n  - {path: " + filepath.ToSlash(filepath.Join(data, "nope.jsonl")) + "}\narms:\n  - {name: bm25, retriever: bm25}\n",
	})
	out, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(sweeps, "abs.yaml"), "-o", filepath.Join(sweeps, "b.json"))
	if code != 0 || !strings.Contains(out, "local/pairs@") {
		t.Errorf("absolute path: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "benchmark", "run", filepath.Join(sweeps, "bad.yaml"))
	if code != 1 || !strings.Contains(errOut, filepath.ToSlash(filepath.Join(sweeps, "bad.yaml"))+":2: benchmark "+filepath.ToSlash(filepath.Join(data, "nope.jsonl"))) {
		t.Errorf("missing absolute path: exit %d\n%s", code, errOut)
	}
}

// TestSweepArmsCompareWithoutVaried: two arms of one sweep that differ
// only in their BM25 parameters compare (results compare accepts the
// bundle) without declaring varied:, and the differing components are
// recorded as varied_dimensions; a judge model that differs would still
// refuse (VaryComponents never varies it).
func TestSweepArmsCompareWithoutVaried(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	dir := faqDir(t)
	sweep := filepath.Join(dir, "bm25.yaml")
	if err := os.WriteFile(sweep, []byte("benchmarks:\n  - {path: faq.jsonl}\narms:\n  - {name: anserini, retriever: bm25}\n  - {name: lucene, retriever: bm25, bm25: {k1: 1.2, b: 0.75}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "b.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Configs) != 2 || b.Configs[0].ComparabilityKey != b.Configs[1].ComparabilityKey || !slices.Equal(b.Configs[0].VariedDimensions, []string{"retriever"}) ||
		b.Configs[1].VariedLevels["retriever"] != "bm25 k1=1.2 b=0.75 stemming=true stopwords=english" {
		t.Fatalf("configs %+v", b.Configs)
	}
	out, errOut, code := runCLI(t, "results", "compare", bundle)
	if code != 0 || strings.Contains(out+errOut, "STAGE_ISOLATION") || !strings.Contains(out, "lucene") {
		t.Errorf("results compare: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestSweepNotWorseThan: a sweep's paired threshold (not_worse_than)
// fails an arm whose recall@10 is significantly below another arm's on
// the same queries, with the gate's wording, and exits 1; naming an arm
// the sweep lacks is a usage error before anything runs.
func TestSweepNotWorseThan(t *testing.T) {
	const arms = `benchmarks:
  - {path: pairs.jsonl}
arms:
  - {name: deep, retriever: bm25, top_k: 10}
  - name: shallow
    retriever: bm25
    top_k: 1
    thresholds: [{metric: recall@10, not_worse_than: %s}]
`
	dir := gateDir(t, map[string]string{"ok.yaml": fmt.Sprintf(arms, "deep"), "typo.yaml": fmt.Sprintf(arms, "dep")})
	out, errOut, code := runCLI(t, "benchmark", "run", filepath.Join(dir, "ok.yaml"), "-o", filepath.Join(dir, "b.json"))
	if code != 1 || !strings.Contains(out, "fail: local/pairs@") || !strings.Contains(out, "/shallow: worse than deep: recall@10 is 0.5 against deep's 1 (drop 0.5 > tolerance 0.01) and the drop is significant") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "benchmark", "run", filepath.Join(dir, "typo.yaml"))
	if code != 2 || !strings.Contains(errOut, `threshold on recall@10 is not_worse_than "dep", which is not an arm of the run (did you mean "deep"?)`) {
		t.Errorf("typo: exit %d\n%s", code, errOut)
	}
}

// pairsBEIR writes pairsData's 12 questions as a BEIR folder dir/beir: two
// passages per query, both relevant, so BM25 at depth 10 finds both and
// at depth 1 half (recall@10 1 against 0.5).
func pairsBEIR(t *testing.T, dir string) string {
	t.Helper()
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, line := range strings.Split(strings.TrimSpace(pairsData()), "\n") {
		var row struct {
			ID       string   `json:"id"`
			Question string   `json:"question"`
			Contexts []string `json:"contexts"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		q, _ := json.Marshal(map[string]string{"_id": row.ID, "text": row.Question})
		queries.Write(q)
		queries.WriteByte('\n')
		for j, text := range row.Contexts {
			id := fmt.Sprintf("d%02d%c", i+1, 'a'+j)
			d, _ := json.Marshal(map[string]string{"_id": id, "title": "", "text": text})
			corpus.Write(d)
			corpus.WriteByte('\n')
			fmt.Fprintf(&qrels, "%s\t%s\t1\n", row.ID, id)
		}
	}
	writeAll(t, dir, map[string]string{"beir/corpus.jsonl": corpus.String(), "beir/queries.jsonl": queries.String(), "beir/qrels/test.tsv": qrels.String()})
	return filepath.Join(dir, "beir")
}

// writeAll writes files (slash paths relative to dir) into dir.
func writeAll(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// appendTo appends text to the file at path.
func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// beirSweeps writes base.yaml (BM25 at depth 10) and worse.yaml (depth 1)
// on the BEIR folder dir/beir.
func beirSweeps(t *testing.T, dir string) (base, worse string) {
	t.Helper()
	sweep := func(topK int) string {
		return strings.Replace(sweepYAML(topK, ""), "{path: pairs.jsonl}", "{path: beir}", 1)
	}
	writeAll(t, dir, map[string]string{"base.yaml": sweep(10), "worse.yaml": sweep(1)})
	return filepath.Join(dir, "base.yaml"), filepath.Join(dir, "worse.yaml")
}

// TestBenchmarkRunBaselineGrownBEIR: a baseline recorded on a BEIR folder
// still gates the folder after one query is added (a copy of it, with a
// query and its judgements appended): the unchanged arm passes on the 12
// queries both revisions hold, a clearly worse one fails with
// "regression", and a changed corpus is refused with the fix.
func TestBenchmarkRunBaselineGrownBEIR(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	first := t.TempDir()
	pairsBEIR(t, first)
	base, _ := beirSweeps(t, first)
	baseline := filepath.Join(first, "baseline.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", base, "--baseline", baseline, "--update-baseline", "-o", filepath.Join(first, "b.json")); code != 0 {
		t.Fatalf("--update-baseline: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, "results", "validate", baseline); code != 0 {
		t.Fatalf("results validate: exit %d\n%s%s", code, out, errOut)
	}
	recorded, err := results.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	from := recorded.Configs[0].Benchmark

	grown := t.TempDir()
	if err := os.CopyFS(filepath.Join(grown, "beir"), os.DirFS(filepath.Join(first, "beir"))); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(grown, "beir", "queries.jsonl"), `{"_id": "q13", "text": "Which passages tell the kettle's colour?"}`+"\n")
	appendTo(t, filepath.Join(grown, "beir", "qrels", "test.tsv"), "q13\td01a\t1\nq13\td01b\t1\n")
	base, worse := beirSweeps(t, grown)
	note := "gated on 12 shared queries (1 added, 0 changed, 0 removed since the baseline's " + from + ")"

	out, errOut, code := runCLI(t, "benchmark", "run", base, "--baseline", baseline, "-o", filepath.Join(grown, "b.json"))
	if code != 0 || strings.Contains(out, "pass: "+from) ||
		!strings.Contains(out, "/bm25: baseline gate: ndcg@10 1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes; "+note) ||
		!strings.Contains(out, "/bm25: baseline gate: recall@10 1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes; "+note) {
		t.Errorf("unchanged arm on the grown folder: exit %d\n%s%s", code, out, errOut)
	}

	out, errOut, code = runCLI(t, "benchmark", "run", worse, "--baseline", baseline, "-o", filepath.Join(grown, "b.json"))
	for _, want := range []string{
		"/bm25: regression: recall@10 fell from 1 to 0.5 (drop 0.5 > tolerance 0.01) and the drop is significant (Holm p = 9.8e-4 < 0.05 over 2 comparisons, 12 paired queries); " + note + "; baseline " + baseline + "; fix the regression, or if it is intended record a new baseline with --update-baseline",
		"/bm25: regression: ndcg@10 fell from 1 to 0.6131",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("worse arm on the grown folder: exit %d, output lacks %q\n%s%s", code, want, out, errOut)
		}
	}

	// A document added to the corpus: refused, saying what changed.
	appendTo(t, filepath.Join(grown, "beir", "corpus.jsonl"), `{"_id": "d99", "title": "", "text": "The kettle has a lid."}`+"\n")
	out, errOut, code = runCLI(t, "benchmark", "run", base, "--baseline", baseline, "-o", filepath.Join(grown, "b.json"))
	for _, want := range []string{
		"/bm25: baseline gate: " + baseline + " holds arm bm25 on " + from + ", an earlier revision of this run's local/beir@",
		"but the corpus changed (corpus_digest " + recorded.Configs[0].CorpusDigest[:12] + " in the baseline, ",
		"; 24 documents in the baseline's index, 25 in this run's): a baseline gates a grown benchmark only on the same corpus",
		"if the corpus changed on purpose, record a new baseline with --update-baseline",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("changed corpus: exit %d, output lacks %q\n%s%s", code, want, out, errOut)
		}
	}
}

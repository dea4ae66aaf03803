package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

func runResults(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"results"}, args...), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return stdout.String(), stderr.String(), code
}

func golden(name string) string {
	return filepath.Join("..", "..", "results", "testdata", "golden", name)
}

// copyGolden copies a golden bundle into a temp dir under a new name.
func copyGolden(t *testing.T, name, as string) string {
	t.Helper()
	data, err := os.ReadFile(golden(name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), as)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResultsSchemaCmd(t *testing.T) {
	out, _, code := runResults(t, "schema")
	if code != 0 || out != string(schema.JSON()) {
		t.Errorf("schema: exit %d, output differs from schema.JSON()", code)
	}
	p := filepath.Join(t.TempDir(), "run-schema.json")
	out, _, code = runResults(t, "schema", "-o", p)
	got, err := os.ReadFile(p)
	if code != 0 || err != nil || !bytes.Equal(got, schema.JSON()) {
		t.Errorf("schema -o: exit %d, %v, output %q", code, err, out)
	}
	if _, _, code := runResults(t, "schema", "extra"); code != 2 {
		t.Errorf("schema extra: exit %d, want 2", code)
	}
}

func TestResultsValidateCmd(t *testing.T) {
	out, _, code := runResults(t, "validate", golden("retrieval.json"))
	if code != 0 || !strings.HasSuffix(out, "retrieval.json: valid\n") {
		t.Errorf("clean bundle: exit %d\n%s", code, out)
	}
	out, _, code = runResults(t, "validate", golden("rag.json"))
	if code != 1 || !strings.Contains(out, "blocking: PIPELINE_ERRORS at local/faq@0123456789ab/full/3: generator: 429") ||
		!strings.Contains(out, "warning: SINGLE_RUN at") || !strings.Contains(out, "invalid: 2 blocking, 3 warnings") {
		t.Errorf("bundle with blocking codes: exit %d\n%s", code, out)
	}

	// A tampered number.
	data, _ := os.ReadFile(golden("retrieval.json"))
	bad := bytes.Replace(data, []byte(`"recall@10": 0.65`), []byte(`"recall@10": 0.75`), 1)
	p := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(p, bad, 0o644)
	out, _, code = runResults(t, "validate", p)
	if code != 1 || !strings.Contains(out, "RUN_ID_MISMATCH at run_id") {
		t.Errorf("tampered bundle: exit %d\n%s", code, out)
	}

	// Warnings only: 0, or 1 with --strict.
	warn := bytes.Replace(data, []byte(`"warnings": []`), []byte(`"warnings": ["SMALL_SAMPLE at local/faq@0123456789ab/bm25: 20 queries"]`), 1)
	b, err := results.Unmarshal(warn)
	if err != nil {
		t.Fatal(err)
	}
	p = filepath.Join(t.TempDir(), "warn.json")
	if err := results.WriteFile(p, b); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runResults(t, "validate", p); code != 0 || !strings.Contains(out, "valid, 1 warning") {
		t.Errorf("warnings only: exit %d\n%s", code, out)
	}
	if out, _, code := runResults(t, "validate", "--strict", p); code != 1 || !strings.Contains(out, "--strict fails on warnings") {
		t.Errorf("warnings with --strict: exit %d\n%s", code, out)
	}
	if _, errOut, code := runResults(t, "validate", filepath.Join(t.TempDir(), "missing.json")); code != 1 || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing file: exit %d %s", code, errOut)
	}
	if _, _, code := runResults(t, "validate"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
}

func TestResultsCompareCmd(t *testing.T) {
	out, _, code := runResults(t, "compare", golden("retrieval.json"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"benchmark               arm    metric     n   mean    95% CI",
		"dense vs bm25",
		"bm25 beats dense by +0.138 ndcg@10 (d_z 4.79, Holm p = 2e-4 over 2 comparisons) on 20 queries",
		"no significant difference: dense vs bm25 on recall@10 (-0.017, Holm p = 1 over 2 comparisons, 20 queries)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Two bundles: each arm of B against A's arm of the same name.
	a, b := copyGolden(t, "retrieval.json", "old.json"), copyGolden(t, "retrieval.json", "new.json")
	out, _, code = runResults(t, "compare", a, b, "--metric", "ndcg@10")
	if code != 0 || !strings.Contains(out, "no significant difference: new:bm25 vs old:bm25 on ndcg@10 (+0.000, Holm p = 1 over 1 comparison, 20 queries)") {
		t.Errorf("two bundles: exit %d\n%s", code, out)
	}
	if _, _, code := runResults(t, "compare", a, b, "--baseline", "bm25"); code != 2 {
		t.Errorf("--baseline with two bundles: exit %d, want 2", code)
	}
	// Not comparable: a different benchmark.
	out, _, code = runResults(t, "compare", golden("retrieval.json"), golden("rag.json"))
	if code != 1 || !strings.Contains(out, "not compared: rag:full has no arm") {
		t.Errorf("unrelated bundles: exit %d\n%s", code, out)
	}
}

func TestResultsSignificanceCmd(t *testing.T) {
	out, _, code := runResults(t, "significance", golden("retrieval.json"), "--baseline", "dense", "--metric", "ndcg@10", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "bm25 vs dense") || !strings.Contains(out, "bm25 beats dense by +0.138 ndcg@10 (d_z 4.79, Holm p = 1e-4 over 1 comparison) on 20 queries") || strings.Contains(out, "recall@10") {
		t.Errorf("output:\n%s", out)
	}
	// A different sampling seed makes the arms incomparable.
	data, _ := os.ReadFile(golden("retrieval.json"))
	bun, _ := results.Unmarshal(data)
	bun.Configs[0].HeldFixed.SamplingSeed = 7
	p := filepath.Join(t.TempDir(), "seed7.json")
	if err := results.WriteFile(p, bun); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runResults(t, "significance", p)
	if code != 1 || !strings.Contains(out, "refused: dense vs bm25 on local/faq@0123456789ab: comparability keys differ: held_fixed differs in sampling_seed (dense: 42, bm25: 7)") {
		t.Errorf("incomparable arms: exit %d\n%s%s", code, out, errOut)
	}
	// A stage that differs without being declared.
	bun.Configs[0].HeldFixed.SamplingSeed = 42
	bun.Configs[0].HeldFixed.Chunker = nil
	results.WriteFile(p, bun)
	out, _, code = runResults(t, "significance", p)
	if code != 1 || !strings.Contains(out, "refused: STAGE_ISOLATION: dense vs bm25") {
		t.Errorf("undeclared stage: exit %d\n%s", code, out)
	}
	// An edited bundle is not compared.
	data, _ = os.ReadFile(golden("retrieval.json"))
	os.WriteFile(p, bytes.Replace(data, []byte(`"sampling_seed": 42`), []byte(`"sampling_seed": 43`), 1), 0o644)
	out, errOut, code = runResults(t, "significance", p)
	if code != 1 || !strings.Contains(out, "COMPARABILITY_KEY_MISMATCH at local/faq@0123456789ab/bm25") || !strings.Contains(errOut, "fails validation; not compared") {
		t.Errorf("edited bundle: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := runResults(t, "significance", golden("retrieval.json"), "--baseline", "hybrid"); code != 1 || !strings.Contains(errOut, "has no arm \"hybrid\"") {
		t.Errorf("unknown baseline: exit %d %s", code, errOut)
	}
	if _, _, code := runResults(t, "significance", golden("retrieval.json"), "--level", "95"); code != 2 {
		t.Errorf("bad --level: exit %d, want 2", code)
	}
}

// compareTableMetrics returns the metric column of the per-arm table and
// of the comparison table that compare printed.
func compareTableMetrics(out string) (arms, comparisons []string) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 7 && strings.HasPrefix(f[0], "local/"):
			arms = append(arms, f[1]+" "+f[2])
		case len(f) >= 12 && strings.HasPrefix(f[0], "local/") && f[2] == "vs":
			comparisons = append(comparisons, f[1]+" "+f[4])
		}
	}
	return arms, comparisons
}

// TestResultsCompareGateMetricsByDefault: compare shows and tests the gate
// metrics by default, Holm-correcting over those only; --metric all shows
// the rest.
func TestResultsCompareGateMetricsByDefault(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	dir := faqDir(t)
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte(`benchmarks:
  - {path: faq.jsonl}
arms:
  - {name: deep, retriever: bm25, varied: [retriever_top_k]}
  - {name: shallow, retriever: bm25, top_k: 1, varied: [retriever_top_k]}
`), 0o644)
	bundle := filepath.Join(dir, "b.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", bundle); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}

	out, errOut, code := runResults(t, "compare", bundle)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	arms, cmps := compareTableMetrics(out)
	if want := []string{"deep ndcg@10", "deep recall@10", "shallow ndcg@10", "shallow recall@10"}; !slices.Equal(arms, want) {
		t.Errorf("arm table rows = %q, want %q\n%s", arms, want, out)
	}
	if want := []string{"shallow ndcg@10", "shallow recall@10"}; !slices.Equal(cmps, want) {
		t.Errorf("comparison rows = %q, want %q\n%s", cmps, want, out)
	}
	if !strings.Contains(out, "--metric all shows") {
		t.Errorf("no word on --metric all:\n%s", out)
	}
	// Holm over the two gate metrics only: the printed Holm p-values are
	// those of a family of two (0.12 here, where the family of all 22
	// shared metrics gives 1).
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := results.PairWithin(results.Arms(b, ""), "")
	if err != nil {
		t.Fatal(err)
	}
	res := results.Compare(pairs, results.CompareOptions{Metrics: []string{"ndcg@10", "recall@10"}, Resamples: 10000})
	if len(res.Comparisons) != 2 || res.Comparisons[0].FamilySize != 2 || !strings.Contains(out, "0.12 (of 2)") {
		t.Errorf("want a family of 2 with Holm p 0.12 (of 2): %+v\n%s", res.Comparisons, out)
	}
	for _, c := range res.Comparisons {
		if !strings.Contains(out, c.Verdict()) {
			t.Errorf("output lacks the two-metric verdict %q:\n%s", c.Verdict(), out)
		}
	}

	out, _, code = runResults(t, "compare", bundle, "--metric", "all")
	arms, cmps = compareTableMetrics(out)
	if code != 0 || len(arms) < 20 || len(cmps) < 10 || !slices.Contains(cmps, "shallow mrr@10") || !strings.Contains(out, "shallow vs deep on ndcg@10 (-0.041, Holm p = 1 over 22 comparisons,") {
		t.Errorf("--metric all: exit %d, %d arm rows, %d comparisons\n%s", code, len(arms), len(cmps), out)
	}
	if _, _, code := runResults(t, "compare", bundle, "--metric", "all", "--metric", "ndcg@10"); code != 2 {
		t.Errorf("--metric all with a name: exit %d, want 2", code)
	}
}

// TestResultsCompareOneArm: a bundle with one arm prints its table and
// exits 0.
func TestResultsCompareOneArm(t *testing.T) {
	out, errOut, code := runResults(t, "compare", golden("rag.json"))
	if code != 0 {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	arms, _ := compareTableMetrics(out)
	if !slices.Equal(arms, []string{"full token_f1"}) || !strings.Contains(out, "nothing to compare: each benchmark of the bundle has one arm") {
		t.Errorf("output:\n%s", out)
	}
}

// TestResultsReportBesideBundle: without -o the report of one bundle is
// written beside it, named after it, and the command says where; a report
// of several bundles needs -o.
func TestResultsReportBesideBundle(t *testing.T) {
	p := copyGolden(t, "retrieval.json", "run.json")
	out, errOut, code := runResults(t, "report", p)
	want := strings.TrimSuffix(p, ".json") + ".html"
	if code != 0 || !strings.HasPrefix(out, "report: "+want+" (") {
		t.Fatalf("report: exit %d, want 0 and %q printed\n%s%s", code, want, out, errOut)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
	if _, errOut, code := runResults(t, "report", p, p); code != 2 || !strings.Contains(errOut, "-o FILE.html is required for a report of several bundles") {
		t.Errorf("two bundles without -o: exit %d, want 2\n%s", code, errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// runBundle runs the speed profile on examples/data/faq.jsonl and returns
// the bundle it writes, read back.
func runBundle(t *testing.T) *results.Bundle {
	t.Helper()
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	p := filepath.Join(t.TempDir(), "run.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "speed", "-o", p); code != 0 {
		t.Fatalf("benchmark run: exit %d\n%s%s", code, out, errOut)
	}
	b, err := results.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResultsValidateForgeries reproduces the forgeries of issue 11 on a
// real bundle (47 queries of faq.jsonl): each edit is followed by
// recomputed hashes (results.Finalize, as anyone can), and validate must
// still exit 1 with INCONSISTENT_BUNDLE.
func TestResultsValidateForgeries(t *testing.T) {
	clean := runBundle(t)
	if n := len(clean.Results[0].PerSampleScores); n != 47 {
		t.Fatalf("faq.jsonl gave %d rows, want 47", n)
	}
	firstScored := func(b *results.Bundle) *results.Sample {
		for i := range b.Results[0].PerSampleScores {
			if len(b.Results[0].PerSampleScores[i].Scores) > 0 {
				return &b.Results[0].PerSampleScores[i]
			}
		}
		t.Fatal("no scored row")
		return nil
	}
	cases := []struct {
		name string
		edit func(b *results.Bundle)
		want string
	}{
		{"aggregate 0.42", func(b *results.Bundle) { b.Results[0].Metrics["ndcg@10"] = 0.42 },
			`metrics["ndcg@10"] is 0.42 but the mean of its`},
		{"n 1000", func(b *results.Bundle) {
			st := b.Results[0].MetricStats["ndcg@10"]
			st.N = 1000
			b.Results[0].MetricStats["ndcg@10"] = st
		}, `metric_stats["ndcg@10"].n is 1000 but`},
		{"ndcg 1.5", func(b *results.Bundle) { firstScored(b).Scores["ndcg@10"] = 1.5 },
			`scores["ndcg@10"] is 1.5, outside the range of ndcg@10, [0, 1]`},
		{"ndcg -0.5", func(b *results.Bundle) { firstScored(b).Scores["ndcg@10"] = -0.5 },
			`scores["ndcg@10"] is -0.5, outside the range of ndcg@10, [0, 1]`},
		{"deleted row", func(b *results.Bundle) {
			rows := b.Results[0].PerSampleScores
			for i := range rows {
				if len(rows[i].Scores) > 0 {
					b.Results[0].PerSampleScores = append(rows[:i:i], rows[i+1:]...)
					return
				}
			}
		}, `metric_stats["ndcg@10"].n is`},
		{"row with neither scores nor error", func(b *results.Bundle) {
			s := firstScored(b)
			s.Scores, s.RetrievedIDs, s.Retrieved = nil, nil, nil
		}, "the row has no scores, no error and no output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := runBundleCopy(t, clean)
			c.edit(b)
			if err := results.Finalize(b); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "forged.json")
			if err := results.WriteFile(p, b); err != nil {
				t.Fatal(err)
			}
			out, _, code := runResults(t, "validate", p)
			if code != 1 || !strings.Contains(out, "blocking: INCONSISTENT_BUNDLE at local/faq@") || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want 1 with INCONSISTENT_BUNDLE and %q:\n%s", code, c.want, out)
			}
			if strings.Contains(out, "RUN_ID_MISMATCH") {
				t.Errorf("the forger's run_id does not match, so this proves nothing:\n%s", out)
			}
		})
	}
}

// runBundleCopy returns a deep copy of b (through its JSON).
func runBundleCopy(t *testing.T, b *results.Bundle) *results.Bundle {
	t.Helper()
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := results.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestResultsValidateWriters checks that the bundles the CLI writes pass
// the consistency checks, with the default bootstrap seed and another one
// (recorded as experiment.stats_seed): run, and merge of a bundle whose
// intervals were drawn with seed 7.
func TestResultsValidateWriters(t *testing.T) {
	b := runBundle(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	if err := results.WriteFile(p, b); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runResults(t, "validate", p); code != 0 || strings.Contains(out, "INCONSISTENT_BUNDLE") {
		t.Errorf("benchmark run's bundle: exit %d\n%s", code, out)
	}
	b.Experiment.StatsSeed = 7
	for i := range b.Results {
		if err := results.Aggregate(&b.Results[i], b.StatsOptions()); err != nil {
			t.Fatal(err)
		}
	}
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	seeded := filepath.Join(dir, "seed7.json")
	if err := results.WriteFile(seeded, b); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged.json")
	if out, errOut, code := runResults(t, "merge", seeded, "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code := runResults(t, "validate", merged)
	if code != 0 || strings.Contains(out, "INCONSISTENT_BUNDLE") {
		t.Errorf("the merge of a stats_seed 7 bundle: exit %d\n%s", code, out)
	}
	raw, _ := os.ReadFile(merged)
	if !strings.Contains(string(raw), `"stats_seed": 7`) {
		t.Errorf("merge does not keep the bootstrap seed in experiment.stats_seed")
	}
}

// TestResultsValidateData re-scores a real bundle (47 queries of
// faq.jsonl) against its data: it passes; a spliced bundle (another
// list under the same numbers) and a cherry-picked one (its worst query
// removed with n_samples and sample_id_digest made to match) pass without
// the data and are refused with it; data at another revision is a usage
// error naming both revisions.
func TestResultsValidateData(t *testing.T) {
	clean := runBundle(t)
	data := filepath.Join("..", "..", "examples", "data", "faq.jsonl")
	write := func(t *testing.T, b *results.Bundle) string {
		t.Helper()
		for i := range b.Configs {
			key, err := results.ComparabilityKey(b.Configs[i].HeldFixed)
			if err != nil {
				t.Fatal(err)
			}
			b.Configs[i].ComparabilityKey = key
		}
		for i := range b.Results {
			b.Results[i].Metrics, b.Results[i].MetricStats = map[string]float64{}, nil
			if err := results.Aggregate(&b.Results[i], b.StatsOptions()); err != nil {
				t.Fatal(err)
			}
		}
		b.RunID = ""
		if err := results.Finalize(b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "b.json")
		if err := results.WriteFile(p, b); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write(t, runBundleCopy(t, clean))
	out, _, code := runResults(t, "validate", p, "--data", data)
	if code != 0 || !strings.Contains(out, "re-scored against the data: 47 rows,") || !strings.Contains(out, "valid, 1 warning") {
		t.Errorf("genuine bundle with --data: exit %d\n%s", code, out)
	}

	spliced := runBundleCopy(t, clean)
	for i := range spliced.Results[0].PerSampleScores {
		r := &spliced.Results[0].PerSampleScores[i]
		if len(r.RetrievedIDs) > 1 {
			r.RetrievedIDs[0], r.RetrievedIDs[1] = r.RetrievedIDs[1], r.RetrievedIDs[0]
			r.Retrieved[0].ID, r.Retrieved[1].ID = r.RetrievedIDs[0], r.RetrievedIDs[1]
		}
	}
	cherry := runBundleCopy(t, clean)
	rows := cherry.Results[0].PerSampleScores
	worst := 0
	for i := range rows {
		if rows[i].Scores["ndcg@10"] < rows[worst].Scores["ndcg@10"] {
			worst = i
		}
	}
	cherry.Results[0].PerSampleScores = append(rows[:worst:worst], rows[worst+1:]...)
	var ids []string
	for _, r := range cherry.Results[0].PerSampleScores {
		ids = append(ids, r.QueryID)
	}
	cherry.Configs[0].HeldFixed.NSamples = int64(len(ids))
	cherry.Configs[0].HeldFixed.SampleIDDigest = results.SampleIDDigest(ids)
	for name, tc := range map[string]struct {
		b    *results.Bundle
		want string
	}{
		"spliced":       {spliced, `but the row's ranked list and the data give`},
		"cherry-picked": {cherry, "but sample_id_digest is"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write(t, tc.b)
			if out, _, code := runResults(t, "validate", p); code != 0 {
				t.Errorf("without --data the forgery should pass the bundle-only checks (it is made to): exit %d\n%s", code, out)
			}
			out, _, code := runResults(t, "validate", p, "--data", data)
			if code != 1 || !strings.Contains(out, "blocking: INCONSISTENT_BUNDLE at local/faq@") || !strings.Contains(out, tc.want) {
				t.Errorf("with --data: exit %d, want 1 with %q\n%s", code, tc.want, out)
			}
		})
	}

	// compare, report and merge re-score with --data too.
	sp := write(t, spliced)
	if out, _, code := runResults(t, "compare", sp, "--data", data); code != 1 || !strings.Contains(out, "but the row's ranked list and the data give") {
		t.Errorf("compare --data of the spliced bundle: exit %d\n%s", code, out)
	}
	if out, _, code := runResults(t, "compare", p, "--data", data); code != 0 {
		t.Errorf("compare --data of the genuine bundle: exit %d\n%s", code, out)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if out, errOut, code := runResults(t, "report", sp, "--data", data, "-o", html); code != 1 || !strings.Contains(out+errOut, "fails validation; not reported") {
		t.Errorf("report --data of the spliced bundle: exit %d\n%s", code, out)
	}
	if out, _, code := runResults(t, "report", p, "--data", data, "-o", html); code != 0 {
		t.Errorf("report --data of the genuine bundle: exit %d\n%s", code, out)
	}
	merged := filepath.Join(t.TempDir(), "m.json")
	if out, _, code := runResults(t, "merge", sp, "--data", data, "-o", merged); code != 1 || !strings.Contains(out, "but the row's ranked list and the data give") {
		t.Errorf("merge --data of the spliced bundle: exit %d\n%s", code, out)
	}

	_, errOut, code := runResults(t, "validate", p, "--data", filepath.Join("..", "..", "examples", "data", "glasscoins"))
	if code != 2 || !strings.Contains(errOut, "the bundle ran on local/faq@") || !strings.Contains(errOut, "the data given is local/glasscoins@") {
		t.Errorf("data at another revision: exit %d\n%s", code, errOut)
	}
}

// TestResultsReportDataForms: results report --data takes every form
// benchmark run reads — the file, registry:NAME, registry:NAME@HASH and a
// sweep listing the file — and then shows each query's question; data
// whose hash is not the bundle's benchmark is refused, naming both.
func TestResultsReportDataForms(t *testing.T) {
	useRegistry(t)
	b := runBundle(t)
	p := filepath.Join(t.TempDir(), "run.json")
	if err := results.WriteFile(p, b); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep.yaml")
	abs, _ := filepath.Abs(faqPath)
	os.WriteFile(sweep, []byte("benchmarks: [{path: "+abs+"}]\narms: [{name: bm25, retriever: bm25}]\n"), 0o644)
	const question = "What does the soda do in soda-lime glass?"
	for _, data := range []string{faqPath, "registry:faq", "registry:faq@ea3e86b12545", sweep} {
		html := filepath.Join(dir, "r.html")
		if out, errOut, code := runResults(t, "report", p, "--data", data, "-o", html); code != 0 {
			t.Errorf("report --data %s: exit %d\n%s%s", data, code, out, errOut)
			continue
		}
		if page, _ := os.ReadFile(html); !strings.Contains(string(page), "<td>"+question+"</td>") {
			t.Errorf("report --data %s shows no questions", data)
		}
	}
	_, errOut, code := runResults(t, "report", p, "--data", filepath.Join("..", "..", "examples", "data", "glasscoins"), "-o", filepath.Join(dir, "x.html"))
	if code != 2 || !strings.Contains(errOut, "the bundle ran on local/faq@") || !strings.Contains(errOut, "the data given is local/glasscoins@") {
		t.Errorf("report --data of another benchmark: exit %d\n%s", code, errOut)
	}
}

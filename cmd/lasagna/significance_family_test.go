package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/dashboard"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// TestOneSignificanceFamily: the regression gate of benchmark run
// --baseline, results compare A B, results report B --baseline A (the
// HTML the dashboard's comparison page draws too) and the Markdown summary
// print the same Holm p over the same number of comparisons for one
// comparison. The family is the arm pair's gate metrics on one benchmark
// (results.Compare), so neither the other arms of the sweep nor a second
// benchmark change it. Arm tuned goes from top_k 10 to 1 on the shipped
// glasscoins benchmark, as in issue 35.
func TestOneSignificanceFamily(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	glass, err := filepath.Abs("../../examples/data/glasscoins")
	if err != nil {
		t.Fatal(err)
	}
	faq := filepath.Join(faqDir(t), "faq.jsonl")
	sweep := func(benches []string, tunedK int) string {
		var sb strings.Builder
		sb.WriteString("benchmarks:\n")
		for _, b := range benches {
			sb.WriteString("  - {path: " + b + "}\n")
		}
		sb.WriteString("gate: {metrics: [ndcg@10, recall@10], tolerance: 0.01, alpha: 0.1}\narms:\n")
		sb.WriteString("  - {name: bm25, retriever: bm25, varied: [retriever_top_k]}\n")
		sb.WriteString("  - {name: tuned, retriever: bm25, top_k: " + map[int]string{1: "1", 10: "10"}[tunedK] + ", varied: [retriever_top_k]}\n")
		sb.WriteString("  - {name: wide, retriever: bm25, top_k: 20, varied: [retriever_top_k]}\n")
		return sb.String()
	}
	for _, c := range []struct {
		name    string
		benches []string
	}{
		{"one benchmark", []string{glass}},
		{"two benchmarks", []string{glass, faq}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			baseSweep, newSweep := write("base.yaml", sweep(c.benches, 10)), write("new.yaml", sweep(c.benches, 1))
			base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "b.json")
			if out, errOut, code := runCLI(t, "benchmark", "run", baseSweep, "-o", base); code != 0 {
				t.Fatalf("base run: exit %d\n%s%s", code, out, errOut)
			}
			gate, errOut, code := runCLI(t, "benchmark", "run", newSweep, "--baseline", base, "-o", cand)
			if code > 1 {
				t.Fatalf("gated run: exit %d\n%s%s", code, gate, errOut)
			}
			compare, errOut, code := runResults(t, "compare", base, cand)
			if code != 0 {
				t.Fatalf("compare: exit %d\n%s%s", code, compare, errOut)
			}
			html := filepath.Join(dir, "r.html")
			if out, errOut, code := runResults(t, "report", cand, "--baseline", base, "-o", html); code != 0 {
				t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
			}
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			a, err := results.ReadFile(base)
			if err != nil {
				t.Fatal(err)
			}
			b, err := results.ReadFile(cand)
			if err != nil {
				t.Fatal(err)
			}
			md := reporters.MarkdownBaseline(b, a, nil)
			// The dashboard's comparison page, over the folder of the two
			// bundles.
			srv, err := dashboard.New(serveOptions(dir, "", "", nil))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, httptest.NewRequest("GET", "http://localhost/compare?bundle=b.json&baseline=base.json", nil))
			if w.Code != 200 {
				t.Fatalf("GET /compare: %d\n%s", w.Code, w.Body)
			}
			dash := w.Body.String()

			benches := map[string]bool{}
			for _, cfg := range b.Configs {
				benches[cfg.Benchmark] = true
			}
			if len(benches) != len(c.benches) {
				t.Fatalf("the bundle holds %d benchmarks, want %d", len(benches), len(c.benches))
			}
			checked := 0
			for bench := range benches {
				for _, metric := range []string{"ndcg@10", "recall@10"} {
					// The gate's line for tuned: pass or fail, it names the
					// Holm p and its family.
					gateRe := regexp.MustCompile(regexp.QuoteMeta(bench+"/tuned: ") + `(?:regression: ` + regexp.QuoteMeta(metric) + ` fell .*?Holm p = (\S+) < 0\.1 over (\d+) comparisons|baseline gate: ` + regexp.QuoteMeta(metric) + ` .*?Holm p = (\S+) over (\d+) comparisons)`)
					m := gateRe.FindStringSubmatch(gate)
					if m == nil {
						t.Fatalf("no gate line for %s tuned %s:\n%s", bench, metric, gate)
					}
					p, n := m[1]+m[3], m[2]+m[4]
					if n != "2" {
						t.Errorf("%s %s: the gate's family holds %s comparisons, want 2 (the two gated metrics of the arm pair)", bench, metric, n)
					}
					if metric == "ndcg@10" && bench == b.Configs[0].Benchmark && p == "1" {
						t.Errorf("%s: tuned at top_k 1 should differ from top_k 10 on ndcg@10 (Holm p %s)", bench, p)
					}
					holm := "Holm p = " + p + " over " + n + " comparisons"
					// results compare: the table row of b:tuned against
					// base:tuned, and a verdict line (they do not name the
					// benchmark) with the same p and family.
					rowRe := regexp.MustCompile(regexp.QuoteMeta(bench) + `\s+b:tuned vs base:tuned\s+` + regexp.QuoteMeta(metric) + `\s.*\s` + regexp.QuoteMeta(p+" (of "+n+")") + `\n`)
					verdictRe := regexp.MustCompile(`(b:tuned vs base:tuned|base:tuned beats b:tuned|b:tuned beats base:tuned).* ` + regexp.QuoteMeta(metric) + ` \(.*` + regexp.QuoteMeta(holm) + `[,)]`)
					if !rowRe.MatchString(compare) || !verdictRe.MatchString(compare) {
						t.Errorf("%s %s: compare lacks %q in its table or verdicts:\n%s", bench, metric, holm, compare)
					}
					// results report (and the dashboard's comparison page).
					cellRe := regexp.MustCompile(`<tr><td>` + regexp.QuoteMeta(bench) + `</td><td>tuned</td><td>baseline: tuned</td><td>` + regexp.QuoteMeta(metric) + `</td>.*?<td class="num" title="[^"]*">([^<]*)</td>`)
					if m := cellRe.FindSubmatch(page); m == nil || string(m[1]) != p+" (of "+n+")" {
						t.Errorf("%s %s: the report's Holm p cell is %q, want %q", bench, metric, m, p+" (of "+n+")")
					}
					if !strings.Contains(string(page), holm) {
						t.Errorf("%s %s: the report's verdict lines lack %q", bench, metric, holm)
					}
					if m := cellRe.FindStringSubmatch(dash); m == nil || m[1] != p+" (of "+n+")" || !strings.Contains(dash, holm) {
						t.Errorf("%s %s: the dashboard's comparison page lacks %q", bench, metric, holm)
					}
					// The Markdown summary.
					if !strings.Contains(md, "| "+bench+" | tuned | "+metric+" |") || !strings.Contains(md, p+" ("+"of "+n+") |") || !strings.Contains(md, holm) {
						t.Errorf("%s %s: the Markdown summary lacks %q:\n%s", bench, metric, holm, md)
					}
					checked++
				}
			}
			if checked != 2*len(c.benches) {
				t.Errorf("checked %d comparisons", checked)
			}
		})
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// TestCompareQueriesGlasscoins is issue 38's acceptance test: on the
// shipped glasscoins benchmark, with arm tuned moved from top_k 10 to 1,
// results compare base.json b.json --queries lists every query whose
// ndcg@10 fell (before → after, worst first; with --data the question and
// the relevant documents lost), and the gate's and compare's lines give
// the smallest detectable drop; the passing gate (alpha 0.05) says its
// tolerance of 0.01 was undetectable.
func TestCompareQueriesGlasscoins(t *testing.T) {
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	glass, err := filepath.Abs("../../examples/data/glasscoins")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweep := func(name, k string) string {
		p := filepath.Join(dir, name)
		text := "benchmarks:\n  - {path: " + glass + "}\ngate: {metrics: [ndcg@10, recall@10], tolerance: 0.01}\narms:\n" +
			"  - {name: bm25, retriever: bm25, varied: [retriever_top_k]}\n" +
			"  - {name: tuned, retriever: bm25, top_k: " + k + ", varied: [retriever_top_k]}\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "b.json")
	if out, errOut, code := runCLI(t, "benchmark", "run", sweep("base.yaml", "10"), "-o", base); code != 0 {
		t.Fatalf("base run: exit %d\n%s%s", code, out, errOut)
	}
	gate, errOut, code := runCLI(t, "benchmark", "run", sweep("new.yaml", "1"), "--baseline", base, "-o", cand)
	if code != 0 {
		t.Fatalf("gated run: exit %d (the drop is not significant at alpha 0.05)\n%s%s", code, gate, errOut)
	}
	for _, metric := range []string{"ndcg@10", "recall@10"} {
		re := regexp.MustCompile(regexp.QuoteMeta("/tuned: baseline gate: "+metric+" ") + `.*passes, but a drop of 0\.01 was undetectable: smallest detectable drop 0\.\d+ at n=44; add queries\n`)
		if !re.MatchString(gate) {
			t.Errorf("the gate's %s line does not say the tolerance was undetectable:\n%s", metric, gate)
		}
	}

	a, err := results.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadFile(cand)
	if err != nil {
		t.Fatal(err)
	}
	// The queries whose ndcg@10 fell, from the bundles themselves.
	before := map[string]float64{}
	rb, _ := a.Result(a.Configs[0].Benchmark, "tuned")
	for _, s := range rb.PerSampleScores {
		before[s.QueryID] = s.Scores["ndcg@10"]
	}
	ra, _ := b.Result(b.Configs[0].Benchmark, "tuned")
	var fell []string
	for _, s := range ra.PerSampleScores {
		if s.Scores["ndcg@10"] < before[s.QueryID] {
			fell = append(fell, s.QueryID)
		}
	}
	if len(fell) == 0 {
		t.Fatal("no query's ndcg@10 fell at top_k 1")
	}

	for _, data := range []bool{false, true} {
		args := []string{"compare", base, cand, "--queries"}
		if data {
			args = append(args, "--data", glass)
		}
		out, errOut, code := runResults(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		if !regexp.MustCompile(`b:tuned vs base:tuned on ndcg@10 \(.*\); smallest detectable difference 0\.\d+ at n=44\n`).MatchString(out) {
			t.Errorf("%v: compare's ndcg@10 verdict lacks the smallest detectable difference:\n%s", args, out)
		}
		_, section, ok := strings.Cut(out, "b:tuned vs base:tuned, ndcg@10: ")
		if !ok {
			t.Fatalf("%v: no per-query section for tuned's ndcg@10:\n%s", args, out)
		}
		section, _, _ = strings.Cut(section, "\n\n")
		if n := strconv.Itoa(len(fell)); !strings.HasPrefix(section, n+" queries changed ("+n+" fell, 0 rose)") {
			t.Errorf("%v: section header %q, want %d queries that fell", args, strings.SplitN(section, "\n", 2)[0], len(fell))
		}
		for _, id := range fell {
			m := regexp.MustCompile(`\n  ` + regexp.QuoteMeta(id) + `\s+(\S+) → (\S+)\s+-`).FindStringSubmatch(section)
			if m == nil {
				t.Errorf("%v: query %s, whose ndcg@10 fell, is not listed:\n%s", args, id, section)
				continue
			}
			if want := reporters.FormatNumber(before[id], 4); m[1] != want {
				t.Errorf("%v: %s before = %s, want %s", args, id, m[1], want)
			}
		}
		// Worst first: the changes never fall down the list.
		prev := -2.0
		for _, m := range regexp.MustCompile(`\n  \S+\s+\S+ → \S+\s+(-\S+)`).FindAllStringSubmatch(section, -1) {
			var c float64
			if _, err := fmt.Sscan(m[1], &c); err != nil || c < prev {
				t.Errorf("%v: change %q after %v: not worst first", args, m[1], prev)
			}
			prev = c
		}
		if data {
			if !strings.Contains(section, "relevant lost") || !strings.Contains(section, "What metal were the first Lydian coins made of?") {
				t.Errorf("with --data, the section lacks the questions and the relevant documents lost:\n%s", section)
			}
		} else if !strings.Contains(out, "lost and gained are the ids that left and entered the top k") {
			t.Errorf("without --data, compare does not say what lost and gained are:\n%s", out)
		}
	}
}

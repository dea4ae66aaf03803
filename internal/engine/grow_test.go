package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// growThings name the objects of growFolder's queries: query qNN asks for
// the colour of growThings[NN-1], which its two passages dNNa and dNNb
// give, both relevant (grade 1).
var growThings = []string{"kettle", "lantern", "bicycle", "violin", "teapot", "umbrella", "compass", "anchor", "saddle", "trumpet", "lighthouse", "windmill"}

// growFolder is a BEIR folder "beir" of the 12 queries of growThings;
// edit changes its files (corpus.jsonl, queries.jsonl, qrels/test.tsv and
// qrels/dev.tsv, the same as test) as lines before they are joined.
func growFolder(edit func(corpus, queries, qrels *[]string)) fstest.MapFS {
	var corpus, queries, qrels []string
	for i, thing := range growThings {
		id := fmt.Sprintf("%02d", i+1)
		for _, d := range []struct{ suffix, text string }{
			{"a", "The " + thing + " is colour number " + id + "."},
			{"b", "Every " + thing + " in the museum was painted by hand."},
		} {
			doc, _ := json.Marshal(map[string]string{"_id": "d" + id + d.suffix, "title": thing, "text": d.text})
			corpus = append(corpus, string(doc))
			qrels = append(qrels, "q"+id+"\td"+id+d.suffix+"\t1")
		}
		q, _ := json.Marshal(map[string]string{"_id": "q" + id, "text": "What colour is the " + thing + "?"})
		queries = append(queries, string(q))
	}
	if edit != nil {
		edit(&corpus, &queries, &qrels)
	}
	join := func(lines []string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(strings.Join(lines, "\n") + "\n")}
	}
	return fstest.MapFS{
		"beir/corpus.jsonl":   join(corpus),
		"beir/queries.jsonl":  join(queries),
		"beir/qrels/test.tsv": join(qrels),
		"beir/qrels/dev.tsv":  join(qrels),
	}
}

// addQuery appends q13, which asks about the kettle's passages again: a
// query added, the corpus unchanged.
func addQuery(corpus, queries, qrels *[]string) {
	*queries = append(*queries, `{"_id": "q13", "text": "Which passages describe the kettle?"}`)
	*qrels = append(*qrels, "q13\td01a\t1", "q13\td01b\t1")
}

// halfArm ranks only the first relevant document of each query: recall@10
// falls from 1 to 0.5 on every query, a clear regression. It is named
// "gold" to be gated against goldArm's baseline.
func halfArm() Arm {
	return Arm{Name: "gold", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			return []lasagna.Hit{{ID: b.Qrels.Relevant(q.ID)[0], Score: 1}}, nil
		}), nil
	}}
}

// growRun runs arm on the folder fsys (split "" means test) and returns
// the report.
func growRun(t *testing.T, fsys fstest.MapFS, e BenchmarkEntry, arm Arm) *Report {
	t.Helper()
	if e.Path == "" {
		e.Path = "beir"
	}
	benches, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{e}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), benches, []Arm{arm}, Options{Cutoffs: []int{10}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// growBaseline records rep as a baseline and reads it back as the gate
// does (checkBaseline: the hashes and structure must check out); strip,
// when set, edits the bundle first (and it is finalized again).
func growBaseline(t *testing.T, rep *Report, strip func(*results.Bundle)) *results.Bundle {
	t.Helper()
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if strip != nil {
		strip(b)
		b.RunID = ""
		if err := results.Finalize(b); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	base, err := checkBaseline("base.json", raw, "HINT")
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// gateOf returns the gate's verdicts of rep against base.
func gateOf(rep *Report, base *results.Bundle) []Verdict {
	var out []Verdict
	for _, v := range Verdicts(rep, VerdictPlan{Gate: &GateOptions{Baseline: base, Path: "base.json", UpdateHint: "HINT"}}) {
		if v.Kind == VerdictGate {
			out = append(out, v)
		}
	}
	return out
}

// messages joins the verdicts' messages, one a line, each after PASS or
// FAIL.
func messages(vs []Verdict) string {
	var sb strings.Builder
	for _, v := range vs {
		label := "FAIL"
		if v.Pass {
			label = "PASS"
		}
		fmt.Fprintf(&sb, "%s %s\n", label, v.Message)
	}
	return sb.String()
}

// wantGate checks that vs are 2 verdicts (ndcg@10, recall@10), passing or
// not as pass says, each message holding every one of wants.
func wantGate(t *testing.T, vs []Verdict, pass bool, wants ...string) {
	t.Helper()
	if len(vs) != 2 {
		t.Fatalf("got %d gate verdicts, want 2 (ndcg@10, recall@10):\n%s", len(vs), messages(vs))
	}
	for _, v := range vs {
		if v.Pass != pass {
			t.Errorf("%s: pass = %v, want %v", v.Metric, v.Pass, pass)
		}
		for _, w := range wants {
			if !strings.Contains(v.Message, w) {
				t.Errorf("%s: message lacks %q:\n%s", v.Metric, w, v.Message)
			}
		}
	}
}

// wantRefused checks that vs is the one failed verdict of a refused gate,
// whose message holds every one of wants.
func wantRefused(t *testing.T, vs []Verdict, wants ...string) {
	t.Helper()
	if len(vs) != 1 || vs[0].Pass {
		t.Fatalf("got %d gate verdicts, want the one failed verdict of a refusal:\n%s", len(vs), messages(vs))
	}
	for _, w := range wants {
		if !strings.Contains(vs[0].Message, w) {
			t.Errorf("refusal lacks %q:\n%s", w, vs[0].Message)
		}
	}
}

// TestGateGrownBenchmark: a baseline recorded on a BEIR folder gates the
// folder after a query is added, on the 12 queries both hold: the same
// arm passes, a clearly worse one fails with "regression", and both say
// what was compared.
func TestGateGrownBenchmark(t *testing.T) {
	base := growBaseline(t, growRun(t, growFolder(nil), BenchmarkEntry{}, goldArm("gold")), nil)
	from := base.Configs[0].Benchmark
	if !strings.HasPrefix(from, "local/beir@") || base.Configs[0].CorpusDigest == "" || base.Results[0].PerSampleScores[0].QueryDigest == "" {
		t.Fatalf("baseline %s records corpus_digest %q and query_digest %q", from, base.Configs[0].CorpusDigest, base.Results[0].PerSampleScores[0].QueryDigest)
	}

	grown := growFolder(addQuery)
	rep := growRun(t, grown, BenchmarkEntry{}, goldArm("gold"))
	if rep.Cells[0].Bench.Benchmark.Name == from {
		t.Fatalf("the grown folder has the baseline's revision %s", from)
	}
	note := "gated on 12 shared queries (1 added, 0 changed, 0 removed since the baseline's " + from + ")"
	vs := gateOf(rep, base)
	wantGate(t, vs, true, "baseline gate: ", "1 → 1 (+0.0000, Holm p = 1 over 2 comparisons, 12 paired queries): no drop, passes; "+note)

	vs = gateOf(growRun(t, grown, BenchmarkEntry{}, halfArm()), base)
	wantGate(t, vs, false, "regression: ", "12 paired queries); "+note+"; baseline base.json; fix the regression, or if it is intended record a new baseline with HINT")
	if !slices.ContainsFunc(vs, func(v Verdict) bool {
		return strings.HasPrefix(v.Message, "regression: recall@10 fell from 1 to 0.5 (drop 0.5 > tolerance 0.01) and the drop is significant")
	}) {
		t.Errorf("no recall@10 regression:\n%s", messages(vs))
	}
}

// TestGateGrowthCounts: queries added, changed (text, or a judgement) and
// removed are counted, and only the unchanged ones are gated.
func TestGateGrowthCounts(t *testing.T) {
	base := growBaseline(t, growRun(t, growFolder(nil), BenchmarkEntry{}, goldArm("gold")), nil)
	edited := growFolder(func(corpus, queries, qrels *[]string) {
		addQuery(corpus, queries, qrels)
		(*queries)[0] = `{"_id": "q01", "text": "What colour is the old kettle?"}` // changed text
		*qrels = slices.DeleteFunc(*qrels, func(l string) bool { return strings.HasPrefix(l, "q02\t") })
		(*qrels)[2] = strings.Replace((*qrels)[2], "\t1", "\t2", 1) // q03's first judgement: grade 2
	})
	rep := growRun(t, edited, BenchmarkEntry{}, goldArm("gold"))
	wantGate(t, gateOf(rep, base), true, "9 paired queries", "gated on 9 shared queries (1 added, 2 changed, 1 removed since the baseline's "+base.Configs[0].Benchmark+")")

	// Every query changed: nothing to gate.
	all := growFolder(func(corpus, queries, qrels *[]string) {
		for i := range *queries {
			(*queries)[i] = strings.Replace((*queries)[i], "What colour", "Which colour", 1)
		}
	})
	wantRefused(t, gateOf(growRun(t, all, BenchmarkEntry{}, goldArm("gold")), base),
		"baseline gate: base.json holds arm gold on "+base.Configs[0].Benchmark+", an earlier revision of this run's local/beir@",
		"and no query is unchanged since (0 added, 12 changed, 0 removed), so there is nothing to gate; record a new baseline with HINT")
}

// TestGateGrowthCorpusChanged: a benchmark whose corpus changed is refused,
// saying so and how to fix it, even when its queries did not change.
func TestGateGrowthCorpusChanged(t *testing.T) {
	base := growBaseline(t, growRun(t, growFolder(nil), BenchmarkEntry{}, goldArm("gold")), nil)
	changed := growFolder(func(corpus, queries, qrels *[]string) {
		(*corpus)[5] = strings.Replace((*corpus)[5], "painted by hand", "painted by machine", 1)
	})
	rep := growRun(t, changed, BenchmarkEntry{}, goldArm("gold"))
	wantRefused(t, gateOf(rep, base),
		"baseline gate: base.json holds arm gold on "+base.Configs[0].Benchmark+", an earlier revision of this run's "+rep.Cells[0].Bench.Benchmark.Name,
		"but the corpus changed (corpus_digest "+base.Configs[0].CorpusDigest[:12]+" in the baseline, "+rep.Cells[0].Bench.CorpusDigest[:12]+" in this run)",
		"a baseline gates a grown benchmark only on the same corpus",
		"if the corpus changed on purpose, record a new baseline with HINT")
}

// TestGateGrowthHeldFixed: apart from the revision, what the comparability
// key holds fixed still refuses: another split, another sampling seed.
func TestGateGrowthHeldFixed(t *testing.T) {
	base := growBaseline(t, growRun(t, growFolder(nil), BenchmarkEntry{NSamples: 10, Seed: 3}, goldArm("gold")), nil)
	grown := growFolder(addQuery)

	// The same sampling on the grown folder gates (the sample differs, as
	// growth makes it, but the queries both hold are compared).
	vs := gateOf(growRun(t, grown, BenchmarkEntry{NSamples: 10, Seed: 3}, goldArm("gold")), base)
	if len(vs) != 2 || !vs[0].Pass || !strings.Contains(vs[0].Message, "shared queries (") {
		t.Errorf("the grown sample is not gated:\n%s", messages(vs))
	}
	for _, c := range []struct {
		e    BenchmarkEntry
		want string
	}{
		{BenchmarkEntry{NSamples: 10, Seed: 3, Split: "dev"}, `split (gold: "dev", baseline gold: "test")`},
		{BenchmarkEntry{NSamples: 10, Seed: 4}, "sampling_seed (gold: 4, baseline gold: 3)"},
		{BenchmarkEntry{NSamples: 11, Seed: 3}, "n_samples (gold: 11, baseline gold: 10)"},
	} {
		wantRefused(t, gateOf(growRun(t, grown, c.e, goldArm("gold")), base),
			"baseline gate: cannot compare with base.json: ", "comparability keys differ: held_fixed differs in "+c.want,
			"; if the change is intended, record a new baseline with HINT")
	}
}

// TestGateGrowthOldBaseline: a baseline written before the digests were
// recorded gates as before on the same revision, and on another revision
// is refused with the fix.
func TestGateGrowthOldBaseline(t *testing.T) {
	rep := growRun(t, growFolder(nil), BenchmarkEntry{}, goldArm("gold"))
	strip := func(rows bool) func(*results.Bundle) {
		return func(b *results.Bundle) {
			for i := range b.Configs {
				b.Configs[i].CorpusDigest = ""
			}
			if !rows {
				return
			}
			for i := range b.Results {
				for j := range b.Results[i].PerSampleScores {
					b.Results[i].PerSampleScores[j].QueryDigest = ""
				}
			}
		}
	}
	old := growBaseline(t, rep, strip(true))
	cur := growBaseline(t, rep, nil)
	if old.RunID == cur.RunID {
		t.Fatal("stripping the digests left the run_id")
	}

	// The same revision: the same verdicts as with a new baseline.
	again := growRun(t, growFolder(nil), BenchmarkEntry{}, halfArm())
	if got, want := messages(gateOf(again, old)), messages(gateOf(again, cur)); got != want {
		t.Errorf("an old baseline gates the same revision otherwise:\n%s\nwant\n%s", got, want)
	}
	wantGate(t, gateOf(again, old), false, "regression: ")
	if strings.Contains(messages(gateOf(again, old)), "shared queries") {
		t.Error("the same revision is reported as grown")
	}

	grown := growRun(t, growFolder(addQuery), BenchmarkEntry{}, goldArm("gold"))
	wantRefused(t, gateOf(grown, old),
		"baseline gate: base.json holds arm gold on "+old.Configs[0].Benchmark+", an earlier revision of this run's local/beir@",
		"but it records no corpus_digest (it was written by an earlier release), so the queries that did not change cannot be told apart from those that did; record a new baseline with HINT")
	wantRefused(t, gateOf(grown, growBaseline(t, rep, func(b *results.Bundle) {
		strip(true)(b)
		for i := range b.Configs {
			b.Configs[i].CorpusDigest = cur.Configs[i].CorpusDigest
		}
	})), "but it records no query_digest (it was written by an earlier release)")

	// An arm the baseline holds on no revision: as before.
	other := goldArm("other")
	wantRefused(t, gateOf(growRun(t, growFolder(addQuery), BenchmarkEntry{}, other), cur),
		"baseline gate: base.json holds no result for arm other on local/beir@")
}

// TestGateGrowthPooled: a pooled corpus grows with its rows, so a baseline
// of a JSONL file gates the file after a row is added.
func TestGateGrowthPooled(t *testing.T) {
	var rows []string
	for i, thing := range growThings {
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("q%02d", i+1), "question": "What colour is the " + thing + "?",
			"answer": "colour " + thing, "contexts": []string{"The " + thing + " is colour " + thing + ".", "Every " + thing + " was painted by hand."}})
		rows = append(rows, string(row))
	}
	file := func(rows []string) fstest.MapFS {
		return fstest.MapFS{"faq.jsonl": {Data: []byte(strings.Join(rows, "\n") + "\n")}}
	}
	base := growBaseline(t, growRun(t, file(rows), BenchmarkEntry{Path: "faq.jsonl"}, goldArm("gold")), nil)
	if base.Configs[0].HeldFixed.CorpusProvenance != lasagna.ProvenancePooledGold {
		t.Fatalf("corpus_provenance %q, want pooled_gold", base.Configs[0].HeldFixed.CorpusProvenance)
	}
	grown := append(slices.Clone(rows), `{"id": "q13", "question": "What is new?", "answer": "this", "contexts": ["A new passage."]}`)
	note := "gated on 12 shared queries (1 added, 0 changed, 0 removed since the baseline's " + base.Configs[0].Benchmark + ")"
	wantGate(t, gateOf(growRun(t, file(grown), BenchmarkEntry{Path: "faq.jsonl"}, goldArm("gold")), base), true, note)
	wantGate(t, gateOf(growRun(t, file(grown), BenchmarkEntry{Path: "faq.jsonl"}, halfArm()), base), false, "regression: ", note)
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// extraArm is goldArm's ranked list with ids of the user's own index
// ("prod-…", absent from the benchmark's corpus) ranked last.
func extraArm(name string, own bool, extra ...string) Arm {
	a := goldArm(name)
	build := a.Retriever
	a.OwnIndex = own
	a.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		r, err := build(ctx, b)
		if err != nil {
			return nil, err
		}
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			hits, err := r.Retrieve(ctx, q, k)
			for _, id := range extra {
				hits = append(hits, lasagna.Hit{ID: id, Score: 0.5})
			}
			return hits, err
		}), nil
	}
	return a
}

func TestOwnIndexArm(t *testing.T) {
	br := tinyBench(t)
	arms := []Arm{goldArm("gold"), extraArm("own", true, "prod-1", "prod-2"), extraArm("mapped", false, "prod-1")}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, arms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gold, own, mapped := rep.Cells[0], rep.Cells[1], rep.Cells[2]

	// Ids outside the corpus ranked last are non-relevant: the scores equal
	// those of the same list without them.
	for i := range own.Queries {
		g, o := gold.Queries[i], own.Queries[i]
		if !maps.Equal(g.Scores, o.Scores) {
			t.Errorf("%s: own-index scores %v, want the gold list's %v", g.Query.ID, o.Scores, g.Scores)
		}
		if o.Outside != 2 || o.Unknown != "" {
			t.Errorf("%s: Outside, Unknown = %d, %q; want 2, \"\"", o.Query.ID, o.Outside, o.Unknown)
		}
		if vs := QueryVerdicts(own, []*QueryResult{&own.Queries[i]}, nil, All()); len(vs) > 0 {
			t.Errorf("own-index query fails: %v", vs)
		}
		if vs := QueryVerdicts(mapped, []*QueryResult{&mapped.Queries[i]}, nil, All()); len(vs) != 1 || !strings.Contains(vs[0].Message, "UNKNOWN_DOC_ID") {
			t.Errorf("benchmark-corpus query verdicts = %v, want one UNKNOWN_DOC_ID failure", vs)
		}
	}

	byArm := map[string][]lasagna.Finding{}
	for _, f := range rep.Findings {
		arm := f.Where[strings.LastIndex(f.Where, "/")+1:]
		byArm[arm] = append(byArm[arm], f)
	}
	var warned bool
	for _, f := range byArm["own"] {
		if f.Blocking() {
			t.Errorf("own-index arm has a blocking finding: %s", f)
		}
		switch f.Code {
		case lasagna.OutsideCorpusIDs:
			warned = true
			if want := "7 of 7 ranked lists hold ids outside the benchmark's corpus of 6 documents (14 ids in all), scored as non-relevant: q1 (2), q2 (2)"; !strings.HasPrefix(f.Detail, want) {
				t.Errorf("OUTSIDE_CORPUS_IDS detail = %q, want it to start %q", f.Detail, want)
			}
		case lasagna.PooledGoldCorpus:
			t.Errorf("own-index arm raised %s; it did not search the pool", f.Code)
		}
	}
	if !warned {
		t.Errorf("own-index arm findings = %v, want OUTSIDE_CORPUS_IDS", byArm["own"])
	}
	var blocked bool
	for _, f := range byArm["mapped"] {
		if f.Code == lasagna.UnknownDocID && f.Blocking() {
			blocked = true
		}
		if f.Code == lasagna.OutsideCorpusIDs {
			t.Errorf("benchmark-corpus arm raised %s", f.Code)
		}
	}
	if !blocked {
		t.Errorf("benchmark-corpus arm findings = %v, want blocking UNKNOWN_DOC_ID", byArm["mapped"])
	}

	// The bundle records the arm's own corpus provenance and validates.
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	prov := map[string]lasagna.Provenance{}
	for _, c := range b.Configs {
		prov[c.Name] = c.HeldFixed.CorpusProvenance
	}
	if prov["own"] != lasagna.ProvenanceOwnIndex || prov["gold"] != lasagna.ProvenancePooledGold {
		t.Errorf("corpus_provenance = %v, want own_index for own and pooled_gold for gold", prov)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	vr := results.Validate(raw)
	for _, p := range vr.Problems {
		if p.Blocking() && p.Code != lasagna.UnknownDocID {
			t.Errorf("bundle problem: %s", p)
		}
		if p.Code == lasagna.OutsideCorpusIDs && p.Level != lasagna.LevelWarning {
			t.Errorf("OUTSIDE_CORPUS_IDS validated as %s", p.Level)
		}
	}
	if !strings.Contains(fmt.Sprint(b.Integrity.Warnings), "OUTSIDE_CORPUS_IDS at "+br.Benchmark.Name+"/own:") {
		t.Errorf("integrity.warnings = %q, want OUTSIDE_CORPUS_IDS for own", b.Integrity.Warnings)
	}
}

func TestOwnIndexFingerprintAndCheck(t *testing.T) {
	a, b := goldArm("x"), goldArm("x")
	b.OwnIndex = true
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("OwnIndex does not change the arm's fingerprint")
	}
	gen := Arm{Name: "g", Generator: lasagna.GeneratorFunc(func(context.Context, lasagna.Query, []lasagna.Document) (lasagna.Answer, error) {
		return lasagna.Answer{}, nil
	}), OwnIndex: true}
	if err := gen.Check(); err == nil || !strings.Contains(err.Error(), "OwnIndex") {
		t.Errorf("Check of an own-index arm without ranked lists = %v, want an error", err)
	}
}

func TestSweepCorpusEntry(t *testing.T) {
	fsys := fstest.MapFS{
		"eval/sweep.yaml":        {Data: []byte("benchmarks:\n  - {path: data/faq.jsonl, corpus: data/corpus.jsonl}\narms:\n  - {name: bm25, retriever: bm25}\n")},
		"eval/data/faq.jsonl":    {Data: []byte(`{"id": "q1", "question": "What is glass made of?", "answer": "sand", "expected_docs": ["glass"]}` + "\n")},
		"eval/data/corpus.jsonl": {Data: []byte(`{"_id": "glass", "text": "Glass is made of sand."}` + "\n" + `{"_id": "coin", "text": "A solidus is a coin."}` + "\n")},
	}
	sw, err := ReadSweep(fsys, "eval/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := LoadBenchmarks(fsys, sw)
	if err != nil {
		t.Fatal(err)
	}
	b := runs[0].Benchmark
	if b.Provenance != lasagna.ProvenanceProvided || len(b.Corpus) != 2 || b.Qrels["q1"]["glass"] != 1 {
		t.Errorf("provenance %q, %d documents, qrels %v; want the corpus file's 2 documents", b.Provenance, len(b.Corpus), b.Qrels)
	}
}

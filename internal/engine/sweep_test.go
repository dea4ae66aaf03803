package engine

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseSweep(t *testing.T) {
	src := `# a sweep
benchmarks:
  - {path: data/faq.jsonl, n_samples: 5}
  - {path: ../beir/scifact, name: scifact, split: dev, filters: {question_type: multihop}}
seed: 7
arms:
  - name: bm25
    retriever: bm25
    bm25: {k1: 1.2, b: 0.75}
  - name: bm25-nostem
    retriever: bm25
    bm25: {stemming: false}
    varied: [bm25_stemming]
    top_k: 10
`
	s, err := ParseSweep([]byte(src), "sweeps/main.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Benchmarks[0].Path; got != "sweeps/data/faq.jsonl" {
		t.Errorf("relative path resolved to %q, want sweeps/data/faq.jsonl", got)
	}
	if got := s.Benchmarks[1].Path; got != "beir/scifact" {
		t.Errorf("relative path resolved to %q, want beir/scifact", got)
	}
	if s.Benchmarks[1].Pos.String() != "sweeps/main.yaml:4" || s.Arms[1].Pos.String() != "sweeps/main.yaml:10" {
		t.Errorf("positions = %v, %v", s.Benchmarks[1].Pos, s.Arms[1].Pos)
	}
	if s.Benchmarks[1].Filters["question_type"] != "multihop" || s.Benchmarks[1].Split != "dev" || s.Benchmarks[1].Name != "scifact" {
		t.Errorf("entry = %+v", s.Benchmarks[1])
	}
	if s.EntrySeed(s.Benchmarks[0]) != 7 || s.ArmTopK(s.Arms[0]) != 100 || s.ArmTopK(s.Arms[1]) != 10 {
		t.Errorf("defaults: seed %d, top_k %d/%d", s.EntrySeed(s.Benchmarks[0]), s.ArmTopK(s.Arms[0]), s.ArmTopK(s.Arms[1]))
	}
	if s.Arms[0].BM25.K1 != 1.2 || !s.Arms[0].BM25.StemmingOn() || s.Arms[1].BM25.StemmingOn() {
		t.Errorf("bm25 settings = %+v / %+v", s.Arms[0].BM25, s.Arms[1].BM25)
	}
}

func TestParseSweepErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"unknown top-level key", "benchmarks: [{path: a.jsonl}]\narms: [{name: a, retriever: bm25}]\nsed: 3\n",
			[]string{`s.yaml:3: unknown key "sed" in the sweep (did you mean "seed"?)`}},
		{"unknown entry key", "benchmarks:\n  - {path: a.jsonl, n_sample: 3}\narms: [{name: a, retriever: bm25}]\n",
			[]string{`s.yaml:2: unknown key "n_sample" in a benchmark entry (did you mean "n_samples"?)`}},
		{"unknown nested key", "benchmarks: [{path: a.jsonl}]\narms:\n  - name: a\n    retriever: bm25\n    bm25: {k: 1}\n",
			[]string{`s.yaml:5: unknown key "k" in bm25`}},
		{"bad retriever", "benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm52}\n",
			[]string{`s.yaml:3: arm "a": retriever "bm52" is not one of bm25, dense, hybrid, weaviate-bm25, weaviate-hybrid (did you mean "bm25"?)`}},
		{"duplicate arm", "benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm25}\n  - {name: a, retriever: bm25}\n",
			[]string{`s.yaml:4: arm name "a" is used twice`}},
		{"no arms", "benchmarks: [{path: a.jsonl}]\n", []string{"the sweep lists no arms"}},
		{"entry without path", "benchmarks: [{n_samples: 3}]\narms: [{name: a, retriever: bm25}]\n",
			[]string{"s.yaml:1: a benchmark entry needs a path"}},
		{"wrong type", "benchmarks: [{path: a.jsonl, n_samples: many}]\narms: [{name: a, retriever: bm25}]\n",
			[]string{"s.yaml: line 1: cannot unmarshal !!str `many` into int"}},
		{"dense without model", "benchmarks: [{path: a.jsonl}]\narms: [{name: d, retriever: dense}]\n",
			[]string{`arm "d": retriever dense needs embedder: {model: …}`}},
		{"syntax", "benchmarks: [\n", []string{"s.yaml: "}},
		{"bad analyzer", "benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm25, bm25: {analyzer: lucene9}}\n",
			[]string{`s.yaml:3: arm "a": bm25: analyzer "lucene9" is not one of default, lucene`}},
		{"bad norms", "benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm25, bm25: {norms: byte}}\n",
			[]string{`s.yaml:3: arm "a": bm25: norms "byte" is not one of exact, lucene`}},
		{"misspelt analyzer key", "benchmarks: [{path: a.jsonl}]\narms:\n  - name: a\n    retriever: bm25\n    bm25: {analyser: lucene}\n",
			[]string{`s.yaml:5: unknown key "analyser" in bm25 (did you mean "analyzer"?)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSweep([]byte(c.src), "s.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestReadSweepFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"exp/sweep.yml":     {Data: []byte("benchmarks: [{path: tiny.jsonl}]\narms: [{name: bm25, retriever: bm25}]\n")},
		"exp/tiny.jsonl":    {Data: tinyJSONL},
		"exp/notes/x.jsonl": {Data: []byte("{}\n")},
	}
	s, err := ReadSweep(fsys, "exp/sweep.yml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := LoadBenchmarks(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(runs[0].Benchmark.Name, "local/tiny@") {
		t.Errorf("name = %q", runs[0].Benchmark.Name)
	}
	if _, err := ReadSweep(fsys, "exp/missing.yml"); err == nil {
		t.Error("missing sweep file: no error")
	}
}

func TestLookupProfile(t *testing.T) {
	p, err := LookupProfile("speed")
	if err != nil || p.NeedsEmbeddings || p.Arms("")[0].Retriever != RetrieverBM25 {
		t.Errorf("speed = %+v, %v", p, err)
	}
	if _, err := LookupProfile("sped"); err == nil || !strings.Contains(err.Error(), `did you mean "speed"?`) {
		t.Errorf("sped: %v", err)
	}
	for _, name := range []string{"full", "closed-book"} {
		if p, err := LookupProfile(name); err != nil || !p.NeedsLLM || p.Arms("m")[0].Generator == nil || p.Arms("m")[0].Judge == nil {
			t.Errorf("%s = %+v, %v", name, p, err)
		}
	}
}

func TestProfileSweep(t *testing.T) {
	e := BenchmarkEntry{Path: "faq.jsonl", Split: "dev"}
	s, err := ProfileSweep("", "emb", e)
	if err != nil || len(s.Benchmarks) != 1 || s.Benchmarks[0].Path != e.Path || s.Benchmarks[0].Split != "dev" || len(s.Arms) != 1 || s.Arms[0].Retriever != RetrieverBM25 {
		t.Errorf("default profile: %+v, %v", s, err)
	}
	if s, err := ProfileSweep("dense", "emb", e); err != nil || s.Arms[0].Embedder.Model != "emb" {
		t.Errorf("dense: %+v, %v", s, err)
	}
	if _, err := ProfileSweep("sped", "", e); err == nil || !strings.Contains(err.Error(), `unknown profile "sped"`) {
		t.Errorf("sped: %v", err)
	}
}

// TestSweepSetters: each Set method overrides the sweep-wide setting and
// every entry's or arm's own, as the CLI's flags do.
func TestSweepSetters(t *testing.T) {
	shared := &JudgeSpec{Model: "judge-a"}
	s := &Sweep{
		Benchmarks: []BenchmarkEntry{{Path: "a.jsonl", NSamples: 5, Seed: 3}, {Path: "b.jsonl"}},
		Seed:       7,
		TopK:       20,
		Judge:      shared,
		Arms: []ArmSpec{
			{Name: "x", TopK: 10, Judge: shared, Repeats: 3, Pass: "any"},
			{Name: "y"},
		},
	}
	s.SetNSamples(9)
	s.SetSeed(11)
	s.SetTopK(50)
	s.SetJudgeModel("judge-b")
	s.SetRepeats(4)
	s.SetPass("majority")
	for _, e := range s.Benchmarks {
		if e.NSamples != 9 || s.EntrySeed(e) != 11 {
			t.Errorf("entry %s: n_samples %d, seed %d; want 9 and 11", e.Path, e.NSamples, s.EntrySeed(e))
		}
	}
	for _, a := range s.Arms {
		if s.ArmTopK(a) != 50 || a.Repeats != 0 || a.Pass != "" {
			t.Errorf("arm %s: top_k %d, own repeats %d, own pass %q; want 50, 0, \"\"", a.Name, s.ArmTopK(a), a.Repeats, a.Pass)
		}
	}
	if s.Repeats != 4 || s.Pass != "majority" {
		t.Errorf("sweep repeats %d, pass %q; want 4, majority", s.Repeats, s.Pass)
	}
	if s.Judge.Model != "judge-b" || s.Arms[0].Judge.Model != "judge-b" || s.Arms[1].Judge != nil {
		t.Errorf("judges: sweep %+v, arms %+v, %+v", s.Judge, s.Arms[0].Judge, s.Arms[1].Judge)
	}
	if shared.Model != "judge-a" {
		t.Errorf("SetJudgeModel changed the shared JudgeSpec: %+v", shared)
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// tinyJSONL (testdata/tiny.jsonl, shared with engine/llmarms' tests) has 6
// answerable rows (d1..d6 named by expected_docs; q5 and q6 share d5) and one
// unanswerable row.
var tinyJSONL = mustRead("testdata/tiny.jsonl")

// mustRead returns the bytes of a test file, or panics.
func mustRead(name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return data
}

func tinyBench(t testing.TB) *BenchmarkRun {
	t.Helper()
	fsys := fstest.MapFS{"tiny.jsonl": {Data: tinyJSONL}}
	runs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "tiny.jsonl"}}, Arms: []ArmSpec{{Name: "x", Retriever: "bm25"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// goldArm returns an arm whose ranked list is the query's relevant
// documents, then the others; fail names queries that error.
func goldArm(name string, fail ...string) Arm {
	return Arm{Name: name, TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			if slices.Contains(fail, q.ID) {
				return nil, fmt.Errorf("backend timeout for %s", q.ID)
			}
			rel := b.Qrels.Relevant(q.ID)
			hits := []lasagna.Hit{}
			for i, id := range rel {
				hits = append(hits, lasagna.Hit{ID: id, Score: float64(100 - i)})
			}
			for _, d := range b.Corpus {
				if !slices.Contains(rel, d.ID) {
					hits = append(hits, lasagna.Hit{ID: d.ID, Score: 1})
				}
			}
			return hits, nil
		}), nil
	}}
}

func findingCodes(fs []lasagna.Finding) []lasagna.Code {
	var out []lasagna.Code
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

func TestRunPerfectArm(t *testing.T) {
	br := tinyBench(t)
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{goldArm("gold")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Cells[0]
	if len(c.Queries) != 7 {
		t.Fatalf("ran %d queries, want 7", len(c.Queries))
	}
	for _, r := range c.Queries {
		if r.Query.ID == "q7" {
			if r.Scores != nil {
				t.Errorf("unanswerable q7 has no judgements but got scores %v", r.Scores)
			}
			continue
		}
		if r.Scores["ndcg@10"] != 1 || r.Scores["recall@10"] != 1 || r.Scores["mrr@10"] != 1 {
			t.Errorf("%s: perfect ranking scored %v", r.Query.ID, r.Scores)
		}
	}
	if got := findingCodes(rep.Findings); !slices.Equal(got, []lasagna.Code{lasagna.PooledGoldCorpus, lasagna.SmallSample}) {
		t.Errorf("findings = %v, want POOLED_GOLD_CORPUS, SMALL_SAMPLE", got)
	}
	b, _ := validBundle(t, rep)
	res := b.Results[0]
	if res.Metrics["ndcg@10"] != 1 || res.MetricStats["ndcg@10"].N != 6 {
		t.Errorf("ndcg@10 = %v over n = %d, want 1 over 6", res.Metrics["ndcg@10"], res.MetricStats["ndcg@10"].N)
	}
	hf := b.Configs[0].HeldFixed
	if hf.CorpusProvenance != lasagna.ProvenancePooledGold || hf.ResolvedMode != lasagna.ModeRetrieval || *hf.RetrieverTopK != 10 {
		t.Errorf("held_fixed = %+v", hf)
	}
	if !b.Experiment.NothingSamples {
		t.Error("a retrieval-only run must have nothing_samples true")
	}
}

func TestRunFailuresAreErrorsNotZeros(t *testing.T) {
	br := tinyBench(t)
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{goldArm("flaky", "q2", "q4")}, Options{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, row := range b.Results[0].PerSampleScores {
		if row.Error != "" {
			failed = append(failed, row.QueryID)
			if row.Scores != nil || row.RetrievedIDs != nil {
				t.Errorf("failed %s carries scores %v / hits %v", row.QueryID, row.Scores, row.RetrievedIDs)
			}
		}
	}
	if !slices.Equal(failed, []string{"q2", "q4"}) {
		t.Errorf("failed rows = %v, want q2, q4", failed)
	}
	if n := b.Results[0].MetricStats["ndcg@10"].N; n != 4 {
		t.Errorf("ndcg@10 averaged over %d queries, want 4 (failed ones are not zeros)", n)
	}
	if len(b.Integrity.Blocking) != 1 || !strings.HasPrefix(b.Integrity.Blocking[0].String(), "PIPELINE_ERRORS at local/tiny@") ||
		!strings.Contains(b.Integrity.Blocking[0].String(), "2 of 7 queries failed: q2, q4; first error: backend timeout for q2") {
		t.Errorf("blocking = %q", b.Integrity.Blocking)
	}
}

func TestRunIntegrityOfRankedLists(t *testing.T) {
	br := tinyBench(t)
	bad := Arm{Name: "bad", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			switch q.ID {
			case "q1":
				return []lasagna.Hit{{ID: "d1", Score: 2}, {ID: "d1", Score: 1}}, nil
			case "q2":
				return []lasagna.Hit{{ID: "nope", Score: 2}}, nil
			case "q3":
				panic("index out of range")
			case "q4":
				return []lasagna.Hit{{ID: "d2", Score: 1}, {ID: "d1", Score: 1}, {ID: "d3", Score: 3}}, nil
			}
			return nil, nil
		}), nil
	}}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{bad}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[lasagna.Code]string{}
	for _, f := range rep.Findings {
		got[f.Code] = f.Detail
	}
	if !strings.Contains(got[lasagna.DuplicateRetrievedID], "q1 (d1)") {
		t.Errorf("DUPLICATE_RETRIEVED_ID detail = %q", got[lasagna.DuplicateRetrievedID])
	}
	if !strings.Contains(got[lasagna.UnknownDocID], `q2 ("nope")`) {
		t.Errorf("UNKNOWN_DOC_ID detail = %q", got[lasagna.UnknownDocID])
	}
	if !strings.Contains(got[lasagna.PipelineErrors], "q3; first error: pipeline panicked: index out of range") {
		t.Errorf("PIPELINE_ERRORS detail = %q", got[lasagna.PipelineErrors])
	}
	if !strings.Contains(got[lasagna.ScoresOutOfOrder], "1 ranked lists have a hit scored higher than the hit above it, scored in the order returned: q4 (rank 3)") {
		t.Errorf("SCORES_OUT_OF_ORDER detail = %q", got[lasagna.ScoresOutOfOrder])
	}
	if rep.Cells[0].Queries[0].Scores != nil {
		t.Errorf("a list with a duplicate id was scored: %v", rep.Cells[0].Queries[0].Scores)
	}
	// The bundle lists the warning, so its rising list is no forgery.
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range results.Validate(raw).Problems {
		if p.Code == lasagna.InconsistentBundle {
			t.Errorf("the engine's bundle is inconsistent: %s", p)
		}
	}
}

func TestRunRefusesTrackBeforeBuilding(t *testing.T) {
	fsys := fstest.MapFS{"qa.jsonl": {Data: []byte(`{"question": "Who?", "answer": "Me"}` + "\n")}}
	runs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "qa.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	built := false
	arm := Arm{Name: "bm25", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		built = true
		return nil, errors.New("unreachable")
	}}
	_, err = Run(t.Context(), runs, []Arm{arm}, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot run the retrieval track") {
		t.Fatalf("err = %v, want a refusal of the retrieval track", err)
	}
	if built {
		t.Error("the arm was built before the refusal")
	}
}

func TestRunBuildErrorIsMissingResults(t *testing.T) {
	br := tinyBench(t)
	arm := Arm{Name: "broken", TopK: 10, Retriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		return nil, errors.New("index server unreachable")
	}}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := findingCodes(rep.Findings); !slices.Contains(got, lasagna.MissingResults) {
		t.Errorf("findings = %v, want MISSING_RESULTS", got)
	}
}

func TestShardsPartitionQueries(t *testing.T) {
	br := tinyBench(t)
	var all []string
	for i := 1; i <= 3; i++ {
		for _, q := range (Shard{Index: i, Count: 3}).Select(br.Benchmark) {
			all = append(all, q.ID)
		}
	}
	slices.Sort(all)
	if want := []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7"}; !slices.Equal(all, want) {
		t.Errorf("shards 1..3 hold %v, want each query once", all)
	}
}

func TestBuiltinBM25Arm(t *testing.T) {
	br := tinyBench(t)
	arm, err := BuiltinArm(ArmSpec{Name: "bm25", Retriever: RetrieverBM25}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{Progress: func(done, total int) { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 7 {
		t.Errorf("progress called %d times, want 7", calls.Load())
	}
	// Each question shares distinctive words with its own passage only.
	for _, r := range rep.Cells[0].Queries {
		if r.Query.ID == "q7" {
			continue
		}
		if r.Scores["hit@1"] != 1 {
			t.Errorf("%s: bm25 top hit %v is not its gold passage", r.Query.ID, r.Output.Hits[:1])
		}
		// BM25 ranks as trec_eval would rank its scores (ties by id
		// descending), so an exported run scores the same under trec_eval.
		scored := make([]metrics.Scored, len(r.Output.Hits))
		for i, h := range r.Output.Hits {
			scored[i] = metrics.Scored{ID: h.ID, Score: h.Score}
		}
		if !slices.IsSortedFunc(scored, metrics.CompareTREC) {
			t.Errorf("%s: bm25 list is not in trec_eval order: %v", r.Query.ID, r.Output.Hits)
		}
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hf := b.Configs[0].HeldFixed
	if hf.BM25Stemming == nil || !*hf.BM25Stemming || hf.FixedStages["retriever"] != "bm25 k1=0.9 b=0.4 stemming=true stopwords=english" {
		t.Errorf("held_fixed stage settings = %v, %v", hf.BM25Stemming, hf.FixedStages)
	}
	ix, err := bm25.Build(br.Benchmark.Corpus, bm25.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	st := ix.Stats()
	if cs := b.Configs[0].CorpusStats; cs == nil || *cs != (results.CorpusStats{Documents: st.Documents, UniqueTerms: st.UniqueTerms, TotalTerms: st.TotalTerms}) || cs.TotalTerms == 0 {
		t.Errorf("corpus_stats = %+v, want the index's %+v", cs, st)
	}
}

// TestBuiltinBM25LuceneArm runs a sweep arm with bm25: {analyzer: lucene,
// norms: lucene}: the fixed stage names both, the bundle records the
// corpus statistics of the Lucene analysis, and a resumed run (which
// builds nothing) records the same statistics from the journal.
func TestBuiltinBM25LuceneArm(t *testing.T) {
	s, err := ParseSweep([]byte("benchmarks: [{path: a.jsonl}]\narms:\n  - {name: lucene, retriever: bm25, bm25: {analyzer: lucene, norms: lucene}}\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arm, err := BuiltinArm(s.Arms[0], 100)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := arm.Stages[lasagna.StageRetriever], "bm25 k1=0.9 b=0.4 analyzer=lucene stemming=true stopwords=english norms=lucene"; got != want {
		t.Errorf("retriever stage %q, want %q", got, want)
	}
	br := tinyBench(t)
	ix, err := bm25.Build(br.Benchmark.Corpus, bm25.Options{Analyzer: bm25.AnalyzerLucene, Stemming: true, Norms: bm25.NormsLucene})
	if err != nil {
		t.Fatal(err)
	}
	st := ix.Stats()
	want := results.CorpusStats{Documents: st.Documents, UniqueTerms: st.UniqueTerms, TotalTerms: st.TotalTerms}
	dir := t.TempDir()
	for run := range 2 {
		rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{JournalDir: dir, Resume: run == 1})
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && rep.Cells[0].Resumed != len(rep.Cells[0].Queries) {
			t.Fatalf("second run resumed %d of %d queries; want all", rep.Cells[0].Resumed, len(rep.Cells[0].Queries))
		}
		b, err := rep.Bundle(BundleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cs := b.Configs[0].CorpusStats; cs == nil || *cs != want {
			t.Errorf("run %d: corpus_stats = %+v, want %+v", run+1, cs, want)
		}
		if got := b.Configs[0].HeldFixed.FixedStages["retriever"]; got != arm.Stages[lasagna.StageRetriever] {
			t.Errorf("run %d: fixed_stages.retriever = %q", run+1, got)
		}
	}
}

// validBundle returns the report's bundle and its JSON, failing the test
// where the bundle does not validate.
func validBundle(t *testing.T, rep *Report) (*results.Bundle, []byte) {
	t.Helper()
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if r := results.Validate(raw); r.Blocking() > 0 {
		t.Fatalf("the bundle fails validation: %v", r.Problems)
	}
	return b, raw
}

// TestBuiltinBM25Ties: bm25: {ties: anserini} names the rule in the fixed
// retriever stage (so arms with different tie rules compare only when the
// retriever is varied), ties: trec_eval is the default stage unchanged, and
// a misspelt rule is refused with a hint.
func TestBuiltinBM25Ties(t *testing.T) {
	for _, c := range []struct{ ties, want string }{
		{"anserini", "bm25 k1=0.9 b=0.4 analyzer=lucene stemming=true stopwords=english norms=lucene ties=anserini"},
		{"trec_eval", "bm25 k1=0.9 b=0.4 analyzer=lucene stemming=true stopwords=english norms=lucene"},
	} {
		s, err := ParseSweep([]byte("benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm25, bm25: {analyzer: lucene, norms: lucene, ties: "+c.ties+"}}\n"), "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		arm, err := BuiltinArm(s.Arms[0], 100)
		if err != nil {
			t.Fatal(err)
		}
		if got := arm.Stages[lasagna.StageRetriever]; got != c.want {
			t.Errorf("ties %s: retriever stage %q, want %q", c.ties, got, c.want)
		}
	}
	_, err := ParseSweep([]byte("benchmarks: [{path: a.jsonl}]\narms:\n  - {name: a, retriever: bm25, bm25: {ties: anserni}}\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), `ties "anserni" is not one of trec_eval, anserini`) || !strings.Contains(err.Error(), "anserini") {
		t.Errorf("ties: anserni: error %v", err)
	}
}

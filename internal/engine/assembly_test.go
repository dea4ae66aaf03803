package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// The assembly of arms from components (Arm.Build), with fakes: no LLM.

// recorder is a fake generator that answers each question with its first
// reference answer (abstaining when there is none) and records the passages
// it was given, by query id.
type recorder struct {
	mu    sync.Mutex
	seen  map[string][]lasagna.Document
	calls int
}

func newRecorder() *recorder { return &recorder{seen: map[string][]lasagna.Document{}} }

func (r *recorder) generator() lasagna.Generator {
	return lasagna.GeneratorFunc(func(ctx context.Context, q lasagna.Query, ps []lasagna.Document) (lasagna.Answer, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls++
		r.seen[q.ID] = slices.Clone(ps)
		if len(q.Answers) == 0 {
			return lasagna.Answer{Abstained: true}, nil
		}
		return lasagna.Answer{Text: q.Answers[0]}, nil
	})
}

// reversedRetriever retrieves the whole corpus in reverse order, so the rank
// order differs from the corpus order.
func reversedRetriever(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
	return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		hits := make([]lasagna.Hit, 0, len(b.Corpus))
		for i := len(b.Corpus) - 1; i >= 0; i-- {
			hits = append(hits, lasagna.Hit{ID: b.Corpus[i].ID, Score: float64(i + 1)})
		}
		return hits, nil
	}), nil
}

func docIDs(ds []lasagna.Document) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func hitIDs(hs []lasagna.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func TestRAGArmGeneratorSeesFirstPassages(t *testing.T) {
	br := tinyBench(t)
	corpus := br.Benchmark.Corpus
	var ranked []string // the reversed retriever's ranking
	for i := len(corpus) - 1; i >= 0; i-- {
		ranked = append(ranked, corpus[i].ID)
	}
	text := map[string]string{}
	for _, d := range corpus {
		text[d.ID] = d.Text
	}
	if len(ranked) <= DefaultPassages {
		t.Fatalf("the benchmark has %d documents; the test needs more than %d", len(ranked), DefaultPassages)
	}
	for _, c := range []struct{ passages, want int }{
		{0, DefaultPassages}, // the default
		{2, 2},
		{100, len(ranked)}, // more than were retrieved: all of them
	} {
		t.Run(fmt.Sprintf("passages=%d", c.passages), func(t *testing.T) {
			rec := newRecorder()
			arm := Arm{Name: "rag", TopK: 10, Retriever: reversedRetriever, Generator: rec.generator(), Passages: c.passages}
			if arm.ResolvedMode() != lasagna.ModeRAG || !arm.Retrieves() || !arm.Answers() ||
				!slices.Equal(arm.Tracks(), []lasagna.Track{lasagna.TrackRetrieval}) {
				t.Errorf("mode %s, retrieves %v, answers %v, tracks %v", arm.ResolvedMode(), arm.Retrieves(), arm.Answers(), arm.Tracks())
			}
			rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rec.calls != len(br.Benchmark.Queries) {
				t.Errorf("the generator was called %d times, want once per query (%d)", rec.calls, len(br.Benchmark.Queries))
			}
			for _, r := range rep.Cells[0].Queries {
				id := r.Query.ID
				if r.Err != nil {
					t.Fatalf("%s: %v", id, r.Err)
				}
				seen := rec.seen[id]
				if got := docIDs(seen); !slices.Equal(got, ranked[:c.want]) {
					t.Errorf("%s: the generator saw %v, want the first %d hits in rank order %v", id, got, c.want, ranked[:c.want])
				}
				var texts []string
				for _, d := range seen {
					if d.Text != text[d.ID] {
						t.Errorf("%s: passage %s has text %q, want the corpus document's %q", id, d.ID, d.Text, text[d.ID])
					}
					texts = append(texts, d.Text)
				}
				if !slices.Equal(r.Output.Passages, texts) {
					t.Errorf("%s: output passages %q, want the texts the generator saw %q", id, r.Output.Passages, texts)
				}
				if got := hitIDs(r.Output.Hits); !slices.Equal(got, ranked) {
					t.Errorf("%s: the output keeps hits %v, want every retrieved hit %v", id, got, ranked)
				}
				if !r.Output.Answered {
					t.Errorf("%s: not answered: %+v", id, r.Output)
				}
				if _, ok := r.Scores["ndcg@10"]; !ok && id != "q7" {
					t.Errorf("%s: no retrieval scores: %v", id, r.Scores)
				}
				if r.Scores["exact_match"] != 1 {
					t.Errorf("%s: exact_match = %v, want 1 (the fake answers with the reference)", id, r.Scores["exact_match"])
				}
			}
			b, err := rep.Bundle(BundleOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if hf := b.Configs[0].HeldFixed; hf.ResolvedMode != lasagna.ModeRAG || hf.RetrieverTopK == nil || *hf.RetrieverTopK != 10 {
				t.Errorf("held_fixed resolved_mode %q, retriever_top_k %v", hf.ResolvedMode, hf.RetrieverTopK)
			}
			if row := b.Results[0].PerSampleScores[0]; !slices.Equal(row.RetrievedIDs, ranked) || row.Answer == nil {
				t.Errorf("bundle row %s: retrieved %v, answer %v", row.QueryID, row.RetrievedIDs, row.Answer)
			}
		})
	}
}

// A RAG arm whose retriever fails keeps the error as the query's, and the
// generator is not called.
func TestRAGArmRetrieverError(t *testing.T) {
	rec := newRecorder()
	arm := goldArm("rag", "q2")
	arm.Generator = rec.generator()
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, []Arm{arm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Cells[0].Queries[1]
	if r.Query.ID != "q2" || r.Err == nil || !strings.Contains(r.Err.Error(), "backend timeout for q2") || r.Scores != nil {
		t.Errorf("q2 = %+v", r)
	}
	if _, called := rec.seen["q2"]; called {
		t.Error("the generator answered a query whose retrieval failed")
	}
}

func TestGeneratorArmSeesGoldContexts(t *testing.T) {
	br := tinyBench(t)
	rec := newRecorder()
	arm := Arm{Name: "gold", Generator: rec.generator()}
	if arm.ResolvedMode() != lasagna.ModeGeneration || arm.Retrieves() || !arm.Answers() ||
		!slices.Equal(arm.Tracks(), []lasagna.Track{lasagna.TrackGeneration}) {
		t.Errorf("mode %s, retrieves %v, answers %v, tracks %v", arm.ResolvedMode(), arm.Retrieves(), arm.Answers(), arm.Tracks())
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Cells[0].Queries {
		seen, ok := rec.seen[r.Query.ID]
		if !ok {
			t.Errorf("%s: the generator was not called", r.Query.ID)
			continue
		}
		var texts []string
		for i, d := range seen {
			if want := fmt.Sprintf("context-%d", i+1); d.ID != want {
				t.Errorf("%s: passage %d has id %q, want %q", r.Query.ID, i, d.ID, want)
			}
			texts = append(texts, d.Text)
		}
		if len(r.Query.Contexts) == 0 || !slices.Equal(texts, r.Query.Contexts) {
			t.Errorf("%s: the generator saw %q, want the row's gold contexts %q", r.Query.ID, texts, r.Query.Contexts)
		}
		if !slices.Equal(r.Output.Passages, r.Query.Contexts) || r.Output.Hits != nil || !r.Output.Answered {
			t.Errorf("%s: output %+v", r.Query.ID, r.Output)
		}
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hf := b.Configs[0].HeldFixed; hf.ResolvedMode != lasagna.ModeGeneration || hf.RetrieverTopK != nil {
		t.Errorf("held_fixed resolved_mode %q, retriever_top_k %v", hf.ResolvedMode, hf.RetrieverTopK)
	}
	if row := b.Results[0].PerSampleScores[0]; row.RetrievedIDs != nil {
		t.Errorf("a generation arm wrote retrieved ids %v", row.RetrievedIDs)
	}
}

func TestClosedBookArmSeesNoPassages(t *testing.T) {
	br := tinyBench(t) // has gold contexts, which a closed-book arm must not see
	rec := newRecorder()
	arm := Arm{Name: "cb", Generator: rec.generator(), Mode: lasagna.ModeClosedBook}
	if arm.ResolvedMode() != lasagna.ModeClosedBook || arm.Retrieves() || !arm.Answers() ||
		!slices.Equal(arm.Tracks(), []lasagna.Track{lasagna.TrackClosedBook}) {
		t.Errorf("mode %s, retrieves %v, answers %v, tracks %v", arm.ResolvedMode(), arm.Retrieves(), arm.Answers(), arm.Tracks())
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.calls != len(br.Benchmark.Queries) {
		t.Errorf("the generator was called %d times, want %d", rec.calls, len(br.Benchmark.Queries))
	}
	for _, r := range rep.Cells[0].Queries {
		if seen := rec.seen[r.Query.ID]; len(seen) != 0 {
			t.Errorf("%s: a closed-book generator saw passages %v", r.Query.ID, docIDs(seen))
		}
		if r.Output.Passages != nil || r.Output.Hits != nil || !r.Output.Answered || r.Scores["exact_match"] != 1 {
			t.Errorf("%s: output %+v, scores %v", r.Query.ID, r.Output, r.Scores)
		}
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hf := b.Configs[0].HeldFixed; hf.ResolvedMode != lasagna.ModeClosedBook || hf.RetrieverTopK != nil {
		t.Errorf("held_fixed resolved_mode %q, retriever_top_k %v", hf.ResolvedMode, hf.RetrieverTopK)
	}
}

// A Generator-only arm needs gold contexts: refused on answers-only data
// before the generator is called; a closed-book arm runs there.
func TestGeneratorArmTracks(t *testing.T) {
	fsys := fstest.MapFS{"qa.jsonl": {Data: []byte(`{"id": "q1", "question": "Who?", "answer": "Me"}` + "\n")}}
	runs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "qa.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	_, err = Run(t.Context(), runs, []Arm{{Name: "gold", Generator: rec.generator()}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "generation") {
		t.Errorf("a generation arm on answers-only data: %v", err)
	}
	if rec.calls != 0 {
		t.Errorf("the generator was called %d times before the refusal", rec.calls)
	}
	rep, err := Run(t.Context(), runs, []Arm{{Name: "cb", Generator: rec.generator(), Mode: lasagna.ModeClosedBook}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Cells[0].Queries[0]; r.Err != nil || r.Scores["exact_match"] != 1 {
		t.Errorf("closed-book on answers-only data: %+v", r)
	}
}

func TestArmCheck(t *testing.T) {
	retr := reversedRetriever
	gen := newRecorder().generator()
	pipe := func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		return lasagna.PipelineFunc(func(context.Context, lasagna.Query) (lasagna.Output, error) { return lasagna.Output{}, nil }), nil
	}
	j := &fakeJudge{model: "judge-m"}
	const twoWays = "set exactly one of Retriever (optionally with Generator), Generator or Pipeline"
	for _, c := range []struct {
		name string
		arm  Arm
		want string // "" for a valid arm
		mode lasagna.Mode
	}{
		{"no name", Arm{Retriever: retr}, "an arm needs a name", ""},
		{"no way", Arm{Name: "a"}, "arm a: " + twoWays, ""},
		{"no way but a mode", Arm{Name: "a", Mode: lasagna.ModeRAG}, twoWays, ""},
		{"retriever and pipeline", Arm{Name: "a", Retriever: retr, Pipeline: pipe}, twoWays, ""},
		{"generator and pipeline", Arm{Name: "a", Generator: gen, Pipeline: pipe}, twoWays, ""},
		{"all three", Arm{Name: "a", Retriever: retr, Generator: gen, Pipeline: pipe}, twoWays, ""},
		{"judge on a retriever", Arm{Name: "a", Retriever: retr, Judge: j}, "arm a: a Judge scores answers, and this arm returns none", ""},
		{"judge on a retrieval pipeline", Arm{Name: "a", Pipeline: pipe, Mode: lasagna.ModeRetrieval, Judge: j}, "a Judge scores answers", ""},
		{"unknown pipeline mode", Arm{Name: "a", Pipeline: pipe, Mode: "ragg"}, `arm a: Mode "ragg" is not one of retrieval, generation, rag`, ""},
		{"retriever with a mode", Arm{Name: "a", Retriever: retr, Mode: lasagna.ModeGeneration}, "a Retriever arm's mode is retrieval; leave Mode empty", ""},
		{"closed-book rag", Arm{Name: "a", Retriever: retr, Generator: gen, Mode: lasagna.ModeClosedBook}, "a Retriever arm's mode is rag; leave Mode empty", ""},
		{"generator in rag mode", Arm{Name: "a", Generator: gen, Mode: lasagna.ModeRAG}, `a Generator arm's Mode is generation (gold contexts) or closed_book, not "rag"`, ""},
		{"generator in an unknown mode", Arm{Name: "a", Generator: gen, Mode: "closedbook"}, `not "closedbook"`, ""},
		{"negative depth", Arm{Name: "a", Retriever: retr, TopK: -1}, "TopK is -1", ""},
		{"negative passages", Arm{Name: "a", Retriever: retr, Generator: gen, Passages: -2}, "Passages is -2", ""},

		{"retriever", Arm{Name: "a", Retriever: retr}, "", lasagna.ModeRetrieval},
		{"retriever, mode stated", Arm{Name: "a", Retriever: retr, Mode: lasagna.ModeRetrieval}, "", lasagna.ModeRetrieval},
		{"rag", Arm{Name: "a", Retriever: retr, Generator: gen, Judge: j}, "", lasagna.ModeRAG},
		{"rag, mode stated", Arm{Name: "a", Retriever: retr, Generator: gen, Mode: lasagna.ModeRAG}, "", lasagna.ModeRAG},
		{"generator", Arm{Name: "a", Generator: gen, Judge: j}, "", lasagna.ModeGeneration},
		{"generator, mode stated", Arm{Name: "a", Generator: gen, Mode: lasagna.ModeGeneration}, "", lasagna.ModeGeneration},
		{"closed book", Arm{Name: "a", Generator: gen, Mode: lasagna.ModeClosedBook, Judge: j}, "", lasagna.ModeClosedBook},
		{"pipeline", Arm{Name: "a", Pipeline: pipe}, "", lasagna.ModeRAG},
		{"retrieval pipeline", Arm{Name: "a", Pipeline: pipe, Mode: lasagna.ModeRetrieval}, "", lasagna.ModeRetrieval},
		{"generation pipeline", Arm{Name: "a", Pipeline: pipe, Mode: lasagna.ModeGeneration, Judge: j}, "", lasagna.ModeGeneration},
		{"closed-book pipeline", Arm{Name: "a", Pipeline: pipe, Mode: lasagna.ModeClosedBook, Judge: j}, "", lasagna.ModeClosedBook},
	} {
		err := c.arm.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want a valid arm", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if c.want == "" && c.arm.ResolvedMode() != c.mode {
			t.Errorf("%s: resolved mode %q, want %q", c.name, c.arm.ResolvedMode(), c.mode)
		}
		if c.want == "" {
			continue
		}
		// Run and Build refuse the arm before building anything.
		if _, err := c.arm.Build(t.Context(), tinyBench(t).Benchmark); err == nil {
			t.Errorf("%s: Build accepted the arm", c.name)
		}
		if _, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, []Arm{c.arm}, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Run error %v, want %q", c.name, err, c.want)
		}
	}
}

// Build reports a component that returns nothing instead of panicking on
// the first query.
func TestArmBuildNilComponents(t *testing.T) {
	b := tinyBench(t).Benchmark
	nilRetriever := Arm{Name: "r", Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) { return nil, nil }}
	if _, err := nilRetriever.Build(t.Context(), b); err == nil || !strings.Contains(err.Error(), "nil retriever") {
		t.Errorf("nil retriever: %v", err)
	}
	nilPipeline := Arm{Name: "p", Pipeline: func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) { return nil, nil }}
	if _, err := nilPipeline.Build(t.Context(), b); err == nil || !strings.Contains(err.Error(), "nil pipeline") {
		t.Errorf("nil pipeline: %v", err)
	}
	failing := Arm{Name: "f", Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) {
		return nil, errors.New("index server unreachable")
	}, Generator: newRecorder().generator()}
	if _, err := failing.Build(t.Context(), b); err == nil || !strings.Contains(err.Error(), "index server unreachable") {
		t.Errorf("failing retriever: %v", err)
	}
}

// fakeJudge scores judge_correctness 1 when the answer equals the first
// reference, 0 otherwise; it fails on the queries in fail and answers as
// model served (the requested model when "").
type fakeJudge struct {
	model, served string
	fail          []string
}

func (j *fakeJudge) Model() string { return j.model }

func (j *fakeJudge) Describe() string { return "fake judge model=" + j.model }

func (j *fakeJudge) Score(ctx context.Context, q lasagna.Query, out lasagna.Output) (Judgement, error) {
	if slices.Contains(j.fail, q.ID) {
		return Judgement{}, fmt.Errorf("judge call for %s failed", q.ID)
	}
	served := j.served
	if served == "" {
		served = j.model
	}
	s := 0.0
	if len(q.Answers) > 0 && out.Answer == q.Answers[0] {
		s = 1
	}
	return Judgement{Scores: map[string]float64{MetricJudgeCorrectness: s}, Model: served, UnresolvedAlias: served != j.model}, nil
}

func TestArmWithJudge(t *testing.T) {
	arm := Arm{Name: "gold", Generator: newRecorder().generator(), Settings: map[string]any{"chunker": "none"}}
	j := &fakeJudge{model: "judge-m", served: "judge-m-2025-01-01", fail: []string{"q3"}}
	judged := arm.WithJudge(j)
	if arm.Judge != nil || arm.Settings["judge_model"] != nil || arm.Stages[StageJudge] != "" {
		t.Errorf("WithJudge changed its receiver: %+v", arm)
	}
	if judged.Judge != j || judged.Settings["judge_model"] != "judge-m" || judged.Settings["chunker"] != "none" ||
		judged.Stages[StageJudge] != "fake judge model=judge-m" {
		t.Errorf("judged arm: judge %v, settings %v, stages %v", judged.Judge, judged.Settings, judged.Stages)
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, []Arm{judged}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Cells[0].Queries {
		switch r.Query.ID {
		case "q3":
			if r.JudgeErr == nil || !strings.Contains(r.JudgeErr.Error(), "judge call for q3 failed") {
				t.Errorf("q3 judge error = %v", r.JudgeErr)
			}
			if _, ok := r.Scores[MetricJudgeCorrectness]; ok || r.Scores["exact_match"] != 1 {
				t.Errorf("q3 scores = %v; want exact match and no judge score", r.Scores)
			}
		default:
			if r.JudgeErr != nil || r.JudgeModel != "judge-m-2025-01-01" || !r.JudgeAlias {
				t.Errorf("%s: judge error %v, model %q, alias %v", r.Query.ID, r.JudgeErr, r.JudgeModel, r.JudgeAlias)
			}
		}
	}
	var codes []lasagna.Code
	for _, f := range rep.Findings {
		codes = append(codes, f.Code)
	}
	for _, want := range []lasagna.Code{lasagna.JudgeErrors, lasagna.UnresolvedJudgeAlias, lasagna.SingleRun} {
		if !slices.Contains(codes, want) {
			t.Errorf("findings %v lack %s", codes, want)
		}
	}
}

// Deps assembles built-in arms from its components: here fakes, so no LLM.
func TestDepsAssembleGenerationArms(t *testing.T) {
	var (
		mu      sync.Mutex
		specs   = map[string]GeneratorSpec{}
		metrics = map[string][]string{}
		recs    = map[string]*recorder{}
	)
	deps := Deps{
		Generator: func(spec GeneratorSpec) (lasagna.Generator, error) {
			if spec.Model == "broken" {
				return nil, errors.New("no such model")
			}
			mu.Lock()
			defer mu.Unlock()
			rec := newRecorder()
			recs[spec.Kind+fmt.Sprint(spec.Passages)] = rec
			specs[spec.Kind+fmt.Sprint(spec.Passages)] = spec
			return describedGenerator{rec.generator(), "fake " + spec.Kind + " model=" + spec.Model}, nil
		},
		Judge: func(spec JudgeSpec, ms []string) (Judge, error) {
			mu.Lock()
			defer mu.Unlock()
			metrics[spec.Model+fmt.Sprint(len(metrics))] = ms
			return &fakeJudge{model: spec.Model}, nil
		},
	}
	s := &Sweep{
		Judge: &JudgeSpec{Model: "jm"},
		Arms: []ArmSpec{
			{Name: "rag", Retriever: RetrieverBM25, Generator: &GeneratorSpec{Kind: GeneratorGrounded, Model: "g", Passages: 2, MaxTokens: 64}},
			{Name: "gold", Generator: &GeneratorSpec{Kind: GeneratorGrounded, Model: "g"}},
			{Name: "cb", Generator: &GeneratorSpec{Kind: GeneratorClosedBook, Model: "g"}},
		},
	}
	arms, err := deps.Arms(s)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		mode     lasagna.Mode
		passages int
		stage    string
		metrics  []string
	}{
		{lasagna.ModeRAG, 2, "fake grounded model=g passages=2", []string{MetricJudgeCorrectness, MetricGroundedness}},
		{lasagna.ModeGeneration, 0, "fake grounded model=g passages=gold_contexts", []string{MetricJudgeCorrectness, MetricGroundedness}},
		{lasagna.ModeClosedBook, 0, "fake closed_book model=g", []string{MetricJudgeCorrectness}},
	} {
		a := arms[i]
		if err := a.Check(); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
		if a.ResolvedMode() != want.mode || a.Passages != want.passages || a.Stages[lasagna.StageGenerator] != want.stage || !a.Samples {
			t.Errorf("%s: mode %s, passages %d, generator stage %q, samples %v", a.Name, a.ResolvedMode(), a.Passages, a.Stages[lasagna.StageGenerator], a.Samples)
		}
		if a.Judge == nil || a.Judge.Model() != "jm" || a.Settings["judge_model"] != "jm" || a.Stages[StageJudge] != "fake judge model=jm" {
			t.Errorf("%s: judge %v, settings %v, judge stage %q", a.Name, a.Judge, a.Settings, a.Stages[StageJudge])
		}
		if got := metrics["jm"+fmt.Sprint(i)]; !slices.Equal(got, want.metrics) {
			t.Errorf("%s: judge metrics %v, want %v", a.Name, got, want.metrics)
		}
	}
	if sp := specs["grounded2"]; sp.Model != "g" || sp.MaxTokens != 64 || sp.Passages != 2 {
		t.Errorf("generator spec = %+v", sp)
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{tinyBench(t)}, arms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The rag generator saw the first 2 of BM25's hits (q7's words match 3
	// documents; q1's its gold one only).
	for _, r := range rep.Cells[0].Queries {
		hits := hitIDs(r.Output.Hits)
		if seen := docIDs(recs["grounded2"].seen[r.Query.ID]); !slices.Equal(seen, hits[:min(2, len(hits))]) {
			t.Errorf("rag %s saw %v; BM25 retrieved %v", r.Query.ID, seen, hits)
		}
		if r.Query.ID == "q7" && len(hits) < 3 {
			t.Errorf("q7 retrieved %v; the test wants more than 2 hits", hits)
		}
		if r.Query.ID == "q1" && (len(hits) == 0 || hits[0] != "d1") {
			t.Errorf("q1 retrieved %v; want its gold d1 first", hits)
		}
	}
	if seen := recs["grounded0"].seen["q1"]; len(seen) != 1 || seen[0].Text != "Soda lowers the melting point of silica sand." {
		t.Errorf("gold q1 saw %v", seen)
	}
	if seen, ok := recs["closed_book0"].seen["q1"]; !ok || len(seen) != 0 {
		t.Errorf("closed-book q1 saw %v (called %v)", seen, ok)
	}
	for _, c := range rep.Cells {
		if r := c.Queries[0]; r.Scores[MetricJudgeCorrectness] != 1 || r.Scores["exact_match"] != 1 {
			t.Errorf("%s q1 scores = %v", c.Where(), r.Scores)
		}
	}

	s.Arms[0].Generator.Model = "broken"
	if _, err := deps.Arms(s); err == nil || !strings.Contains(err.Error(), `arm "rag": no such model`) {
		t.Errorf("a generator that cannot be made: %v", err)
	}
}

type describedGenerator struct {
	lasagna.Generator
	desc string
}

func (g describedGenerator) Describe() string { return g.desc }

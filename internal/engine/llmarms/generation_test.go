package llmarms_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/results"
)

// genAnswers are the scripted generator's answers to ../testdata/tiny.jsonl's
// questions: q1 and q3 exact, q2 partial, q4 wrong, q5 exact, q6 partial;
// "" abstains (q7 is unanswerable).
var genAnswers = map[string]string{
	"What lowers the melting point of silica?": "Soda",
	"Who introduced the solidus?":              "Constantine the Great",
	"What replaced the solidus?":               "hyperpyron",
	"Where was glassblowing invented?":         "Egypt",
	"What is lead glass called?":               "crystal",
	"Why is lead glass bright?":                "its refractive index",
	"What did the solidus cost to mint?":       "",
}

// field returns the text after "name: " up to the end of its line.
func field(s, name string) string {
	i := strings.LastIndex(s, name+": ")
	if i < 0 {
		return ""
	}
	s = s[i+len(name)+2:]
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	return s
}

// scriptedReply answers generator calls from genAnswers and judges the way
// a careful grader would: correct when the answer contains the reference
// (case-insensitively), supported when every answer word is in the
// passages. bad, when set, is returned instead for judge calls on that
// question.
func scriptedReply(bad map[string]string) func(fixtures.ChatCall) string {
	return func(c fixtures.ChatCall) string {
		sys := c.Messages[0].Content
		q := field(c.LastUser, "Question")
		switch {
		case strings.HasPrefix(sys, "You grade answers"), strings.HasPrefix(sys, "You check whether"):
			if r, ok := bad[q]; ok {
				return r
			}
		}
		switch {
		case strings.HasPrefix(sys, "You grade answers"):
			ref, ans := strings.ToLower(field(c.LastUser, "Reference answer")), strings.ToLower(field(c.LastUser, "Answer to grade"))
			ref = strings.TrimPrefix(ref, "the ")
			if strings.Contains(ans, ref) {
				return `{"verdict": "correct", "reason": "same fact"}`
			}
			return `{"verdict": "incorrect", "reason": "different fact"}`
		case strings.HasPrefix(sys, "You check whether"):
			passages := strings.ToLower(c.LastUser[:strings.LastIndex(c.LastUser, "Question: ")])
			for _, w := range fixtures.Words(field(c.LastUser, "Answer to check")) {
				if !strings.Contains(passages, w) {
					return `{"verdict": "unsupported"}`
				}
			}
			return `{"verdict": "supported"}`
		}
		a, ok := genAnswers[q]
		if !ok || a == "" {
			return `{"answer": "", "abstained": true}`
		}
		b, _ := json.Marshal(map[string]any{"answer": a, "abstained": false})
		return string(b)
	}
}

func newLLM(t testing.TB, f *fixtures.FakeOpenAI, model string, retries int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "test-key", Model: model, MaxRetries: retries,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runProfile(t *testing.T, name string, br *engine.BenchmarkRun, deps engine.Deps, opts engine.Options) (*engine.Report, *results.Bundle) {
	t.Helper()
	p, err := engine.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	arms, err := deps.Arms(&engine.Sweep{Arms: p.Arms("toy-embed")})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{br}, arms, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{Concurrency: opts.Concurrency})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range results.Validate(raw).Problems {
		if p.Code == lasagna.InvalidBundle || p.Code == lasagna.RunIDMismatch || p.Code == lasagna.ComparabilityKeyMismatch {
			t.Errorf("bundle does not validate: %v", p)
		}
	}
	return rep, b
}

func rows(b *results.Bundle) map[string]results.Sample {
	m := map[string]results.Sample{}
	for _, s := range b.Results[0].PerSampleScores {
		m[s.QueryID] = s
	}
	return m
}

func hasLine(lines []results.Finding, code lasagna.Code, sub string) bool {
	return slices.ContainsFunc(lines, func(l results.Finding) bool { return l.Code == code && strings.Contains(l.String(), sub) })
}

func TestFullProfile(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	rep, b := runProfile(t, "full", tinyBench(t), llmarms.Deps(newLLM(t, f, "gpt-test-2025-01-01", 0)), engine.Options{Concurrency: 4})

	want := map[string]map[string]float64{
		"q1": {"exact_match": 1, "token_f1": 1, "judge_correctness": 1, "groundedness": 1},
		"q2": {"exact_match": 0, "token_f1": 2.0 / 3, "judge_correctness": 1, "groundedness": 1},
		"q3": {"exact_match": 1, "token_f1": 1, "judge_correctness": 1, "groundedness": 1},
		"q4": {"exact_match": 0, "token_f1": 0, "judge_correctness": 0, "groundedness": 0},
		"q5": {"exact_match": 1, "token_f1": 1, "judge_correctness": 1, "groundedness": 1},
		"q6": {"exact_match": 0, "token_f1": 2.0 / 3, "judge_correctness": 0, "groundedness": 0},
		// Unanswerable: the abstention scores 1, judged without a call,
		// and claims nothing to ground.
		"q7": {"exact_match": 1, "token_f1": 1, "judge_correctness": 1},
	}
	got := rows(b)
	for id, w := range want {
		s := got[id]
		if s.Error != "" || s.JudgeError != "" {
			t.Errorf("%s: error %q, judge error %q", id, s.Error, s.JudgeError)
		}
		for m, v := range w {
			if g, ok := s.Scores[m]; !ok || fmt.Sprintf("%.4f", g) != fmt.Sprintf("%.4f", v) {
				t.Errorf("%s %s = %v (present %v), want %v", id, m, g, ok, v)
			}
		}
		if _, ok := s.Scores["groundedness"]; id == "q7" && ok {
			t.Errorf("q7 has groundedness %v; an abstention is not judged for it", s.Scores["groundedness"])
		}
		if len(s.RetrievedIDs) == 0 || s.Answer == nil {
			t.Errorf("%s: retrieved %v answer %v", id, s.RetrievedIDs, s.Answer)
		}
		if _, ok := s.Scores["ndcg@10"]; !ok && id != "q7" {
			t.Errorf("%s has no retrieval scores: %v", id, s.Scores)
		}
	}
	if a := got["q7"].Answer; a == nil || *a != "" {
		t.Errorf("q7 answer = %v, want the abstention written as \"\"", a)
	}
	if m := b.Results[0].Metrics["judge_correctness"]; fmt.Sprintf("%.4f", m) != "0.7143" {
		t.Errorf("mean judge_correctness = %v, want 5/7", m)
	}
	cfg := b.Configs[0]
	hf := cfg.HeldFixed
	if hf.JudgeModel == nil || *hf.JudgeModel != "gpt-test-2025-01-01" || hf.ResolvedMode != lasagna.ModeRAG {
		t.Errorf("held_fixed judge_model %v, resolved_mode %q", hf.JudgeModel, hf.ResolvedMode)
	}
	gen, jd := hf.FixedStages["generator"], hf.FixedStages["judge"]
	if !strings.Contains(gen, "grounded model=gpt-test-2025-01-01") || !strings.Contains(gen, "prompt=grounded-v1 sha256=") || !strings.Contains(gen, "passages=5") {
		t.Errorf("fixed generator stage = %q", gen)
	}
	if !strings.Contains(jd, "judge_correctness=judge-correctness-v1@") || !strings.Contains(jd, "groundedness=judge-groundedness-v1@") {
		t.Errorf("fixed judge stage = %q", jd)
	}
	if b.Experiment.NothingSamples {
		t.Error("nothing_samples is true for a run that called an LLM generator")
	}
	if !hasLine(b.Integrity.Warnings, lasagna.SingleRun, "full") {
		t.Errorf("warnings = %q, want SINGLE_RUN", b.Integrity.Warnings)
	}
	if hasLine(b.Integrity.Warnings, lasagna.UnresolvedJudgeAlias, "") || len(b.Integrity.Blocking) != 0 {
		t.Errorf("integrity = %+v", b.Integrity)
	}
	// The generator of q1 saw its top 5 retrieved passages, the first of
	// them the gold one.
	q1 := rep.Cells[0].Queries[0]
	if len(q1.Output.Passages) != 5 || !strings.Contains(q1.Output.Passages[0], "Soda") {
		t.Errorf("q1 passages = %q", q1.Output.Passages)
	}
	for _, r := range f.Requests() {
		if r.Endpoint == "chat" && !r.HasField("temperature") {
			t.Errorf("a chat call asked for no temperature: %v", r.BodyKeys())
		}
	}
}

// answersOnly has reference answers and no contexts: closed-book only.
const answersOnly = `{"id": "q1", "question": "What lowers the melting point of silica?", "answer": "soda"}
{"id": "q2", "question": "Who introduced the solidus?", "answers": ["Constantine", "Constantine I"]}
{"id": "q7", "question": "What did the solidus cost to mint?", "metadata": {"unanswerable": true}}
`

func answersOnlyBench(t testing.TB) *engine.BenchmarkRun {
	t.Helper()
	fsys := fstest.MapFS{"qa.jsonl": {Data: []byte(answersOnly)}}
	runs, err := engine.LoadBenchmarks(fsys, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: "qa.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

func TestClosedBookProfile(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	deps := llmarms.Deps(newLLM(t, f, "gpt-test", 0))
	_, b := runProfile(t, "closed-book", answersOnlyBench(t), deps, engine.Options{})
	got := rows(b)
	for id, w := range map[string][2]float64{"q1": {1, 1}, "q2": {0, 1}, "q7": {1, 1}} {
		s := got[id].Scores
		if s["exact_match"] != w[0] || s["judge_correctness"] != w[1] {
			t.Errorf("%s scores = %v, want exact_match %v judge_correctness %v", id, s, w[0], w[1])
		}
		if _, ok := s["groundedness"]; ok {
			t.Errorf("%s: a closed-book answer has groundedness %v", id, s["groundedness"])
		}
	}
	hf := b.Configs[0].HeldFixed
	if hf.ResolvedMode != lasagna.ModeClosedBook || hf.JudgeModel == nil || *hf.JudgeModel != "gpt-test" || hf.RetrieverTopK != nil {
		t.Errorf("held_fixed = %+v", hf)
	}
	if b.Experiment.NothingSamples || !hasLine(b.Integrity.Warnings, lasagna.SingleRun, "") {
		t.Errorf("nothing_samples %v, warnings %q", b.Experiment.NothingSamples, b.Integrity.Warnings)
	}
	for _, r := range f.Requests() {
		if strings.Contains(fmt.Sprint(r.Body["messages"]), "Passages:") {
			t.Errorf("a closed-book call showed passages: %v", r.Body["messages"])
		}
	}
	// The full profile needs passages to retrieve: refused before
	// anything is built or called.
	f.Reset()
	p, _ := engine.LookupProfile("full")
	arms, err := deps.Arms(&engine.Sweep{Arms: p.Arms("toy-embed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(t.Context(), []*engine.BenchmarkRun{answersOnlyBench(t)}, arms, engine.Options{}); err == nil || !strings.Contains(err.Error(), "cannot run the retrieval track") {
		t.Errorf("full on answers-only data: %v", err)
	}
	if n := f.Count(""); n != 0 {
		t.Errorf("a refused run made %d requests", n)
	}
}

func TestGenerationModeGoldContexts(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	deps := llmarms.Deps(newLLM(t, f, "gpt-test", 0))
	arms, err := deps.Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "gold", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorGrounded}}}, Judge: &engine.JudgeSpec{Model: "judge-2024-08-06"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hf := b.Configs[0].HeldFixed; hf.ResolvedMode != lasagna.ModeGeneration || *hf.JudgeModel != "judge-2024-08-06" || !strings.Contains(hf.FixedStages["generator"], "passages=gold_contexts") {
		t.Errorf("held_fixed = %+v", hf)
	}
	q1 := rep.Cells[0].Queries[0]
	if !slices.Equal(q1.Output.Passages, []string{"Soda lowers the melting point of silica sand."}) || q1.Scores["groundedness"] != 1 {
		t.Errorf("q1 = %+v", q1)
	}
}

func TestJudgeFailures(t *testing.T) {
	gen := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(map[string]string{
		"Who introduced the solidus?": `verdict: correct`,                   // not JSON
		"What replaced the solidus?":  `{"verdict": "mostly correct"}`,      // not a verdict
		"What is lead glass called?":  `{"verdict": "correct", "score": 1}`, // unknown key
	})})
	defer gen.Close()
	deps := llmarms.Deps(newLLM(t, gen, "gpt-test", 0))
	arms, err := deps.Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "cb", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorClosedBook}, Judge: &engine.JudgeSpec{}}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := rows(b)
	for _, id := range []string{"q2", "q3", "q5"} {
		s := got[id]
		if s.JudgeError == "" || !strings.Contains(s.JudgeError, "unparseable judge reply") {
			t.Errorf("%s judge error = %q", id, s.JudgeError)
		}
		if _, ok := s.Scores["judge_correctness"]; ok {
			t.Errorf("%s has judge_correctness %v despite the failed judge call", id, s.Scores["judge_correctness"])
		}
		if _, ok := s.Scores["exact_match"]; !ok {
			t.Errorf("%s lost its exact match: %v", id, s.Scores)
		}
	}
	if got["q1"].JudgeError != "" || got["q1"].Scores["judge_correctness"] != 1 {
		t.Errorf("q1 = %+v", got["q1"])
	}
	if !hasLine(b.Integrity.Blocking, lasagna.JudgeErrors, "3 of 7 judged queries") {
		t.Errorf("blocking = %q, want JUDGE_ERRORS for 3 queries", b.Integrity.Blocking)
	}
	if n := b.Results[0].MetricStats["judge_correctness"].N; n != 4 {
		t.Errorf("judge_correctness n = %d, want 4 (failed calls are not zeros)", n)
	}

	// A judge endpoint that refuses every call: each judged query has
	// an error and no score; the unanswerable one is decided without a
	// call.
	denied := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "other-key"})
	defer denied.Close()
	j, err := judge.New(newLLM(t, denied, "judge-2024-08-06", 0), judge.Config{})
	if err != nil {
		t.Fatal(err)
	}
	arms[0].Judge = llmarms.Judge(j)
	rep, err = engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Cells[0]
	for _, r := range c.Queries {
		switch {
		case r.Query.Unanswerable:
			if r.JudgeErr != nil || r.Scores["judge_correctness"] != 1 {
				t.Errorf("%s: %v %v", r.Query.ID, r.JudgeErr, r.Scores)
			}
		case r.JudgeErr == nil || !strings.Contains(r.JudgeErr.Error(), "authentication failed"):
			t.Errorf("%s judge error = %v", r.Query.ID, r.JudgeErr)
		}
	}
	if !hasLine(lines(rep.Findings), lasagna.JudgeErrors, "6 of 7 judged queries") {
		t.Errorf("findings = %v", rep.Findings)
	}
}

func lines(fs []lasagna.Finding) []results.Finding {
	var in results.Integrity
	for _, f := range fs {
		in.Add(f)
	}
	return append(in.Blocking, in.Warnings...)
}

func TestGeneratorServerErrors(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	deps := llmarms.Deps(newLLM(t, f, "gpt-test", 2))
	arms, err := deps.Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "cb", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorClosedBook}}}})
	if err != nil {
		t.Fatal(err)
	}
	// Transient: two 500s are retried by the llm layer and the run is
	// whole.
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 500, Times: 2})
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(rep.Findings, lasagna.Finding.Blocking) {
		t.Errorf("findings after transient 500s = %v", rep.Findings)
	}
	if n := f.Count("chat"); n != 7+2 {
		t.Errorf("%d chat requests, want 7 answers and 2 retried failures", n)
	}
	// Persistent: every call fails after its retries; each query is a
	// pipeline error, never an empty answer or a zero.
	f.Reset()
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 500, Times: 1000})
	rep, err = engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Cells[0].Queries {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "server error") || r.Scores != nil || r.Output.Answered {
			t.Errorf("%s: err %v scores %v output %+v", r.Query.ID, r.Err, r.Scores, r.Output)
		}
	}
	if !hasLine(lines(rep.Findings), lasagna.PipelineErrors, "7 of 7 queries failed") {
		t.Errorf("findings = %v", rep.Findings)
	}
	if n := f.Count("chat"); n != 7*3 {
		t.Errorf("%d chat requests, want 7 × 3 attempts", n)
	}
}

func TestUnresolvedJudgeAlias(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil),
		ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06", "local-judge": "local-judge"}})
	defer f.Close()
	deps := llmarms.Deps(newLLM(t, f, "gpt-test", 0))
	for _, c := range []struct {
		model string
		want  bool
	}{{"gpt-4o", true}, {"gpt-4o-2024-08-06", false}, {"local-judge", false}} {
		arms, err := deps.Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "cb", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorClosedBook}, Judge: &engine.JudgeSpec{Model: c.model}}}})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := hasLine(lines(rep.Findings), lasagna.UnresolvedJudgeAlias, `answered 6 queries as "gpt-4o-2024-08-06"`)
		if got != c.want {
			t.Errorf("judge %s: UNRESOLVED_JUDGE_ALIAS raised %v, want %v; findings %v", c.model, got, c.want, rep.Findings)
		}
	}
}

func TestGenerationResume(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	deps := llmarms.Deps(newLLM(t, f, "gpt-test", 0))
	arms, err := deps.Arms(&engine.Sweep{Arms: []engine.ArmSpec{{Name: "gold", Generator: &engine.GeneratorSpec{Kind: engine.GeneratorGrounded}, Judge: &engine.JudgeSpec{}}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{JournalDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	f.Reset()
	second, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, arms, engine.Options{JournalDir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if second.Cells[0].Resumed != 7 {
		t.Fatalf("resumed %d queries, want 7", second.Cells[0].Resumed)
	}
	for _, r := range f.Requests() {
		if strings.HasPrefix(fmt.Sprint(r.Body["messages"]), "[map[content:You answer") {
			t.Errorf("a resumed run called the generator again")
		}
	}
	for i, r := range second.Cells[0].Queries {
		if fmt.Sprint(r.Scores) != fmt.Sprint(first.Cells[0].Queries[i].Scores) {
			t.Errorf("%s resumed scores %v, first run %v", r.Query.ID, r.Scores, first.Cells[0].Queries[i].Scores)
		}
	}
}

func TestGenerationSpecErrors(t *testing.T) {
	for _, c := range []struct {
		yaml, want string
	}{
		{"arms: [{name: a, generator: {kind: grounded, modle: x}}]", `unknown key "modle" in generator (did you mean "model"?)`},
		{"arms: [{name: a, generator: {kind: closedbook}}]", `generator kind "closedbook" is not one of grounded, closed_book (did you mean "closed_book"?)`},
		{"arms: [{name: a, retriever: bm25, generator: {kind: closed_book}}]", "a closed_book generator sees no passages"},
		{"arms: [{name: a, retriever: bm25, judge: {}}]", "judge: needs answers to judge"},
		{"arms: [{name: a, generator: {kind: grounded}, judge: {metrics: [groundednes]}}]", `unknown judge metric "groundednes" (did you mean "groundedness"?)`},
		{"arms: [{name: a, generator: {kind: grounded, passages: 3}}]", "no retriever"},
		{"judge: {modle: x}\narms: [{name: a, generator: {kind: grounded}}]", `unknown key "modle" in judge`},
	} {
		_, err := engine.ParseSweep([]byte("benchmarks: [{path: x.jsonl}]\n"+c.yaml), "sweep.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
	s, err := engine.ParseSweep([]byte("benchmarks: [{path: x.jsonl}]\njudge: {model: j}\narms: [{name: a, retriever: bm25, generator: {kind: grounded, model: g, passages: 3}}]"), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (engine.Deps{}).Arms(s); err == nil || !strings.Contains(err.Error(), "needs an LLM endpoint") {
		t.Errorf("a generator arm without an LLM: %v", err)
	}
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	arms, err := llmarms.Deps(newLLM(t, f, "", 0)).Arms(s)
	if err != nil {
		t.Fatal(err)
	}
	if arms[0].Judge == nil || arms[0].Judge.Model() != "j" || arms[0].Settings["judge_model"] != "j" || arms[0].ResolvedMode() != lasagna.ModeRAG {
		t.Errorf("arm = %+v", arms[0])
	}
	// No model anywhere: refused before anything runs.
	s.Arms[0].Generator.Model = ""
	if _, err := llmarms.Deps(newLLM(t, f, "", 0)).Arms(s); err == nil || !strings.Contains(err.Error(), "no model") || !strings.Contains(err.Error(), "MODEL_NAME") {
		t.Errorf("no model: %v", err)
	}
}

// A user's answering arm with a judge: judged like a built-in one, and
// counted as sampling although the arm says nothing about it.
func TestJudgeOnUserArm(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: scriptedReply(nil)})
	defer f.Close()
	j, err := judge.New(newLLM(t, f, "judge-2024-08-06", 0), judge.Config{})
	if err != nil {
		t.Fatal(err)
	}
	arm := engine.Arm{Name: "mine", Mode: lasagna.ModeGeneration, Judge: llmarms.Judge(j), Pipeline: func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			return lasagna.Output{Answer: genAnswers[q.Text], Answered: true, Abstained: genAnswers[q.Text] == "", Passages: q.Contexts}, nil
		}), nil
	}}
	rep, err := engine.Run(t.Context(), []*engine.BenchmarkRun{tinyBench(t)}, []engine.Arm{arm}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Experiment.NothingSamples || !hasLine(b.Integrity.Warnings, lasagna.SingleRun, "mine") {
		t.Errorf("nothing_samples %v, warnings %q", b.Experiment.NothingSamples, b.Integrity.Warnings)
	}
	if s := rows(b)["q1"].Scores; s["judge_correctness"] != 1 || s["groundedness"] != 1 || s["exact_match"] != 1 {
		t.Errorf("q1 scores = %v", s)
	}
}

package llmarms_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/results"
)

// ragasSweep judges a RAG arm (BM25, top 2 passages) by the four RAG judge
// metrics and a rubric, with a threshold on the rubric.
const ragasSweep = `benchmarks:
  - path: tiny.jsonl
judge:
  model: judge-2025-01-31
  embedding_model: emb
  strictness: 2
  metrics: [faithfulness, answer_relevancy, context_precision, context_recall, concise]
  rubrics:
    - {name: concise, criterion: "The answer is at most two words long.", scale: 5}
arms:
  - name: rag
    retriever: bm25
    generator: {kind: grounded, passages: 2}
    thresholds:
      - {metric: concise, at_least: 0.5}
`

// ragasJudgeReply scripts the judge: a statement per answer word, supported
// when the word is in the context; a passage useful when it holds the
// reference; a reference statement per word, attributed when in the
// context; the question "What is <answer>?"; concise 5 for answers of at
// most two words, else 2. broken, when set, is the reply to every
// context_precision call on that passage.
func ragasJudgeReply(broken string) func(fixtures.ChatCall) string {
	gen := scriptedReply(nil)
	return func(c fixtures.ChatCall) string {
		sys, u := c.Messages[0].Content, c.LastUser
		j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		switch {
		case strings.HasPrefix(sys, "You break an answer"):
			return j(map[string]any{"statements": fixtures.Words(field(u, "Answer"))})
		case strings.HasPrefix(sys, "You judge the faithfulness"):
			ctx, sts, _ := strings.Cut(strings.TrimPrefix(u, "Context:\n"), "\n\nStatements:\n")
			var out []map[string]any
			for _, l := range strings.Split(sts, "\n") {
				_, st, _ := strings.Cut(l, ". ")
				out = append(out, map[string]any{"statement": st, "reason": "r", "verdict": b2i(strings.Contains(strings.ToLower(ctx), st))})
			}
			return j(map[string]any{"statements": out})
		case strings.HasPrefix(sys, "You write the question"):
			return j(map[string]any{"question": "What is " + field(u, "Answer") + "?", "noncommittal": 0})
		case strings.HasPrefix(sys, "You check whether a context"):
			ctx := field(u, "Context")
			if broken != "" && strings.Contains(ctx, broken) {
				return `{"verdict": "useful"}`
			}
			return j(map[string]any{"reason": "r", "verdict": b2i(strings.Contains(strings.ToLower(ctx), strings.ToLower(strings.TrimPrefix(field(u, "Answer"), "the "))))})
		case strings.HasPrefix(sys, "You check which statements"):
			ctx, _, _ := strings.Cut(strings.TrimPrefix(u[strings.Index(u, "Context:\n"):], "Context:\n"), "\n\nAnswer: ")
			var out []map[string]any
			for _, w := range fixtures.Words(field(u, "Answer")) {
				out = append(out, map[string]any{"statement": w, "reason": "r", "attributed": b2i(strings.Contains(strings.ToLower(ctx), w))})
			}
			return j(map[string]any{"classifications": out})
		case strings.HasPrefix(sys, "You grade an answer"):
			if len(fixtures.Words(field(u, "Answer"))) <= 2 {
				return `{"score": 5, "reason": "short"}`
			}
			return `{"score": 2, "reason": "long"}`
		}
		return gen(c)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// embedRaw asks f for the embeddings of texts over HTTP, as float32.
func embedRaw(t *testing.T, f *fixtures.FakeOpenAI, texts ...string) [][]float64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"input": texts, "model": "emb", "encoding_format": "float"})
	resp, err := http.Post(f.URL+"/embeddings", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	var vs [][]float64
	for _, d := range out.Data {
		v := make([]float64, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float64(float32(x))
		}
		vs = append(vs, v)
	}
	return vs
}

// TestRagasSweepMatchesRagasFormulas runs ragasSweep and checks every
// query's values against Ragas v0.4.0's formulas, computed here from the
// scripted verdicts (src/ragas/metrics/collections/{faithfulness,
// answer_relevancy,context_precision,context_recall}/metric.py at tag
// v0.4.0: supported/total; mean cosine × not all noncommittal;
// sum(precision@k·v_k)/(sum(v)+1e-10); attributed/total), and the rubric's
// (s-1)/(scale-1).
func TestRagasSweepMatchesRagasFormulas(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: ragasJudgeReply("")})
	defer f.Close()
	client, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "gen", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.ParseSweep([]byte(ragasSweep), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := llmarms.Deps(client).SweepPlan(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	plan.Benchmarks = []*engine.BenchmarkRun{tinyBench(t)}
	out, err := engine.Execute(engine.Discard(t.Context()), plan)
	if err != nil {
		t.Fatal(err)
	}
	rep, verdicts := out.Report, out.Verdicts
	words := func(s string) []string { return fixtures.Words(s) }
	in := func(w, ctx string) int { return b2i(strings.Contains(strings.ToLower(ctx), w)) }
	n := 0
	for _, r := range rep.Cells[0].Queries {
		if r.JudgeErr != nil {
			t.Errorf("%s: %v", r.Query.ID, r.JudgeErr)
			continue
		}
		ctx := strings.Join(r.Output.Passages, "\n")
		want := map[string]float64{}
		if r.Output.Abstained || r.Output.Answer == "" {
			want["answer_relevancy"] = 0
		} else {
			sup := 0
			for _, w := range words(r.Output.Answer) {
				sup += in(w, ctx)
			}
			want["faithfulness"] = float64(sup) / float64(len(words(r.Output.Answer)))
			v := embedRaw(t, f, r.Query.Text, "What is "+r.Output.Answer+"?")
			dot, nq, ng := 0.0, 0.0, 0.0
			for i := range v[0] {
				dot, nq, ng = dot+v[0][i]*v[1][i], nq+v[0][i]*v[0][i], ng+v[1][i]*v[1][i]
			}
			want["answer_relevancy"] = (dot/(math.Sqrt(ng)*math.Sqrt(nq)) + dot/(math.Sqrt(ng)*math.Sqrt(nq))) / 2
		}
		if c := 1 + 3*b2i(len(words(r.Output.Answer)) <= 2); true {
			want["concise"] = float64(c) / 4
		}
		if ref := r.Query.Answers; len(ref) > 0 && !r.Query.Unanswerable {
			var vs []int
			for _, p := range r.Output.Passages {
				vs = append(vs, b2i(strings.Contains(strings.ToLower(p), strings.ToLower(strings.TrimPrefix(ref[0], "the ")))))
			}
			num, den := 0.0, 1e-10
			for i := range vs {
				den += float64(vs[i])
				prefix := 0
				for _, x := range vs[:i+1] {
					prefix += x
				}
				num += float64(prefix) / float64(i+1) * float64(vs[i])
			}
			want["context_precision"] = num / den
			att := 0
			for _, w := range words(ref[0]) {
				att += in(w, ctx)
			}
			want["context_recall"] = float64(att) / float64(len(words(ref[0])))
		}
		for m, w := range want {
			if g, ok := r.Scores[m]; !ok || math.Abs(g-w) > 1e-12 {
				t.Errorf("%s %s = %v (present %v), want %v", r.Query.ID, m, g, ok, w)
			}
			n++
		}
		if r.Output.Abstained {
			for _, m := range []string{"faithfulness", "context_precision", "context_recall"} {
				if _, ok := r.Scores[m]; ok {
					t.Errorf("%s (an abstention on an unanswerable row) has %s %v", r.Query.ID, m, r.Scores[m])
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("checked %d values; want the five metrics of the seven rows", n)
	}
	// A mix of context_precision values, not all 0 or 1.
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Results[0].Metrics; m["context_precision"] <= 0 || m["context_precision"] >= 1 || m["concise"] == 0 {
		t.Errorf("means %v", m)
	}
	jd := b.Configs[0].HeldFixed.FixedStages["judge"]
	for _, w := range []string{"faithfulness=judge-faithfulness-statements-v1@", "answer_relevancy=judge-answer-relevancy-v1@", " strictness=2 embedding_model=emb",
		"context_precision=judge-context-precision-v1@", "context_recall=judge-context-recall-v1@", "concise=judge-rubric-v1@", " scale=5 criterion_sha256="} {
		if !strings.Contains(jd, w) {
			t.Errorf("fixed_stages.judge = %s\nlacks %s", jd, w)
		}
	}
	if *b.Configs[0].HeldFixed.JudgeModel != "judge-2025-01-31" {
		t.Errorf("judge_model = %v", *b.Configs[0].HeldFixed.JudgeModel)
	}
	raw, _ := results.Marshal(b)
	for _, p := range results.Validate(raw).Problems {
		if p.Code == lasagna.InvalidBundle || p.Code == lasagna.InconsistentBundle {
			t.Errorf("bundle: %v", p)
		}
	}
	var th *engine.Verdict
	for i := range verdicts {
		if verdicts[i].Metric == "concise" && verdicts[i].Query == "" {
			th = &verdicts[i]
		}
	}
	if th == nil || !th.Pass {
		t.Errorf("threshold verdict on concise = %+v; want a passing one", th)
	}
	// The judge's usage, embeddings included, is the judge's.
	if u := client.Usage().Stage(llm.StageJudge); u.Calls == 0 || client.Usage().Stage(llm.StageEmbedder).Calls != 0 {
		t.Errorf("judge usage %+v, embedder %+v", u, client.Usage().Stage(llm.StageEmbedder))
	}
}

func TestRagasSweepErrorsBeforeAnyCall(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: ragasJudgeReply("")})
	defer f.Close()
	client, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "gen"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ edit, want string }{
		{"{metric: concise,|{metric: consise,", `arm rag: threshold on unknown metric "consise" (did you mean "concise"?)`},
		{"{name: concise,|{name: exact_match,", `rubric exact_match: "exact_match" is a built-in metric's name`},
		{"context_recall, concise]|context_recall]", "rubric concise is not in metrics: [faithfulness, answer_relevancy, context_precision, context_recall]; add it or drop the rubric"},
		{"scale: 5}|scale: 11}", "rubric concise: scale is 11; want 2 to 10"},
		{"strictness: 2|strictnes: 2", `sweep.yaml:6: unknown key "strictnes" in judge (did you mean "strictness"?)`},
		{"scale: 5}|scal: 5}", `sweep.yaml:9: unknown key "scal" in a rubric (did you mean "scale"?)`},
		{"metrics: [faithfulness,|metrics: [faithfulnes,", `unknown judge metric "faithfulnes" (did you mean "faithfulness"?)`},
		{"generator: {kind: grounded, passages: 2}|generator: {kind: closed_book}\n    retriever: ''", "faithfulness judges the passages the generator saw, and a closed_book generator sees none"},
	} {
		old, new, _ := strings.Cut(c.edit, "|")
		y := strings.Replace(ragasSweep, old, new, 1)
		if c.edit[:9] == "generator" {
			y = strings.Replace(y, "    retriever: bm25\n", "", 1)
		}
		s, err := engine.ParseSweep([]byte(y), "sweep.yaml")
		if err == nil {
			var plan *engine.Plan
			plan, err = llmarms.Deps(client).SweepPlan(t.Context(), s)
			if err == nil {
				err = plan.Check()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant an error containing %s", c.edit, err, c.want)
		}
	}
	if n := f.Count(""); n != 0 {
		t.Errorf("%d requests before the checks failed", n)
	}
}

func TestRagasUnparseableReplyIsJudgeErrors(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: ragasJudgeReply("hyperpyron")})
	defer f.Close()
	client, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "gen"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.ParseSweep([]byte(ragasSweep), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arms, err := llmarms.Deps(client).Arms(s)
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
	failed := 0
	for _, row := range b.Results[0].PerSampleScores {
		if row.JudgeError == "" {
			continue
		}
		failed++
		if _, ok := row.Scores["context_precision"]; ok || !strings.Contains(row.JudgeError, "context_precision: passage ") || !strings.Contains(row.JudgeError, "unparseable judge reply") {
			t.Errorf("%s: scores %v, judge error %q", row.QueryID, row.Scores, row.JudgeError)
		}
		if _, ok := row.Scores["faithfulness"]; !ok {
			t.Errorf("%s: the other metrics are kept: %v", row.QueryID, row.Scores)
		}
	}
	if failed == 0 || !hasLine(b.Integrity.Blocking, lasagna.JudgeErrors, fmt.Sprintf("%d of", failed)) {
		t.Errorf("%d failed rows, blocking %q", failed, b.Integrity.Blocking)
	}
}

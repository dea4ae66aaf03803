package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/doctest"
	"github.com/lasagna-go/lasagna/llm"
)

// The expected values in these tests are computed here, independently of
// the package, by the formulas of Ragas v0.4.0 (git tag v0.4.0 of
// explodinggradients/ragas):
//
//   - faithfulness: src/ragas/metrics/collections/faithfulness/metric.py,
//     Faithfulness._compute_score: faithful statements / statements.
//   - answer_relevancy: src/ragas/metrics/collections/answer_relevancy/metric.py,
//     AnswerRelevancy.ascore: cosine_sim.mean() * int(not all_noncommittal),
//     cosine_sim = dot(gen, q) / (norm(gen) * norm(q)).
//   - context_precision: src/ragas/metrics/collections/context_precision/metric.py,
//     ContextPrecisionWithReference._calculate_average_precision:
//     sum((sum(v[:i+1]) / (i+1)) * v[i]) / (sum(v) + 1e-10).
//   - context_recall: src/ragas/metrics/collections/context_recall/metric.py,
//     ContextRecall.ascore: sum(attributed) / len(attributed).

// ragasAP is Ragas v0.4.0's _calculate_average_precision, transcribed.
func ragasAP(v []int) float64 {
	denominator := 0.0
	for _, x := range v {
		denominator += float64(x)
	}
	denominator += 1e-10
	numerator := 0.0
	for i := range v {
		prefix := 0
		for _, x := range v[:i+1] {
			prefix += x
		}
		numerator += (float64(prefix) / float64(i+1)) * float64(v[i])
	}
	return numerator / denominator
}

// ragasRelevancy is Ragas v0.4.0's AnswerRelevancy score from the
// embeddings of the question and of the generated questions.
func ragasRelevancy(q []float64, gens [][]float64, noncommittal []int) float64 {
	norm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s)
	}
	sum := 0.0
	for _, g := range gens {
		dot := 0.0
		for i := range g {
			dot += g[i] * q[i]
		}
		sum += dot / (norm(g) * norm(q))
	}
	all := 1
	for _, n := range noncommittal {
		if n == 0 {
			all = 0
		}
	}
	return sum / float64(len(gens)) * float64(1-all)
}

// fakeEmbeddings asks the fake server for the embeddings of texts over
// HTTP, as float32 values (the precision the llm client keeps) widened to
// float64.
func fakeEmbeddings(t *testing.T, f *fixtures.FakeOpenAI, model string, texts []string) [][]float64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"input": texts, "model": model, "encoding_format": "float"})
	resp, err := http.Post(f.URL+"/embeddings", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float64, len(texts))
	for _, d := range out.Data {
		v := make([]float64, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float64(float32(x))
		}
		vecs[d.Index] = v
	}
	return vecs
}

// ragasScript is a fake judge server: it answers each RAG judge prompt
// (told apart by its system prompt) from the maps, and answer_relevancy's
// calls with the next question of relevancy in turn.
type ragasScript struct {
	mu         sync.Mutex
	statements map[string]string // answer → statements reply
	nli        map[string]string // first statement → verdicts reply
	useful     map[string]string // passage → context_precision reply
	recall     map[string]string // reference → context_recall reply
	relevancy  []string          // answer_relevancy replies, in turn
	next       int
	rubric     string
}

func (s *ragasScript) reply(c fixtures.ChatCall) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys, u := c.Messages[0].Content, c.LastUser
	find := func(m map[string]string) string {
		for k, v := range m {
			if strings.Contains(u, k) {
				return v
			}
		}
		return "no script for " + u
	}
	switch {
	case strings.HasPrefix(sys, "You break an answer"):
		return find(s.statements)
	case strings.HasPrefix(sys, "You judge the faithfulness"):
		return find(s.nli)
	case strings.HasPrefix(sys, "You write the question"):
		r := s.relevancy[s.next%len(s.relevancy)]
		s.next++
		return r
	case strings.HasPrefix(sys, "You check whether a context"):
		_, ctx, _ := strings.Cut(u, "\nContext: ")
		return find(map[string]string{ctx: s.useful[ctx]})
	case strings.HasPrefix(sys, "You check which statements"):
		return find(s.recall)
	case strings.HasPrefix(sys, "You grade an answer"):
		return s.rubric
	}
	return "unexpected prompt"
}

func ragasClient(t *testing.T, f *fixtures.FakeOpenAI, cacheDir string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "judge", EmbeddingModel: "emb", CacheDir: cacheDir,
		MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	ragasQuery = lasagna.Query{ID: "q1", Text: "When was the solidus introduced and by whom?",
		Answers: []string{"Constantine introduced the solidus in 309."}}
	ragasPassages = []string{
		"Lime is calcium oxide.",
		"The solidus was introduced by Constantine.",
		"It was first struck in 309 at Trier.",
		"Soda is sodium carbonate.",
		"Constantine ruled from 306 to 337.",
	}
	ragasAnswer = "Constantine introduced the solidus in 309. It replaced the aureus. It was made of bronze."
)

func newRagasScript() *ragasScript {
	return &ragasScript{
		statements: map[string]string{ragasAnswer: `{"statements": ["Constantine introduced the solidus in 309.", "The solidus replaced the aureus.", "The solidus was made of bronze."]}`},
		nli: map[string]string{"1. Constantine introduced the solidus in 309.": `{"statements": [` +
			`{"statement": "Constantine introduced the solidus in 309.", "reason": "passages 2 and 3", "verdict": 1},` +
			`{"statement": "The solidus replaced the aureus.", "reason": "not stated", "verdict": 0},` +
			`{"statement": "The solidus was made of bronze.", "reason": "not stated", "verdict": 0}]}`},
		useful: map[string]string{
			ragasPassages[0]: `{"reason": "unrelated", "verdict": 0}`,
			ragasPassages[1]: `{"reason": "names Constantine", "verdict": 1}`,
			ragasPassages[2]: `{"reason": "gives the year", "verdict": 1}`,
			ragasPassages[3]: `{"reason": "unrelated", "verdict": 0}`,
			ragasPassages[4]: `{"reason": "dates his reign", "verdict": 1}`,
		},
		recall: map[string]string{"Answer: Constantine introduced the solidus in 309.": `{"classifications": [` +
			`{"statement": "Constantine introduced the solidus.", "reason": "passage 2", "attributed": 1},` +
			`{"statement": "The solidus was introduced in 309.", "reason": "passage 3", "attributed": 1},` +
			`{"statement": "Constantine introduced it.", "reason": "restates", "attributed": 0}]}`},
		relevancy: []string{
			`{"question": "Who introduced the solidus, and when?", "noncommittal": 0}`,
			`{"question": "What did the solidus replace?", "noncommittal": 0}`,
			`{"question": "When was the solidus introduced?", "noncommittal": 1}`,
		},
	}
}

func TestRagasMetricsMatchRagasFormulas(t *testing.T) {
	s := newRagasScript()
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: s.reply})
	defer f.Close()
	c := ragasClient(t, f, t.TempDir())
	j, err := New(c, Config{Metrics: []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall"}})
	if err != nil {
		t.Fatal(err)
	}
	out := lasagna.Output{Answered: true, Answer: ragasAnswer, Passages: ragasPassages}
	res, err := j.Score(context.Background(), ragasQuery, out)
	if err != nil {
		t.Fatal(err)
	}
	vecs := fakeEmbeddings(t, f, "emb", []string{ragasQuery.Text,
		"Who introduced the solidus, and when?", "What did the solidus replace?", "When was the solidus introduced?"})
	want := map[string]float64{
		"faithfulness":      1.0 / 3,
		"answer_relevancy":  ragasRelevancy(vecs[0], vecs[1:], []int{0, 0, 1}),
		"context_precision": ragasAP([]int{0, 1, 1, 0, 1}),
		"context_recall":    2.0 / 3,
	}
	for m, w := range want {
		if g, ok := res.Scores[m]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v (Ragas v0.4.0's formula)", m, g, ok, w)
		}
	}
	if w := (1.0/2 + 2.0/3 + 3.0/5) / (3 + 1e-10); math.Abs(want["context_precision"]-w) > 1e-15 {
		t.Fatalf("the transcribed formula gives %v, by hand %v", want["context_precision"], w)
	}
	// 2 faithfulness + 3 answer_relevancy + 5 context_precision + 1 context_recall calls.
	if res.Calls != 11 {
		t.Errorf("Calls = %d, want 11", res.Calls)
	}
	ju, eu := c.Usage().Stage(llm.StageJudge), c.Usage().Stage(llm.StageEmbedder)
	if ju.Calls != 12 || eu.Calls != 0 {
		t.Errorf("judge stage %d calls (want 11 chat + 1 embeddings), embedder stage %d (want 0: the judge's embeddings are the judge's)", ju.Calls, eu.Calls)
	}

	// The same judgement again comes from the cache, with the same scores.
	n := f.Count("")
	s.next = 0
	again, err := j.Score(context.Background(), ragasQuery, out)
	if err != nil || f.Count("") != n {
		t.Fatalf("rerun: %v, %d new requests", err, f.Count("")-n)
	}
	for m, w := range res.Scores {
		if again.Scores[m] != w {
			t.Errorf("cached %s = %v, want %v", m, again.Scores[m], w)
		}
	}
}

func TestRagasEdgeCasesMatchRagas(t *testing.T) {
	s := newRagasScript()
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: s.reply})
	defer f.Close()
	j, err := New(ragasClient(t, f, ""), Config{Metrics: []string{"answer_relevancy", "context_precision"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Every generation noncommittal: 0 (int(not all_noncommittal)), with no embeddings asked.
	s.relevancy = []string{`{"question": "Who introduced it?", "noncommittal": 1}`}
	// No useful passage: 0 / (0 + 1e-10) = 0; one useful passage alone: 1 / (1 + 1e-10).
	s.useful = map[string]string{"Lime.": `{"reason": "no", "verdict": 0}`, "Soda.": `{"reason": "no", "verdict": 0}`}
	res, err := j.Score(ctx, ragasQuery, lasagna.Output{Answered: true, Answer: "I am not sure.", Passages: []string{"Lime.", "Soda."}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scores["answer_relevancy"] != 0 || res.Scores["context_precision"] != ragasAP([]int{0, 0}) || f.Count("embeddings") != 0 {
		t.Errorf("scores %v, %d embeddings requests; want 0, %v and none", res.Scores, f.Count("embeddings"), ragasAP([]int{0, 0}))
	}
	s.useful = map[string]string{"The solidus was introduced by Constantine.": `{"reason": "yes", "verdict": 1}`}
	res, err = j.Score(ctx, ragasQuery, lasagna.Output{Answered: true, Answer: "x", Passages: []string{"The solidus was introduced by Constantine."}})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := res.Scores["context_precision"], ragasAP([]int{1}); g != w || g == 1 {
		t.Errorf("context_precision = %v, want %v (1/(1+1e-10), as in Ragas)", g, w)
	}
	// An abstention is noncommittal: 0 without a call; a row without a
	// reference gets no context_precision.
	n := f.Count("")
	res, err = j.Score(ctx, lasagna.Query{ID: "q2", Text: "Who?"}, lasagna.Output{Answered: true, Abstained: true, Passages: []string{"Lime."}})
	if err != nil || res.Scores["answer_relevancy"] != 0 || len(res.Scores) != 1 || f.Count("") != n {
		t.Errorf("abstention: %v, %v, %d calls; want answer_relevancy 0 alone, no call", res.Scores, err, f.Count("")-n)
	}
}

func TestRagasUnparseableRepliesAreErrors(t *testing.T) {
	for _, c := range []struct {
		metric, reply, want string
	}{
		{"faithfulness", `{"statements": "one"}`, "cannot unmarshal"},
		{"faithfulness", `{"claims": []}`, `unknown field "claims"`},
		{"answer_relevancy", `{"question": "Who?", "noncommittal": 2}`, `"noncommittal" is 2, not 0 or 1`},
		{"answer_relevancy", `{"question": "", "noncommittal": 0}`, "generated no question"},
		{"context_precision", `{"verdict": "1"}`, "cannot unmarshal string"},
		{"context_precision", `verdict 1`, "not a JSON object"},
		{"context_recall", `{"classifications": []}`, "no classified statement"},
		{"context_recall", `{"classifications": [{"statement": "s", "attributed": 1}]} extra`, "text after the JSON object"},
	} {
		t.Run(c.metric, func(t *testing.T) {
			f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(fixtures.ChatCall) string { return c.reply }})
			defer f.Close()
			j, err := New(ragasClient(t, f, t.TempDir()), Config{Metrics: []string{c.metric}})
			if err != nil {
				t.Fatal(err)
			}
			q := lasagna.Query{ID: "q", Text: "Who?", Answers: []string{"Constantine."}}
			out := lasagna.Output{Answered: true, Answer: "Constantine.", Passages: []string{"Constantine ruled."}}
			res, err := j.Score(context.Background(), q, out)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.metric+": ") {
				t.Fatalf("error %v; want one starting %q and containing %q", err, c.metric+": ", c.want)
			}
			if _, ok := res.Scores[c.metric]; ok {
				t.Errorf("%s scored %v despite the error; want it absent", c.metric, res.Scores[c.metric])
			}
			// An unparseable reply is never cached: the rerun asks again
			// (an empty question parses, and is skipped as Ragas skips it).
			n := f.Count("chat")
			if _, err := j.Score(context.Background(), q, out); err == nil || (f.Count("chat") == n) != strings.Contains(c.reply, `"question": ""`) {
				t.Errorf("rerun: %v after %d new calls; want the error again, from new calls", err, f.Count("chat")-n)
			}
		})
	}
	// A verdict list shorter than the statements is an error, not a mean over fewer.
	_, err := parseNLI(`{"statements": [{"statement": "a", "reason": "r", "verdict": 1}]}`, 2)
	if err == nil || !strings.Contains(err.Error(), "1 verdicts for 2 statements") {
		t.Errorf("parseNLI: %v", err)
	}
}

func TestRagasDescribeHoldsPromptsFixed(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	c := ragasClient(t, f, "")
	j, err := New(c, Config{Model: "judge-2025-01-31", Metrics: []string{"judge_correctness", "faithfulness", "answer_relevancy", "polite"},
		Rubrics: []Rubric{{Name: "polite", Criterion: "The answer is polite."}}})
	if err != nil {
		t.Fatal(err)
	}
	d := j.Describe()
	for _, want := range []string{
		"llm-judge model=judge-2025-01-31 max_tokens=256 temperature=0 judge_correctness=judge-correctness-v1@",
		" faithfulness=judge-faithfulness-statements-v1@" + statementsPrompt().SHA256() + "+judge-faithfulness-verdicts-v1@" + faithfulnessVerdictsPrompt().SHA256() + " max_tokens=1024",
		" answer_relevancy=judge-answer-relevancy-v1@" + answerRelevancyPrompt().SHA256() + " strictness=3 embedding_model=emb",
		" polite=judge-rubric-v1@" + rubricPrompt().SHA256() + " scale=5 criterion_sha256=740df60f",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() = %s\nwant it to contain %s", d, want)
		}
	}
	if strings.Contains(d, "groundedness") {
		t.Errorf("Describe() = %s names a metric not judged", d)
	}
	// Another criterion, another description.
	j2, _ := New(c, Config{Model: "judge-2025-01-31", Metrics: []string{"judge_correctness", "faithfulness", "answer_relevancy", "polite"},
		Rubrics: []Rubric{{Name: "polite", Criterion: "The answer is very polite."}}})
	if j2.Describe() == d {
		t.Error("a changed criterion leaves Describe unchanged")
	}
}

func TestRubricScoresNormalised(t *testing.T) {
	var reply string
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if !strings.Contains(c.Messages[0].Content, "from 1 (does not meet the criterion at all) to 4 (meets it fully)") ||
			!strings.Contains(c.LastUser, "Criterion: Polite.\n\nQuestion: Who?\nAnswer: Constantine.") {
			return "unexpected prompt"
		}
		return reply
	}})
	defer f.Close()
	j, err := New(ragasClient(t, f, ""), Config{Rubrics: []Rubric{{Name: "polite", Criterion: "Polite.", Scale: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Metrics(); strings.Join(got, ",") != "judge_correctness,groundedness,polite" {
		t.Errorf("Metrics() = %v", got)
	}
	j, _ = New(ragasClient(t, f, ""), Config{Metrics: []string{"polite"}, Rubrics: []Rubric{{Name: "polite", Criterion: "Polite.", Scale: 4}}})
	q := lasagna.Query{ID: "q", Text: "Who?"}
	out := lasagna.Output{Answered: true, Answer: "Constantine."}
	for s, want := range map[string]float64{"1": 0, "2": 1.0 / 3, "3": 2.0 / 3, "4": 1} {
		reply = `{"score": ` + s + `, "reason": "r"}`
		res, err := j.Score(context.Background(), q, out)
		if err != nil || res.Scores["polite"] != want {
			t.Errorf("score %s: %v, %v; want %v", s, res.Scores, err, want)
		}
	}
	for _, r := range []string{`{"score": 5}`, `{"score": 0}`, `{"score": 2.5}`, `{"reason": "r"}`, `{"score": "3"}`} {
		reply = r
		res, err := j.Score(context.Background(), q, out)
		if err == nil || len(res.Scores) != 0 || !strings.HasPrefix(err.Error(), "polite: ") {
			t.Errorf("reply %s: %v, %v; want an error and no score", r, res.Scores, err)
		}
	}
}

func TestRubricConfigErrors(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	c := ragasClient(t, f, "")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Rubrics: []Rubric{{Name: "faithfulness", Criterion: "x"}}}, `"faithfulness" is a built-in judge metric`},
		{Config{Rubrics: []Rubric{{Name: "p", Criterion: "x"}, {Name: "p", Criterion: "y"}}}, `two rubrics are named "p"`},
		{Config{Rubrics: []Rubric{{Name: "p"}}}, "the criterion is empty"},
		{Config{Rubrics: []Rubric{{Name: "p", Criterion: "x", Scale: 11}}}, "scale is 11; want 2 to 10"},
		{Config{Rubrics: []Rubric{{Name: "1p", Criterion: "x"}}}, "is not a letter followed by"},
		{Config{Metrics: []string{"groundedness"}, Rubrics: []Rubric{{Name: "p", Criterion: "x"}}}, "rubric p is not among the metrics to score"},
		{Config{Metrics: []string{"faithfulnes"}}, `unknown metric "faithfulnes"`},
		{Config{Strictness: -1}, "strictness is -1"},
	} {
		if _, err := New(c, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v; want an error containing %q", tc.cfg, err, tc.want)
		}
	}
	noEmb, _ := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "judge"})
	if _, err := New(noEmb, Config{Metrics: []string{"answer_relevancy"}}); err == nil || !strings.Contains(err.Error(), "no embedding model") {
		t.Errorf("answer_relevancy without an embedding model: %v", err)
	}
}

// TestRagasDocsWorkedExample scores the worked example of docs/metrics.md
// ("LLM judge metrics") on the scripted judge of
// TestRagasMetricsMatchRagasFormulas, with a rubric graded 4 of 5, and
// compares the printed scores with the block marked with its name.
func TestRagasDocsWorkedExample(t *testing.T) {
	s := newRagasScript()
	s.rubric = `{"score": 4, "reason": "courteous"}`
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: s.reply})
	defer f.Close()
	j, err := New(ragasClient(t, f, ""), Config{
		Metrics: []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall", "polite"},
		Rubrics: []Rubric{{Name: "polite", Criterion: "The answer is courteous.", Scale: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Score(context.Background(), ragasQuery, lasagna.Output{Answered: true, Answer: ragasAnswer, Passages: ragasPassages})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range j.Metrics() {
		fmt.Fprintf(&b, "%-17s %.12f\n", m, res.Scores[m])
	}
	fmt.Fprintf(&b, "judge calls       %d\n", res.Calls)
	blocks, err := doctest.MarkedOutput("..", "TestRagasDocsWorkedExample")
	if err != nil || len(blocks) != 1 {
		t.Fatalf("%d blocks marked TestRagasDocsWorkedExample, %v", len(blocks), err)
	}
	if err := doctest.Match(blocks[0].Lines, b.String()); err != nil {
		t.Errorf("%s: %v\nproduced:\n%s", blocks[0].Where(), err, b.String())
	}
}

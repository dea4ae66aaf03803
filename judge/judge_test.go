package judge

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

func client(t testing.TB, f *fixtures.FakeOpenAI, model string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: model, MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseVerdict(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    float64
		wantErr string
	}{
		{`{"verdict": "correct", "reason": "same"}`, 1, ""},
		{`{"verdict": "incorrect"}`, 0, ""},
		{` {"reason": "x", "verdict": "correct"} `, 1, ""},
		{`{"verdict": "Correct"}`, 0, `verdict "Correct" is neither`},
		{`{"verdict": "partially correct"}`, 0, "is neither"},
		{`{"reason": "x"}`, 0, `no "verdict" key`},
		{`{"verdict": 1}`, 0, "cannot unmarshal number"},
		{`{"verdict": "correct", "score": 1}`, 0, `unknown field "score"`},
		{`{"verdict": "correct"}{"verdict": "incorrect"}`, 0, "text after the JSON object"},
		{`verdict: correct`, 0, "not a JSON object"},
		{`[{"verdict": "correct"}]`, 0, "not a JSON object"},
		{`{"verdict": "correct"`, 0, "unexpected EOF"},
		{``, 0, "not a JSON object"},
	} {
		got, err := parseVerdict(c.in, "correct", "incorrect")
		if c.wantErr == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseVerdict(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || got != 0 || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("ParseVerdict(%q) = %v, %v; want an error containing %q", c.in, got, err, c.wantErr)
		}
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"verdict": "supported", "reason": "r"}`)
	f.Add(`{"verdict": "unsupported"}`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseVerdict(s, "supported", "unsupported")
		if err != nil && v != 0 || v != 0 && v != 1 {
			t.Errorf("ParseVerdict(%q) = %v, %v", s, v, err)
		}
	})
}

func TestDated(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4o": false, "gpt-4o-mini": false, "gpt-4.1": false, "llama3.1:8b": false, "o3": false, "gpt-4o-2024": false,
		"gpt-4o-2024-08-06": true, "claude-3-5-sonnet-20241022": true, "gpt-4-0613": true, "gpt-3.5-turbo-0125": true,
		"gpt-4o-2024-13-06": false, "model-1399": false,
	} {
		if got := dated(model); got != want {
			t.Errorf("Dated(%q) = %v, want %v", model, got, want)
		}
	}
	for _, c := range []struct {
		req, ans string
		want     bool
	}{
		{"gpt-4o", "gpt-4o-2024-08-06", true},
		{"gpt-4o", "gpt-4o", false},
		{"gpt-4o", "", false},
		{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06", false},
		{"gpt-4o-2024-05-13", "gpt-4o-2024-08-06", false},
		{"local", "local-build-7", false},
	} {
		if got := UnresolvedAlias(c.req, c.ans); got != c.want {
			t.Errorf("UnresolvedAlias(%q, %q) = %v, want %v", c.req, c.ans, got, c.want)
		}
	}
}

func TestScore(t *testing.T) {
	var calls atomic.Int64
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{
		ModelNames: map[string]string{"judge": "judge-2025-01-31"},
		Reply: func(c fixtures.ChatCall) string {
			calls.Add(1)
			switch {
			case strings.Contains(c.LastUser, "Reference answer: Constantine\nAnswer to grade: Constantine the Great"):
				return `{"verdict": "correct", "reason": "same person"}`
			case strings.Contains(c.LastUser, "Answer to grade:"):
				return `{"verdict": "incorrect"}`
			case strings.Contains(c.LastUser, "[1] The solidus was introduced by Constantine.\n\n[2] Lime.\n\nQuestion: Who introduced the solidus?\nAnswer to check: Constantine the Great"):
				return `{"verdict": "supported"}`
			}
			return `{"verdict": "unsupported"}`
		}})
	defer f.Close()
	j, err := New(client(t, f, "judge"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	q := lasagna.Query{ID: "q2", Text: "Who introduced the solidus?", Answers: []string{"Constantine", "Constantine I"}}
	passages := []string{"The solidus was introduced by Constantine.", "Lime."}
	unanswerable := lasagna.Query{ID: "q7", Text: "What did a mint charge?", Unanswerable: true}
	for _, c := range []struct {
		name  string
		q     lasagna.Query
		out   lasagna.Output
		want  map[string]float64
		calls int64
	}{
		{"correct and supported", q, lasagna.Output{Answer: "Constantine the Great", Answered: true, Passages: passages},
			map[string]float64{Correctness: 1, Groundedness: 1}, 2},
		{"wrong and unsupported", q, lasagna.Output{Answer: "Nero", Answered: true, Passages: passages[:1]},
			map[string]float64{Correctness: 0, Groundedness: 0}, 2},
		{"no passages", q, lasagna.Output{Answer: "Constantine the Great", Answered: true},
			map[string]float64{Correctness: 1, Groundedness: 0}, 1},
		{"abstained on answerable", q, lasagna.Output{Answered: true, Abstained: true, Passages: passages},
			map[string]float64{Correctness: 0}, 0},
		{"abstained on unanswerable", unanswerable, lasagna.Output{Answered: true, Abstained: true, Passages: passages},
			map[string]float64{Correctness: 1}, 0},
		{"empty answer on unanswerable", unanswerable, lasagna.Output{Answer: " the ", Answered: true},
			map[string]float64{Correctness: 1}, 0},
		{"answered an unanswerable", unanswerable, lasagna.Output{Answer: "a solidus", Answered: true, Passages: passages},
			map[string]float64{Correctness: 0, Groundedness: 0}, 1},
		{"no reference", lasagna.Query{Text: "?"}, lasagna.Output{Answer: "x", Answered: true, Passages: passages},
			map[string]float64{Groundedness: 0}, 1},
		{"not answered", q, lasagna.Output{Hits: []lasagna.Hit{{ID: "d1"}}}, map[string]float64{}, 0},
	} {
		before := calls.Load()
		res, err := j.Score(t.Context(), c.q, c.out)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if len(res.Scores) != len(c.want) {
			t.Errorf("%s: scores %v, want %v", c.name, res.Scores, c.want)
		}
		for m, v := range c.want {
			if got, ok := res.Scores[m]; !ok || got != v {
				t.Errorf("%s: %s = %v (present %v), want %v", c.name, m, got, ok, v)
			}
		}
		if n := calls.Load() - before; n != c.calls || int64(res.Calls) != n {
			t.Errorf("%s: %d calls (result says %d), want %d", c.name, n, res.Calls, c.calls)
		}
		if c.calls > 0 && res.Model != "judge-2025-01-31" {
			t.Errorf("%s: model %q", c.name, res.Model)
		}
	}
	// The judge sees the first reference only.
	for _, r := range f.Requests() {
		if strings.Contains(strings.Join(strings.Fields(r.Body["messages"].([]any)[1].(map[string]any)["content"].(string)), " "), "Constantine I") {
			t.Error("the judge was shown the second reference answer")
		}
	}
}

func TestScoreErrors(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		if strings.Contains(c.LastUser, "Answer to grade") {
			return `The answer is correct.`
		}
		return `{"verdict": "supported"}`
	}})
	defer f.Close()
	j, err := New(client(t, f, "judge"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	q := lasagna.Query{Text: "Who?", Answers: []string{"Constantine"}}
	out := lasagna.Output{Answer: "Constantine", Answered: true, Passages: []string{"Constantine did."}}
	res, err := j.Score(t.Context(), q, out)
	if err == nil || !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), `unparseable judge reply "The answer is correct."`) {
		t.Errorf("prose verdict: %v", err)
	}
	if _, ok := res.Scores[Correctness]; ok || res.Scores[Groundedness] != 1 {
		t.Errorf("scores = %v: want groundedness only, no correctness", res.Scores)
	}
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 500, Times: 100})
	res, err = j.Score(t.Context(), q, out)
	if !errors.Is(err, llm.ErrServer) || len(res.Scores) != 0 || !strings.Contains(err.Error(), "groundedness:") {
		t.Errorf("500s: %v, %v", res.Scores, err)
	}

	if _, err := New(client(t, f, "j"), Config{Metrics: []string{"faithfullness"}}); err == nil || !strings.Contains(err.Error(), `unknown metric "faithfullness"`) {
		t.Errorf("unknown metric: %v", err)
	}
	if _, err := New(client(t, f, ""), Config{}); err == nil || !strings.Contains(err.Error(), "MODEL_NAME") {
		t.Errorf("no model: %v", err)
	}
	j, _ = New(client(t, f, "j"), Config{Metrics: []string{Groundedness}})
	if d := j.Describe(); strings.Contains(d, Correctness) || !strings.Contains(d, "groundedness=judge-groundedness-v1@"+groundednessPrompt().SHA256()) {
		t.Errorf("Describe = %q", d)
	}
}

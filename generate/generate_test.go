package generate

import (
	"context"
	"errors"
	"strings"
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

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    lasagna.Answer
		wantErr string
	}{
		{`{"answer": "soda", "abstained": false}`, lasagna.Answer{Text: "soda"}, ""},
		{` {"abstained": false, "answer": "  Constantine "} `, lasagna.Answer{Text: "Constantine"}, ""},
		{`{"answer": "", "abstained": true}`, lasagna.Answer{Abstained: true}, ""},
		{`{"answer": "the passages do not say", "abstained": true}`, lasagna.Answer{Abstained: true}, ""},
		{`{"answer": "", "abstained": false}`, lasagna.Answer{}, "empty answer without"},
		{`{"answer": "soda"}`, lasagna.Answer{}, `no "abstained" key`},
		{`{"abstained": false}`, lasagna.Answer{}, `no "answer" key`},
		{`{"answer": 3, "abstained": false}`, lasagna.Answer{}, "cannot unmarshal number"},
		{`{"answer": "soda", "abstained": false, "confidence": 0.9}`, lasagna.Answer{}, `unknown field "confidence"`},
		{`{"answer": "soda", "abstained": false} and more`, lasagna.Answer{}, "text after the JSON object"},
		{"```json\n{\"answer\": \"soda\", \"abstained\": false}\n```", lasagna.Answer{}, "invalid character"},
		{`soda`, lasagna.Answer{}, "invalid character"},
		{`null`, lasagna.Answer{}, "not a JSON object"},
		{``, lasagna.Answer{}, "EOF"},
	} {
		got, err := parseAnswer(c.in)
		if c.wantErr == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseAnswer(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("ParseAnswer(%q) error = %v, want one containing %q", c.in, err, c.wantErr)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add(`{"answer": "soda", "abstained": false}`)
	f.Add(`{"answer": "", "abstained": true}`)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAnswer(s)
		if err != nil {
			if a != (lasagna.Answer{}) {
				t.Errorf("error %v with answer %+v", err, a)
			}
			return
		}
		if a.Abstained == (a.Text != "") {
			t.Errorf("answer %+v: an answer is either abstained with no text or has text", a)
		}
	})
}

func TestGenerators(t *testing.T) {
	var calls []fixtures.ChatCall
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		calls = append(calls, c)
		if strings.Contains(c.LastUser, "mint") {
			return `{"answer": "", "abstained": true}`
		}
		return `{"answer": "soda", "abstained": false}`
	}})
	defer f.Close()
	c := client(t, f, "gpt-test")
	q := lasagna.Query{ID: "q1", Text: "What lowers the melting point of silica?"}
	passages := []lasagna.Document{{ID: "d1", Title: "Glass", Text: "Soda lowers the melting point."}, {ID: "d2", Text: "Lime stabilises glass."}}

	g, err := NewGrounded(c, Config{Repeat: func(context.Context) int { return 3 }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := g.Generate(t.Context(), q, passages)
	if err != nil || a != (lasagna.Answer{Text: "soda"}) {
		t.Fatalf("grounded = %+v, %v", a, err)
	}
	want := "Passages:\n[1] Glass\nSoda lowers the melting point.\n\n[2] Lime stabilises glass.\n\nQuestion: What lowers the melting point of silica?"
	if calls[0].LastUser != want || calls[0].Messages[0].Role != "system" || !strings.Contains(calls[0].Messages[0].Content, "only the numbered passages") {
		t.Errorf("grounded call = %+v", calls[0])
	}
	body := f.Requests()[0].Body
	if body["temperature"] == nil || body["response_format"] == nil || body["model"] != "gpt-test" {
		t.Errorf("request body = %v", body)
	}
	if d := g.Describe(); !strings.HasPrefix(d, "grounded model=gpt-test max_tokens=256 temperature=0 prompt=grounded-v1 sha256="+groundedPrompt().SHA256()) {
		t.Errorf("Describe = %q", d)
	}

	cb, err := NewClosedBook(c, Config{Model: "other", MaxTokens: 32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cb.Generate(t.Context(), q, passages); err == nil || !strings.Contains(err.Error(), "was given 2 passages") {
		t.Errorf("closed-book with passages: %v", err)
	}
	a, err = cb.Generate(t.Context(), lasagna.Query{Text: "What did a mint charge?"}, nil)
	if err != nil || !a.Abstained {
		t.Errorf("closed-book abstention = %+v, %v", a, err)
	}
	if calls[1].LastUser != "Question: What did a mint charge?" || calls[1].Model != "other" {
		t.Errorf("closed-book call = %+v", calls[1])
	}
	if cb.Describe() == g.Describe() || closedBookPrompt().SHA256() == groundedPrompt().SHA256() {
		t.Error("the two generators describe themselves alike")
	}

	if _, err := NewGrounded(client(t, f, ""), Config{}); err == nil || !strings.Contains(err.Error(), "MODEL_NAME") {
		t.Errorf("no model: %v", err)
	}
}

func TestGeneratorErrors(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Answers: map[string]string{"broken": "I think it is soda."}})
	defer f.Close()
	g, err := NewClosedBook(client(t, f, "gpt-test"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Unparseable output is an error, never an empty answer.
	if a, err := g.Generate(t.Context(), lasagna.Query{Text: "broken"}, nil); err == nil || a != (lasagna.Answer{}) || !strings.Contains(err.Error(), "unusable answer") {
		t.Errorf("prose answer = %+v, %v", a, err)
	}
	// A server that keeps failing: the llm layer's coded error.
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 503, Times: 2})
	_, err = g.Generate(t.Context(), lasagna.Query{Text: "x"}, nil)
	if !errors.Is(err, llm.ErrServer) || llm.Code(err) != "server_error" {
		t.Errorf("503s: %v", err)
	}
}

func TestGeneratorRepeatsAreCachedApart(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: func(fixtures.ChatCall) string { return `{"answer": "soda", "abstained": false}` }})
	defer f.Close()
	c, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "k", Model: "m", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{}
	g, err := NewClosedBook(c, Config{Repeat: func(ctx context.Context) int { n, _ := ctx.Value(key{}).(int); return n }})
	if err != nil {
		t.Fatal(err)
	}
	q := lasagna.Query{Text: "What lowers the melting point of silica?"}
	for _, rep := range []int{0, 1, 0, 1, 2} {
		if _, err := g.Generate(context.WithValue(t.Context(), key{}, rep), q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.Count("chat"); n != 3 {
		t.Errorf("%d requests for repeats 0, 1, 0, 1, 2; want 3 (one per repeat index, the rest from the cache)", n)
	}
}

package synth

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/extract"
	"github.com/lasagna-go/lasagna/llm"
)

// fixtureDocs are the documents of the extract package's fixture folder,
// one file of each supported type.
func fixtureDocs(t testing.TB) []lasagna.Document {
	t.Helper()
	docs, err := extract.Dir(os.DirFS("../extract/testdata/docs"), ".")
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestParseMix(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mix
		err  string
	}{
		{"factoid=0.6,multihop=0.3,unanswerable=0.1", Mix{0.6, 0.3, 0.1}, ""},
		{" unanswerable=0.5 , factoid=0.5 ", Mix{0.5, 0, 0.5}, ""},
		{"factoid=1", Mix{1, 0, 0}, ""},
		{"factoid=0.7,multihop=0.3,unanswerable=0.1", Mix{}, "mix shares sum to 1.1, not 1"},
		{"factoid=0.5", Mix{}, "mix shares sum to 0.5, not 1"},
		{"factoid=1.2,multihop=-0.2", Mix{}, "mix share of multihop is -0.2; shares must be between 0 and 1"},
		{"factoids=1", Mix{}, `unknown question type "factoids" in mix; known: factoid, multihop, unanswerable`},
		{"factoid=0.5,factoid=0.5", Mix{}, `mix gives "factoid" twice`},
		{"factoid", Mix{}, `mix entry "factoid" is not type=share`},
		{"factoid=abc", Mix{}, `mix entry "factoid=abc": "abc" is not a number`},
		{"factoid=NaN", Mix{}, `is not a number`},
		{"", Mix{}, "empty mix"},
	} {
		got, err := ParseMix(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseMix(%q) = %v, %v; want %v", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseMix(%q) error = %v; want %q", c.in, err, c.err)
		}
	}
	if s := DefaultMix().String(); s != "factoid=0.6,multihop=0.3,unanswerable=0.1" {
		t.Errorf("DefaultMix().String() = %s", s)
	}
}

func TestCountsLargestRemainder(t *testing.T) {
	third := 1.0 / 3
	for _, c := range []struct {
		mix  Mix
		n    int
		want Counts
	}{
		{DefaultMix(), 10, Counts{6, 3, 1}},
		{DefaultMix(), 7, Counts{4, 2, 1}}, // 4.2, 2.1, 0.7: the 0.7 gets the last one
		{DefaultMix(), 200, Counts{120, 60, 20}},
		{DefaultMix(), 1, Counts{1, 0, 0}},         // 0.6, 0.3, 0.1
		{DefaultMix(), 3, Counts{2, 1, 0}},         // 1.8, 0.9, 0.3
		{Mix{0.5, 0.25, 0.25}, 2, Counts{1, 1, 0}}, // tie 0.5 vs 0.5: type order
		{Mix{third, third, third}, 4, Counts{2, 1, 1}},
		{Mix{0, 0, 1}, 5, Counts{0, 0, 5}},
		{Mix{0, 1, 0}, 3, Counts{0, 3, 0}},
	} {
		got := c.mix.Counts(c.n)
		if got != c.want {
			t.Errorf("%s .Counts(%d) = %+v, want %+v", c.mix, c.n, got, c.want)
		}
		if got.Total() != c.n {
			t.Errorf("%s .Counts(%d) totals %d", c.mix, c.n, got.Total())
		}
	}
}

func sourceIDs(q Question) string {
	var ids []string
	for _, p := range q.Sources {
		ids = append(ids, p.ID)
	}
	if len(q.Neighbours) > 0 {
		ids = append(ids, "|")
		for _, p := range q.Neighbours {
			ids = append(ids, p.ID)
		}
	}
	return strings.Join(ids, " ")
}

func TestMakePlanFixtureFolder(t *testing.T) {
	docs := fixtureDocs(t)
	p, err := MakePlan(docs, Options{N: 7, Seed: 42, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Documents != 5 || p.Passages != 7 || p.Counts != (Counts{4, 2, 1}) || p.Calls() != 14 || p.Mix != DefaultMix() {
		t.Errorf("plan = %d documents, %d passages, %+v, %d calls, mix %s; want 5, 7, {4 2 1}, 14, default", p.Documents, p.Passages, p.Counts, p.Calls(), p.Mix)
	}
	// The passages drawn for seed 42 (a regression check on the PCG draw
	// and the word-overlap rules, checked by hand against the documents:
	// faq.txt#0 shares the most words with guide.md#1 among the other
	// documents' passages, policy.docx#0 with faq.txt#0).
	want := []string{
		"factoid policy.docx#0",
		"factoid faq.txt#0",
		"factoid manual.pdf#0",
		"factoid page.html#0",
		"multihop faq.txt#0 guide.md#1",
		"multihop policy.docx#0 faq.txt#0",
		"unanswerable policy.docx#0 | faq.txt#0 guide.md#0 page.html#0",
	}
	var got []string
	for _, q := range p.Questions {
		got = append(got, string(q.Type)+" "+sourceIDs(q))
	}
	if !slices.Equal(got, want) {
		t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Another seed draws other passages; the same seed the same plan.
	q, _ := MakePlan(docs, Options{N: 7, Seed: 42, Model: "m"})
	if !reflect.DeepEqual(p, q) {
		t.Error("two plans with the same documents and seed differ")
	}
	r, _ := MakePlan(docs, Options{N: 7, Seed: 43, Model: "m"})
	if reflect.DeepEqual(p.Questions, r.Questions) {
		t.Error("seeds 42 and 43 give the same passages")
	}
	for _, q := range p.Questions {
		if q.Prompt.SHA256 != PromptTemplates()[q.Prompt.ID] {
			t.Errorf("%s: prompt_sha256 %s is not its template's", q.Prompt.ID, q.Prompt.SHA256)
		}
		for _, s := range q.Sources {
			if !strings.Contains(q.Prompt.User, s.Text) {
				t.Errorf("%s prompt lacks its source passage %s", q.Prompt.ID, s.ID)
			}
		}
	}
	e := p.Estimate()
	if e.CompletionTokens != 7*(GenerationMaxTokens+VerificationMaxTokens) || e.PromptTokens < 7*GenerationMaxTokens {
		t.Errorf("estimate = %+v", e)
	}
}

func TestMultihopPartnerAndNeighbours(t *testing.T) {
	docs := []lasagna.Document{
		{ID: "a.md", Text: "apple banana cherry date"},
		{ID: "b.md", Text: "apple banana zebra"},
		{ID: "c.md", Text: "Apple, banana; cherry yak"},
		{ID: "d.md", Text: "apple banana cherry xx"},
		// e.md has two passages with a's words: its partner must come from
		// another document.
		{ID: "e.md", Text: strings.Repeat("apple banana cherry date ", 51)},
	}
	p, err := MakePlan(docs, Options{N: 6, Mix: Mix{Multihop: 1}})
	if err != nil {
		t.Fatal(err)
	}
	partner := map[string]string{}
	for _, q := range p.Questions {
		partner[q.Sources[0].ID] = q.Sources[1].ID
	}
	want := map[string]string{
		"a.md#0": "e.md#0", // 4 shared words with e.md#0 and e.md#1; ties go to the earlier
		"b.md#0": "a.md#0", // 2 shared with a, c, d, e
		"c.md#0": "a.md#0", // 3 with a, d, e
		"d.md#0": "a.md#0",
		"e.md#0": "a.md#0", // not e.md#1 (same document)
		"e.md#1": "a.md#0",
	}
	if !reflect.DeepEqual(partner, want) {
		t.Errorf("partners = %v, want %v", partner, want)
	}
	p, err = MakePlan(docs[:4], Options{N: 4, Mix: Mix{Unanswerable: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range p.Questions {
		if q.Sources[0].ID == "a.md#0" {
			if got := sourceIDs(q); got != "a.md#0 | c.md#0 d.md#0 b.md#0" {
				t.Errorf("unanswerable neighbours = %s, want a.md#0 | c.md#0 d.md#0 b.md#0", got)
			}
		}
	}
}

func TestMakePlanErrors(t *testing.T) {
	one := []lasagna.Document{{ID: "a.md", Text: "one two three"}}
	two := append(one, lasagna.Document{ID: "b.md", Text: "four five"})
	for _, c := range []struct {
		docs []lasagna.Document
		opts Options
		want string
	}{
		{two, Options{N: 0}, "synth: n is 0; ask for at least one question"},
		{two, Options{N: 1, Mix: Mix{Factoid: 0.5}}, "synth: mix shares sum to 0.5, not 1"},
		{[]lasagna.Document{{ID: "x", Text: " "}}, Options{N: 1}, "synth: the documents hold no text"},
		{one, Options{N: 2}, "synth: multihop questions need passages from two documents, and only 1 document has text"},
		{two, Options{N: 3, Mix: Mix{Factoid: 1}}, "synth: 3 factoid questions need 3 passages, and the documents hold 2"},
		{append(two, two[0]), Options{N: 1}, `synth: document id "a.md" is given twice`},
	} {
		_, err := MakePlan(c.docs, c.opts)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("MakePlan(%+v) error = %v, want %q", c.opts, err, c.want)
		}
	}
	if _, err := MakePlan(one, Options{N: 1, Mix: Mix{Factoid: 1}}); err != nil {
		t.Errorf("factoid-only plan on one document: %v", err)
	}
}

// script answers the calls of plan like a careful model: each generation
// gets "Question <i> about <doc>?" (answer "answer <i>", or null when
// unanswerable) unless gen[i] is set, and each verification passes unless
// verify[i] is set.
func script(plan Plan, gen, verify map[int]string) func(fixtures.ChatCall) string {
	qnum := regexp.MustCompile(`(?mi)^Question: Question (\d+) `)
	return func(c fixtures.ChatCall) string {
		for i, q := range plan.Questions {
			if c.LastUser != q.Prompt.User {
				continue
			}
			if s, ok := gen[i]; ok {
				return s
			}
			if q.Type == Unanswerable {
				return fmt.Sprintf(`{"question": "Question %d about %s?", "answer": null}`, i, q.Sources[0].DocID)
			}
			return fmt.Sprintf("```json\n{\"question\": \"Question %d about %s?\", \"answer\": \"answer %d\"}\n```", i, q.Sources[0].DocID, i)
		}
		m := qnum.FindStringSubmatch(c.LastUser)
		if m == nil {
			return "unexpected prompt"
		}
		i, _ := strconv.Atoi(m[1])
		if s, ok := verify[i]; ok {
			return s
		}
		if plan.Questions[i].Type == Unanswerable {
			return `{"answered": false}`
		}
		return `{"supported": true}`
	}
}

func newClient(t testing.TB, f *fixtures.FakeOpenAI) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "test", Model: "test-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSynthesizeRows(t *testing.T) {
	docs := fixtureDocs(t)
	opts := Options{N: 7, Seed: 42, Model: "test-model"}
	plan, _ := MakePlan(docs, opts)
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: script(plan, nil, nil), ModelNames: map[string]string{"test-model": "test-model-2026-01-01"}})
	defer f.Close()
	client := newClient(t, f)
	res, err := Synthesize(context.Background(), client, docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Count("chat") != 14 || len(res.Rows) != 7 || len(res.Dropped) != 0 {
		t.Fatalf("%d requests, %d rows, dropped %v; want 14, 7, none", f.Count("chat"), len(res.Rows), res.Dropped)
	}
	for _, r := range f.Requests() {
		if r.Body["model"] != "test-model" || r.Body["response_format"] == nil {
			t.Errorf("request model %v, response_format %v; want test-model and JSON", r.Body["model"], r.Body["response_format"])
		}
	}
	if su := client.Usage().Stage(llm.StageSynthesis); su.Calls != 14 {
		t.Errorf("usage charged to synthesis: %d calls, want 14", su.Calls)
	}
	r0, r6 := res.Rows[0], res.Rows[6]
	wantMeta := map[string]any{
		"question_type": "factoid", "source_doc_ids": []string{"policy.docx"}, "prompt_id": "factoid-v1",
		"prompt_sha256": PromptTemplates()["factoid-v1"], "model": "test-model-2026-01-01", "seed": int64(42),
		"synthetic": true, "unanswerable": false,
	}
	if r0.ID != "synth-0001" || r0.Question != "Question 0 about policy.docx?" || !slices.Equal(r0.Answers, []string{"answer 0"}) ||
		!slices.Equal(r0.Contexts, []string{plan.Questions[0].Sources[0].Text}) || !reflect.DeepEqual(r0.Metadata, wantMeta) {
		t.Errorf("row 1 = %+v", r0)
	}
	if r6.ID != "synth-0007" || len(r6.Answers) != 0 || !r6.Unanswerable() || r6.Metadata["prompt_id"] != "unanswerable-v1" || len(r6.Contexts) != 1 {
		t.Errorf("row 7 = %+v", r6)
	}
	if m := res.Rows[4].Metadata["source_doc_ids"]; !reflect.DeepEqual(m, []string{"faq.txt", "guide.md"}) || len(res.Rows[4].Contexts) != 2 {
		t.Errorf("multihop row: source_doc_ids %v, %d contexts", m, len(res.Rows[4].Contexts))
	}

	// The rows load back as a benchmark, with their metadata.
	var buf bytes.Buffer
	if err := datasets.WriteJSONL(&buf, res.Rows); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"synth.jsonl": {Data: buf.Bytes()}}
	back, err := datasets.ReadJSONL(fsys, "synth.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 7 || back[6].Metadata["synthetic"] != true || back[6].Metadata["seed"] != 42.0 || !back[6].Unanswerable() {
		t.Errorf("read back %d rows; last %+v", len(back), back[len(back)-1])
	}
	b, err := datasets.LoadJSONL(fsys, "synth.jsonl", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Queries) != 7 {
		t.Errorf("loaded %d queries, want 7", len(b.Queries))
	}
	first := strings.SplitN(buf.String(), "\n", 2)[0]
	if !strings.HasPrefix(first, `{"id":"synth-0001","question":"Question 0 about policy.docx?","answer":"answer 0","contexts":[`) ||
		!strings.Contains(first, `"metadata":{"model":"test-model-2026-01-01","prompt_id":"factoid-v1","prompt_sha256":"`) ||
		!strings.HasSuffix(first, `"question_type":"factoid","seed":42,"source_doc_ids":["policy.docx"],"synthetic":true,"unanswerable":false}}`) {
		t.Errorf("first line: %s", first)
	}
}

// prompts returns the system and user messages of every recorded request,
// sorted (requests arrive in any order).
func prompts(f *fixtures.FakeOpenAI) []string {
	var out []string
	for _, r := range f.Requests() {
		msgs, _ := r.Body["messages"].([]any)
		var b strings.Builder
		for _, m := range msgs {
			mm := m.(map[string]any)
			fmt.Fprintf(&b, "%s\x00%s\x00", mm["role"], mm["content"])
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

func TestSynthesizeDeterministicPrompts(t *testing.T) {
	docs := fixtureDocs(t)
	opts := Options{N: 7, Seed: 42, Model: "test-model"}
	plan, _ := MakePlan(docs, opts)
	var runs [][]string
	var results []Result
	for _, conc := range []int{4, 1} {
		f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: script(plan, nil, nil)})
		opts.Concurrency = conc
		res, err := Synthesize(context.Background(), newClient(t, f), docs, opts)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, prompts(f))
		results = append(results, res)
	}
	if len(runs[0]) != 14 || !slices.Equal(runs[0], runs[1]) {
		t.Errorf("the two runs sent different prompts (%d and %d requests)", len(runs[0]), len(runs[1]))
	}
	if !reflect.DeepEqual(results[0].Rows, results[1].Rows) {
		t.Error("the two runs wrote different rows")
	}
	// The generation prompts sent are the plan's, byte for byte.
	for _, q := range plan.Questions {
		want := "system\x00" + q.Prompt.System + "\x00user\x00" + q.Prompt.User + "\x00"
		if !slices.Contains(runs[0], want) {
			t.Errorf("the %s prompt of the plan was not sent as planned", q.Prompt.ID)
		}
	}
}

func TestSynthesizeDropsCounted(t *testing.T) {
	docs := fixtureDocs(t)
	opts := Options{N: 7, Seed: 42, Model: "test-model"}
	plan, _ := MakePlan(docs, opts)
	gen := map[int]string{
		0: "Sure! Here is a question: what is the fee?",
		3: `{"question": "Question 3 about a shared topic?", "answer": "x"}`,
		4: `{"question": "  question 3 ABOUT a shared   topic? ", "answer": "y"}`,
		5: `{"question": "Question 5 about faq.txt?", "answer": ""}`,
	}
	verify := map[int]string{
		1: `{"supported": false}`,
		2: `{"supported": "maybe"}`,
		6: `{"answered": true}`,
	}
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: script(plan, gen, verify)})
	defer f.Close()
	res, err := Synthesize(context.Background(), newClient(t, f), docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{DropUnparseable: 2, DropUnsupported: 1, DropUnparseableVerification: 1, DropAnswerable: 1, DropDuplicate: 1}
	if !reflect.DeepEqual(res.Dropped, want) {
		t.Errorf("dropped %v, want %v", res.Dropped, want)
	}
	if len(res.Rows) != 1 || res.Rows[0].ID != "synth-0001" || res.Rows[0].Question != "Question 3 about a shared topic?" {
		t.Errorf("rows = %+v, want the one question 3 as synth-0001", res.Rows)
	}
	var reasons []string
	for _, d := range res.Drops {
		reasons = append(reasons, fmt.Sprintf("%d:%s:%s", d.Index, d.Type, d.Reason))
	}
	if got := strings.Join(reasons, " "); got != "0:factoid:unparseable 1:factoid:unsupported 2:factoid:unparseable_verification 4:multihop:duplicate 5:multihop:unparseable 6:unanswerable:answerable" {
		t.Errorf("drops = %s", got)
	}
	// Question 0 and 5 stopped at the generation: 7 + 5 calls.
	if n := f.Count("chat"); n != 12 {
		t.Errorf("%d calls, want 12", n)
	}
}

func TestSynthesizeLLMErrors(t *testing.T) {
	docs := fixtureDocs(t)
	opts := Options{N: 3, Seed: 1, Model: "test-model", Mix: Mix{Factoid: 1}, Concurrency: 1}
	plan, _ := MakePlan(docs, opts)
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Reply: script(plan, nil, nil)})
	defer f.Close()
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 400}) // the first generation
	res, err := Synthesize(context.Background(), newClient(t, f), docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped[DropLLMError] != 1 || len(res.Rows) != 2 || res.Drops[0].Index != 0 || !strings.Contains(res.Drops[0].Detail, "generation: ") {
		t.Errorf("dropped %v, drops %+v, %d rows; want question 1 dropped as llm_error and 2 rows", res.Dropped, res.Drops, len(res.Rows))
	}

	f.Reset()
	f.Inject(fixtures.Fault{Endpoint: "chat", Status: 400, Times: 100})
	res, err = Synthesize(context.Background(), newClient(t, f), docs, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "synth: every LLM call failed (3 questions dropped); first error: ") {
		t.Errorf("all calls failing: error = %v", err)
	}
	if len(res.Rows) != 0 || res.Dropped[DropLLMError] != 3 {
		t.Errorf("all calls failing: %d rows, dropped %v; want none and llm_error 3", len(res.Rows), res.Dropped)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Synthesize(ctx, newClient(t, f), docs, opts); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("cancelled context: error = %v", err)
	}
}

func TestDecodeObject(t *testing.T) {
	var v struct {
		Question *string `json:"question"`
	}
	for in, ok := range map[string]bool{
		`{"question": "q"}`:                   true,
		"```json\n{\"question\": \"q\"}\n```": true,
		"```\n{\"question\": \"q\"}\n```":     true,
		`{"question": "q", "extra": 1}`:       true,
		`{"question": "q"} trailing`:          false,
		`{"question": "q"}{"question": "r"}`:  false,
		`Here: {"question": "q"}`:             false,
		`{"question": 3}`:                     false,
		`["q"]`:                               false,
		``:                                    false,
	} {
		if err := decodeObject(in, &v); (err == nil) != ok {
			t.Errorf("decodeObject(%q) error = %v, want ok=%v", in, err, ok)
		}
	}
}

func BenchmarkMakePlan(b *testing.B) {
	var docs []lasagna.Document
	words := strings.Fields("garden plot water compost tool shed member season greenhouse pump filter timer committee harvest pumpkin honey")
	for d := range 50 {
		var sb strings.Builder
		for w := range 2000 {
			sb.WriteString(words[(w*7+d*3)%len(words)] + strconv.Itoa(w%97) + " ")
		}
		docs = append(docs, lasagna.Document{ID: fmt.Sprintf("doc%02d.md", d), Text: sb.String()})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MakePlan(docs, Options{N: 200, Seed: 42}); err != nil {
			b.Fatal(err)
		}
	}
}

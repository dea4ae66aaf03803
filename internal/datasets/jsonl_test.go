package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// sha12 is computed here independently of the package's hashing.
func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// problemsOf loads a one-file JSONL dataset and returns its problem lines.
func problemsOf(t *testing.T, name, data string) []string {
	t.Helper()
	_, err := Load(mapFS(map[string]string{name: data}), name, Options{})
	if err == nil {
		t.Fatalf("Load(%q) succeeded, want problems", data)
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T (%v), want Problems", err, err)
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	return out
}

func TestSeedJSONL(t *testing.T) {
	data, err := os.ReadFile("testdata/seed000/seed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(os.DirFS("testdata/seed000"), "seed.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256hex(data)
	if want := "local/seed@" + sum[:12]; b.Name != want || b.Revision != sum {
		t.Errorf("Name, Revision = %q, %q; want %q, %q", b.Name, b.Revision, want, sum)
	}
	if b.Format != lasagna.FormatJSONL || b.Provenance != lasagna.ProvenancePooledGold || b.Split != "" {
		t.Errorf("format %q provenance %q split %q", b.Format, b.Provenance, b.Split)
	}
	soda := "Soda-lime glass is made by melting silica sand with sodium carbonate and calcium oxide. The soda lowers the melting point of the silica from about 1700 to roughly 1000 degrees Celsius."
	solidus := "The solidus was a gold coin introduced by Constantine the Great in roughly 312 AD."
	wantQ := []lasagna.Query{
		{ID: "q1", Text: "What does the soda add to soda-lime glass?", Answers: []string{"It lowers the melting point of the silica."}, Contexts: []string{soda}, Pos: lasagna.Pos{File: "seed.jsonl", Line: 1}},
		{ID: "q2", Text: "Who introduced the solidus?", Answers: []string{"Constantine the Great", "Constantine I"}, Contexts: []string{solidus}, Pos: lasagna.Pos{File: "seed.jsonl", Line: 2}},
		{ID: "q3", Text: "What did the solidus cost to mint?", Unanswerable: true, Contexts: []string{solidus}, Metadata: map[string]any{"unanswerable": true}, Pos: lasagna.Pos{File: "seed.jsonl", Line: 3}},
	}
	if !reflect.DeepEqual(b.Queries, wantQ) {
		t.Errorf("queries:\n got %+v\nwant %+v", b.Queries, wantQ)
	}
	// The solidus passage is shared by q2 and q3: one document, relevant to
	// q2 only (q3 is unanswerable).
	idSoda, idSolidus := "p"+sha256hex([]byte(soda))[:12], "p"+sha256hex([]byte(solidus))[:12]
	wantC := []lasagna.Document{{ID: idSoda, Text: soda}, {ID: idSolidus, Text: solidus}}
	if !reflect.DeepEqual(b.Corpus, wantC) {
		t.Errorf("corpus:\n got %+v\nwant %+v", b.Corpus, wantC)
	}
	wantR := lasagna.Qrels{"q1": {idSoda: 1}, "q2": {idSolidus: 1}}
	if !reflect.DeepEqual(b.Qrels, wantR) {
		t.Errorf("qrels = %v, want %v", b.Qrels, wantR)
	}
}

func TestSeedCSV(t *testing.T) {
	b, err := Load(os.DirFS("testdata/seed000"), "seed.csv", Options{Name: "coins"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("testdata/seed000/seed.csv")
	if want := "coins@" + sha256hex(data)[:12]; b.Name != want {
		t.Errorf("Name = %q, want %q", b.Name, want)
	}
	if len(b.Queries) != 2 || len(b.Corpus) != 3 {
		t.Fatalf("got %d queries, %d docs; want 2, 3", len(b.Queries), len(b.Corpus))
	}
	q2 := b.Queries[1]
	want := []string{"The hyperpyron replaced the debased solidus after the monetary reform of Alexios I Komnenos in 1092.", "Debasement of the solidus began in earnest under Nikephoros II."}
	if q2.ID != "q2" || !reflect.DeepEqual(q2.Contexts, want) || !reflect.DeepEqual(q2.Answers, []string{"The hyperpyron"}) || q2.Pos.Line != 3 {
		t.Errorf("q2 = %+v", q2)
	}
	if got := b.Qrels.Relevant("q2"); len(got) != 2 {
		t.Errorf("q2 relevant = %v, want 2 docs", got)
	}
}

func TestJSONLDefaultsAndForms(t *testing.T) {
	fsys := mapFS(map[string]string{"d.jsonl": "\xef\xbb\xbf{\"question\": \"a?\", \"answer\": \"x\"}\n\n{\"id\": 7, \"question\": \"b?\", \"answers\": \"y\"}\r\n{\"id\": 1.50, \"question\": \"c?\", \"answer\": \"\", \"contexts\": []}\n"})
	b, err := Load(fsys, "d.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range b.Queries {
		ids = append(ids, q.ID)
	}
	if want := []string{"row1", "7", "1.50"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %q, want %q", ids, want)
	}
	if b.Queries[1].Answers[0] != "y" || b.Queries[2].Answers != nil {
		t.Errorf("answers: %q %q", b.Queries[1].Answers, b.Queries[2].Answers)
	}
	if b.Provenance != lasagna.ProvenanceNone || len(b.Corpus) != 0 {
		t.Errorf("no contexts: provenance %q, %d docs", b.Provenance, len(b.Corpus))
	}
}

func TestJSONLProblems(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string // substrings of each problem, in order
	}{
		{"unknown field", `{"question": "q", "anwser": "a"}`,
			[]string{`d.jsonl:1: unknown field "anwser" (did you mean "answer"?); put fields of your own under "metadata"`}},
		{"unknown far", `{"question": "q", "colour": "a"}`,
			[]string{`d.jsonl:1: unknown field "colour" (known fields: id, question, answer, answers, context, contexts, expected_docs, metadata)`}},
		{"answer and answers", `{"question": "q", "answer": "a", "answers": ["b"]}`,
			[]string{`d.jsonl:1: both "answer" and "answers" are given; use one`}},
		{"context and contexts", `{"question": "q", "context": "a", "contexts": ["b"]}`,
			[]string{`d.jsonl:1: both "context" and "contexts" are given`}},
		{"unanswerable with answer", `{"question": "q", "answer": "a", "metadata": {"unanswerable": true}}`,
			[]string{`d.jsonl:1: row is marked metadata.unanswerable but has an answer "a"`}},
		{"unanswerable not bool", `{"question": "q", "metadata": {"unanswerable": "yes"}}`,
			[]string{`d.jsonl:1: metadata.unanswerable must be true or false, got a string`}},
		{"missing question", `{"answer": "a"}`,
			[]string{`d.jsonl:1: missing field "question"`}},
		{"question not string", `{"question": 3}`,
			[]string{`d.jsonl:1: field "question" must be a string, got a number`}},
		{"id bool", `{"id": true, "question": "q"}`,
			[]string{`d.jsonl:1: field "id" must be a string or a number, got a boolean`}},
		{"duplicate ids", "{\"id\": \"a\", \"question\": \"q\"}\n{\"id\": \"a\", \"question\": \"r\"}",
			[]string{`d.jsonl:2: duplicate id "a" (first used at line 1)`}},
		{"default id clash", "{\"id\": \"row2\", \"question\": \"q\"}\n{\"question\": \"r\"}",
			[]string{`d.jsonl:2: duplicate id "row2" (first used at line 1)`}},
		{"bad json", "{\"question\": \"q\"}\n{\"question\": \"q\",}\n",
			[]string{`d.jsonl:2: invalid JSON at column 18: want a quoted field name`}},
		{"not an object", `["q"]`,
			[]string{`d.jsonl:1: invalid JSON at column 1: want an object, got a list`}},
		{"contexts item", `{"question": "q", "contexts": ["a", 2]}`,
			[]string{`d.jsonl:1: contexts[1] must be a string, got a number`}},
		{"empty passage", `{"question": "q", "contexts": ["a", " "]}`,
			[]string{`d.jsonl:1: contexts[1] is an empty passage`}},
		{"expected_docs length", `{"question": "q", "contexts": ["a", "b"], "expected_docs": ["A"]}`,
			[]string{`d.jsonl:1: expected_docs has 1 names for 2 contexts`}},
		{"metadata list", `{"question": "q", "metadata": [1]}`,
			[]string{`d.jsonl:1: field "metadata" must be an object, got a list`}},
		{"field twice", `{"question": "q", "question": "r"}`,
			[]string{`d.jsonl:1: field "question" is given twice`}},
		{"several lines", "{\"question\": \"q\", \"anwser\": \"a\"}\n{\"qestion\": \"q\"}\n{\"question\": \"q\"}\n",
			[]string{`d.jsonl:1: unknown field "anwser"`, `d.jsonl:2: unknown field "qestion" (did you mean "question"?)`, `d.jsonl:2: missing field "question"`}},
		{"same name two texts", "{\"question\": \"q\", \"contexts\": [\"a\"], \"expected_docs\": [\"A\"]}\n{\"question\": \"r\", \"contexts\": [\"b\"], \"expected_docs\": [\"A\"]}",
			[]string{`d.jsonl:2: expected_docs[0] "A" names a passage whose text differs from the one given for "A" at d.jsonl:1`}},
		{"same text two names", "{\"question\": \"q\", \"contexts\": [\"a\"], \"expected_docs\": [\"A\"]}\n{\"question\": \"r\", \"contexts\": [\"a\"], \"expected_docs\": [\"B\"]}",
			[]string{`d.jsonl:2: contexts[0] has the same text as passage "A" (d.jsonl:1) but is named "B"`}},
		{"undefined name", `{"question": "q", "expected_docs": ["Z"]}`,
			[]string{`d.jsonl:1: expected_docs names "Z", but no row gives its text`}},
		{"empty file", "\n\n",
			[]string{`d.jsonl: no rows`}},
		{"control char", "{\"question\": \"a\tb\"}",
			[]string{`d.jsonl:1: invalid JSON at column 16: control character in string`}},
		{"bad escape", `{"question": "a\qb"}`,
			[]string{`d.jsonl:1: invalid JSON at column 16: bad string: invalid escape`}},
		{"NUL after the object", "{\"question\": \"a\"}\x00",
			[]string{`d.jsonl:1: NUL byte at column 18; text may not contain NUL (U+0000)`}},
		{"trailing text", `{"question": "a"} x`,
			[]string{`d.jsonl:1: invalid JSON at column 19: unexpected text after the object`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsOf(t, "d.jsonl", tc.data)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestProblemsLimit(t *testing.T) {
	data := strings.Repeat("{\"qestion\": \"q\"}\n", 200)
	got := problemsOf(t, "d.jsonl", data)
	if len(got) != MaxProblems+1 || !strings.Contains(got[MaxProblems], "too many problems") {
		t.Errorf("got %d problems, last %q; want %d and a stop note", len(got), got[len(got)-1], MaxProblems+1)
	}
}

func TestPooledCorpusRules(t *testing.T) {
	data := strings.Join([]string{
		`{"id": "a", "question": "qa", "answer": "x", "contexts": ["T1", "T2"], "expected_docs": ["doc1", "doc2"]}`,
		`{"id": "b", "question": "qb", "answer": "y", "contexts": ["T2"]}`,        // same text as doc2, unnamed: joins doc2
		`{"id": "c", "question": "qc", "answer": "z", "expected_docs": ["doc1"]}`, // cites doc1 by name
		`{"id": "d", "question": "qd", "contexts": ["T3"], "metadata": {"unanswerable": true}}`,
		`{"id": "e", "question": "qe", "answer": "w", "contexts": ["T4"]}`,
		`{"id": "f", "question": "qf", "answer": "v", "contexts": ["T4"], "expected_docs": ["doc4"]}`, // names T4 later
	}, "\n")
	b, err := Load(mapFS(map[string]string{"p.jsonl": data}), "p.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range b.Corpus {
		ids = append(ids, d.ID+"="+d.Text)
	}
	want := []string{"doc1=T1", "doc2=T2", "p" + sha256hex([]byte("T3"))[:12] + "=T3", "doc4=T4"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("corpus = %q, want %q", ids, want)
	}
	wantR := lasagna.Qrels{"a": {"doc1": 1, "doc2": 1}, "b": {"doc2": 1}, "c": {"doc1": 1}, "e": {"doc4": 1}, "f": {"doc4": 1}}
	if !reflect.DeepEqual(b.Qrels, wantR) {
		t.Errorf("qrels = %v, want %v", b.Qrels, wantR)
	}
	if c, _ := b.Query("c"); !reflect.DeepEqual(c.Contexts, []string{"T1"}) {
		t.Errorf("row c contexts = %q, want its cited passage", c.Contexts)
	}
}

func TestLongLine(t *testing.T) {
	long := strings.Repeat("glass ", 400_000) // 2.4 MB, well past the reader's buffer
	data := `{"question": "q", "answer": "a", "contexts": ["` + long + `"]}` + "\n" + `{"question": "r"}`
	b, err := Load(mapFS(map[string]string{"l.jsonl": data}), "l.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Corpus) != 1 || b.Corpus[0].Text != long || b.Queries[1].ID != "row2" {
		t.Errorf("long line not read whole: %d docs, len %d", len(b.Corpus), len(b.Corpus[0].Text))
	}
}

func TestEscapesAndUnicode(t *testing.T) {
	data := `{"question": "caf\u00e9 \"x\" \ud83d\ude00 ü", "answer": "\/a\n"}`
	b, err := Load(mapFS(map[string]string{"u.jsonl": data}), "u.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if q := b.Queries[0]; q.Text != "café \"x\" 😀 ü" || q.Answers[0] != "/a\n" {
		t.Errorf("got %q %q", q.Text, q.Answers)
	}
}

func TestIdentity(t *testing.T) {
	row := `{"question": "q", "answer": "a"}` + "\n"
	load := func(name, data string, opts Options) string {
		b, err := Load(mapFS(map[string]string{name: data}), name, opts)
		if err != nil {
			t.Fatal(err)
		}
		return b.Name
	}
	a := load("data/my_data.jsonl", row, Options{})
	if want := "local/my_data@" + sha256hex([]byte(row))[:12]; a != want {
		t.Errorf("name = %q, want %q", a, want)
	}
	if b := load("elsewhere/my_data.jsonl", row, Options{}); b != a {
		t.Errorf("same bytes, same stem: %q != %q", b, a)
	}
	if c := load("data/my_data.jsonl", strings.Replace(row, "a\"}", "b\"}", 1), Options{}); c == a || !strings.HasPrefix(c, "local/my_data@") {
		t.Errorf("one byte changed: name %q (was %q)", c, a)
	}
	if d := load("data/my_data.jsonl", row, Options{Name: "tickets"}); d != "tickets@"+sha256hex([]byte(row))[:12] {
		t.Errorf("name form = %q", d)
	}
}

func TestWriteJSONLRoundTrip(t *testing.T) {
	for _, path := range []string{"../../examples/data/faq.jsonl", "testdata/seed000/seed.jsonl"} {
		dir, file := path[:strings.LastIndex(path, "/")], path[strings.LastIndex(path, "/")+1:]
		rows, err := ReadJSONL(os.DirFS(dir), file)
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		if err := WriteJSONL(&buf, rows); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(mapFS(map[string]string{"w.jsonl": buf.String()}), "w.jsonl")
		if err != nil {
			t.Fatalf("%s written back does not load: %v\n%s", path, err, buf.String())
		}
		for i := range rows {
			rows[i].Pos, back[i].Pos = lasagna.Pos{}, lasagna.Pos{}
		}
		if !reflect.DeepEqual(rows, back) {
			t.Errorf("%s: round trip differs:\n got %+v\nwant %+v", path, back, rows)
		}
	}
	// In-memory rows as synthesis makes them.
	rows := []Row{{ID: "synth-0001", Question: "Q?", Answers: []string{"A <b> & c"}, Contexts: []string{"P"},
		Metadata: map[string]any{"question_type": "factoid", "seed": float64(42), "synthetic": true, "unanswerable": false, "source_doc_ids": []any{"guide.md"}}}}
	var buf strings.Builder
	if err := WriteJSONL(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(mapFS(map[string]string{"w.jsonl": buf.String()}), "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	back[0].Pos = lasagna.Pos{}
	if !reflect.DeepEqual(rows, back) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, rows)
	}
	bad := []Row{{ID: "x", Question: "q", Answers: []string{"a"}, Metadata: map[string]any{"unanswerable": true}}}
	if err := WriteJSONL(&buf, bad); err == nil {
		t.Error("WriteJSONL accepted an unanswerable row with an answer")
	}
}

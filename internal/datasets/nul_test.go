package datasets

import (
	"errors"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// TestNULRefused: a NUL (U+0000) in any text is a Problem at its file and
// line, in every format: a raw NUL byte (the text guard, with its column)
// and a \u0000 escape in a JSON string (under its field). A PostgreSQL
// registry cannot store NUL in text, so no backend ever sees one.
func TestNULRefused(t *testing.T) {
	const beirQueries = `{"_id": "q1", "text": "a"}` + "\n"
	const beirQrels = "q1\td1\t1\n"
	const beirCorpus = `{"_id": "d1", "text": "x"}` + "\n"
	cases := []struct {
		name  string
		files map[string]string
		path  string
		pos   lasagna.Pos
		field string
		msg   string
	}{
		{"jsonl question escape", map[string]string{"d.jsonl": "{\"question\": \"q\"}\n{\"question\": \"a\\u0000b\"}\n"}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 2}, "question", `field "question": the string at column 14 holds a NUL (\u0000); text may not contain NUL (U+0000), which a PostgreSQL registry cannot store: remove the \u0000 escape`},
		{"jsonl id escape", map[string]string{"d.jsonl": `{"id": "a\u0000", "question": "q"}`}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 1}, "id", `field "id": the string at column 8 holds a NUL`},
		{"jsonl answer list", map[string]string{"d.jsonl": `{"question": "q", "answers": ["ok", "b\u0000"]}`}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 1}, "answers", `field "answers": the string at column 37 holds a NUL`},
		{"jsonl metadata", map[string]string{"d.jsonl": `{"question": "q", "metadata": {"k": {"n": "\u0000"}}}`}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 1}, "metadata", `field "metadata": the string at column 43 holds a NUL`},
		{"jsonl escaped backslash is no NUL", map[string]string{"d.jsonl": `{"question": "q \\u0000", "bad": 1}`}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 1}, "bad", `unknown field "bad"`},
		{"jsonl raw byte", map[string]string{"d.jsonl": "{\"question\": \"q\"}\n{\"question\": \"a\x00\"}\n"}, "d.jsonl",
			lasagna.Pos{File: "d.jsonl", Line: 2}, "", `NUL byte at column 16; text may not contain NUL (U+0000), which a PostgreSQL registry cannot store: remove it (tr -d '\000' drops every NUL byte of a file)`},
		{"csv raw byte", map[string]string{"d.csv": "question,answer\nq,a\nq2,a\x00b\n"}, "d.csv",
			lasagna.Pos{File: "d.csv", Line: 3}, "", `NUL byte at column 5`},
		{"vecta raw byte", map[string]string{"v.csv": "question,answer,chunk_ids\nq\x00,a,c1\n"}, "v.csv",
			lasagna.Pos{File: "v.csv", Line: 2}, "", `NUL byte at column 2`},
		{"beir corpus escape", map[string]string{"b/corpus.jsonl": `{"_id": "d1", "text": "x\u0000"}`, "b/queries.jsonl": beirQueries, "b/qrels/test.tsv": beirQrels}, "b",
			lasagna.Pos{File: "b/corpus.jsonl", Line: 1}, "text", `field "text": the string at column 23 holds a NUL`},
		{"beir query id escape", map[string]string{"b/corpus.jsonl": beirCorpus, "b/queries.jsonl": `{"_id": "q\u00001", "text": "a"}`, "b/qrels/test.tsv": beirQrels}, "b",
			lasagna.Pos{File: "b/queries.jsonl", Line: 1}, "_id", `field "_id": the string at column 9 holds a NUL`},
		{"beir qrels raw byte", map[string]string{"b/corpus.jsonl": beirCorpus, "b/queries.jsonl": beirQueries, "b/qrels/test.tsv": "q1\td1\x00\t1\n"}, "b",
			lasagna.Pos{File: "b/qrels/test.tsv", Line: 1}, "", `NUL byte at column 6`},
		{"corpus file escape", map[string]string{"d.jsonl": `{"question": "q", "expected_docs": ["d1"]}`, "c.jsonl": `{"_id": "d1", "title": "t\u0000", "text": "x"}`}, "d.jsonl",
			lasagna.Pos{File: "c.jsonl", Line: 1}, "title", `field "title": the string at column 24 holds a NUL`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if _, ok := tc.files["c.jsonl"]; ok {
				opts.Corpus = "c.jsonl"
			}
			_, err := Load(mapFS(tc.files), tc.path, opts)
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("Load = %v, want one problem", err)
			}
			if p := ps[0]; p.Pos != tc.pos || p.Field != tc.field || !strings.HasPrefix(p.Msg, tc.msg) {
				t.Errorf("problem = %+v\nwant at %v, field %q, message %q", p, tc.pos, tc.field, tc.msg)
			}
		})
	}
}

// TestNULInPredictions: a predictions file holds text too.
func TestNULInPredictions(t *testing.T) {
	_, err := ReadPredictions(mapFS(map[string]string{"p.jsonl": `{"id": "q1", "answer": "a\u0000"}`}), "p.jsonl")
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Field != "answer" || !strings.Contains(ps[0].Msg, "holds a NUL") {
		t.Fatalf("ReadPredictions = %v, want one problem in field answer", err)
	}
}

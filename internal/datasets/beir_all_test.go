package datasets

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestBEIRAllProblemsOnePass: a folder with a problem in corpus.jsonl and
// in queries.jsonl and judgements naming missing ids reports all of them
// in one Load, the ids of the broken lines not again as missing.
func TestBEIRAllProblemsOnePass(t *testing.T) {
	fsys := mapFS(map[string]string{
		"b/corpus.jsonl": `{"_id": "d1", "text": "x"}` + "\n" +
			`{"_id": "d2", "text": "y"` + "\n" + // typo: no closing brace
			`{"_id": "d3", "text": 7}` + "\n",
		"b/queries.jsonl":  `{"_id": "q1", "text": "a"}` + "\n" + `{"_id": "q2", "text": }` + "\n",
		"b/qrels/test.tsv": "q1\td1\t1\nq1\td2\t1\nq1\td3\t1\nq2\td1\t1\nq1\td9\t1\nq8\td1\t1\n",
	})
	_, err := Load(fsys, "b", Options{})
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("err = %v, want Problems", err)
	}
	want := []string{
		`b/corpus.jsonl:2: invalid JSON`,
		`b/corpus.jsonl:3: field "text" must be a string`,
		`b/queries.jsonl:2: invalid JSON`,
		`b/qrels/test.tsv:5: 1 judgement(s) name documents missing from corpus.jsonl (first: "d9")`,
		`b/qrels/test.tsv:6: 1 judgement(s) name queries missing from queries.jsonl (first: "q8")`,
	}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems:\n%v\nwant %d", len(ps), err, len(want))
	}
	for i, w := range want {
		if !strings.Contains(ps[i].Error(), w) {
			t.Errorf("problem %d = %q, want %q", i, ps[i].Error(), w)
		}
	}
}

func TestLenientID(t *testing.T) {
	for line, want := range map[string]string{
		`{"_id": "d2", "text": "y"`:    "d2",
		`{"_id":17, "text": `:          "17",
		`{"title": "_id", "_id" : "x"`: "x",
		`{"_id": "a\"b"`:               "",
		`{"text": "a"}`:                "",
	} {
		if got := lenientID([]byte(line)); got != want {
			t.Errorf("lenientID(%s) = %q, want %q", line, got, want)
		}
	}
}

// TestBEIRFieldDidYouMean: a BEIR line that lacks a required field and
// has a key close to it says which key it likely meant.
func TestBEIRFieldDidYouMean(t *testing.T) {
	fsys := fstest.MapFS{
		"b/corpus.jsonl":   {Data: []byte(`{"_id": "d1", "txt": "The gates open at seven."}` + "\n")},
		"b/queries.jsonl":  {Data: []byte(`{"id": "q1", "text": "When?"}` + "\n")},
		"b/qrels/test.tsv": {Data: []byte("q1\td1\t1\n")},
	}
	_, err := Load(fsys, "b", Options{})
	for _, want := range []string{
		`b/corpus.jsonl:1: missing field "text" (BEIR corpus lines are {"_id", "title", "text"}); the line has "txt": did you mean "text"?`,
		`b/queries.jsonl:1: missing field "_id" (BEIR query lines are {"_id", "text"}); the line has "id": did you mean "_id"?`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: %v\nwant %s", err, want)
		}
	}
}

package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// wholeFile lists the problems that are about a whole file and so carry no
// line number.
var wholeFile = []string{"no rows", "no entries", "no judgements", "too many problems"}

// checkProblems fails unless err is Problems whose every entry names file
// and (unless it is about the whole file) a line.
func checkProblems(t *testing.T, err error, file string) {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %T %q is not Problems", err, err)
	}
	for _, p := range ps {
		if p.Pos.File != file {
			t.Fatalf("problem %q names file %q, want %q", p.Error(), p.Pos.File, file)
		}
		if p.Pos.Line <= 0 {
			ok := false
			for _, w := range wholeFile {
				ok = ok || strings.HasPrefix(p.Msg, w)
			}
			if !ok {
				t.Fatalf("problem %q has no line", p.Error())
			}
		}
		if !strings.HasPrefix(p.Error(), p.Pos.String()+": ") {
			t.Fatalf("problem %q does not start with its position", p.Error())
		}
	}
}

// checkBenchmark checks the invariants of a loaded benchmark.
func checkBenchmark(t *testing.T, b *lasagna.Benchmark) {
	t.Helper()
	docs := map[string]bool{}
	for _, d := range b.Corpus {
		if docs[d.ID] || d.ID == "" {
			t.Fatalf("document id %q empty or repeated", d.ID)
		}
		docs[d.ID] = true
	}
	qs := map[string]bool{}
	for _, q := range b.Queries {
		if qs[q.ID] || q.ID == "" {
			t.Fatalf("query id %q empty or repeated", q.ID)
		}
		qs[q.ID] = true
		if q.Unanswerable && len(q.Answers) > 0 {
			t.Fatalf("unanswerable query %q has answers", q.ID)
		}
	}
	for qid, m := range b.Qrels {
		if !qs[qid] {
			t.Fatalf("qrels name unknown query %q", qid)
		}
		for did := range m {
			if !docs[did] && b.Format != lasagna.FormatVecta {
				t.Fatalf("qrels name unknown document %q", did)
			}
		}
	}
}

func addFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzJSONL(f *testing.F) {
	addFiles(f, "testdata/seed000/seed.jsonl")
	f.Add([]byte(`{"id": 1e3, "question": "q", "answers": ["a", ""], "expected_docs": ["x"], "metadata": {"unanswerable": false, "k": [1, {"a": null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := mapFS(map[string]string{"f.jsonl": string(data)})
		b, err := Load(fsys, "f.jsonl", Options{})
		if err != nil {
			checkProblems(t, err, "f.jsonl")
			return
		}
		checkBenchmark(t, b)
		// What loads must write back and load again as the same rows.
		rows, err := ReadJSONL(fsys, "f.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		if err := WriteJSONL(&buf, rows); err != nil {
			t.Fatalf("WriteJSONL of loaded rows: %v", err)
		}
		back, err := ReadJSONL(mapFS(map[string]string{"w.jsonl": buf.String()}), "w.jsonl")
		if err != nil {
			t.Fatalf("written rows do not load: %v\n%s", err, buf.String())
		}
		for i := range rows {
			rows[i].Pos, back[i].Pos = lasagna.Pos{}, lasagna.Pos{}
		}
		if !reflect.DeepEqual(rows, back) {
			t.Fatalf("round trip differs:\n got %#v\nwant %#v", back, rows)
		}
	})
}

func FuzzCSV(f *testing.F) {
	addFiles(f, "testdata/seed000/seed.csv")
	f.Add([]byte("question,answer\n\"a\"\"b\",c\n"))
	f.Add([]byte("question,answer,chunk_ids,page_nums\nq,a,c1|c2,1|2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := mapFS(map[string]string{"f.csv": string(data)})
		b, err := Load(fsys, "f.csv", Options{})
		if err != nil {
			checkProblems(t, err, "f.csv")
		} else {
			checkBenchmark(t, b)
		}
		b, err = LoadVectaCSV(fsys, "f.csv", Options{})
		if err != nil {
			checkProblems(t, err, "f.csv")
			return
		}
		checkBenchmark(t, b)
	})
}

func FuzzBEIRQrels(f *testing.F) {
	addFiles(f, "testdata/beir/qrels/test.tsv", "testdata/beir/qrels/dev.tsv")
	f.Add([]byte("query-id\tcorpus-id\tscore\r\n1\td9\t1\r\n7\td1\t-1\n"))
	corpus, _ := os.ReadFile("testdata/beir/corpus.jsonl")
	queries, _ := os.ReadFile("testdata/beir/queries.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := mapFS(map[string]string{"b/corpus.jsonl": string(corpus), "b/queries.jsonl": string(queries), "b/qrels/test.tsv": string(data)})
		b, err := Load(fsys, "b", Options{})
		if err != nil {
			checkProblems(t, err, "b/qrels/test.tsv")
			return
		}
		checkBenchmark(t, b)
	})
}

func FuzzBEIRCorpus(f *testing.F) {
	addFiles(f, "testdata/beir/corpus.jsonl")
	f.Add([]byte(`{"_id": 3, "title": null, "text": "a\u00e9", "metadata": {"x": [1]}}`))
	queries, _ := os.ReadFile("testdata/beir/queries.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := mapFS(map[string]string{"b/corpus.jsonl": string(data), "b/queries.jsonl": string(queries), "b/qrels/test.tsv": "1\td1\t1\n"})
		b, err := Load(fsys, "b", Options{})
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %q is not Problems", err)
			}
			for _, p := range ps {
				if p.Pos.File == "" || (p.Pos.Line <= 0 && !strings.HasPrefix(p.Msg, "too many")) {
					t.Fatalf("problem %q lacks file or line", p.Error())
				}
			}
			return
		}
		checkBenchmark(t, b)
	})
}

func FuzzPredictions(f *testing.F) {
	f.Add([]byte(`{"id": "q1", "answer": "a", "retrieved": ["d1", "d2"]}` + "\n" + `{"id": 2, "retrieved": [{"id": "d", "score": 1.5}], "abstained": true, "passages": ["p"]}`))
	f.Add([]byte(`{"id": "q1", "answer": null, "retrieved": [{"id": 3}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ReadPredictions(mapFS(map[string]string{"p.jsonl": string(data)}), "p.jsonl")
		if err != nil {
			checkProblems(t, err, "p.jsonl")
			return
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if p.ID == "" || seen[p.ID] {
				t.Fatalf("prediction id %q empty or repeated", p.ID)
			}
			seen[p.ID] = true
			for _, h := range p.Hits {
				if h.ID == "" {
					t.Fatalf("empty hit id in %+v", p)
				}
			}
		}
	})
}

// FuzzJSONString checks the package's string decoder against encoding/json:
// both accept the same strings and decode them to the same text, except
// that a string holding NUL is refused (a *nulError; docs/data.md).
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`abc`, `caf\u00e9 \"x\" \ud83d\ude00`, `\ud800x`, `\udc00\ud800`, "\xff\xfe a", `\q`, `\u12`, "a\tb", `\/\b\f\n\r\t\\`, "é\x80", `a\u0000`, `\\u0000`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		quoted := append(append([]byte{'"'}, content...), '"')
		var want string
		wantErr := json.Unmarshal(quoted, &want)
		l := &jlex{b: quoted}
		got, err := l.str()
		if err == nil && l.i != len(quoted) {
			return // the content held a quote: the string ended early, as it should
		}
		if _, isNUL := err.(*nulError); isNUL {
			if wantErr == nil && !strings.Contains(want, "\x00") {
				t.Fatalf("%q: refused as holding NUL; encoding/json decodes %q", quoted, want)
			}
			return
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: err %v, encoding/json err %v", quoted, err, wantErr)
		}
		if err == nil && got != want {
			t.Fatalf("%q: got %q, encoding/json %q", quoted, got, want)
		}
	})
}

// FuzzJSONValue checks the package's value decoder against encoding/json
// decoding into an any.
func FuzzJSONValue(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e3, true, null, "x\u00e9"], "b": {}, "a": 0}`, `[]`, `-0`, `01`, `1.`, `1e400`, `{"a" 1}`, `[1,]`, `"\ud800"`, `tru`, ` nul `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		wantErr := json.Unmarshal(data, &want)
		l := &jlex{b: data}
		got, err := l.value(0)
		if err == nil {
			err = l.end()
		}
		if _, isNUL := err.(*nulError); isNUL {
			if js, _ := json.Marshal(want); wantErr == nil && !bytes.Contains(js, []byte(`\u0000`)) {
				t.Fatalf("%q: refused as holding NUL; encoding/json decodes %#v", data, want)
			}
			return
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: err %v, encoding/json err %v", data, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", data, got, want)
		}
	})
}

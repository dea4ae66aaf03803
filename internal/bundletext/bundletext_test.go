package bundletext

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// reference is the run_id's canonical form computed the slow way, from a
// tree: the object decoded, run_id deleted, re-encoded and put in RFC 8785
// form by gowebpki/jcs.
func reference(t *testing.T, raw []byte) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	delete(m, "run_id")
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jcs.Transform(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCanonicalHashIsTheTreeForm checks that CanonicalHash, which never
// builds the bundle whole, writes the canonical form of the bundle
// without run_id exactly as the tree does: on the golden bundles and on
// variants with run_id last or absent, members this release does not know
// (in the bundle, a result, a row), rows arrays empty or in a result
// whose members sort after per_sample_scores, unicode, escapes and numbers
// in every form.
func TestCanonicalHashIsTheTreeForm(t *testing.T) {
	texts := map[string][]byte{}
	goldens, _ := filepath.Glob("../../results/testdata/golden/*.json")
	if len(goldens) == 0 {
		t.Fatal("no golden bundles")
	}
	for _, g := range goldens {
		raw, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(g)] = raw
	}
	texts["run_id last, unknown members"] = []byte(`{"schema_version":"1.3","zeta":{"b":1,"a":[1.0,2e3,-0.0]},
	 "results":[{"zz_later":"x","per_sample_scores":[{"query_id":"q\u00e9","_retrieved_ids":["a","b"],"future":{"y":1E2,"x":"\ud83d\ude00"}},
	   {"query_id":"q2","scores":{"ndcg@10":0.30000000000000004}}],"metrics":{}},
	   {"per_sample_scores":[]},{"config_name":"no rows"}],
	 "run_id":"abc"}`)
	texts["no run_id"] = []byte(`{"results":[{"per_sample_scores":[{"query_id":"1"}]}],"a":"\u0000rows-0-0"}`)
	texts["run_id first"] = []byte(` { "run_id" : "x" , "results" : [ { "per_sample_scores" : [ { "b" : 1 , "a" : 2 } ] } ] } `)
	for name, raw := range texts {
		t.Run(name, func(t *testing.T) {
			text, err := Split(raw)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := CanonicalHash(&got, raw, text); err != nil {
				t.Fatal(err)
			}
			if want := reference(t, raw); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("canonical form differs from the tree's:\n got %.300s\nwant %.300s", got.Bytes(), want)
			}
			if sha256.Sum256(got.Bytes()) != sha256.Sum256(reference(t, raw)) {
				t.Error("hashes differ")
			}
		})
	}
}

// TestSplit checks the skeleton, the rows and Cut on a small text.
func TestSplit(t *testing.T) {
	raw := []byte(`{"run_id":"r","results":[{"metrics":{},"per_sample_scores":[ {"query_id":"a","_retrieved":[{"id":"x","score":1,"rank":1}],"z":1} , {"query_id":"b"} ]}]}`)
	text, err := Split(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(text.Skeleton); got != `{"run_id":"r","results":[{"metrics":{},"per_sample_scores":[]}]}` {
		t.Errorf("skeleton %s", got)
	}
	var rows []string
	for _, r := range text.Rows {
		rows = append(rows, fmt.Sprintf("%d/%d %s", r.Result, r.Index, r.Text))
	}
	if got := strings.Join(rows, " | "); got != `0/0 {"query_id":"a","_retrieved":[{"id":"x","score":1,"rank":1}],"z":1} | 0/1 {"query_id":"b"}` {
		t.Errorf("rows %s", got)
	}
	rest, vals, err := Cut(text.Rows[0].Text, "_retrieved", "_retrieved_ids")
	if err != nil || string(rest) != `{"query_id":"a","z":1}` || string(vals[0]) != `[{"id":"x","score":1,"rank":1}]` || vals[1] != nil {
		t.Errorf("Cut: %s %q %v", rest, vals, err)
	}
	for _, bad := range []string{`{"a":1`, `{"a":1,"a":2}`, `{"a":1} x`, `{"results":[{"per_sample_scores":[1,}]}`} {
		if _, err := Split([]byte(bad)); err == nil {
			t.Errorf("Split(%s) accepted a text that is not one valid JSON value", bad)
		}
	}
}

// TestCutPlainIsCutDecode checks that the byte scan Cut tries first gives
// what the decoder gives, on rows of the golden bundles and on objects
// with whitespace, nesting, escapes and the cut names first, last, absent
// or repeated.
func TestCutPlainIsCutDecode(t *testing.T) {
	objs := []string{
		`{}`, ` { } `, `{"a":1}`, `{"_retrieved":[{"id":"x","score":1,"rank":1}]}`,
		`{"query_id":"q","_retrieved_ids":["a","b"],"_retrieved":[{"id":"a]}","score":1.5e-3,"rank":1}],"z":{"k":[1,{"m":"\"]"}]}}`,
		" {\n \"_retrieved\" : [ 1 , 2 ] ,\t\"b\" : \"x\\\\\" , \"c\":true,\"d\":null,\"e\":-0.5 , \"_retrieved_ids\":[\"a\"] } ",
		`{"_retrieved":1,"_retrieved":2}`, `{"a":"é","_retrieved_ids":[]}`, `{"\u0061":1,"_retrieved":[]}`, `{"a":"x","b":[[]],"c":{}}`,
	}
	goldens, _ := filepath.Glob("../../results/testdata/golden/*.json")
	for _, g := range goldens {
		raw, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		text, err := Split(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range text.Rows {
			objs = append(objs, string(r.Text))
		}
	}
	names := []string{"_retrieved", "_retrieved_ids"}
	plain := 0
	for _, o := range objs {
		rest, vals, ok := cutPlain([]byte(o), names)
		if !ok {
			continue
		}
		plain++
		wrest, wvals, err := cutDecode([]byte(o), names)
		if err != nil {
			t.Errorf("%s: the scan cut an object the decoder refuses: %v", o, err)
			continue
		}
		if !bytes.Equal(rest, wrest) || fmt.Sprintf("%q", vals) != fmt.Sprintf("%q", wvals) {
			t.Errorf("%s:\n scan    %s %q\n decoder %s %q", o, rest, vals, wrest, wvals)
		}
	}
	if plain < len(objs)/2 {
		t.Errorf("the scan cut only %d of %d objects", plain, len(objs))
	}
}

// TestShare checks that Split returns the shared split of the same bytes
// until every Share of them is released, and reads other bytes anew.
func TestShare(t *testing.T) {
	raw := []byte(`{"results":[{"per_sample_scores":[{"query_id":"a"}]}]}`)
	t1, err := Split(raw)
	if err != nil {
		t.Fatal(err)
	}
	r1 := Share(raw, t1)
	r2 := Share(raw, t1)
	if got, _ := Split(raw); got != t1 {
		t.Error("Split did not return the shared text")
	}
	if got, _ := Split(bytes.Clone(raw)); got == t1 {
		t.Error("Split returned the shared text for other bytes")
	}
	if got, _ := Split(raw[:len(raw)-1]); got == t1 {
		t.Error("Split returned the shared text for a prefix of the bytes")
	}
	r1()
	r1() // a second call does nothing
	if got, _ := Split(raw); got != t1 {
		t.Error("Split did not return the text still shared once")
	}
	r2()
	if got, _ := Split(raw); got == t1 {
		t.Error("Split returned the text after every Share was released")
	}
	Share(nil, t1)()
}

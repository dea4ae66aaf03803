package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lasagna-go/lasagna/internal/bundletext"
)

// TestDecodeRowIsEncodingJSON checks that a row decodeRow reads decodes
// as encoding/json decodes it (nil and empty lists and maps told apart),
// and that it leaves to encoding/json what it does not read.
func TestDecodeRowIsEncodingJSON(t *testing.T) {
	rows := []string{
		`{}`, `{"query_id":"q1"}`, ` { "query_id" : "q1" , "scores" : { } , "_retrieved_ids" : [ ] , "_retrieved" : [ ] } `,
		`{"query_id":"q1","scores":{"ndcg@10":1,"mrr":0.30000000000000004,"x":-1.5e-7,"y":1E2,"z":-0,"mrr":0.5},"_retrieved_ids":["a","b"],"_retrieved":[{"id":"a","score":12.9640255,"rank":1},{"id":"b","score":-0.0,"rank":2}]}`,
		`{"_retrieved":[{"id":"a","score":1,"rank":1.0}]}`, `{"_retrieved":[{"id":"a","score":1,"rank":1e0}]}`, `{"_retrieved":[{"rank":1,"id":"a","score":1}]}`,
		`{"_retrieved":[{"id":"a","score":1,"rank":1,"extra":2}]}`, `{"_retrieved":[{"id":"a","score":1e400,"rank":1}]}`, `{"_retrieved":[{"id":"a","score":1,"rank":99999999999999999999}]}`,
		`{"Query_ID":"q"}`, `{"query_id":"q\u0031"}`, `{"query_id":"é"}`, `{"query_id":null}`, `{"scores":null}`, `{"scores":{"a":null}}`,
		`{"query_id":"a","query_id":"b"}`, `{"_retrieved_ids":[1]}`, `{"answer":"x","abstained":true}`, `{"error":"boom"}`, `{"latency_ms":3}`,
		`{"query_id":"q","scores":{"a":1}} x`, `{"query_id":"q",}`, `{"scores":{"a":+1}}`, `{"scores":{"a":01}}`, `{"scores":{"a":.5}}`, `{"scores":{"a":1.}}`,
		`{"query_id":"q","query_digest":"ab","error":"e","judge_error":"j","answer":"","abstained":true,"missing":false,"latency_ms":1.5}`,
		`{"abstained": false , "missing" :true,"answer":"x y"}`, `{"abstained":true,"abstained":false}`, `{"answer":"a","answer":"b"}`,
		`{"_retrieved_ids":["b","a"],"_retrieved":[{"id":"a","score":1,"rank":1},{"id":"b","score":1,"rank":2},{"id":"c","score":1,"rank":3}]}`,
		`{"_retrieved":[{"id":"a","score":1,"rank":1}],"_retrieved_ids":["a","b"]}`,
		`{"missing":truex}`, `{"missing":1}`, `{"latency_ms":"1"}`, `{"latency_ms":-0}`, `{"query_digest":null}`,
		`[1]`, `"q"`, ``,
	}
	for _, g := range []string{"retrieval.json", "rag.json", "minimal.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "golden", g))
		if err != nil {
			t.Fatal(err)
		}
		text, err := bundletext.Split(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range text.Rows {
			rows = append(rows, string(r.Text))
		}
	}
	read := 0
	for _, row := range rows {
		var got Sample
		if !decodeRow(&got, []byte(row), &rowScratch{}) {
			continue
		}
		read++
		var want Sample
		if err := json.Unmarshal([]byte(row), &want); err != nil {
			t.Errorf("decodeRow read %s, which encoding/json refuses: %v", row, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n decodeRow     %#v\n encoding/json %#v", row, got, want)
		}
	}
	if read < 8 {
		t.Errorf("decodeRow read only %d rows", read)
	}
}

// TestUnmarshalTextIsUnmarshal checks that validation's decode of a split
// text gives Unmarshal's bundle: on the golden bundles, a large generated
// one, and texts where encoding/json would match a member by case folding
// or where a row is not in the writer's layout.
func TestUnmarshalTextIsUnmarshal(t *testing.T) {
	texts := map[string][]byte{}
	for _, g := range []string{"retrieval.json", "rag.json", "minimal.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "golden", g))
		if err != nil {
			t.Fatal(err)
		}
		texts[g] = raw
		texts[g+", compact"] = compact(t, raw)
		texts[g+", rank 1.0"] = bytes.ReplaceAll(raw, []byte(`"rank":1}`), []byte(`"rank":1.0}`))
		texts[g+", PER_SAMPLE_SCORES"] = bytes.Replace(raw, []byte(`"per_sample_scores"`), []byte(`"PER_SAMPLE_SCORES"`), 1)
		texts[g+", Results"] = bytes.Replace(raw, []byte(`"results"`), []byte(`"Results"`), 1)
		texts[g+", a second rows member"] = bytes.Replace(raw, []byte(`"per_sample_scores"`), []byte(`"per_\u017fample_scores":[], "per_sample_scores"`), 1)
	}
	texts["big"] = encode(t, bigBundle(t, 50))
	for name, raw := range texts {
		text, err := bundletext.Split(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, werr := Unmarshal(raw)
		got, gerr := unmarshalText(raw, text)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: Unmarshal error %v, unmarshalText error %v", name, werr, gerr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: unmarshalText's bundle differs from Unmarshal's", name)
		}
	}
}

func compact(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

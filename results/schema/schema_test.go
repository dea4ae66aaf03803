package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	santhosh "github.com/lasagna-go/lasagna/internal/jsonschema"

	"github.com/lasagna-go/lasagna/internal/golden"
	"github.com/lasagna-go/lasagna/results"
)

// goldens are the bundles package results writes in its golden tests, with
// the integrity codes they list.
var goldens = map[string][]string{
	"retrieval.json": nil,
	"minimal.json":   nil,
	"rag.json":       {"PIPELINE_ERRORS", "JUDGE_ERRORS", "POOLED_GOLD_CORPUS", "SINGLE_RUN", "SMALL_SAMPLE"},
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestSchemaFile generates the schema from the Go types and compares it
// with run-schema.json, the file JSON returns (embedded);
// LASAGNA_UPDATE_GOLDEN=1 rewrites it (internal/golden), and the diff is
// reviewed before committing.
func TestSchemaFile(t *testing.T) {
	got, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "run-schema.json", got)
	if !bytes.Equal(JSON(), got) {
		t.Skip("run-schema.json was rewritten; rebuild to embed it")
	}
	var s map[string]any
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v, want draft 2020-12", s["$schema"])
	}
	// The enum comes from the constants the writer uses.
	dets := results.Determinisms()
	det := obj(obj(s, "$defs"), "Determinism")["enum"].([]any)
	if len(det) != len(dets) || det[0] != string(dets[0]) {
		t.Errorf("determinism enum %v, want %v", det, dets)
	}
	req := obj(obj(s, "$defs"), "HeldFixed")["required"].([]any)
	for _, f := range []string{"similarity_model", "corpus_ingest_gap", "corpus_provenance", "embedder_dim"} {
		if slices.Contains(req, any(f)) {
			t.Errorf("held_fixed.%s is required; fields later metrics versions added must stay optional", f)
		}
	}
}

func TestJSONReturnsCopy(t *testing.T) {
	a := JSON()
	a[0] = 'X'
	if b := JSON(); b[0] == 'X' {
		t.Error("JSON returns the shared schema bytes; editing them changed the next call")
	}
}

func TestGoldensValidate(t *testing.T) {
	// The generated schema and every other check accept what the writer
	// writes; the only problems are the integrity codes the bundle lists.
	for name, want := range goldens {
		r := Validate(readGolden(t, name))
		if got := codes(r); !slices.Equal(got, want) {
			t.Errorf("%s: codes %v, want %v:%s", name, got, want, problemLines(r))
		}
		for _, p := range r.Problems {
			if !strings.Contains(p.Detail, "(listed in integrity.") {
				t.Errorf("%s: unexpected problem %s", name, p)
			}
		}
	}
}

// TestSchemaOnlyProblems are the problems only the JSON Schema finds: the
// bundle reads as a results.Bundle, so results.Validate passes it.
func TestSchemaOnlyProblems(t *testing.T) {
	raw := readGolden(t, "retrieval.json")
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		where string
	}{
		{"determinism reproducible", func(m map[string]any) { obj(m, "experiment")["determinism"] = "reproducible" }, "experiment.determinism"},
		{"null required field", func(m map[string]any) {
			obj(arr(m, "configs")[0], "held_fixed")["n_samples"] = nil
		}, "configs[0].held_fixed.n_samples"},
		{"unknown resolved_mode", func(m map[string]any) {
			obj(arr(m, "configs")[0], "held_fixed")["resolved_mode"] = "hybrid"
		}, "configs[0].held_fixed.resolved_mode"},
		{"rank 0", func(m map[string]any) {
			row := arr(arr(m, "results")[0], "per_sample_scores")[0].(map[string]any)
			row["_retrieved"].([]any)[0].(map[string]any)["rank"] = json.Number("0")
		}, "results[0].per_sample_scores[0]._retrieved[0].rank"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := edit(t, raw, c.edit)
			r := Validate(bad)
			if !r.Has(lasagna.InvalidBundle) || r.OK(false) {
				t.Fatalf("codes %v, want a blocking INVALID_BUNDLE:%s", codes(r), problemLines(r))
			}
			if !slices.ContainsFunc(r.Problems, func(p results.Problem) bool { return p.Where == c.where }) {
				t.Errorf("no problem at %s:%s", c.where, problemLines(r))
			}
		})
	}
}

func TestTypeErrorReportedOnce(t *testing.T) {
	// A field of the wrong type is the schema's problem; the decoder's
	// message for the same field is not added.
	bad := edit(t, readGolden(t, "retrieval.json"), func(m map[string]any) {
		obj(arr(m, "configs")[0], "held_fixed")["embedder_dim"] = "768"
	})
	r := Validate(bad)
	if !slices.ContainsFunc(r.Problems, func(p results.Problem) bool { return p.Where == "configs[0].held_fixed.embedder_dim" }) {
		t.Errorf("no problem at configs[0].held_fixed.embedder_dim:%s", problemLines(r))
	}
	if slices.ContainsFunc(r.Problems, func(p results.Problem) bool { return p.Where == "bundle" }) {
		t.Errorf("the decoder's error is reported besides the schema's:%s", problemLines(r))
	}
	if r := results.Validate(bad); !r.Has(lasagna.InvalidBundle) {
		t.Errorf("results.Validate misses the type error:%s", problemLines(r))
	}
}

func TestValidateNonBundles(t *testing.T) {
	for _, in := range []string{"", "[]", "null", "{", `{"schema_version": 1}`, `{"schema_version": "1.0"}`} {
		r := Validate([]byte(in))
		if r.OK(false) {
			t.Errorf("Validate(%q) passed", in)
		}
	}
}

func TestPointerPath(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "bundle"},
		{[]string{"results", "0", "per_sample_scores", "3", "scores"}, "results[0].per_sample_scores[3].scores"},
		{[]string{"run_id"}, "run_id"},
	} {
		if got := pointerPath(c.in); got != c.want {
			t.Errorf("pointerPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	raw := readGolden(b, "rag.json")
	Validate(raw) // build the schema outside the loop
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		Validate(raw)
	}
}

// edit decodes raw, applies f to the generic value, recomputes both hashes
// (a careful tamperer) and re-encodes it.
func edit(t testing.TB, raw []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	for _, c := range arr(m, "configs") {
		hf, err := json.Marshal(c.(map[string]any)["held_fixed"])
		if err != nil {
			t.Fatal(err)
		}
		canon, err := results.Canonical(hf)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(canon)
		c.(map[string]any)["comparability_key"] = hex.EncodeToString(sum[:])
	}
	flat, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if m["run_id"], err = results.RunIDOf(flat); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// obj and arr walk generic JSON values.
func obj(v any, key string) map[string]any { return v.(map[string]any)[key].(map[string]any) }
func arr(v any, key string) []any          { return v.(map[string]any)[key].([]any) }

func codes(r results.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, string(p.Code))
	}
	return out
}

func problemLines(r results.Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString("\n  " + p.String())
	}
	return b.String()
}

// TestListsValidAgreesWithSchema holds the fast check of ranked lists to
// the schema: whatever hitsValid or idsValid accepts, the schema of a row
// accepts too (the check is sound; what it cannot vouch for goes to the
// schema), over valid lists and each way a hit can break the schema.
func TestListsValidAgreesWithSchema(t *testing.T) {
	rowSch, err := compiledRow()
	if err != nil {
		t.Fatal(err)
	}
	hits := []string{
		`null`, `[]`, `[{"id":"a","score":1,"rank":1}]`, `[{"id":"a","score":-1.5e-7,"rank":2,"extra":{"x":[1]}}]`,
		`[{"id":"a","score":1}]`, `[{"id":1,"score":1,"rank":1}]`, `[{"id":"a","score":"1","rank":1}]`,
		`[{"id":"a","score":1,"rank":0}]`, `[{"id":"a","score":1,"rank":-3}]`, `[{"id":"a","score":1,"rank":1.5}]`,
		`[{"id":"a","score":1,"rank":1.0}]`, `[{"id":"a","score":1,"rank":1e0}]`, `[{"id":"a","score":1,"rank":"1"}]`,
		`[{"id":"a","score":1,"rank":1.0000000000000001}]`, `[{"id":"a","score":1,"rank":12345678901234567890}]`,
		`[null]`, `[[1]]`, `[1]`, `{"id":"a"}`, `"x"`, `[{"id":null,"score":1,"rank":1}]`, `[{"id":"a","score":null,"rank":1}]`,
		`[{"id":"a","score":1,"rank":{"n":1}}]`, `[{"id":"a","score":[1],"rank":1}]`, `[{"id":{"s":"a"},"score":1,"rank":1}]`,
	}
	ids := []string{`null`, `[]`, `["a","b"]`, `[1]`, `[null]`, `["a",["b"]]`, `{"a":1}`, `"a"`}
	valid := func(row string) bool {
		doc, err := santhosh.UnmarshalJSON(strings.NewReader(row))
		if err != nil {
			t.Fatal(err)
		}
		return rowSch.Validate(doc) == nil
	}
	for _, h := range hits {
		if hitsValid([]byte(h)) && !valid(`{"query_id":"q","_retrieved":`+h+`}`) {
			t.Errorf("hitsValid accepts %s, which the schema refuses", h)
		}
	}
	for _, v := range ids {
		if idsValid([]byte(v)) && !valid(`{"query_id":"q","_retrieved_ids":`+v+`}`) {
			t.Errorf("idsValid accepts %s, which the schema refuses", v)
		}
	}
	// And the schema still speaks for a list the check leaves to it.
	raw := readGolden(t, "retrieval.json")
	bad := bytes.Replace(raw, []byte(`"rank": 2}`), []byte(`"rank": 0}`), 1)
	if bytes.Equal(bad, raw) {
		bad = bytes.Replace(raw, []byte(`"rank":2}`), []byte(`"rank":0}`), 1)
	}
	found := false
	for _, p := range Check(bad) {
		if strings.HasPrefix(p.Where, "results[0].per_sample_scores[0]._retrieved[1].rank") {
			found = true
		}
	}
	if !found {
		t.Errorf("a rank of 0 in the first row is not reported at its path: %v", Check(bad))
	}
}

// TestPlainListsAreValid holds the decoder-free reading of the ranked
// lists (hitsPlain, idsPlain) to the schema: every list it accepts is
// valid JSON the schema accepts, and it accepts the lists as written.
func TestPlainListsAreValid(t *testing.T) {
	rowSch, err := compiledRow()
	if err != nil {
		t.Fatal(err)
	}
	valid := func(row string) bool {
		doc, err := santhosh.UnmarshalJSON(strings.NewReader(row))
		return err == nil && rowSch.Validate(doc) == nil
	}
	hits := []string{
		`[]`, `[{"id":"a","score":1,"rank":1}]`, `[{"id":"p002850","score":12.9640255,"rank":1},{"id":"p1","score":-1.5e-7,"rank":1000}]`,
		`[{"id":"a","score":0,"rank":1},{"id":"","score":-0.5E+3,"rank":2}]`,
		`[{"id":"a","score":01,"rank":1}]`, `[{"id":"a","score":1,"rank":01}]`, `[{"id":"a","score":1,"rank":0}]`,
		`[{"id":"a","score":1,"rank":1.0}]`, `[{"id":"a","score":1,"rank":1},]`, `[{"id":"a","score":1,"rank":1}]x`,
		`[{"id":"a","score":1.,"rank":1}]`, `[{"id":"a","score":.5,"rank":1}]`, `[{"id":"a","score":1e,"rank":1}]`,
		`[{"id":"a","score":-,"rank":1}]`, `[{"id":"a\"","score":1,"rank":1}]`, `[{"id":"a\\","score":1,"rank":1}]`,
		`[{"id":"é","score":1,"rank":1}]`, `[{"id":1,"score":1,"rank":1}]`, `[{"id":"a","score":"1","rank":1}]`,
		`[{"id":"a","score":1,"rank":1234567890123456}]`, `[{"id":"a","rank":1,"score":1}]`, `[ {"id":"a","score":1,"rank":1}]`,
		`[{"id":"a","score":1,"rank":1}`, `[{"id":"a","score":1,"rank":1`, `[`, `]`, ``, `null`, "[{\"id\":\"a\x01\",\"score\":1,\"rank\":1}]",
	}
	accepted := 0
	for _, h := range hits {
		if hitsPlain([]byte(h)) {
			accepted++
			if !valid(`{"query_id":"q","_retrieved":` + h + `}`) {
				t.Errorf("hitsPlain accepts %s, which is not valid json or the schema refuses", h)
			}
		}
	}
	if accepted != 4 {
		t.Errorf("hitsPlain accepts %d of the 4 lists in the writer's form", accepted)
	}
	ids := []string{`[]`, `["a"]`, `["a","b",""]`, `["a",]`, `["a" ,"b"]`, `["a"]x`, `[1]`, `[null]`, `["a\"b"]`, `["é"]`, `["a"`, `[`, `null`, `"a"`}
	accepted = 0
	for _, v := range ids {
		if idsPlain([]byte(v)) {
			accepted++
			if !valid(`{"query_id":"q","_retrieved_ids":` + v + `}`) {
				t.Errorf("idsPlain accepts %s, which is not valid json or the schema refuses", v)
			}
		}
	}
	if accepted != 3 {
		t.Errorf("idsPlain accepts %d of the 3 lists in the writer's form", accepted)
	}
}

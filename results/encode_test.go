package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// referenceText is the bundle's text as encoding/json writes it whole,
// compact: what the streamed encoder must write, up to whitespace.
func referenceText(t testing.TB, b *Bundle) []byte {
	t.Helper()
	data, err := marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// referenceRunID is the run id computed the way it was before the
// streamed encoder: the whole bundle marshalled by encoding/json, run_id
// cut out, canonicalized by jsontext and hashed.
func referenceRunID(t testing.TB, b *Bundle) string {
	t.Helper()
	c := *b
	c.RunID = ""
	data := referenceText(t, &c)
	const member = `,"run_id":""`
	i := bytes.Index(data, []byte(member))
	if i < 0 {
		t.Fatal("no run_id member")
	}
	data = append(data[:i:i], data[i+len(member):]...)
	id, err := hashJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// checkEncoding holds the streamed encoding of b to the whole-bundle one:
// the same JSON up to whitespace, the same run_id, and WriteFile writing
// what Write writes.
func checkEncoding(t *testing.T, b *Bundle) {
	t.Helper()
	text, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, text); err != nil {
		t.Fatalf("written text is not json: %v\n%s", err, text)
	}
	if want := referenceText(t, b); !bytes.Equal(compact.Bytes(), want) {
		t.Errorf("written text differs from encoding/json's beyond whitespace:\n got %s\nwant %s", compact.Bytes(), want)
	}
	if !bytes.HasSuffix(text, []byte("}\n")) {
		t.Errorf("written text does not end in a newline")
	}
	id, err := hashBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := referenceRunID(t, b); id != want {
		t.Errorf("run_id %s, want %s (canonical JSON of the whole bundle)", id, want)
	}
	c := *b
	var w bytes.Buffer
	if err := Write(&w, &c); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "b.json")
	d := *b
	if err := WriteFile(p, &d); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, w.Bytes()) || d.RunID != c.RunID {
		t.Errorf("WriteFile (run_id %s) and Write (run_id %s) differ:\n%s\n%s", d.RunID, c.RunID, got, w.Bytes())
	}
	if rep := Validate(got); hasCode(rep, "RUN_ID_MISMATCH") {
		t.Errorf("validate: %v", codes(rep))
	}
}

func hasCode(r Report, code string) bool {
	for _, c := range codes(r) {
		if c == code {
			return true
		}
	}
	return false
}

// TestStreamedEncodingIsWholeEncoding covers the goldens and rows with
// every member, none, empty and absent ranked lists, ids and numbers whose
// encoding/json and canonical forms differ.
func TestStreamedEncodingIsWholeEncoding(t *testing.T) {
	for name, build := range goldens {
		t.Run(name, func(t *testing.T) { checkEncoding(t, build(t)) })
	}
	t.Run("edge rows", func(t *testing.T) {
		b := minimalBundle(t)
		b.Submitter = &Submitter{Name: "a \u2028 b"}
		ans := "1e21 ü <&>"
		lat := 1e-7
		b.Results[0].PerSampleScores = []Sample{
			{QueryID: "q0"},
			{QueryID: "q\u2029\"1\\", Scores: map[string]float64{"z": math.Copysign(0, -1), "é": 1e21, "a": 5e-324, "\U0001F600": 1, "ｚ": 2}},
			{QueryID: "q2", RetrievedIDs: []string{}, Retrieved: []Retrieved{}},
			{QueryID: "q3", RetrievedIDs: []string{"p\u2028", "<p>", "\x7f", "\xff"},
				Retrieved: []Retrieved{{ID: "p\u2028", Score: math.Copysign(0, -1), Rank: 1}, {ID: "<p>", Score: 1e-7, Rank: 2}, {ID: "\x7f", Score: 123456789012345680000, Rank: 3}, {ID: "\xff", Score: float64(float32(12.964025)), Rank: 4}},
				Answer:    &ans, Error: "e", JudgeError: "j\n", LatencyMS: &lat, QueryDigest: strings.Repeat("0a", 32)},
			{QueryID: "q4", Retrieved: []Retrieved{{ID: "x", Score: 1, Rank: 1}}},
			{QueryID: "q5", RetrievedIDs: []string{"x"}, Answer: new(string)},
		}
		b.Results = append(b.Results, Result{BenchmarkName: "b2", ConfigName: "c", PerSampleScores: []Sample{}})
		b.Results = append(b.Results, Result{BenchmarkName: "b3", ConfigName: "c"})
		checkEncoding(t, b)
	})
	t.Run("no results", func(t *testing.T) {
		b := minimalBundle(t)
		b.Results = []Result{}
		checkEncoding(t, b)
	})
}

// TestSampleEncoderKnowsEveryField: the streamed encoder writes a row as
// sampleHead, the two ranked lists and sampleTail; a field added to Sample
// and not to them would be dropped from the written bundle.
func TestSampleEncoderKnowsEveryField(t *testing.T) {
	var got []string
	for _, typ := range []reflect.Type{reflect.TypeFor[sampleHead](), reflect.TypeFor[sampleTail]()} {
		for f := range typ.Fields() {
			got = append(got, f.Tag.Get("json"))
		}
	}
	var want []string
	for f := range reflect.TypeFor[Sample]().Fields() {
		if tag := f.Tag.Get("json"); !strings.HasPrefix(tag, "_retrieved") {
			want = append(want, tag)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sampleHead and sampleTail write %v; Sample has %v (beside the ranked lists): add the new field to sampleTail, in Sample's order", got, want)
	}
}

func TestStreamedEncodingRefusesNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		b := minimalBundle(t)
		b.Results[0].PerSampleScores = []Sample{{QueryID: "q", Retrieved: []Retrieved{{ID: "p", Score: v, Rank: 1}}}}
		if err := Finalize(b); err == nil || !strings.Contains(err.Error(), "NaN or infinite") {
			t.Errorf("score %v: Finalize error %v, want one naming NaN or infinite", v, err)
		}
		p := filepath.Join(t.TempDir(), "b.json")
		if err := WriteFile(p, b); err == nil {
			t.Errorf("score %v: WriteFile wrote the bundle", v)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("score %v: WriteFile left a file (%v)", v, err)
		}
	}
}

// depthBundle is a bundle of nq rows of k hits each, as a BM25 run over a
// corpus of ids p000000… writes it: float32 scores, every metric scored.
func depthBundle(t testing.TB, nq, k int) *Bundle {
	b := retrievalBundle(t)
	rows := make([]Sample, nq)
	for q := range rows {
		ids := make([]string, k)
		hits := make([]Retrieved, k)
		for i := range k {
			ids[i] = fmt.Sprintf("p%06d", (q*7919+i*104729)%1_000_000)
			hits[i] = Retrieved{ID: ids[i], Score: float64(float32(25 / (1 + float64(i)*0.01 + float64(q%13)*0.001))), Rank: i + 1}
		}
		rows[q] = Sample{QueryID: fmt.Sprintf("q%05d", q), RetrievedIDs: ids, Retrieved: hits,
			Scores: map[string]float64{"ndcg@10": 0.5, "recall@1000": 1, "map": 0.25, "mrr": 1.0 / 3}}
	}
	b.Results = b.Results[:1]
	b.Results[0].PerSampleScores = rows
	b.Results[0].Metrics, b.Results[0].MetricStats = nil, nil
	b.Results[0] = mustAggregate(t, b.Results[0])
	c, _ := b.Config(b.Results[0].BenchmarkName, b.Results[0].ConfigName)
	c.HeldFixed.RetrieverTopK = ptr(k)
	c.HeldFixed.NSamples = int64(nq)
	c.HeldFixed.SampleIDDigest = rowsDigest(rows)
	b.Configs = []Config{*c}
	return b
}

// TestRankedListsOneLineEach checks the layout of a deep run: each row's
// _retrieved_ids and _retrieved take one line each, so a kept hit costs its
// compact JSON (about 65 bytes for a 7-character id and a float32 score,
// against 147 when each hit object took six indented lines), and the text
// reads back to the same bundle and bytes.
func TestRankedListsOneLineEach(t *testing.T) {
	const nq, k = 20, 1000
	b := depthBundle(t, nq, k)
	text := encode(t, b)
	perHit := float64(len(text)) / (nq * k)
	if perHit > 70 {
		t.Errorf("%.1f bytes per kept hit, want at most 70", perHit)
	}
	if lines, one := bytes.Count(text, []byte("\n")), bytes.Count(encode(t, depthBundle(t, nq, 1)), []byte("\n")); lines != one {
		t.Errorf("%d lines for %d rows of %d hits, %d for rows of one hit: the ranked lists are not one line each", lines, nq, k, one)
	}
	for _, line := range strings.Split(string(text), "\n") {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, `"_retrieved_ids": `) && !strings.HasSuffix(s, `"],`) ||
			strings.HasPrefix(s, `"_retrieved": `) && !strings.HasSuffix(s, `}]`) && !strings.HasSuffix(s, `}],`) {
			t.Errorf("ranked list not on one line: %.80s…", s)
		}
	}
	back, err := Unmarshal(text)
	if err != nil {
		t.Fatal(err)
	}
	if again := encode(t, back); !bytes.Equal(again, text) {
		t.Error("write → read → write of a deep bundle is not byte-identical")
	}
	if rep := Validate(text); hasCode(rep, "RUN_ID_MISMATCH") || len(rep.Problems) > 0 {
		t.Errorf("a deep bundle does not validate: %v%s", codes(rep), problemLines(rep))
	}
}

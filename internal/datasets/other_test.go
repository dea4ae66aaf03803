package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/lasagna-go/lasagna"
)

func TestCSVProblems(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string
	}{
		{"unknown column", "question,contxts\nq,a\n", []string{`d.csv:1: unknown column "contxts" (did you mean "contexts"?)`}},
		{"unknown column far", "question,notes\nq,a\n", []string{`d.csv:1: unknown column "notes" (known columns: id, question, answer, contexts)`}},
		{"no question column", "id,answer\n1,a\n", []string{`d.csv:1: the header has no "question" column (required)`}},
		{"duplicate column", "question,question\nq,r\n", []string{`d.csv:1: column "question" appears twice`}},
		{"empty question", "id,question\n1,\n2,q\n", []string{`d.csv:2: the question cell is empty`}},
		{"empty passage", "question,contexts\nq,a|||\n", []string{`d.csv:2: passage 2 of the contexts cell is empty`}},
		{"field count", "question,answer\nq,a\nr,b,c\ns,d\n", []string{`d.csv:3: malformed CSV at column 1: wrong number of fields`}},
		{"bad quote", "question,answer\nq,\"a\n", []string{`d.csv:2: malformed CSV`}},
		{"duplicate id", "id,question\nx,q\nx,r\n", []string{`d.csv:3: duplicate id "x" (first used at line 2)`}},
		{"empty", "", []string{`d.csv:1: empty file; want a header row`}},
		{"header only", "question\n", []string{`d.csv: no rows`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsOf(t, "d.csv", tc.data)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCSVQuotedMultiline(t *testing.T) {
	data := "\xef\xbb\xbfquestion,answer,contexts\n\"Two\nlines?\",\"yes, \"\"quoted\"\"\",P1|||P2\nq2,,\n"
	b, err := Load(mapFS(map[string]string{"m.csv": data}), "m.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := b.Queries
	if q[0].Text != "Two\nlines?" || q[0].Answers[0] != `yes, "quoted"` || q[0].ID != "row2" || q[1].ID != "row4" || q[1].Answers != nil {
		t.Errorf("queries = %+v", q)
	}
	if len(b.Corpus) != 2 {
		t.Errorf("corpus = %+v", b.Corpus)
	}
}

func TestLoadFormatErrors(t *testing.T) {
	fsys := mapFS(map[string]string{"a.txt": "x", "a.jsonl": `{"question": "q"}`})
	if _, err := Load(fsys, "a.txt", Options{}); err == nil || !strings.Contains(err.Error(), `unknown dataset format ".txt"`) {
		t.Errorf("txt: %v", err)
	}
	if _, err := Load(fsys, "a.jsonl", Options{Split: "dev"}); err == nil || !strings.Contains(err.Error(), "splits exist only for BEIR folders") {
		t.Errorf("split on file: %v", err)
	}
	if _, err := Load(fsys, "missing.jsonl", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCapabilities(t *testing.T) {
	seed, err := Load(os.DirFS("testdata/seed000"), "seed.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	beir, err := Load(os.DirFS("testdata"), "beir", Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := Load(mapFS(map[string]string{"c.jsonl": `{"question": "q", "answer": "a"}`}), "c.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	supported := func(b *lasagna.Benchmark) []lasagna.Track {
		var out []lasagna.Track
		for _, c := range Capabilities(b) {
			if c.Supported {
				out = append(out, c.Track)
			} else if c.Reason == "" || c.Fix == "" {
				t.Errorf("%s: unsupported %s without reason and fix", b.Name, c.Track)
			}
		}
		return out
	}
	if got := supported(seed); !reflect.DeepEqual(got, lasagna.Tracks()) {
		t.Errorf("seed jsonl supports %v, want all", got)
	}
	if got := supported(beir); !reflect.DeepEqual(got, []lasagna.Track{lasagna.TrackRetrieval}) {
		t.Errorf("beir supports %v, want retrieval", got)
	}
	if got := supported(closed); !reflect.DeepEqual(got, []lasagna.Track{lasagna.TrackClosedBook}) {
		t.Errorf("answers without contexts support %v, want closed_book", got)
	}
	if err := RequireTracks(seed, lasagna.TrackRetrieval, lasagna.TrackGeneration); err != nil {
		t.Errorf("RequireTracks(seed) = %v", err)
	}
	err = RequireTracks(beir, lasagna.TrackRetrieval, lasagna.TrackGeneration)
	var te *TrackError
	if !errors.As(err, &te) || len(te.Missing) != 1 || !strings.Contains(err.Error(), "cannot run the generation track: a BEIR folder has no reference answers (fix: use a JSONL or CSV file") {
		t.Errorf("RequireTracks(beir, generation) = %v", err)
	}
	if err := RequireTracks(closed, lasagna.TrackRetrieval); err == nil || !strings.Contains(err.Error(), "no passages to search") {
		t.Errorf("RequireTracks(closed, retrieval) = %v", err)
	}
	if err := RequireTracks(seed, "rag"); err == nil || !strings.Contains(err.Error(), `unknown track "rag"`) {
		t.Errorf("unknown track: %v", err)
	}
}

func selectionBenchmark(order []int) *lasagna.Benchmark {
	b := &lasagna.Benchmark{Name: "t"}
	for _, i := range order {
		md := map[string]any{"question_type": []string{"factoid", "multihop"}[i%2], "hops": float64(1 + i%2)}
		if i%5 == 0 {
			md["unanswerable"] = true
		}
		b.Queries = append(b.Queries, lasagna.Query{ID: "q" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Metadata: md})
	}
	return b
}

func TestSelect(t *testing.T) {
	n := 60
	fwd := make([]int, n)
	for i := range fwd {
		fwd[i] = i
	}
	rev := slices.Clone(fwd)
	slices.Reverse(rev)
	b1, b2 := selectionBenchmark(fwd), selectionBenchmark(rev)

	s1, info1, err := Select(b1, Selection{NSamples: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, info2, err := Select(b2, Selection{NSamples: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info1.IDs, info2.IDs) || info1.Digest != info2.Digest || info1.Seed != 42 {
		t.Errorf("sampling depends on row order: %v vs %v", info1.IDs, info2.IDs)
	}
	if len(s1.Queries) != 10 || info1.Sampled != 10 || info1.Total != 60 || info1.Filtered != 60 {
		t.Errorf("info = %+v", info1)
	}
	if want := sha256hex([]byte(strings.Join(info1.IDs, "\n") + "\n")); info1.Digest != want {
		t.Errorf("digest = %s, want %s", info1.Digest, want)
	}
	var kept []string
	for _, q := range s1.Queries {
		kept = append(kept, q.ID)
	}
	if !slices.IsSorted(kept) { // b1 is in id order, so the kept queries keep it
		t.Errorf("selected queries lost the benchmark order: %v", kept)
	}
	seven := uint64(7)
	_, info3, _ := Select(b1, Selection{NSamples: 10, Seed: &seven})
	if reflect.DeepEqual(info3.IDs, info1.IDs) {
		t.Error("seeds 7 and 42 chose the same sample")
	}
	_, again, _ := Select(b1, Selection{NSamples: 10})
	if !reflect.DeepEqual(again.IDs, info1.IDs) {
		t.Error("same seed, different sample")
	}

	// Filters: numbers compare numerically across Go types; strings exactly.
	f, info, err := Select(b1, Selection{Filters: map[string]any{"question_type": "multihop", "hops": 2}})
	if err != nil || info.Filtered != 30 || len(f.Queries) != 30 {
		t.Errorf("filter: %d kept, err %v", info.Filtered, err)
	}
	_, info, _ = Select(b1, Selection{Filters: map[string]any{"unanswerable": true}})
	if info.Filtered != 12 {
		t.Errorf("unanswerable filter kept %d, want 12", info.Filtered)
	}
	_, info, _ = Select(b1, Selection{Filters: map[string]any{"question_type": []any{"factoid", "multihop"}}})
	if info.Filtered != 60 {
		t.Errorf("list filter kept %d", info.Filtered)
	}
	if _, _, err := Select(b1, Selection{Filters: map[string]any{"hops": "2"}}); err == nil || !strings.Contains(err.Error(), "keep no query (metadata keys present: hops, question_type, unanswerable)") {
		t.Errorf("string vs number filter: %v", err)
	}
	if _, _, err := Select(b1, Selection{NSamples: -1}); err == nil {
		t.Error("negative n_samples accepted")
	}
	all, info, _ := Select(b1, Selection{NSamples: 1000})
	if len(all.Queries) != 60 || info.Sampled != 60 {
		t.Errorf("n_samples above the count kept %d", len(all.Queries))
	}
}

func TestVectaCSV(t *testing.T) {
	data := "question,answer,id,chunk_ids,page_nums,source_paths\n" +
		"What is the maximum dosage of ibuprofen?,The maximum daily dosage is 1200mg for OTC use.,unique-id,chunk_42|chunk_87,3|4,drug_guide.pdf\n" +
		"Second?,Yes,,, ,\n"
	fsys := mapFS(map[string]string{"v.csv": data})
	es, err := ReadVectaCSV(fsys, "v.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []VectaEntry{
		{ID: "unique-id", Question: "What is the maximum dosage of ibuprofen?", Answer: "The maximum daily dosage is 1200mg for OTC use.", ChunkIDs: []string{"chunk_42", "chunk_87"}, PageNums: []int{3, 4}, SourcePaths: []string{"drug_guide.pdf"}, Pos: lasagna.Pos{File: "v.csv", Line: 2}},
		{ID: "row3", Question: "Second?", Answer: "Yes", Pos: lasagna.Pos{File: "v.csv", Line: 3}},
	}
	if !reflect.DeepEqual(es, want) {
		t.Fatalf("entries:\n got %+v\nwant %+v", es, want)
	}
	var buf strings.Builder
	if err := WriteVectaCSV(&buf, es); err != nil {
		t.Fatal(err)
	}
	back, err := ReadVectaCSV(mapFS(map[string]string{"w.csv": buf.String()}), "w.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Pos, es[i].Pos = lasagna.Pos{}, lasagna.Pos{}
	}
	if !reflect.DeepEqual(back, es) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, es)
	}
	if err := WriteVectaCSV(&buf, []VectaEntry{{ID: "a", Question: "q", Answer: "a", ChunkIDs: []string{"x|y"}}}); err == nil {
		t.Error("wrote a chunk id containing |")
	}
	b, err := LoadVectaCSV(fsys, "v.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Format != lasagna.FormatVecta || !reflect.DeepEqual(b.Qrels.Relevant("unique-id"), []string{"chunk_42", "chunk_87"}) || !reflect.DeepEqual(b.Queries[0].Metadata["page_nums"], []int{3, 4}) {
		t.Errorf("benchmark = %+v", b)
	}
	for _, tc := range []struct{ data, want string }{
		{"question\nq\n", `v.csv:1: the header has no "answer" column`},
		{"question,answer,chunk_id\nq,a,c\n", `v.csv:1: unknown column "chunk_id" (did you mean "chunk_ids"?)`},
		{"question,answer,page_nums\nq,a,3|x\n", `v.csv:2: page_nums: "x" is not a whole number`},
		{"question,answer,chunk_ids\nq,a,c1||c2\n", `v.csv:2: chunk_ids: item 2 is empty`},
		{"question,answer\nq,\n", `v.csv:2: the answer cell is empty`},
	} {
		_, err := ReadVectaCSV(mapFS(map[string]string{"v.csv": tc.data}), "v.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.data, err, tc.want)
		}
	}
}

func TestPredictions(t *testing.T) {
	data := strings.Join([]string{
		`{"id": "q1", "answer": "It lowers the melting point.", "retrieved": ["d1", "d2", "d3"]}`,
		`{"id": 2, "retrieved": [{"id": "d2", "score": 1.5}, {"id": "d1", "score": 1.5}]}`,
		`{"id": "q3", "answer": "", "abstained": true}`,
		`{"id": "q4", "answer": null, "retrieved": [], "passages": ["p"]}`,
	}, "\n")
	ps, err := ReadPredictions(mapFS(map[string]string{"p.jsonl": data}), "p.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Prediction{
		{ID: "q1", Answer: "It lowers the melting point.", Answered: true, Hits: []lasagna.Hit{{ID: "d1", Score: 3}, {ID: "d2", Score: 2}, {ID: "d3", Score: 1}}, Pos: lasagna.Pos{File: "p.jsonl", Line: 1}},
		{ID: "2", Hits: []lasagna.Hit{{ID: "d2", Score: 1.5}, {ID: "d1", Score: 1.5}}, Pos: lasagna.Pos{File: "p.jsonl", Line: 2}},
		{ID: "q3", Answered: true, Abstained: true, Pos: lasagna.Pos{File: "p.jsonl", Line: 3}},
		{ID: "q4", Hits: []lasagna.Hit{}, Passages: []string{"p"}, Pos: lasagna.Pos{File: "p.jsonl", Line: 4}},
	}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("predictions:\n got %+v\nwant %+v", ps, want)
	}
	if o := ps[0].Output(); !o.Answered || len(o.Hits) != 3 {
		t.Errorf("Output() = %+v", o)
	}
	for _, tc := range []struct{ data, want string }{
		{`{"id": "a", "anwser": "x"}`, `p.jsonl:1: unknown field "anwser" (did you mean "answer"?)`},
		{"{\"id\": \"a\", \"answer\": \"x\"}\n{\"id\": \"a\", \"answer\": \"y\"}", `p.jsonl:2: duplicate id "a" (first at line 1)`},
		{`{"answer": "x"}`, `p.jsonl:1: missing field "id"`},
		{`{"id": "a"}`, `p.jsonl:1: the line has neither "answer" nor "retrieved"`},
		{`{"id": "a", "retrieved": ["d1", {"id": "d2"}]}`, `p.jsonl:1: "retrieved" mixes plain ids and objects`},
		{`{"id": "a", "retrieved": [{"id": "d1", "score": 1}, {"id": "d2"}]}`, `p.jsonl:1: "retrieved" gives a score on 1 of 2 items`},
		{`{"id": "a", "retrieved": [{"id": "d1", "scor": 1}]}`, `p.jsonl:1: retrieved[0]: unknown field "scor" (did you mean "score"?)`},
		{`{"id": "a", "retrieved": [{"id": "d1", "score": "high"}]}`, `p.jsonl:1: retrieved[0].score must be a number, got a string`},
		{`{"id": "a", "retrieved": "d1"}`, `p.jsonl:1: field "retrieved" must be a list`},
		{`{"id": "a", "abstained": "yes"}`, `p.jsonl:1: field "abstained" must be true or false`},
		{`{"id": "a", "answer": 3}`, `p.jsonl:1: field "answer" must be a string, got a number`},
		{`{"id": true, "answer": "x"}`, `p.jsonl:1: field "id" must be a non-empty string or a number, got a boolean`},
		{`{"id": "", "answer": "x"}`, `p.jsonl:1: field "id" must be a non-empty string or a number, got a string`},
		{`{"id": "a", "retrieved": [1, 2,]}`, `p.jsonl:1: invalid JSON`},
	} {
		_, err := ReadPredictions(mapFS(map[string]string{"p.jsonl": tc.data}), "p.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.data, err, tc.want)
		}
	}
}

// Load reads a .csv whose header names a Vecta column as a Vecta benchmark
// CSV; LoadCSV still refuses it, with the hint.
func TestLoadDetectsVectaCSV(t *testing.T) {
	fsys := mapFS(map[string]string{"d.csv": "question,answer,chunk_ids\nq,a,c\n"})
	b, err := Load(fsys, "d.csv", Options{})
	if err != nil || b.Format != lasagna.FormatVecta || len(b.Queries) != 1 {
		t.Fatalf("Load = %+v, %v; want a Vecta benchmark", b, err)
	}
	_, err = LoadCSV(fsys, "d.csv", Options{})
	if err == nil || !strings.Contains(err.Error(), `d.csv:1: unknown column "chunk_ids" (known columns: id, question, answer, contexts); this looks like a Vecta benchmark CSV: read it with LoadVectaCSV (validate-data --format vecta)`) {
		t.Errorf("LoadCSV: %v", err)
	}
}

// A JSONL row's Vecta citations in metadata are checked (file:line) and
// typed as a Vecta CSV's are.
func TestJSONLCitations(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"question": "q", "metadata": {"page_nums": ["3"]}}`, `d.jsonl:1: metadata.page_nums[0] must be a whole number, got a string`},
		{`{"question": "q", "metadata": {"page_nums": [1.5]}}`, `d.jsonl:1: metadata.page_nums[0] must be a whole number, got a number`},
		{`{"question": "q", "metadata": {"chunk_ids": "c1"}}`, `d.jsonl:1: metadata.chunk_ids must be a list, got a string`},
		{`{"question": "q", "metadata": {"source_paths": ["a.pdf", ""]}}`, `d.jsonl:1: metadata.source_paths[1] must be a non-empty string, got a string`},
	} {
		got := problemsOf(t, "d.jsonl", tc.data+"\n")
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.data, got, tc.want)
		}
	}
	b, err := Load(mapFS(map[string]string{"d.jsonl": `{"question": "q", "metadata": {"chunk_ids": ["c1"], "page_nums": [3, 4.0], "source_paths": ["a.pdf"], "note": [1]}}` + "\n"}), "d.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := b.Queries[0].Metadata
	if !reflect.DeepEqual(md["chunk_ids"], []string{"c1"}) || !reflect.DeepEqual(md["page_nums"], []int{3, 4}) || !reflect.DeepEqual(md["source_paths"], []string{"a.pdf"}) || !reflect.DeepEqual(md["note"], []any{1.0}) {
		t.Errorf("metadata %#v", md)
	}
}

// TestVectaCSVNoFormulas: no cell of a written Vecta CSV starts a formula
// in a spreadsheet, and reading it back gives the original text, also for
// text that starts with an apostrophe.
func TestVectaCSVNoFormulas(t *testing.T) {
	entries := []VectaEntry{
		{ID: "=1+1", Question: `=HYPERLINK("http://x","y")`, Answer: "+1", ChunkIDs: []string{"-c1", "@c2"}, PageNums: []int{-3, 4}, SourcePaths: []string{"doc.pdf"}},
		{ID: "q2", Question: "'quoted", Answer: "''twice", ChunkIDs: []string{"c3"}},
		{ID: "q3", Question: "\tindented", Answer: "\rreturn"},
		{ID: "q4", Question: "plain", Answer: "a - b"},
	}
	var buf bytes.Buffer
	if err := WriteVectaCSV(&buf, entries); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("cell %q starts a formula", cell)
			}
		}
	}
	got, err := ReadVectaCSV(fstest.MapFS{"b.csv": {Data: buf.Bytes()}}, "b.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Pos = lasagna.Pos{}
	}
	if diff := cmp.Diff(entries, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

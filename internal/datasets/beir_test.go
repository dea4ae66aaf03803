package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

func TestBEIRFixture(t *testing.T) {
	b, err := Load(os.DirFS("testdata"), "beir", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantR := lasagna.Qrels{"1": {"d1": 2, "d2": 0}, "2": {"d2": 1, "d3": 1}}
	if !reflect.DeepEqual(b.Qrels, wantR) {
		t.Errorf("qrels = %v, want %v (CRLF stripped, header skipped, grade 0 kept)", b.Qrels, wantR)
	}
	if len(b.Queries) != 2 || b.Queries[0].ID != "1" || b.Queries[1].ID != "2" {
		t.Errorf("queries = %+v; want 1 and 2 (3 is not judged in test)", b.Queries)
	}
	if len(b.Corpus) != 3 || b.Corpus[0].Title != "Soda-lime glass" || !reflect.DeepEqual(b.Corpus[0].Extra, map[string]any{"metadata": map[string]any{"url": "local"}}) {
		t.Errorf("corpus[0] = %+v", b.Corpus[0])
	}
	if b.Format != lasagna.FormatBEIR || b.Provenance != lasagna.ProvenanceNative || b.Split != "test" {
		t.Errorf("format %q provenance %q split %q", b.Format, b.Provenance, b.Split)
	}
	// Revision: sha256 of `sha256sum corpus.jsonl queries.jsonl qrels/test.tsv`.
	var sums strings.Builder
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		data, err := os.ReadFile(filepath.Join("testdata/beir", f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%s  %s\n", sha256hex(data), f)
	}
	rev := sha256hex([]byte(sums.String()))
	if b.Revision != rev || b.Name != "local/beir@"+rev[:12] {
		t.Errorf("name %q revision %q, want local/beir@%s, %s", b.Name, b.Revision, rev[:12], rev)
	}
	dev, err := Load(os.DirFS("testdata"), "beir", Options{Split: "dev", Name: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dev.Queries) != 1 || dev.Queries[0].ID != "3" || dev.Revision == b.Revision || !strings.HasPrefix(dev.Name, "tiny@") {
		t.Errorf("dev split: %d queries, name %q", len(dev.Queries), dev.Name)
	}
	_, err = Load(os.DirFS("testdata"), "beir", Options{Split: "train"})
	if err == nil || !strings.Contains(err.Error(), `no split "train"; splits here: dev, test`) {
		t.Errorf("missing split error = %v", err)
	}
}

func TestBEIRProblems(t *testing.T) {
	corpus := `{"_id": "d1", "title": "t", "text": "x"}` + "\n" + `{"_id": "d2", "text": "y"}` + "\n"
	queries := `{"_id": "q1", "text": "a"}` + "\n" + `{"_id": "q2", "text": "b"}` + "\n"
	cases := []struct {
		name                   string
		corpus, queries, qrels string
		want                   []string
	}{
		{"missing docs and queries", corpus, queries, "q1\td1\t1\nq1\td9\t1\nq2\td8\t1\nq2\td9\t2\nq7\td1\t1\n", []string{
			`b/qrels/test.tsv:2: 3 judgement(s) name documents missing from corpus.jsonl (first: "d9", "d8")`,
			`b/qrels/test.tsv:5: 1 judgement(s) name queries missing from queries.jsonl (first: "q7")`}},
		{"bad score", corpus, queries, "q1\td1\tyes\n", []string{`b/qrels/test.tsv:1: score "yes" is not an integer`}},
		{"bad score after header", corpus, queries, "query-id\tcorpus-id\tscore\nq1\td1\t1.5\n", []string{`b/qrels/test.tsv:2: score "1.5" is not an integer`}},
		{"columns", corpus, queries, "q1\td1\n", []string{`b/qrels/test.tsv:1: want 3 tab-separated columns (query-id, corpus-id, score), got 2`}},
		{"conflicting grades", corpus, queries, "q1\td1\t1\nq1\td1\t2\n", []string{`b/qrels/test.tsv:2: query "q1", document "d1" judged twice with different scores (1 and 2)`}},
		{"empty qrels", corpus, queries, "query-id\tcorpus-id\tscore\n", []string{`b/qrels/test.tsv: no judgements`}},
		{"duplicate doc", corpus + `{"_id": "d1", "text": "z"}`, queries, "q1\td1\t1\n", []string{`b/corpus.jsonl:3: duplicate document id "d1" (first at line 1)`}},
		{"doc without text", `{"_id": "d1", "title": "t"}`, queries, "q1\td1\t1\n", []string{`b/corpus.jsonl:1: missing field "text"`}},
		{"bad corpus json", `{"_id": "d1", "text": "x"`, queries, "q1\td1\t1\n", []string{`b/corpus.jsonl:1: invalid JSON at column 26: unexpected end of line inside an object`}},
		{"query without id", corpus, `{"text": "a"}`, "q1\td1\t1\n", []string{`b/queries.jsonl:1: missing field "_id"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := mapFS(map[string]string{"b/corpus.jsonl": tc.corpus, "b/queries.jsonl": tc.queries, "b/qrels/test.tsv": tc.qrels})
			_, err := Load(fsys, "b", Options{})
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v, want Problems", err)
			}
			if len(ps) != len(tc.want) {
				t.Fatalf("got %d problems:\n%v\nwant %d", len(ps), err, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(ps[i].Error(), w) {
					t.Errorf("problem %d = %q, want %q", i, ps[i].Error(), w)
				}
			}
		})
	}
}

// beirCasesDir is a BEIR folder written for the loader's hard cases
// (testdata/beir-cases/README.md): qrels with CRLF on every line, the
// header and the last included; numeric-string ids such as "0"; queries
// with nested metadata objects and \u escapes, surrogate pairs included;
// documents with metadata {"url": ...}; queries the split does not judge.
const beirCasesDir = "testdata/beir-cases"

// readFixture returns a fixture file's text; a missing file fails the test.
func readFixture(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("fixture %s is missing: %v", path, err)
	}
	return string(data)
}

// TestBEIRLoaderCases loads testdata/beir-cases and checks it against an
// independent reading of the same bytes.
func TestBEIRLoaderCases(t *testing.T) {
	qrelsText := readFixture(t, filepath.Join(beirCasesDir, "qrels", "test.tsv"))
	queriesText := readFixture(t, filepath.Join(beirCasesDir, "queries.jsonl"))
	corpusText := readFixture(t, filepath.Join(beirCasesDir, "corpus.jsonl"))
	// The fixture still holds what it is there for (an editor or git may
	// rewrite line ends or escapes).
	if lines := strings.Count(qrelsText, "\n"); lines < 2 || strings.Count(qrelsText, "\r\n") != lines || !strings.HasSuffix(qrelsText, "\r\n") || !strings.HasPrefix(qrelsText, "query-id\tcorpus-id\tscore\r\n") {
		t.Fatalf("%s/qrels/test.tsv lost its header or its CRLF line ends", beirCasesDir)
	}
	if !strings.Contains(queriesText, `\u03b1`) || !strings.Contains(queriesText, `\ud83c\udffa`) || !strings.Contains(corpusText, `\u2013`) || strings.Contains(queriesText+corpusText, "\r") {
		t.Fatalf("%s: the JSONL files lost their \\u escapes or their LF line ends", beirCasesDir)
	}

	// Independent reading: split lines, drop the header, split on tabs.
	want := lasagna.Qrels{}
	sc := bufio.NewScanner(strings.NewReader(qrelsText))
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			continue
		}
		f := strings.Split(strings.TrimSuffix(sc.Text(), "\r"), "\t")
		g, err := strconv.Atoi(f[2])
		if err != nil || len(f) != 3 {
			t.Fatalf("qrels line %d: %q", i+1, sc.Text())
		}
		want.Add(f[0], f[1], g)
	}
	b, err := Load(os.DirFS("testdata"), "beir-cases", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Qrels, want) || b.Qrels.Judgements() != 7 {
		t.Errorf("qrels = %v (%d judgements); want 7, equal to an independent reading %v", b.Qrels, b.Qrels.Judgements(), want)
	}
	if g := b.Qrels["12"]["MED-4"]; g != 2 {
		t.Errorf(`grade of 12/MED-4 = %d, want 2 ("2\r" parsed as 2)`, g)
	}
	// Only the judged queries, in file order: 27 and 1300 are not judged.
	var ids []string
	for _, q := range b.Queries {
		ids = append(ids, q.ID)
		if strings.ContainsAny(q.ID, "\r\t") {
			t.Fatalf("query id %q keeps a line end", q.ID)
		}
	}
	if want := []string{"0", "3", "12", "120", "1207"}; !slices.Equal(ids, want) {
		t.Errorf("queries %q, want %q (the judged ones, in file order)", ids, want)
	}
	for id, text := range map[string]string{
		"0":    "Does firing above 1200 °C vitrify a stoneware body?",
		"12":   "α-alumina raises the melting point of a glaze – or lowers it?",
		"120":  "Salt glazing needs sodium vapour “at cone 10”.",
		"1207": "Dust on bisque ware makes a glaze crawl 🏺",
	} {
		if q, ok := b.Query(id); !ok || q.Text != text {
			t.Errorf("query %q = %q, want %q (escapes decoded)", id, q.Text, text)
		}
	}
	// Nested metadata is kept as it is: its keys are Query.Metadata's.
	q12, _ := b.Query("12")
	wantMD := map[string]any{
		"31":    []any{map[string]any{"sentences": []any{1.0}, "label": "CONTRADICT"}},
		"MED-4": []any{map[string]any{"sentences": []any{3.0, 4.0}, "label": "SUPPORT"}},
	}
	if !reflect.DeepEqual(q12.Metadata, wantMD) {
		t.Errorf("query 12 metadata = %#v, want %#v", q12.Metadata, wantMD)
	}
	if q3, _ := b.Query("3"); len(q3.Metadata) != 0 {
		t.Errorf("query 3's empty metadata gave %v", q3.Metadata)
	}
	// Documents: every one kept, "0" a valid id, escapes decoded, metadata kept.
	if len(b.Corpus) != 6 || b.Corpus[1].ID != "0" {
		t.Fatalf("corpus has %d documents, second %q; want 6, the second \"0\"", len(b.Corpus), b.Corpus[1].ID)
	}
	med := b.Corpus[0]
	if med.ID != "MED-4" || med.Title != "Glaze fit – a review" || !strings.Contains(med.Text, "(Δα above 1 × 10⁻⁶ K⁻¹)") {
		t.Errorf("MED-4 = %q %q / %q: escapes not decoded", med.ID, med.Title, med.Text)
	}
	if md, _ := med.Extra["metadata"].(map[string]any); md["url"] != "https://example.org/ceramics/glaze-fit" {
		t.Errorf("MED-4 metadata not kept: %v", med.Extra)
	}
}

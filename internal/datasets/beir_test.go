package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// refdata finds /work/shared/refdata (a "shared/refdata" sibling of the
// module root) or skips.
func refdata(t *testing.T, sub string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "refdata", sub)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			t.Skipf("reference data shared/refdata/%s not found above %s; conformance check skipped", sub, dir)
		}
	}
}

// TestBEIRRealFiles loads real BEIR files: SciFact's CRLF, headed test
// qrels and its queries, and two NFCorpus documents, and checks them against
// an independent reading of the same bytes.
func TestBEIRRealFiles(t *testing.T) {
	dir := refdata(t, "beir")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	qrelsText, queriesText, nf := read("scifact-qrels-test.tsv"), read("scifact-queries.jsonl"), read("nfcorpus-corpus-sample.jsonl")

	// Independent reading: split lines, drop the header, split on tabs.
	want := lasagna.Qrels{}
	var docIDs []string
	sc := bufio.NewScanner(strings.NewReader(qrelsText))
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			continue
		}
		f := strings.Split(strings.TrimSuffix(sc.Text(), "\r"), "\t")
		if f[2] != "1" {
			t.Fatalf("unexpected score %q", f[2])
		}
		want.Add(f[0], f[1], 1)
		docIDs = append(docIDs, f[1])
	}
	// A corpus holding the judged ids plus the real NFCorpus documents.
	var corpus strings.Builder
	corpus.WriteString(nf)
	seen := map[string]bool{}
	for _, id := range docIDs {
		if !seen[id] {
			seen[id] = true
			fmt.Fprintf(&corpus, "{\"_id\": %q, \"title\": \"\", \"text\": \"doc %s\"}\n", id, id)
		}
	}
	fsys := mapFS(map[string]string{"scifact/corpus.jsonl": corpus.String(), "scifact/queries.jsonl": queriesText, "scifact/qrels/test.tsv": qrelsText})
	b, err := Load(fsys, "scifact", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Qrels, want) || b.Qrels.Judgements() != 339 || len(b.Queries) != 300 {
		t.Errorf("qrels: %d judgements, %d queries; want 339, 300 and equal to an independent reading", b.Qrels.Judgements(), len(b.Queries))
	}
	if q, ok := b.Query("1"); !ok || !strings.HasPrefix(q.Text, "0-dimensional biomaterials") {
		t.Errorf("query 1 = %+v", q)
	}
	med := b.Corpus[0]
	if med.ID != "MED-10" || !strings.Contains(med.Text, "\u2013") && !strings.Contains(med.Title+med.Text, "–") {
		t.Errorf("MED-10 = %q / escapes not decoded", med.ID)
	}
	if md, _ := med.Extra["metadata"].(map[string]any); md["url"] == nil {
		t.Errorf("MED-10 metadata not kept: %v", med.Extra)
	}
	for _, q := range b.Queries {
		if strings.ContainsAny(q.ID, "\r\t") {
			t.Fatalf("query id %q keeps a line end", q.ID)
		}
	}
}

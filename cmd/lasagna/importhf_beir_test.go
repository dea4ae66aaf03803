package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
)

// writeBEIRFolder writes a BEIR folder of 60 documents and 20 test
// queries whose BM25 ranking is imperfect (queries share words with
// documents that are not judged relevant), with graded judgements and a
// header, as BEIR's files have.
func writeBEIRFolder(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(23, 5))
	words := strings.Fields("glass silica soda lime coin solidus gold emperor furnace melting water stable mint weight reform debased trade harbour river bridge stone copper iron salt grain wool ship road tax law")
	pick := func(n int) string {
		var out []string
		for range n {
			out = append(out, words[rng.IntN(len(words))])
		}
		return strings.Join(out, " ")
	}
	var corpus, queries, qrels strings.Builder
	texts := map[int]string{}
	for d := range 60 {
		texts[d] = pick(12)
		fmt.Fprintf(&corpus, `{"_id": "doc%d", "title": "Title %d", "text": %q}`+"\n", d, d, texts[d])
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for q := range 20 {
		rel := rng.IntN(60)
		other := rng.IntN(60)
		// three words of the relevant document and two of another
		w := strings.Fields(texts[rel])
		o := strings.Fields(texts[other])
		fmt.Fprintf(&queries, `{"_id": "q%d", "text": %q, "metadata": {}}`+"\n", q, strings.Join([]string{w[0], w[3], w[7], o[1], o[2]}, " "))
		fmt.Fprintf(&qrels, "q%d\tdoc%d\t%d\n", q, rel, 1+q%2)
		if q%3 == 0 {
			fmt.Fprintf(&qrels, "q%d\tdoc%d\t1\n", q, (rel+1)%60)
		}
	}
	fmt.Fprintf(&queries, `{"_id": "q99", "text": "a query of another split"}`+"\n")
	os.MkdirAll(filepath.Join(dir, "qrels"), 0o755)
	for p, s := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String(), "qrels/train.tsv": "query-id\tcorpus-id\tscore\nq99\tdoc1\t1\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImportHFBEIRSameAsFolder: `import-hf BeIR/NAME` from the (fake) Hub
// registers the digest of the same BEIR folder on disk, and `benchmark
// run` of registry:NAME-test gives the folder's metrics, mean, CI and
// per-query, to the bit.
func TestImportHFBEIRSameAsFolder(t *testing.T) {
	useRegistry(t)
	dir := filepath.Join(t.TempDir(), "scifact")
	writeBEIRFolder(t, dir)
	corpus, qrels := hftest.BEIRFrom("scifact", dir)
	hub := hftest.New(t, hubToken, corpus, qrels)
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	out, _ := mustCLI(t, 0, "benchmark", "validate-data", dir)
	var digest string
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "revision:"); ok {
			digest = strings.TrimSpace(v)
		}
	}
	out, _ = mustCLI(t, 0, "benchmark", "import-hf", "BeIR/scifact")
	if want := "created scifact-test@" + digest[:12] + ": 20 questions, 60 documents, active, from BeIR/scifact test@" + corpus.SHA()[:12] + " (huggingface beir)\n"; out != want {
		t.Errorf("import-hf: %q, want %q", out, want)
	}
	out, _ = mustCLI(t, 0, "benchmark", "list", "--json")
	if !strings.Contains(out, `"digest": "`+digest+`"`) {
		t.Errorf("list --json has no digest %s: %s", digest, out)
	}
	run := func(path string) (string, []map[string]any) {
		b := filepath.Join(t.TempDir(), "b.json")
		out, _ := mustCLI(t, 0, "benchmark", "run", path, "-o", b)
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		var bundle struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(data, &bundle); err != nil {
			t.Fatal(err)
		}
		for _, r := range bundle.Results {
			delete(r, "benchmark_name")
		}
		table, _, _ := strings.Cut(out, "bundle:")
		return table, bundle.Results
	}
	diskTable, diskResults := run(dir)
	hubTable, hubResults := run("registry:scifact-test")
	// the same table but for the name (and the padding its length makes)
	diskTable = strings.ReplaceAll(diskTable, "local/scifact@", "scifact-test@")
	if strings.Join(strings.Fields(diskTable), " ") != strings.Join(strings.Fields(hubTable), " ") {
		t.Errorf("the tables differ:\nfolder:\n%s\nimport:\n%s", diskTable, hubTable)
	}
	if !reflect.DeepEqual(diskResults, hubResults) {
		t.Errorf("the bundles' results differ:\n%v\n%v", diskResults, hubResults)
	}
	if !strings.Contains(hubTable, "20") || strings.Contains(hubTable, "1.000 [1.000, 1.000]") {
		t.Errorf("the fixture should rank imperfectly over 20 queries:\n%s", hubTable)
	}
}

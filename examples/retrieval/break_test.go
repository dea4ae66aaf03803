package retrieval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/gotestjson"
)

// TestBrokenPipeline copies this example into a temporary module, breaks
// its retriever on purpose and runs go test -json on the copy (offline,
// against this checkout of lasagna). Two breaks, each its own go test run
// of the same binary:
//
//   - "some": coin-06 gets a list without its document, glass-07 a list
//     holding an id that is not in the corpus. Exactly those two query
//     subtests fail (with the dataset file:line, the query, the metric and
//     the missing document, or the unknown id and UNKNOWN_DOC_ID), their
//     parents fail, the arm's mean thresholds and the baseline gate pass
//     (two changed queries are not a significant drop), and TestRAG fails
//     naming UNKNOWN_DOC_ID, where and the fix.
//   - "all": each ranked list is reversed (its documents stay in the top
//     10). Only the arm test fails: on its nDCG@10 threshold and on the
//     baseline gate, which gives both means, the drop and the Holm p-value.
func TestBrokenPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the example into a temporary module and runs go test on it; skipped with -short")
	}
	dir := copyExample(t)

	evs, code := goTestJSON(t, dir, "BREAK=some")
	if code != 1 {
		t.Fatalf("go test exit code %d, want 1 (failing tests)\n%s", code, outputOf(evs, ""))
	}
	wantFailed := []string{"TestRAG", "TestRAG/faq", "TestRAG/faq/keyword", "TestRAG/faq/keyword/coin-06", "TestRAG/faq/keyword/glass-07"}
	if got := testsWith(evs, "fail"); !slices.Equal(got, wantFailed) {
		t.Errorf("failed tests = %q, want %q", got, wantFailed)
	}
	// Every other query subtest passes, and so does the BM25 arm.
	if n := len(testsWith(evs, "pass")); n != 2*47-2+1 {
		t.Errorf("%d tests passed, want %d", n, 2*47-2+1)
	}
	for test, wants := range map[string][]string{
		"TestRAG/faq/keyword/coin-06": {
			`faq.jsonl:29: query coin-06 "Who introduced the solidus?"`,
			"recall@10 = 0, want >= 1",
			"-solidus (not retrieved)",
		},
		"TestRAG/faq/keyword/glass-07": {
			`faq.jsonl:7: query glass-07 "Who is credited with inventing cristallo?"`,
			`the ranked list holds "cristallo-2", which is not in the corpus of 38 documents (UNKNOWN_DOC_ID)`,
		},
		"TestRAG": {
			"integrity: UNKNOWN_DOC_ID at local/faq@",
			`/keyword: 1 ranked lists hold ids missing from the corpus of 38 documents: glass-07 ("cristallo-2") (fix: return the corpus ids`,
		},
		"TestRAG/faq/keyword": {
			"baseline gate: ndcg@10",
			"passes",
		},
	} {
		out := outputOf(evs, test)
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", test, want, out)
			}
		}
	}

	evs, code = goTestJSON(t, dir, "BREAK=all")
	if code != 1 {
		t.Fatalf("go test exit code %d, want 1 (failing tests)\n%s", code, outputOf(evs, ""))
	}
	out := outputOf(evs, "TestRAG/faq/keyword")
	for _, want := range []string{
		"ndcg@10 = 0.", ", want >= 0.9 (mean of ",
		"regression: ndcg@10 fell from 0.98", "and the drop is significant (Holm p = ",
		"record a new baseline with LASAGNA_UPDATE_BASELINE=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TestRAG/faq/keyword output lacks %q:\n%s", want, out)
		}
	}
	// The reversal stays within the top 10: every query keeps its
	// documents, so only the arm (and its parents) fail.
	if got, want := testsWith(evs, "fail"), []string{"TestRAG", "TestRAG/faq", "TestRAG/faq/keyword"}; !slices.Equal(got, want) {
		t.Errorf("failed tests = %q, want %q", got, want)
	}
}

// breaks is inserted at the top of Keyword.Retrieve in the copy.
const breaks = `
	switch os.Getenv("BREAK") {
	case "some":
		switch q.ID {
		case "coin-06":
			return []lasagna.Hit{{ID: "lydia", Score: 1}}, nil
		case "glass-07":
			return []lasagna.Hit{{ID: "cristallo-2", Score: 1}}, nil
		}
	case "all":
		defer func() { slices.Reverse(hits) }()
	}
`

// copyExample writes a module holding a copy of this package (without
// this file), with breaks inserted, and the dataset, and returns the
// package's folder.
func copyExample(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	pkg := filepath.Join(mod, "retrieval")
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) []byte {
		t.Helper()
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write(filepath.Join(mod, "go.mod"), []byte("module example.com/broken\n\ngo 1.26.0\n\nrequire github.com/lasagna-go/lasagna v0.0.0\n\nreplace github.com/lasagna-go/lasagna => "+root+"\n"))
	write(filepath.Join(mod, "go.sum"), read(filepath.Join(root, "go.sum")))
	write(filepath.Join(mod, "data", "faq.jsonl"), read("../data/faq.jsonl"))
	write(filepath.Join(pkg, "testdata", "baseline.json"), read("testdata/baseline.json"))
	for _, name := range []string{"doc.go", "retrieval_test.go"} {
		write(filepath.Join(pkg, name), read(name))
	}
	src := string(read("keyword.go"))
	const sig = "func (r *Keyword) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {\n"
	if !strings.Contains(src, sig) {
		t.Fatalf("keyword.go no longer holds %q; update TestBrokenPipeline", sig)
	}
	src = strings.Replace(src, sig, strings.Replace(sig, "([]lasagna.Hit, error)", "(hits []lasagna.Hit, err error)", 1)+breaks, 1)
	src = strings.Replace(src, "import (\n", "import (\n\t\"os\"\n", 1)
	src = strings.Replace(src, "\tvar hits []lasagna.Hit\n", "", 1)
	write(filepath.Join(pkg, "keyword.go"), []byte(src))
	return pkg
}

// event is one line of go test -json output.
type event = gotestjson.Event

// goTestJSON runs go test -json -count=1 in dir offline with the extra
// environment variables and returns its events and exit code.
func goTestJSON(t *testing.T, dir string, vars ...string) ([]event, int) {
	t.Helper()
	env := append([]string{"GOFLAGS=-mod=mod", "GOSUMDB=off", "GOWORK=off", "LASAGNA_OUT=" + t.TempDir()}, vars...)
	evs, code, err := gotestjson.Run(dir, []string{"."}, env)
	if err != nil {
		t.Fatal(err)
	}
	return evs, code
}

// testsWith returns the sorted names of the tests that ended with action.
func testsWith(evs []event, action string) []string {
	var out []string
	for _, e := range evs {
		if e.Action == action && e.Test != "" {
			out = append(out, e.Test)
		}
	}
	slices.Sort(out)
	return out
}

// outputOf returns the output test printed ("" for the package's).
func outputOf(evs []event, test string) string {
	var sb strings.Builder
	for _, e := range evs {
		if e.Test == test && e.Action == "output" {
			sb.WriteString(e.Output)
		}
	}
	return sb.String()
}

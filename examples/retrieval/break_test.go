package retrieval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/doctest"
	"github.com/lasagna-go/lasagna/internal/gotestjson"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TestBrokenPipeline breaks this example's retriever on purpose and runs
// go test -json on this package with the broken keyword.go laid over the
// real one (go test -overlay, offline, inside this module, so a fresh
// machine needs no module the parent run did not download). Two breaks,
// each its own go test run of the same binary:
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
	servertest.Heavy(t, "a child go test (on a broken copy of this package)")
	overlay := brokenOverlay(t)

	evs, code := goTestJSON(t, overlay, "BREAK=some")
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

	some := failures(evs)

	evs, code = goTestJSON(t, overlay, "BREAK=all")
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

	// The failure messages README.md and docs/frameworks.md show are
	// these runs' (CONTRIBUTING.md, "Sample outputs in the documentation").
	all := failures(evs)
	blocks, err := doctest.MarkedOutput("../..", "TestBrokenPipeline")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		errSome, errAll := doctest.Excerpt(b.Lines, some), doctest.Excerpt(b.Lines, all)
		if errSome != nil && errAll != nil {
			t.Errorf("%s: not an excerpt of the failures of either break\nBREAK=some: %v\nBREAK=all: %v", b.Where(), errSome, errAll)
		}
	}
}

// fileLine is the file:line prefix go test puts before a logged line.
var fileLine = regexp.MustCompile(`^(\s*)\w+\.go:\d+: `)

// failures renders the failed tests of a run as the docs show them: each
// failed test's name ("--- FAIL: NAME"), then the lines it logged, without
// go test's "=== RUN" and result lines and the file:line prefixes.
//
// The query subtests run in parallel, so the order in which they fail
// varies from run to run; they are rendered in a fixed order instead:
// subtests before their parents (as go test reports them), then by name.
func failures(evs []event) string {
	var failed []string
	for _, e := range evs {
		if e.Action == "fail" && e.Test != "" {
			failed = append(failed, e.Test)
		}
	}
	slices.SortStableFunc(failed, func(a, b string) int {
		if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	var sb strings.Builder
	for _, test := range failed {
		e := event{Test: test}
		sb.WriteString("--- FAIL: " + e.Test + "\n")
		for _, l := range strings.SplitAfter(outputOf(evs, e.Test), "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
				continue
			}
			sb.WriteString(fileLine.ReplaceAllString(l, "$1"))
		}
	}
	return sb.String()
}

// breaks is inserted at the top of Keyword.Retrieve in the broken copy.
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

// brokenOverlay writes keyword.go with breaks inserted to a temporary
// folder and returns a go build -overlay file that lays it over this
// package's keyword.go.
func brokenOverlay(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("keyword.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	const sig = "func (r *Keyword) Retrieve(ctx context.Context, q lasagna.Query, n int) ([]lasagna.Hit, error) {\n"
	if !strings.Contains(src, sig) {
		t.Fatalf("keyword.go no longer holds %q; update TestBrokenPipeline", sig)
	}
	src = strings.Replace(src, sig, strings.Replace(sig, "([]lasagna.Hit, error)", "(hits []lasagna.Hit, err error)", 1)+breaks, 1)
	src = strings.Replace(src, "import (\n", "import (\n\t\"os\"\n", 1)
	src = strings.Replace(src, "\tvar hits []lasagna.Hit\n", "", 1)
	dir := t.TempDir()
	broken := filepath.Join(dir, "keyword.go")
	if err := os.WriteFile(broken, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	orig, err := filepath.Abs("keyword.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {orig: broken}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// event is one line of go test -json output.
type event = gotestjson.Event

// goTestJSON runs TestRAG of this package with go test -json -count=1,
// offline, with the overlay and the extra environment variables, and
// returns its events and exit code.
func goTestJSON(t *testing.T, overlay string, vars ...string) ([]event, int) {
	t.Helper()
	env := append([]string{"LASAGNA_OUT=" + t.TempDir()}, vars...)
	evs, code, err := gotestjson.Run("", []string{"-overlay", overlay, "-run", "^TestRAG$", "."}, env)
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

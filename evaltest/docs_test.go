package evaltest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/doctest"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// fakePrefix is what the fake T of fakeEval puts before a logged line.
var fakePrefix = regexp.MustCompile(`(?m)^TestRAG\S*: (ERROR: )?`)

// checkDocs compares the blocks of README.md and docs/*.md marked
// <!-- output: name --> with got, the log of a fakeEval run (CONTRIBUTING.md,
// "Sample outputs in the documentation"): each block is an excerpt of the
// log, read without the fake test's "TestRAG/…: " prefixes and with the
// baseline named as a user's test names it, testdata/baseline.json.
func checkDocs(t *testing.T, name string, got ...string) {
	t.Helper()
	blocks, err := doctest.MarkedOutput("..", name)
	if err != nil {
		t.Fatal(err)
	}
	log := fakePrefix.ReplaceAllString(strings.Join(got, "\n"), "")
	log = strings.ReplaceAll(log, "$BASELINE", "testdata/baseline.json")
	for _, b := range blocks {
		if err := doctest.Excerpt(b.Lines, log); err != nil {
			t.Errorf("%s: %v", b.Where(), err)
		}
	}
}

// TestDocsGoTestOutput runs go test on testdata/gotest as docs/evaltest.md
// says and compares the blocks marked <!-- output: TestDocsGoTestOutput -->
// with its output: the first is the whole output of the run with one
// failing query (EVALTEST_FAIL_QUERY=q03), the second an excerpt of the run
// with a panicking one (EVALTEST_PANIC_QUERY=q05).
func TestDocsGoTestOutput(t *testing.T) {
	servertest.Heavy(t, "child go test runs (compile and run a test binary)")
	blocks, err := doctest.MarkedOutput("..", "TestDocsGoTestOutput")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks are marked <!-- output: TestDocsGoTestOutput -->, want 2 (docs/evaltest.md: the failing and the panicking query)", len(blocks))
	}
	tmp := t.TempDir()
	goTestOutput := func(vars ...string) string {
		cmd := exec.Command("go", "test", "-count=1", "./testdata/gotest")
		cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=", "TMPDIR=" + tmp}, vars...)...)
		out, _ := cmd.CombinedOutput() // exit 1: the query fails
		return string(out)
	}
	if err := doctest.Match(blocks[0].Lines, goTestOutput("EVALTEST_FAIL_QUERY=q03")); err != nil {
		t.Errorf("%s: %v", blocks[0].Where(), err)
	}
	if err := doctest.Excerpt(blocks[1].Lines, goTestOutput("EVALTEST_PANIC_QUERY=q05")); err != nil {
		t.Errorf("%s: %v", blocks[1].Where(), err)
	}
}

package evaltest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/gotestjson"

	"github.com/lasagna-go/lasagna/results"
)

// event is one line of go test -json output.
type event = gotestjson.Event

// goTest runs go test -json on the package in testdata/gotest with extra
// environment variables and returns its events and exit code.
func goTest(t *testing.T, vars []string, args ...string) ([]event, int) {
	t.Helper()
	evs, code, err := gotestjson.Run("", append(args, "./testdata/gotest"), append([]string{"GOFLAGS="}, vars...))
	if err != nil {
		t.Fatal(err)
	}
	return evs, code
}

func find(evs []event, f func(event) bool) (event, bool) {
	for _, e := range evs {
		if f(e) {
			return e, true
		}
	}
	return event{}, false
}

func outputOf(evs []event, test string) string {
	var sb strings.Builder
	for _, e := range evs {
		if e.Test == test && e.Action == "output" {
			sb.WriteString(e.Output)
		}
	}
	return sb.String()
}

// TestRealGoTest runs a user's test package with the real go command: a
// failing query under -artifacts, then one passing query selected by -run.
func TestRealGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a test binary; skipped with -short")
	}
	outdir := t.TempDir()
	evs, code := goTest(t, []string{"EVALTEST_FAIL_QUERY=q03"}, "-artifacts", "-outputdir", outdir)
	if code != 1 {
		t.Errorf("exit code %d, want 1 (a failing query)", code)
	}
	attr, ok := find(evs, func(e event) bool {
		return e.Action == "attr" && e.Test == "TestRAG/tiny/mine/q01" && e.Key == "lasagna.ndcg@10"
	})
	if !ok || attr.Value != "1" {
		t.Errorf("attr lasagna.ndcg@10 of q01 = %+v, %v; want value 1", attr, ok)
	}
	if _, ok := find(evs, func(e event) bool {
		return e.Action == "attr" && e.Test == "TestRAG/tiny/mine/q02" && e.Key == "lasagna.query_id" && e.Value == "q02"
	}); !ok {
		t.Error("no lasagna.query_id attr for q02")
	}
	for test, want := range map[string]string{
		"TestRAG/tiny/mine/q03": "pipeline failed: search backend timed out for query q03",
		"TestRAG":               "integrity: PIPELINE_ERRORS at local/tiny@",
	} {
		if _, ok := find(evs, func(e event) bool { return e.Action == "fail" && e.Test == test }); !ok {
			t.Errorf("%s did not fail", test)
		}
		if out := outputOf(evs, test); !strings.Contains(out, want) {
			t.Errorf("%s output lacks %q:\n%s", test, want, out)
		}
	}
	for _, test := range []string{"TestRAG/tiny/mine/q01", "TestRAG/tiny/mine/q12"} {
		if _, ok := find(evs, func(e event) bool { return e.Action == "pass" && e.Test == test }); !ok {
			t.Errorf("%s did not pass", test)
		}
	}
	art, ok := find(evs, func(e event) bool { return e.Action == "artifacts" && e.Test == "TestRAG" })
	if !ok {
		t.Fatalf("no artifacts event for TestRAG")
	}
	matches, _ := filepath.Glob(filepath.Join(art.Path, "lasagna-gotest-TestRAG.json"))
	if len(matches) != 1 {
		t.Fatalf("no bundle in the artifact folder %s", art.Path)
	}
	if b, err := results.ReadFile(matches[0]); err != nil || len(b.Integrity.Blocking) != 1 {
		t.Errorf("artifact bundle: %v, blocking %v", err, b.Integrity.Blocking)
	}

	// One query selected by -run: only it runs, the test passes, and the
	// bundle goes to LASAGNA_OUT.
	out := t.TempDir()
	evs, code = goTest(t, []string{"LASAGNA_OUT=" + out}, "-run", "TestRAG/tiny/mine/q01$")
	if code != 0 {
		t.Errorf("exit code %d, want 0:\n%s", code, outputOf(evs, "TestRAG"))
	}
	if _, ok := find(evs, func(e event) bool { return e.Test == "TestRAG/tiny/mine/q02" }); ok {
		t.Error("-run ran q02")
	}
	b, err := results.ReadFile(filepath.Join(out, "lasagna-gotest-TestRAG.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rows := b.Results[0].PerSampleScores; len(rows) != 1 || rows[0].QueryID != "q01" {
		t.Errorf("bundle rows = %+v, want q01 alone", rows)
	}
}

package evaltest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/gotestjson"
	"github.com/lasagna-go/lasagna/internal/servertest"

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

// runLine is where testdata/gotest/rag_test.go calls evaltest.Run: every
// failure, in any subtest, is reported there.
const runLine = "rag_test.go:23: "

// TestRealGoTest runs a user's test package with the real go command: a
// failing query, a panicking one and a failing arm threshold under
// -artifacts, then one passing query selected by -run.
func TestRealGoTest(t *testing.T) {
	servertest.Heavy(t, "a child go test (compiles and runs a test binary)")
	outdir := t.TempDir()
	evs, code := goTest(t, []string{"EVALTEST_FAIL_QUERY=q03", "EVALTEST_PANIC_QUERY=q05", "EVALTEST_MIN_NDCG=1.5", "LASAGNA_LATENCY=1"}, "-artifacts", "-outputdir", outdir)
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
	// Each query's pipeline time, failed calls included.
	for _, q := range []string{"q01", "q03"} {
		e, ok := find(evs, func(e event) bool {
			return e.Action == "attr" && e.Test == "TestRAG/tiny/mine/"+q && e.Key == "lasagna.latency_ms"
		})
		if v, err := strconv.ParseFloat(e.Value, 64); !ok || err != nil || v < 0 {
			t.Errorf("attr lasagna.latency_ms of %s = %q, %v; want milliseconds", q, e.Value, ok)
		}
	}
	for test, want := range map[string]string{
		"TestRAG/tiny/mine/q03": runLine + "data/tiny.jsonl:3: query q03",
		"TestRAG/tiny/mine":     runLine + "ndcg@10 = 1, want >= 1.5",
		"TestRAG":               runLine + "integrity: PIPELINE_ERRORS at local/tiny@",
		// The panic keeps its stack, the user's frames first.
		"TestRAG/tiny/mine/q05": "pipeline failed: pipeline panicked: assignment to entry in nil map\n" +
			"github.com/lasagna-go/lasagna/evaltest/testdata/gotest.countHit\n" +
			"\tgotest/rag_test.go:61\n" +
			"github.com/lasagna-go/lasagna/evaltest/testdata/gotest.",
	} {
		if _, ok := find(evs, func(e event) bool { return e.Action == "fail" && e.Test == test }); !ok {
			t.Errorf("%s did not fail", test)
		}
		if out := outputOf(evs, test); !strings.Contains(unindent(out), want) {
			t.Errorf("%s output lacks %q:\n%s", test, want, out)
		}
	}
	// No failure points into the library.
	for _, e := range evs {
		if e.Action == "output" && libraryLine.MatchString(e.Output) {
			t.Errorf("%s: output points into the library: %q", e.Test, e.Output)
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
	b, err := results.ReadFile(matches[0])
	if err != nil || len(b.Integrity.Blocking) != 1 {
		t.Fatalf("artifact bundle: %v, blocking %v", err, b.Integrity.Blocking)
	}
	for _, row := range b.Results[0].PerSampleScores {
		if row.LatencyMS == nil {
			t.Errorf("bundle row %s has no latency_ms", row.QueryID)
		}
		if row.QueryID == "q05" && !strings.Contains(row.Error, "gotest.countHit\n\tgotest/rag_test.go:61") {
			t.Errorf("bundle row q05 error lacks the stack: %q", row.Error)
		}
	}

	// One query selected by -run, with the default bundle folder: only it
	// runs, the test passes, and its bundle has a name of its own in the
	// module's folder of $TMPDIR/lasagna-bundles; without LASAGNA_LATENCY
	// it records no latency_ms.
	tmp := t.TempDir()
	evs, code = goTest(t, []string{"TMPDIR=" + tmp}, "-run", "TestRAG/tiny/mine/q01$")
	if code != 0 {
		t.Errorf("exit code %d, want 0:\n%s", code, outputOf(evs, "TestRAG"))
	}
	if _, ok := find(evs, func(e event) bool { return e.Test == "TestRAG/tiny/mine/q02" }); ok {
		t.Error("-run ran q02")
	}
	mods, _ := filepath.Glob(filepath.Join(tmp, "lasagna-bundles", "lasagna-*"))
	if len(mods) != 1 {
		t.Fatalf("module folders in $TMPDIR/lasagna-bundles: %v, want one lasagna-<hash>", mods)
	}
	want := filepath.Join(mods[0], subsetName("lasagna-gotest-TestRAG.json", "test.run=TestRAG/tiny/mine/q01$"))
	b, err = results.ReadFile(want)
	if err != nil {
		files, _ := filepath.Glob(filepath.Join(mods[0], "*"))
		t.Fatalf("%v; the folder holds %v", err, files)
	}
	if rows := b.Results[0].PerSampleScores; len(rows) != 1 || rows[0].QueryID != "q01" || rows[0].LatencyMS != nil {
		t.Errorf("bundle rows = %+v, want q01 alone, without latency_ms (LASAGNA_LATENCY is unset)", rows)
	}
	if !strings.Contains(outputOf(evs, "TestRAG"), "lasagna bundle: "+want) {
		t.Errorf("the log does not name %s:\n%s", want, outputOf(evs, "TestRAG"))
	}
}

// libraryLine matches a go test output line reported at a file of
// package evaltest or engine.
var libraryLine = regexp.MustCompile(`^\s*(evaltest|evaluate|run|arm|config|env|names|cell|verdict|bundle)\.go:\d+: `)

// unindent removes the leading spaces of every line of go test output.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestRealGoTestBazelShards runs the user's package with the real go
// command as Bazel runs a test with shard_count = 3: TEST_TOTAL_SHARDS=3,
// TEST_SHARD_INDEX=0..2, a status file and an outputs folder per shard.
// Each shard touches its status file and writes its bundle into
// TEST_UNDECLARED_OUTPUTS_DIR, and the three merge to the bytes of the
// unsharded run's bundle.
func TestRealGoTestBazelShards(t *testing.T) {
	servertest.Heavy(t, "child go tests (compile and run a test binary)")
	wholeDir := t.TempDir()
	if _, code := goTest(t, []string{"LASAGNA_OUT=" + wholeDir}, "-count=1"); code != 0 {
		t.Fatalf("unsharded run: exit code %d", code)
	}
	whole, err := os.ReadFile(filepath.Join(wholeDir, "lasagna-gotest-TestRAG.json"))
	if err != nil {
		t.Fatal(err)
	}
	var shards []*results.Bundle
	for i := range 3 {
		dir, status := t.TempDir(), filepath.Join(t.TempDir(), "status")
		vars := []string{"TEST_TOTAL_SHARDS=3", "TEST_SHARD_INDEX=" + strconv.Itoa(i), "TEST_SHARD_STATUS_FILE=" + status, "TEST_UNDECLARED_OUTPUTS_DIR=" + dir}
		if _, code := goTest(t, vars, "-count=1"); code != 0 {
			t.Fatalf("shard %d: exit code %d", i, code)
		}
		if _, err := os.Stat(status); err != nil {
			t.Errorf("shard %d did not touch TEST_SHARD_STATUS_FILE: %v", i, err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("lasagna-gotest-TestRAG-shard-%d-of-3.json", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := results.Unmarshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, b)
	}
	merged, err := results.Merge(shards, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, whole) {
		t.Errorf("the merged shards differ from the unsharded bundle:\nmerged:\n%s\nunsharded:\n%s", got, whole)
	}
}

package lasagna_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/doctest"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// unproducedOutputs are the sample outputs of README.md and docs/*.md that
// no test produces, keyed "file: first line of the block", with the
// reason. TestDocsOutputsCovered fails when one of them no longer exists.
var unproducedOutputs = map[string]string{
	"docs/registry.md: lasagna: registry /srv/lasagna/registry.db is read-only (no write permission on the file), so nothing in it can change: give this user write permission on /srv/lasagna/registry.db and its folder /srv/lasagna (SQLite writes registry.db-wal and registry.db-shm beside it), or set LASAGNA_REGISTRY to a registry you can write": "needs a user without write permission on the file; root (as tests and CI run) passes permission checks. TestReadOnlyRegistryCLI checks the message when run as another user",
	"docs/frameworks.md: $ make junit": "runs gotestsum (tools/go.mod, fetched from the module proxy) over every example's tests; tools/checkjunit checks the file it writes",
	`docs/frameworks.md: <testcase classname="github.com/lasagna-go/lasagna/examples/retrieval" name="TestRAG/faq/keyword/glass-01" time="0.000000">`:                                                                                                         "a test case of the junit.xml that make junit writes (above)",
	"docs/retrieval.md: benchmark                     arm       queries  failed  ndcg@10               recall@10             mrr":                                                                                                                             "TestOneSweepThreeBackends needs PGlite (Node.js) and a Weaviate server (make test-backends)",
	"docs/retrieval.md: benchmark               arm            queries  failed  ndcg@10               recall@10             mrr":                                                                                                                              "needs a Weaviate server for the weaviate-bm25 arm (make test-backends)",
	"docs/retrieval.md:     rag_test.go:12: integrity warning: OUTSIDE_CORPUS_IDS at local/faq@…/prod: 47 of 47 ranked lists hold ids outside the benchmark's corpus of 120 documents (212 ids in all), scored as non-relevant: q01 (4), q02 (5), … (fix: …)": "the warning the fragment above gives with a production index of your own, which the repository does not have",
}

// outputLine matches lines that only a program prints: go test's
// results and logs, lasagna's tables, verdicts and messages.
var outputLine = regexp.MustCompile(`^\s*(--- (FAIL|PASS|SKIP)|=== RUN|ok\s|FAIL\s|benchmark\s{2,}|lasagna: |lasagna serve: |warning: |blocking: |fail: |pass: |regression: |refused: |integrity: |\S+\.(go|jsonl|csv|json):\d+: |\S+: ERROR: )`)

// TestDocsOutputsCovered: every block of README.md and docs/*.md that
// shows what a program printed is compared with it by a test
// (CONTRIBUTING.md, "Sample outputs in the documentation"): a lasagna
// transcript (cmd/lasagna's TestDocsTranscripts), a go test transcript
// (TestDocsGoTestTranscripts), a block marked <!-- output: … --> (a
// lasagna command, a test that reads the mark, or a file the block is an
// excerpt of, checked here), or one listed in unproducedOutputs with its
// reason. A block looks like output when it holds a "$ " command with
// output under it, follows a block of commands, or holds a line only a
// program prints (outputLine).
func TestDocsOutputsCovered(t *testing.T) {
	files, err := doctest.Files(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	tests, readsMarks := testFuncs(t)
	for _, f := range files {
		blocks, err := doctest.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prevCommands := false
		for _, b := range blocks {
			first := ""
			if len(b.Lines) > 0 {
				first = b.Lines[0]
			}
			key := b.File + ": " + first
			seen[key] = true
			commands := isCommands(b)
			looksOutput := transcriptWithOutput(b) || !commands && !inputInfo[b.Info] && (prevCommands || slicesAny(b.Lines, outputLine.MatchString))
			prevCommands = commands
			switch m := b.Marker; {
			case m.Kind == "file" || m.Kind == "not output":
				continue
			case m.Kind == "output" && doctest.IsLasagna(m.Value):
				continue // TestDocsTranscripts runs it
			case m.Kind == "output" && regexp.MustCompile(`^Test\w+$`).MatchString(m.Value):
				if src, ok := tests[m.Value]; !ok {
					t.Errorf("%s: marked as the output of %s, which no _test.go file defines", b.Where(), m.Value)
				} else if !strings.Contains(src.text, `"`+m.Value+`"`) || !readsMarks[src.dir] {
					t.Errorf("%s: marked as the output of %s, which does not read the blocks marked with its name (doctest.MarkedOutput(…, %q))", b.Where(), m.Value, m.Value)
				}
				continue
			case m.Kind == "output":
				checkExcerptOf(t, b, m.Value)
				continue
			}
			if !looksOutput {
				continue
			}
			switch {
			case doctest.IsCLITranscript(b), isGoTestTranscript(b):
			case unproducedOutputs[key] != "":
			default:
				t.Errorf("%s: this block looks like a program's output, but no test compares it; make it a transcript, mark it <!-- output: … --> or list it in unproducedOutputs with the reason (CONTRIBUTING.md, \"Sample outputs in the documentation\")\n%s", b.Where(), b.Text())
			}
		}
	}
	for key := range unproducedOutputs {
		if !seen[key] {
			t.Errorf("unproducedOutputs names %q, which is no longer a block of the docs; remove it", key)
		}
	}
}

// inputInfo are info strings of blocks that hold inputs or code: Go
// snippets (TestDocsGoSnippets) and files, not outputs.
var inputInfo = map[string]bool{"go": true, "yaml": true, "json": true, "csv": true}

func slicesAny(lines []string, f func(string) bool) bool {
	for _, l := range lines {
		if f(l) {
			return true
		}
	}
	return false
}

// transcriptWithOutput: a "$ " command with lines under it.
func transcriptWithOutput(b doctest.Block) bool {
	for _, c := range b.Commands() {
		if len(c.Output) > 0 {
			return true
		}
	}
	return false
}

var commandStart = regexp.MustCompile(`^(\$ |lasagna |go |make |gotestsum |[A-Z_]+=\S* )`)

// isCommands: a block of command lines, with or without "$ ", and no
// output.
func isCommands(b doctest.Block) bool {
	if len(b.Lines) == 0 || transcriptWithOutput(b) {
		return false
	}
	for _, l := range b.Lines {
		if strings.TrimSpace(l) != "" && !commandStart.MatchString(l) && !strings.HasPrefix(l, " ") {
			return false
		}
	}
	return true
}

// isGoTestTranscript: every command of the block is go test (run by
// TestDocsGoTestTranscripts).
func isGoTestTranscript(b doctest.Block) bool {
	cmds := b.Commands()
	for _, c := range cmds {
		if !strings.HasPrefix(c.Text, "go test ") {
			return false
		}
	}
	return len(cmds) > 0
}

// checkExcerptOf checks a block marked <!-- output: FILE -->: FILE is a
// golden file that a test compares with what it produced, or a Go file
// whose Example's "// Output:" comment go test checks; the block's lines
// are an excerpt of it (a Go file's comment markers dropped).
func checkExcerptOf(t *testing.T, b doctest.Block, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Errorf("%s: marked as the output in %s: %v", b.Where(), file, err)
		return
	}
	text := string(data)
	if strings.HasSuffix(file, ".go") {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "// "))
		}
		text = strings.Join(lines, "\n")
	}
	if err := doctest.Excerpt(b.Lines, text); err != nil {
		t.Errorf("%s: marked as the output in %s: %v", b.Where(), file, err)
	}
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

type testSource struct{ dir, text string }

// testFuncs maps each Test function of the module's _test.go files to its
// folder and the text of its file, and says which folders' tests call
// doctest.MarkedOutput.
func testFuncs(t *testing.T) (map[string]testSource, map[string]bool) {
	t.Helper()
	out := map[string]testSource{}
	reads := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
			out[m[1]] = testSource{filepath.Dir(p), string(data)}
		}
		if strings.Contains(string(data), "doctest.MarkedOutput") {
			reads[filepath.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("walking the module: %w", err))
	}
	return out, reads
}

// TestDocsGoTestTranscripts runs the go test transcripts of README.md and
// docs/*.md from the module root ("$ go test ARGS" followed by output) and
// compares their output with the docs (CONTRIBUTING.md, "Sample outputs
// in the documentation"). A go test command shown without output is an
// example for a package of your own and is not run.
func TestDocsGoTestTranscripts(t *testing.T) {
	servertest.Heavy(t, "child go test runs of the examples")
	files, err := doctest.Files(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		blocks, err := doctest.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if !isGoTestTranscript(b) {
				continue
			}
			for _, c := range b.Commands() {
				if len(c.Output) == 0 {
					continue
				}
				_, words := doctest.Words(doctest.StripComment(c.Text))
				cmd := exec.Command("go", append([]string{"test", "-count=1"}, words[2:]...)...)
				cmd.Env = append(os.Environ(), "GOFLAGS=", "TMPDIR="+t.TempDir(), "LASAGNA_OUT=")
				out, _ := cmd.CombinedOutput() // the docs show failing runs too
				if err := doctest.Match(c.Output, string(out)); err != nil {
					t.Errorf("%s:%d: $ %s\n%v", b.File, c.Line, c.Text, err)
				}
			}
		}
	}
}

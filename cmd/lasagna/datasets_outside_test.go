package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/servertest"
)

// outsideMain is a program of another module, which reaches lasagna only
// through its public API: it loads a JSONL file, a CSV file and a BEIR
// folder and checks a broken BEIR folder.
const outsideMain = `package main

import (
	"fmt"
	"os"

	"github.com/lasagna-go/lasagna/datasets"
)

func main() {
	fsys := os.DirFS(os.Args[1])
	for _, p := range []string{"faq.jsonl", "faq.csv", "garden"} {
		b, err := datasets.Load(fsys, p, datasets.Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", p, b.Name)
	}
	r, err := datasets.Check(fsys, "broken", datasets.Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for _, p := range r.Problems {
		fmt.Printf("problem %s:%d %s\n", p.File, p.Line, p.Field)
	}
}
`

// writeTree writes files (slash paths relative to dir).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outsideData is a JSONL file, a CSV file, a BEIR folder and a BEIR folder
// with a typo in corpus.jsonl and a judgement naming a missing document.
var outsideData = map[string]string{
	"faq.jsonl":             `{"id": "q1", "question": "When do the gates open?", "answer": "at seven", "contexts": ["The gates open at seven."]}` + "\n",
	"faq.csv":               "id,question,answer,contexts\nq1,When do the gates open?,at seven,The gates open at seven.\n",
	"garden/corpus.jsonl":   `{"_id": "d1", "title": "Hours", "text": "The gates open at seven."}` + "\n",
	"garden/queries.jsonl":  `{"_id": "q1", "text": "When do the gates open?"}` + "\n",
	"garden/qrels/test.tsv": "q1\td1\t1\n",
	"broken/corpus.jsonl":   `{"_id": "d1", "text": "The gates open at seven."` + "\n" + `{"_id": "d2", "text": "A plot costs 45 euros."}` + "\n",
	"broken/queries.jsonl":  `{"_id": "q1", "text": "When do the gates open?"}` + "\n",
	"broken/qrels/test.tsv": "q1\td1\t1\nq1\td2\t1\nq1\td9\t1\n",
}

// TestBrokenBEIRAllProblems: validate-data reports a typo in corpus.jsonl
// and a judgement naming a missing document of a BEIR folder in one run.
func TestBrokenBEIRAllProblems(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, outsideData)
	stdout, stderr, code := runCLI(t, "benchmark", "validate-data", filepath.Join(dir, "broken"))
	want := []string{
		filepath.Join(dir, "broken", "corpus.jsonl") + ":1: invalid JSON at column 49: unexpected end of line inside an object",
		filepath.Join(dir, "broken", "qrels", "test.tsv") + `:3: 1 judgement(s) name documents missing from corpus.jsonl (first: "d9"); fix the ids or add the documents`,
	}
	if code != 1 || stdout != strings.Join(want, "\n")+"\n" || !strings.Contains(stderr, "2 problems found") {
		t.Errorf("exit %d\n%s%s\nwant the lines\n%s", code, stdout, stderr, strings.Join(want, "\n"))
	}
}

// TestDatasetsOutsideTheModule runs a program of another module (a
// replace directive points at this one) that calls datasets.Load on a
// JSONL file, a CSV file and a BEIR folder, whose names are those
// validate-data prints, and datasets.Check on a broken BEIR folder, which
// reports both of its problems in one call.
func TestDatasetsOutsideTheModule(t *testing.T) {
	servertest.Heavy(t, "a child go run (compiles a program of another module)")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	writeTree(t, mod, map[string]string{
		"go.mod":  "module example.com/outside\n\ngo 1.26.0\n\nrequire github.com/lasagna-go/lasagna v0.0.0\n\nreplace github.com/lasagna-go/lasagna => " + filepath.ToSlash(root) + "\n",
		"go.sum":  string(goSum),
		"main.go": outsideMain,
	})
	data := t.TempDir()
	writeTree(t, data, outsideData)
	cmd := exec.Command("go", "run", ".", data)
	cmd.Dir = mod
	// GOFLAGS keeps the caller's (CI's -modcacherw, so the module cache it
	// fills can be removed).
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	var want strings.Builder
	for _, p := range []string{"faq.jsonl", "faq.csv", "garden"} {
		stdout, stderr, code := runCLI(t, "benchmark", "validate-data", filepath.Join(data, p))
		name, _, _ := strings.Cut(strings.TrimPrefix(stdout, "name:"), "\n")
		if code != 0 || !strings.HasPrefix(stdout, "name:") {
			t.Fatalf("validate-data %s: exit %d\n%s%s", p, code, stdout, stderr)
		}
		want.WriteString(p + " " + strings.TrimSpace(name) + "\n")
	}
	want.WriteString("problem broken/corpus.jsonl:1 \nproblem broken/qrels/test.tsv:3 corpus-id\n")
	if string(out) != want.String() {
		t.Errorf("the program printed\n%s\nwant\n%s", out, want.String())
	}
}

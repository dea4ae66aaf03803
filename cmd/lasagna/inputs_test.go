package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateDataBEIRMissingFile: a BEIR folder without queries.jsonl
// names the file and the fix, as a problem of the data (exit 1).
func TestValidateDataBEIRMissingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"beir/corpus.jsonl":   `{"_id": "d1", "text": "hello"}` + "\n",
		"beir/qrels/test.tsv": "q1\td1\t1\n",
	})
	beir := filepath.Join(dir, "beir")
	out, errOut, code := runValidate(t, beir)
	want := filepath.Join(beir, "queries.jsonl") + ": missing: a BEIR folder holds corpus.jsonl"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "add queries.jsonl") || strings.Contains(errOut, "open ") {
		t.Errorf("exit %d\nstdout %s\nstderr %s\nwant %q", code, out, errOut, want)
	}
}

// TestValidateDataInputProblems: invalid UTF-8 is refused with
// file:line and column; an unbalanced CSV quote is reported on the line
// where its record starts, not where encoding/csv gives up.
func TestValidateDataInputProblems(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"latin1.jsonl": "{\"question\": \"caf\xe9?\", \"answer\": \"yes\"}\n",
		"quote.csv":    "question,answer\n\"abc,x\ny,z\nq,r\n",
	})
	out, _, code := runValidate(t, filepath.Join(dir, "latin1.jsonl"))
	if code != 1 || !strings.Contains(out, filepath.Join(dir, "latin1.jsonl")+":1: invalid UTF-8 at column 18 (byte 0xE9)") {
		t.Errorf("latin1: exit %d\n%s", code, out)
	}
	out, _, code = runValidate(t, filepath.Join(dir, "quote.csv"))
	if code != 1 || !strings.Contains(out, filepath.Join(dir, "quote.csv")+":2: malformed CSV: unbalanced quote") {
		t.Errorf("quote: exit %d\n%s", code, out)
	}
}

// TestBenchmarkRunSweepClimbingPath: a sweep's relative benchmark path
// may climb with "..": it resolves against the sweep file's folder, from
// any working directory.
func TestBenchmarkRunSweepClimbingPath(t *testing.T) {
	data := gateDir(t, nil)
	sweeps := writeFiles(t, map[string]string{"sub/rel.yaml": ""})
	rel, err := filepath.Rel(filepath.Join(sweeps, "sub"), filepath.Join(data, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(sweeps, "sub", "rel.yaml")
	if err := os.WriteFile(sweep, []byte("benchmarks:\n  - {path: "+filepath.ToSlash(rel)+"}\narms:\n  - {name: bm25, retriever: bm25}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(data)
	out, errOut, code := runCLI(t, "benchmark", "run", sweep, "-o", filepath.Join(sweeps, "b.json"))
	if code != 0 || !strings.Contains(out, "local/pairs@") {
		t.Errorf("path %s: exit %d\n%s%s", rel, code, out, errOut)
	}
}

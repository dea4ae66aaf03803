package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateDataCorpusFlag: validate-data and benchmark run take
// --corpus as create does: validate-data reports the name create
// registers (the same digest), and run searches the corpus (2 documents)
// and gives registry:rows's table.
func TestCorpusFlagValidateAndRun(t *testing.T) {
	useRegistry(t)
	dir := t.TempDir()
	rows, corpus := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(rows, []byte(`{"id": "q1", "question": "What lowers the melting point of silica?", "answer": "soda", "expected_docs": ["d1"]}`+"\n"), 0o644)
	os.WriteFile(corpus, []byte(`{"_id": "d1", "text": "Soda lowers the melting point of silica."}`+"\n"+`{"_id": "d2", "text": "The solidus was a gold coin."}`+"\n"), 0o644)
	out, _ := mustCLI(t, 0, "benchmark", "validate-data", rows, "--corpus", corpus)
	if !strings.Contains(out, "documents:   2") {
		t.Errorf("validate-data --corpus: %s", out)
	}
	var hash string
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "name:"); ok {
			_, hash, _ = strings.Cut(strings.TrimSpace(v), "@")
		}
	}
	created, _ := mustCLI(t, 0, "benchmark", "create", "rows", "--from", rows, "--corpus", corpus)
	if hash == "" || !strings.HasPrefix(created, "created rows@"+hash+":") {
		t.Errorf("validate-data says @%s, create: %s", hash, created)
	}
	ran, _ := mustCLI(t, 0, "benchmark", "run", rows, "--corpus", corpus, "--name", "rows", "-o", filepath.Join(dir, "a.json"))
	reg, _ := mustCLI(t, 0, "benchmark", "run", "registry:rows", "-o", filepath.Join(dir, "b.json"))
	ran, _, _ = strings.Cut(ran, "bundle:")
	reg, _, _ = strings.Cut(reg, "bundle:")
	if !strings.Contains(ran, "rows@"+hash) || !strings.Contains(ran, "2 documents") || ran != reg {
		t.Errorf("run --corpus:\n%s\nregistry:rows:\n%s", ran, reg)
	}
	mustCLI(t, 2, "benchmark", "run", "registry:rows", "--corpus", corpus)
	_, errOut := mustCLI(t, 2, "benchmark", "validate-data", rows, "--corpus", filepath.Join(dir, "none.jsonl"))
	if !strings.Contains(errOut, "--corpus") {
		t.Errorf("missing corpus: %s", errOut)
	}
}

// TestResultsDataCorpus: a bundle of a run with --corpus is re-scored by
// results validate --data FILE --corpus FILE (and compare, report and
// merge take the same flags); without the corpus the data is another
// benchmark, and --corpus with several --data paths is a usage error.
func TestResultsDataCorpus(t *testing.T) {
	dir := t.TempDir()
	rows, corpus := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(rows, []byte(`{"id": "q1", "question": "What lowers the melting point of silica?", "answer": "soda", "expected_docs": ["d1"]}`+"\n"), 0o644)
	os.WriteFile(corpus, []byte(`{"_id": "d1", "text": "Soda lowers the melting point of silica."}`+"\n"+`{"_id": "d2", "text": "The solidus was a gold coin."}`+"\n"), 0o644)
	bundle := filepath.Join(dir, "a.json")
	mustCLI(t, 0, "benchmark", "run", rows, "--corpus", corpus, "-o", bundle)
	out, _ := mustCLI(t, 0, "results", "validate", bundle, "--data", rows, "--corpus", corpus)
	if !strings.Contains(out, "re-scored") {
		t.Errorf("validate --data --corpus:\n%s", out)
	}
	mustCLI(t, 1, "results", "validate", bundle, "--data", rows)
	for _, cmd := range [][]string{{"compare", bundle, bundle}, {"report", bundle, "-o", filepath.Join(dir, "r.html")}} {
		mustCLI(t, 0, append(append([]string{"results"}, cmd...), "--data", rows, "--corpus", corpus)...)
	}
	_, errOut := mustCLI(t, 2, "results", "validate", bundle, "--data", rows, "--data", rows, "--corpus", corpus)
	if !strings.Contains(errOut, "--corpus goes with one --data") {
		t.Errorf("--corpus with two --data: %s", errOut)
	}
}

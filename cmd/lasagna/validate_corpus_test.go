package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateDataCorpusFlag: validate-data takes --corpus as create does,
// and reports the name create registers (the same digest).
func TestValidateDataCorpusFlag(t *testing.T) {
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
	_, errOut := mustCLI(t, 2, "benchmark", "validate-data", rows, "--corpus", filepath.Join(dir, "none.jsonl"))
	if !strings.Contains(errOut, "--corpus") {
		t.Errorf("missing corpus: %s", errOut)
	}
}

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runValidate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"benchmark", "validate-data"}, args...), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestValidateDataExample(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "data", "faq.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	out, _, code := runValidate(t, path)
	if code != 0 {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	for _, want := range []string{
		"name:        local/faq@" + hex.EncodeToString(sum[:])[:12] + "\n",
		"rows:        47 (44 with answers, 3 unanswerable, 0 without answer)",
		"documents:   38 (corpus_provenance: pooled_gold)",
		"  retrieval    yes\n  generation   yes\n  closed_book  yes\n",
		"ok: " + path + " is valid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runValidate(t, path, "--name", "faq")
	if code != 0 || !strings.Contains(out, "name:        faq@"+hex.EncodeToString(sum[:])[:12]) {
		t.Errorf("--name: exit %d\n%s", code, out)
	}
}

func TestValidateDataBEIR(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "datasets", "testdata", "beir")
	out, _, code := runValidate(t, dir)
	if code != 0 || !strings.Contains(out, "format:      BEIR folder, split test") || !strings.Contains(out, "judgements:  4 (3 relevant, 1 judged non-relevant)") ||
		!strings.Contains(out, "generation   no: a BEIR folder has no reference answers (fix: ") {
		t.Errorf("exit %d\n%s", code, out)
	}
	out, _, code = runValidate(t, dir, "--split", "dev")
	if code != 0 || !strings.Contains(out, "queries:     1 (those judged in qrels/dev.tsv)") {
		t.Errorf("--split dev: exit %d\n%s", code, out)
	}
	_, errOut, code := runValidate(t, dir, "--split", "train")
	if code != 1 || !strings.Contains(errOut, filepath.Join(dir, "qrels", "train.tsv")+`: no split "train"; splits here: dev, test`) {
		t.Errorf("--split train: exit %d, stderr %q", code, errOut)
	}
}

func TestValidateDataProblems(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	data := "{\"question\": \"q\", \"anwser\": \"a\"}\n{\"question\": \"ok\"}\n{\"id\": 1, \"question\": \"r\", \"answer\": \"x\", \"metadata\": {\"unanswerable\": true}}\n"
	if err := os.WriteFile(bad, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runValidate(t, bad)
	want := bad + ":1: unknown field \"anwser\" (did you mean \"answer\"?); put fields of your own under \"metadata\"\n" +
		bad + ":3: row is marked metadata.unanswerable but has an answer \"x\"; remove the answer or the mark\n"
	if code != 1 || out != want || !strings.Contains(errOut, "2 problems found") {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, out, want, errOut)
	}
}

func TestValidateDataUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a", "b"},
		{filepath.Join(t.TempDir(), "missing.jsonl")},
		{"--format", "xml", "x.jsonl"},
		{"--bogus", "x.jsonl"},
	} {
		_, errOut, code := runValidate(t, args...)
		if code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	var ee *exitError
	err := run(context.Background(), []string{"benchmark", "validate-data"}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.As(err, &ee) || ee.code != exitUsage {
		t.Errorf("err = %v", err)
	}
}

func TestValidateDataVecta(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "vecta.csv")
	data := "id,question,answer,chunk_ids,page_nums,source_paths\nx,What is the maximum dosage?,1200mg,chunk_42|chunk_87,3|4,drug_guide.pdf\n,Second?,Yes,,,\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// Detected from the header.
	out, _, code := runValidate(t, p)
	if code != 0 || !strings.Contains(out, "format:      vecta_csv") {
		t.Errorf("auto format: exit %d\n%s", code, out)
	}
	out, _, code = runValidate(t, "--format", "vecta", p)
	if code != 0 || !strings.Contains(out, "format:      vecta_csv") || !strings.Contains(out, "rows:        2 (2 with answers") || !strings.Contains(out, "judgements:  2 (2 relevant") {
		t.Errorf("--format vecta: exit %d\n%s", code, out)
	}
}

// TestNULRefusedAlike: validate-data, benchmark create and benchmark run
// refuse a NUL in a question with the same file:line, field and fix
// (exit 1), so a file validate-data passes never fails in a PostgreSQL
// registry.
func TestNULRefusedAlike(t *testing.T) {
	useRegistry(t)
	p := filepath.Join(t.TempDir(), "nul.jsonl")
	if err := os.WriteFile(p, []byte("{\"question\": \"ok?\"}\n{\"question\": \"a\\u0000b?\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := p + `:2: field "question": the string at column 14 holds a NUL (\u0000); text may not contain NUL (U+0000), which a PostgreSQL registry cannot store: remove the \u0000 escape`
	for _, args := range [][]string{
		{"benchmark", "validate-data", p},
		{"benchmark", "create", "nul", "--from", p},
		{"benchmark", "run", p, "-o", filepath.Join(t.TempDir(), "out.json")},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(out+errOut, want) {
			t.Errorf("lasagna %s: exit %d\n%s%s\nwant exit 1 and %s", strings.Join(args, " "), code, out, errOut, want)
		}
	}
}

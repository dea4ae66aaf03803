package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/datasets/synth"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// TestSynthesizePublicMatchesCLI: datasets/synth.Synthesize on a folder,
// with the seed, N, mix and model of a `benchmark synthesize` run against
// the same fake server, sends the same requests (the same plan and
// prompts) and gives rows that datasets.WriteJSONL writes byte for byte as
// the command's --out file.
func TestSynthesizePublicMatchesCLI(t *testing.T) {
	f := synthFake(t)
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	stdout, stderr, code := runCLI(t, "benchmark", "synthesize", synthDocs, "--n", "7", "--out", out,
		"--mix", "factoid=0.6,multihop=0.3,unanswerable=0.1", "--seed", "7", "--model", "test-model")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	cliFile, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cliRequests := requestBodies(t, f.Requests())
	if len(cliRequests) != 14 {
		t.Fatalf("the command sent %d chat requests, want 14", len(cliRequests))
	}
	f.Reset()

	client, err := llm.New(llm.Config{BaseURL: f.URL, APIKey: "test-key", Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := synth.Synthesize(context.Background(), client, os.DirFS(synthDocs), ".", synth.Options{N: 7, Mix: "factoid=0.6,multihop=0.3,unanswerable=0.1", Seed: 7, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := datasets.WriteJSONL(&buf, res.Rows); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), cliFile) {
		t.Errorf("synth.Synthesize wrote\n%s\nthe command\n%s", buf.Bytes(), cliFile)
	}
	if got := requestBodies(t, f.Requests()); !slices.Equal(got, cliRequests) {
		t.Errorf("requests differ: %d from the package, %d from the command", len(got), len(cliRequests))
	}
	if res.Planned != 7 || len(res.Dropped) != 0 || len(res.Rows) != 7 {
		t.Errorf("planned %d, dropped %v, %d rows", res.Planned, res.Dropped, len(res.Rows))
	}
	// The package's rows are what validate-data accepts.
	if r, err := datasets.Check(os.DirFS(filepath.Dir(out)), filepath.Base(out), datasets.Options{}); err != nil || len(r.Problems) != 0 || r.Queries != 7 {
		t.Errorf("Check: %+v, %v", r, err)
	}
}

// requestBodies returns the JSON bodies of the chat requests, sorted (the
// questions are generated concurrently).
func requestBodies(t *testing.T, reqs []fixtures.Request) []string {
	t.Helper()
	var out []string
	for _, r := range reqs {
		if r.Endpoint != "chat" {
			continue
		}
		b, err := json.Marshal(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/registry"
)

func TestSynthesizeInto(t *testing.T) {
	useRegistry(t)
	testSynthesizeInto(t)
}

// testSynthesizeInto: synthesize --into creates the draft before the
// first LLM call (so `benchmark list` shows it while synthesis runs); when
// no question passes verification it stays a draft with the error; a
// rerun fills it, records the synthesis parameters (no path of this
// machine) as its source and activates it, and the benchmark runs.
func testSynthesizeInto(t *testing.T) {
	var (
		supported  atomic.Bool
		once       sync.Once
		seenStatus string
		seenSource *registry.Source
	)
	t.Setenv("MODEL_NAME", "")
	useFakeOpenAI(t, fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string {
		once.Do(func() { // the registry as the first LLM call finds it
			r, err := registry.Open(context.Background(), os.Getenv("LASAGNA_REGISTRY"))
			if err != nil {
				seenStatus = err.Error()
				return
			}
			defer r.Close()
			list, err := r.List(context.Background(), registry.ListOptions{})
			if err != nil || len(list) != 1 {
				seenStatus = fmt.Sprintf("list %+v, %v", list, err)
				return
			}
			seenStatus, seenSource = string(list[0].Status), list[0].Source
		})
		return synthReply(c, supported.Load())
	}})
	docs, err := filepath.Abs(synthDocs)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"benchmark", "synthesize", docs, "--n", "4", "--mix", "factoid=1,multihop=0,unanswerable=0", "--seed", "42", "--model", "test-model", "--into", "docs-synth"}

	// Every verification fails: the draft stays, with the error.
	out, _ := mustCLI(t, 1, args...)
	if seenStatus != "draft" || seenSource == nil || seenSource.Synthesis == nil {
		t.Fatalf("during synthesis the registry held %q, source %+v", seenStatus, seenSource)
	}
	if !strings.Contains(out, "draft docs-synth: listed as a draft while synthesis runs") || !strings.Contains(out, "stays a draft") {
		t.Errorf("output:\n%s", out)
	}
	lout, _ := mustCLI(t, 0, "benchmark", "list", "--json")
	var list []registry.Info
	if err := json.Unmarshal([]byte(lout), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %v\n%s", err, lout)
	}
	if d := list[0]; d.Status != registry.StatusDraft || !strings.Contains(d.Error, "no question passed verification") || d.Source == nil || d.Source.Kind != "synthesis" {
		t.Errorf("after the failure: %+v", d)
	}
	lout, _ = mustCLI(t, 0, "benchmark", "list")
	if !strings.Contains(lout, "docs-synth: the last fill failed: synthesize: no question passed verification") {
		t.Errorf("list:\n%s", lout)
	}
	mustCLI(t, 2, "benchmark", "run", "registry:docs-synth", "--profile", "speed")

	// A rerun that passes fills the same draft and activates it.
	supported.Store(true)
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir()) // not the cached refusals
	out, _ = mustCLI(t, 0, args...)
	if !strings.Contains(out, "registered docs-synth@") || !strings.Contains(out, "(active, 4 questions)") {
		t.Errorf("output:\n%s", out)
	}
	lout, _ = mustCLI(t, 0, "benchmark", "list", "--json")
	list = nil
	if err := json.Unmarshal([]byte(lout), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %v\n%s", err, lout)
	}
	inf := list[0]
	if inf.Status != registry.StatusActive || inf.Questions != 4 || inf.Error != "" || inf.Source == nil || inf.Source.Synthesis == nil {
		t.Fatalf("after the fill: %+v", inf)
	}
	syn := inf.Source.Synthesis
	if syn.Model != "test-model" || syn.N != 4 || syn.Seed != 42 || syn.Mix != "factoid=1,multihop=0,unanswerable=0" || len(syn.Documents) != 5 {
		t.Errorf("synthesis source %+v", syn)
	}
	for _, d := range syn.Documents {
		data, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(d.ID)))
		if err != nil || fmt.Sprintf("%x", sha256.Sum256(data)) != d.SHA256 {
			t.Errorf("document %+v: %v", d, err)
		}
	}
	if strings.Contains(lout, docs) || strings.Contains(lout, os.TempDir()) || inf.Source.Path != "" {
		t.Errorf("the source names a path of this machine:\n%s", lout)
	}
	if inf.Source.SHA256 != inf.Digest || inf.Source.Format != "jsonl" {
		t.Errorf("source %+v, digest %s", inf.Source, inf.Digest)
	}
	sout, _ := mustCLI(t, 0, "benchmark", "show", "docs-synth")
	if !strings.Contains(sout, "synthesis (model test-model, n 4, seed 42, mix factoid=1,multihop=0,unanswerable=0, 5 documents)") {
		t.Errorf("show:\n%s", sout)
	}
	mustCLI(t, 0, "benchmark", "run", "registry:docs-synth", "--profile", "speed", "-o", filepath.Join(t.TempDir(), "b.json"))

	// An active benchmark is not synthesized into again.
	_, errOut := mustCLI(t, 2, args...)
	if !strings.Contains(errOut, "benchmark docs-synth is active") {
		t.Errorf("synthesize --into an active benchmark: %s", errOut)
	}
	// A dry run creates nothing.
	mustCLI(t, 0, "benchmark", "synthesize", docs, "--n", "2", "--dry-run", "--into", "other")
	if _, _, code := runCLI(t, "benchmark", "show", "other"); code == 0 {
		t.Error("a dry run created the draft")
	}
}

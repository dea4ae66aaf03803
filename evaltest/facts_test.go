package evaltest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/results"
)

// myIndex is a user's own index whose embedder refused two of the
// corpus documents; it says so through lasagna.FactReporter (the block of
// docs/retrieval.md).
type myIndex struct {
	lasagna.Retriever
	failed []string // documents the embedder refused
}

func (ix *myIndex) Facts() lasagna.Facts {
	gap := len(ix.failed)
	return lasagna.Facts{IngestGap: &gap, IngestErrors: strings.Join(ix.failed, ", "), EmbedderDim: 768}
}

// TestFactsReachGoTest checks that what a user's retriever reports while
// building reaches go test: an ingest gap of 2 fails the test with the
// blocking PARTIAL_CORPUS, its where and fix, the bundle records it, and
// the CLI's front end (engine.Execute with engine.Discard) raises the
// same finding from the same arm.
func TestFactsReachGoTest(t *testing.T) {
	arm := perfectArm("mine", func(b *lasagna.Benchmark, r lasagna.Retriever) lasagna.Retriever {
		return &myIndex{Retriever: r, failed: []string{"d07", "d09"}}
	})
	cfg := Config{FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Arms: []Arm{arm}}
	log, failed, out := fakeEval(t, cfg, nil)
	if !failed {
		t.Fatalf("the test passed with an ingest gap of 2:\n%s", log)
	}
	want := "TestRAG: ERROR: integrity: PARTIAL_CORPUS at local/tiny@"
	if !strings.Contains(log, want) || !strings.Contains(log, "/mine: 2 of ") || !strings.Contains(log, "failed to index: d07, d09") {
		t.Errorf("the log does not fail on PARTIAL_CORPUS with its where and detail (want %q):\n%s", want, log)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		t.Fatalf("bundles %q, want one", files)
	}
	b, err := results.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if hf := b.Configs[0].HeldFixed; hf.CorpusIngestGap == nil || *hf.CorpusIngestGap != 2 || hf.EmbedderDim == nil || *hf.EmbedderDim != 768 {
		t.Errorf("held_fixed ingest gap %v, embedder_dim %v; want 2 and 768", hf.CorpusIngestGap, hf.EmbedderDim)
	}

	// The same arm through the CLI's front end.
	p, err := newPlan(cfg, env(map[string]string{EnvOut: t.TempDir()}), "TestRAG")
	if err != nil {
		t.Fatal(err)
	}
	o, err := engine.Execute(engine.Discard(context.Background()), p.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Bundle.Integrity.Blocking, b.Integrity.Blocking) || len(b.Integrity.Blocking) != 1 || b.Integrity.Blocking[0].Code != lasagna.PartialCorpus {
		t.Errorf("blocking findings: go test %q, CLI front end %q; want the same PARTIAL_CORPUS", b.Integrity.Blocking, o.Bundle.Integrity.Blocking)
	}
	_ = os.Remove(files[0])
}

package engine

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

// wordsEmbedder embeds a text as a hashed bag of its lower-cased words (16
// dimensions); texts containing "Mints" fail, as a flaky endpoint would.
type wordsEmbedder struct{ fail string }

func (w wordsEmbedder) Dim() int { return 16 }

func (w wordsEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if w.fail != "" && strings.Contains(t, w.fail) {
			return nil, errors.New("503 service unavailable")
		}
		v := make([]float32, 16)
		for _, word := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(word, ".,?")))
			v[h.Sum32()%16]++
		}
		out[i] = v
	}
	return out, nil
}

func TestDenseAndHybridArms(t *testing.T) {
	br := tinyBench(t)
	deps := Deps{Embedder: func(model string) (lasagna.Embedder, error) {
		if model != "toy-embed" {
			return nil, errors.New("unknown model " + model)
		}
		return wordsEmbedder{fail: "Mints"}, nil
	}}
	sweep := &Sweep{Arms: []ArmSpec{
		{Name: "dense", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "toy-embed"}},
		{Name: "hybrid", Retriever: RetrieverHybrid, Embedder: EmbedderSpec{Model: "toy-embed"}},
	}}
	arms, err := deps.Arms(sweep)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, arms, Options{JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Configs {
		hf := c.HeldFixed
		if hf.EmbedderModel == nil || *hf.EmbedderModel != "toy-embed" || hf.EmbedderDim == nil || *hf.EmbedderDim != 16 ||
			hf.CorpusIngestGap == nil || *hf.CorpusIngestGap != 1 || hf.VectorBackend == nil || *hf.VectorBackend != "exact" {
			t.Errorf("%s held_fixed = model %v dim %v gap %v backend %v", c.Name, hf.EmbedderModel, hf.EmbedderDim, hf.CorpusIngestGap, hf.VectorBackend)
		}
	}
	var partial int
	for _, line := range b.Integrity.Blocking {
		if line := line.String(); strings.HasPrefix(line, "PARTIAL_CORPUS") && strings.Contains(line, "1 of 6 corpus documents failed to index") && strings.Contains(line, "503 service unavailable") {
			partial++
		}
	}
	if partial != 2 {
		t.Errorf("blocking = %q, want PARTIAL_CORPUS for both arms", b.Integrity.Blocking)
	}
	for _, c := range rep.Cells {
		if r := c.Queries[0]; r.Err != nil || len(r.Output.Hits) == 0 {
			t.Errorf("%s q1: %v, %v", c.Arm.Name, r.Output.Hits, r.Err)
		}
	}

	if _, err := (Deps{}).Arms(sweep); err == nil || !strings.Contains(err.Error(), "needs an embedding endpoint") {
		t.Errorf("dense without an embedder: %v", err)
	}
	bad := &Sweep{Arms: []ArmSpec{{Name: "d", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: "nope"}}}}
	if _, err := deps.Arms(bad); err == nil || !strings.Contains(err.Error(), "unknown model nope") {
		t.Errorf("bad model: %v", err)
	}
	if !slices.Contains(slices.Collect(func(yield func(string) bool) {
		for s := range arms[1].Stages {
			if !yield(string(s)) {
				return
			}
		}
	}), "embedder") {
		t.Errorf("hybrid stages = %v", arms[1].Stages)
	}
}

package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// Arm is one arm of a run: a name, a way to build its pipeline for a
// benchmark, and the description of its components that feeds held_fixed,
// stage isolation and the resume journal.
type Arm struct {
	// Name is unique within a run.
	Name string
	// Build returns the arm's pipeline for benchmark b (indexing b's corpus
	// when the arm retrieves). It is called once per benchmark, before any
	// of its queries runs; an error fails the whole cell (MISSING_RESULTS).
	Build func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error)
	// TopK is the depth of ranked lists; longer lists are cut to TopK
	// (0 means DefaultTopK).
	TopK int
	// Stages describes the component of each stage the arm uses, as a
	// canonical string (e.g. "bm25 k1=0.9 b=0.4 stemming=true"). Stages not
	// named are absent from the arm.
	Stages map[lasagna.Stage]string
	// Settings are held_fixed fields the arm determines, by held_fixed name
	// (embedder_model, embedder_dim, chunker, vector_backend, judge_model,
	// bm25_stemming, similarity_model).
	Settings map[string]any
	// Varied names the dimensions the arm varies on purpose (stage names or
	// held_fixed fields); they are left out of the comparability key.
	Varied []string
	// Retrieves is true when the arm returns ranked lists, Answers when it
	// returns answers.
	Retrieves, Answers bool
	// Samples is true when the arm calls a sampling LLM (so one run is not
	// the whole answer and SINGLE_RUN applies).
	Samples bool
}

// Fingerprint returns the sha256 of the arm's canonical configuration (name,
// depth, stages, settings, varied), which keys the resume journal.
func (a *Arm) Fingerprint() string {
	data, _ := json.Marshal(struct {
		Name     string                   `json:"name"`
		TopK     int                      `json:"top_k"`
		Stages   map[lasagna.Stage]string `json:"stages"`
		Settings map[string]any           `json:"settings"`
		Varied   []string                 `json:"varied"`
	}{a.Name, a.topK(), a.Stages, a.Settings, a.Varied})
	sum := sha256.Sum256(data) // encoding/json sorts map keys: canonical enough for a local key
	return hex.EncodeToString(sum[:])
}

func (a *Arm) topK() int {
	if a.TopK > 0 {
		return a.TopK
	}
	return DefaultTopK
}

// Mode returns the mode the arm resolves to.
func (a *Arm) Mode() lasagna.Mode {
	switch {
	case a.Retrieves && a.Answers:
		return lasagna.ModeRAG
	case a.Answers:
		return lasagna.ModeGeneration
	default:
		return lasagna.ModeRetrieval
	}
}

// Tracks returns the tracks the arm needs from a benchmark.
func (a *Arm) Tracks() []lasagna.Track {
	var ts []lasagna.Track
	if a.Retrieves {
		ts = append(ts, lasagna.TrackRetrieval)
	}
	if a.Answers && !a.Retrieves {
		ts = append(ts, lasagna.TrackGeneration)
	}
	return ts
}

// RetrieverArm wraps a retriever as a retrieval-only arm.
func RetrieverArm(name string, topK int, build func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error)) Arm {
	arm := Arm{Name: name, TopK: topK, Retrieves: true}
	k := arm.topK()
	arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
		r, err := build(ctx, b)
		if err != nil {
			return nil, err
		}
		return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			hits, err := r.Retrieve(ctx, q, k)
			return lasagna.Output{Hits: hits}, err
		}), nil
	}
	return arm
}

// BuiltinArm returns the arm a sweep's ArmSpec describes, with depth topK.
// Only BM25 needs nothing outside the process; dense and hybrid arms need an
// embedder, which this release's engine does not wire yet.
func BuiltinArm(spec ArmSpec, topK int) (Arm, error) {
	switch spec.Retriever {
	case RetrieverBM25:
		opts := bm25.DefaultOptions()
		if spec.BM25.K1 > 0 {
			opts.K1 = spec.BM25.K1
		}
		if spec.BM25.B > 0 {
			opts.B = spec.BM25.B
		}
		opts.Stemming = spec.BM25.StemmingOn()
		arm := RetrieverArm(spec.Name, topK, func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			idx, err := bm25.Build(b.Corpus, opts)
			if err != nil {
				return nil, err
			}
			return idx, nil
		})
		desc := fmt.Sprintf("bm25 k1=%s b=%s", strconv.FormatFloat(opts.K1, 'g', -1, 64), strconv.FormatFloat(opts.B, 'g', -1, 64))
		if !slices.Contains(spec.Varied, "bm25_stemming") {
			// A varied setting is a level, not part of the fixed stage.
			desc += fmt.Sprintf(" stemming=%t", opts.Stemming)
		}
		arm.Stages = map[lasagna.Stage]string{lasagna.StageRetriever: desc + " stopwords=english"}
		arm.Settings = map[string]any{"bm25_stemming": opts.Stemming}
		arm.Varied = spec.Varied
		return arm, nil
	default:
		return Arm{}, fmt.Errorf("%sarm %q: retriever %q needs an embedding model, which `benchmark run` does not wire yet; use retriever: bm25",
			posPrefix(spec.Pos), spec.Name, spec.Retriever)
	}
}

func posPrefix(p lasagna.Pos) string {
	if s := p.String(); s != "" {
		return s + ": "
	}
	return ""
}

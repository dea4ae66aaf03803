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
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
	"github.com/lasagna-go/lasagna/retrieval/dense"
	"github.com/lasagna-go/lasagna/retrieval/fusion"
	"github.com/lasagna-go/lasagna/retrieval/vector"
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
	// ClosedBook is true when the arm answers without any passage (mode
	// closed_book, which needs only reference answers).
	ClosedBook bool
	// Judge, when set, scores the arm's answers with an LLM judge
	// (judge_correctness, groundedness); nil judges nothing. A judged arm
	// calls an LLM, so it counts as sampling (nothing_samples false,
	// SINGLE_RUN) whatever Samples says.
	Judge Judge
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
	case a.ClosedBook:
		return lasagna.ModeClosedBook
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
	if a.ClosedBook {
		return []lasagna.Track{lasagna.TrackClosedBook}
	}
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
		p := lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			hits, err := r.Retrieve(ctx, q, k)
			return lasagna.Output{Hits: hits}, err
		})
		if fr, ok := r.(FactReporter); ok {
			return pipelineFacts{p, fr.Facts()}, nil
		}
		return p, nil
	}
	return arm
}

// Deps are what built-in arms need from outside the process. The zero
// Deps builds BM25 arms only.
type Deps struct {
	// Embedder returns the embedder of a model, for dense and hybrid arms.
	Embedder func(model string) (lasagna.Embedder, error)
	// LLM is the chat client of generator arms and judges; nil refuses
	// arms with a generator.
	LLM *llm.Client
}

type pipelineFacts struct {
	lasagna.Pipeline
	facts map[string]any
}

func (p pipelineFacts) Facts() map[string]any { return p.facts }

// BuiltinArm returns the arm spec describes, with depth topK, using the
// zero Deps: BM25 arms only.
func BuiltinArm(spec ArmSpec, topK int) (Arm, error) { return Deps{}.Arm(spec, topK) }

// Arm returns the arm a sweep's ArmSpec describes, with depth topK. A
// dense or hybrid arm needs d.Embedder, an arm with a generator d.LLM.
func (d Deps) Arm(spec ArmSpec, topK int) (Arm, error) {
	if spec.Generator != nil {
		return d.generationArm(spec, topK)
	}
	varied := func(name string) bool { return slices.Contains(spec.Varied, name) }
	opts := bm25.DefaultOptions()
	if spec.BM25.K1 > 0 {
		opts.K1 = spec.BM25.K1
	}
	if spec.BM25.B > 0 {
		opts.B = spec.BM25.B
	}
	opts.Stemming = spec.BM25.StemmingOn()
	bm25Desc := fmt.Sprintf("bm25 k1=%s b=%s", strconv.FormatFloat(opts.K1, 'g', -1, 64), strconv.FormatFloat(opts.B, 'g', -1, 64))
	if !varied("bm25_stemming") {
		// A varied setting is a level, not part of the fixed stage.
		bm25Desc += fmt.Sprintf(" stemming=%t", opts.Stemming)
	}
	bm25Desc += " stopwords=english"
	buildBM25 := func(b *lasagna.Benchmark) (lasagna.Retriever, error) { return bm25.Build(b.Corpus, opts) }

	var (
		emb     lasagna.Embedder
		rrfK    = spec.RRFK
		modelID = spec.Embedder.Model
	)
	if rrfK == 0 {
		rrfK = fusion.DefaultK
	}
	if spec.Retriever == RetrieverDense || spec.Retriever == RetrieverHybrid {
		if d.Embedder == nil {
			return Arm{}, fmt.Errorf("%sarm %q: retriever %s needs an embedding endpoint; configure one (see `lasagna help benchmark run`) or use retriever: bm25",
				posPrefix(spec.Pos), spec.Name, spec.Retriever)
		}
		var err error
		if emb, err = d.Embedder(modelID); err != nil {
			return Arm{}, fmt.Errorf("%sarm %q: %w", posPrefix(spec.Pos), spec.Name, err)
		}
	}
	buildDense := func(ctx context.Context, b *lasagna.Benchmark) (*dense.Retriever, error) {
		backend, err := vector.New(vector.Cosine)
		if err != nil {
			return nil, err
		}
		return dense.Build(ctx, b.Corpus, emb, backend, dense.Options{})
	}

	var arm Arm
	switch spec.Retriever {
	case RetrieverBM25:
		arm = RetrieverArm(spec.Name, topK, func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			return buildBM25(b)
		})
		arm.Stages = map[lasagna.Stage]string{lasagna.StageRetriever: bm25Desc}
		arm.Settings = map[string]any{"bm25_stemming": opts.Stemming}
	case RetrieverDense:
		arm = RetrieverArm(spec.Name, topK, func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			r, err := buildDense(ctx, b)
			if err != nil {
				return nil, err
			}
			return withFacts{r, denseFacts(emb, r)}, nil
		})
		arm.Stages = map[lasagna.Stage]string{
			lasagna.StageEmbedder:      "openai-compatible " + modelID,
			lasagna.StageVectorBackend: "exact cosine",
			lasagna.StageRetriever:     "dense",
		}
		arm.Settings = map[string]any{"embedder_model": modelID, "vector_backend": "exact", "similarity_model": "cosine"}
	case RetrieverHybrid:
		arm = RetrieverArm(spec.Name, topK, func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			lex, err := buildBM25(b)
			if err != nil {
				return nil, err
			}
			r, err := buildDense(ctx, b)
			if err != nil {
				return nil, err
			}
			return withFacts{fusion.RRF(rrfK, lex, r), denseFacts(emb, r)}, nil
		})
		arm.Stages = map[lasagna.Stage]string{
			lasagna.StageEmbedder:      "openai-compatible " + modelID,
			lasagna.StageVectorBackend: "exact cosine",
			lasagna.StageRetriever:     fmt.Sprintf("rrf k=%d of %s and dense", rrfK, bm25Desc),
		}
		arm.Settings = map[string]any{"bm25_stemming": opts.Stemming, "embedder_model": modelID, "vector_backend": "exact", "similarity_model": "cosine"}
	default:
		return Arm{}, fmt.Errorf("%sarm %q: unknown retriever %q; use bm25, dense or hybrid", posPrefix(spec.Pos), spec.Name, spec.Retriever)
	}
	arm.Varied = spec.Varied
	return arm, nil
}

// denseFacts returns the held_fixed facts a dense index learns while
// building: the embedding dimension and the documents that failed to embed.
func denseFacts(emb lasagna.Embedder, r *dense.Retriever) map[string]any {
	facts := map[string]any{"corpus_ingest_gap": r.IngestGap()}
	if d, ok := emb.(interface{ Dim() int }); ok && d.Dim() > 0 {
		facts["embedder_dim"] = d.Dim()
	}
	if r.IngestGap() > 0 {
		facts["corpus_ingest_errors"] = r.IngestErrors()
	}
	return facts
}

// FactReporter is implemented by pipelines and retrievers that learn
// held_fixed facts while they build — the embedding dimension
// (embedder_dim), the documents that failed to index (corpus_ingest_gap) —
// so the bundle states them truthfully.
type FactReporter interface {
	Facts() map[string]any
}

// withFacts attaches facts to a retriever.
type withFacts struct {
	lasagna.Retriever
	facts map[string]any
}

func (w withFacts) Facts() map[string]any { return w.facts }

func posPrefix(p lasagna.Pos) string {
	if s := p.String(); s != "" {
		return s + ": "
	}
	return ""
}

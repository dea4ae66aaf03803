package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
	"github.com/lasagna-go/lasagna/retrieval/dense"
	"github.com/lasagna-go/lasagna/retrieval/fusion"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// Arm is one arm of a run: its components, and the description of them
// that feeds held_fixed, stage isolation and the resume journal. The engine
// assembles the arm's pipeline from its components (see Arm.Build); this is
// the one place where a retriever, a generator and a judge are put
// together, for evaltest arms, CLI profiles and sweep arms alike.
//
// Set exactly one way of running the arm:
//
//   - Retriever: a retrieval arm; with Generator also set, a RAG arm whose
//     generator sees the documents of the first Passages hits.
//   - Generator alone: answers from each row's gold contexts (mode
//     generation), or from the question alone when Mode is
//     lasagna.ModeClosedBook.
//   - Pipeline: a whole system as one function from a query to an Output;
//     Mode says what it returns (retrieval, generation or rag; "" is rag;
//     closed_book for answers given without any passage).
type Arm struct {
	// Name is unique within a run.
	Name string

	// Retriever returns the arm's retriever for benchmark b (indexing b's
	// corpus when it needs to). It is called once per benchmark, before
	// any of its queries runs; an error fails the whole cell
	// (MISSING_RESULTS). A retriever that implements lasagna.FactReporter states
	// held_fixed facts it learned while building.
	Retriever func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error)
	// Generator answers questions; see the kinds of arms above.
	Generator lasagna.Generator
	// Passages is how many retrieved documents a RAG arm's Generator sees;
	// 0 means DefaultPassages.
	Passages int
	// Pipeline returns the arm's whole pipeline for benchmark b, once per
	// benchmark, like Retriever.
	Pipeline func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error)
	// Mode is what a Pipeline arm returns, or lasagna.ModeClosedBook for a
	// Generator arm that sees no passages; other arms derive their mode
	// (see ResolvedMode).
	Mode lasagna.Mode

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
	// OwnIndex marks an arm whose retriever searches the user's own index,
	// which may hold documents the benchmark's corpus lacks. Ids outside
	// the benchmark's corpus then count as non-relevant and are reported
	// by the OUTSIDE_CORPUS_IDS warning instead of the blocking
	// UNKNOWN_DOC_ID, and held_fixed records corpus_provenance own_index.
	// Leave it false for an arm that indexes the benchmark's corpus: there
	// an unknown id is a chunk-id mapping bug, and UNKNOWN_DOC_ID blocks.
	// A RAG arm assembled from Retriever and Generator hands its generator
	// the texts of the benchmark's documents only (a Hit carries no text):
	// for answers from your own index, use a Pipeline arm.
	OwnIndex bool
	// MissingZero scores a query whose pipeline fails with ErrNoPrediction
	// (replayed predictions without a line for it) 0 on every metric the
	// arm scores it on, SQuAD v1.1's convention, instead of failing the
	// row; held_fixed records missing_predictions zero, so that such
	// bundles never compare with those of the default.
	MissingZero bool
	// Samples is true when the arm calls a sampling LLM (so one run is not
	// the whole answer and SINGLE_RUN applies).
	Samples bool
	// Judge, when set, scores the arm's answers with an LLM judge
	// (judge_correctness, groundedness, the RAG judge metrics, rubrics);
	// nil judges nothing. A judged arm
	// calls an LLM, so it counts as sampling (nothing_samples false,
	// SINGLE_RUN) whatever Samples says.
	Judge Judge
	// Scorers score each query with metrics of the user's (Scorer); their
	// names and versions are held fixed (held_fixed.scorers).
	Scorers []Scorer
	// JudgeCalibrations are the calibration records of the judge's
	// metrics the arm cites (ReadJudgeCalibration): Check refuses a record
	// whose judge model or prompt is not the arm judge's, and the bundle
	// carries them beside the arm's config (judge_calibrations).
	JudgeCalibrations []lasagna.JudgeCalibration
	// Repeats runs each query of a sampling arm (Sampling) this many times,
	// sharing one pipeline (startRepeats); the bundle row holds each
	// metric's mean over the repeats, and SINGLE_RUN is raised only when a
	// sampling arm ran each query once. 0 or 1 runs once; an arm that does
	// not sample always runs once (RunsPerQuery).
	Repeats int
	// Pass decides from how many of a repeated query's runs meet its
	// per-query thresholds whether the query passes; the zero value is
	// All().
	Pass PassRule

	// bm25Only is set on a built-in BM25 arm (Deps): its retriever reads
	// the corpus texts only while it builds its index.
	bm25Only bool
	// embedder is a built-in dense or hybrid arm's embedder (Deps), whose
	// calls EstimatePlan counts.
	embedder lasagna.Embedder
}

// textFree reports whether nothing of the arm reads the corpus texts once
// its retriever is built: a built-in BM25 retriever alone, with no
// generator, pipeline or judge.
func (a *Arm) textFree() bool {
	return a.bm25Only && a.Generator == nil && a.Pipeline == nil && a.Judge == nil
}

// releaseTextsKey marks a context whose run needs no corpus texts after the
// retriever being built (see Run).
type releaseTextsKey struct{}

// releasesTexts reports whether ctx lets a built-in retriever clear the
// corpus texts as it indexes them.
func releasesTexts(ctx context.Context) bool {
	v, _ := ctx.Value(releaseTextsKey{}).(bool)
	return v
}

// Fingerprint returns the sha256 of the arm's canonical configuration (name,
// mode, depth, stages, settings, varied, own index), which keys the resume
// journal.
func (a *Arm) Fingerprint() string {
	data, _ := json.Marshal(struct {
		Name     string                   `json:"name"`
		Mode     lasagna.Mode             `json:"mode"`
		TopK     int                      `json:"top_k"`
		Stages   map[lasagna.Stage]string `json:"stages"`
		Settings map[string]any           `json:"settings"`
		Varied   []string                 `json:"varied"`
		OwnIndex bool                     `json:"own_index,omitempty"`
	}{a.Name, a.ResolvedMode(), a.topK(), a.Stages, a.Settings, a.Varied, a.OwnIndex})
	sum := sha256.Sum256(data) // encoding/json sorts map keys: canonical enough for a local key
	return hex.EncodeToString(sum[:])
}

func (a *Arm) topK() int {
	if a.TopK > 0 {
		return a.TopK
	}
	return DefaultTopK
}

func (a *Arm) passages() int {
	if a.Passages > 0 {
		return a.Passages
	}
	return DefaultPassages
}

// ResolvedMode returns the mode the arm resolves to (resolved_mode in the
// bundle).
func (a *Arm) ResolvedMode() lasagna.Mode {
	switch {
	case a.Retriever != nil && a.Generator != nil:
		return lasagna.ModeRAG
	case a.Retriever != nil:
		return lasagna.ModeRetrieval
	case a.Generator != nil && a.Mode == lasagna.ModeClosedBook:
		return lasagna.ModeClosedBook
	case a.Generator != nil:
		return lasagna.ModeGeneration
	case a.Mode == "":
		return lasagna.ModeRAG
	default:
		return a.Mode
	}
}

// Retrieves reports whether the arm returns ranked lists.
func (a *Arm) Retrieves() bool {
	m := a.ResolvedMode()
	return m == lasagna.ModeRetrieval || m == lasagna.ModeRAG
}

// Answers reports whether the arm returns answers.
func (a *Arm) Answers() bool { return a.ResolvedMode() != lasagna.ModeRetrieval }

// Tracks returns the tracks the arm needs from a benchmark.
func (a *Arm) Tracks() []lasagna.Track {
	switch a.ResolvedMode() {
	case lasagna.ModeClosedBook:
		return []lasagna.Track{lasagna.TrackClosedBook}
	case lasagna.ModeGeneration:
		return []lasagna.Track{lasagna.TrackGeneration}
	default:
		return []lasagna.Track{lasagna.TrackRetrieval}
	}
}

// Check reports what is wrong with the arm's definition: a missing name,
// no way or two ways of running it, a mode that does not fit, a judge on
// an arm without answers, a negative depth.
func (a *Arm) Check() error {
	if a.Name == "" {
		return errors.New("an arm needs a name")
	}
	ways := 0
	if a.Retriever != nil || a.Generator != nil {
		ways++
	}
	if a.Pipeline != nil {
		ways++
	}
	if ways != 1 {
		return fmt.Errorf("arm %s: set exactly one of Retriever (optionally with Generator), Generator or Pipeline", a.Name)
	}
	if a.TopK < 0 {
		return fmt.Errorf("arm %s: TopK is %d; want a positive depth (or 0 for %d)", a.Name, a.TopK, DefaultTopK)
	}
	if a.Passages != 0 && (a.Retriever == nil || a.Generator == nil) {
		return fmt.Errorf("arm %s: Passages applies to a RAG arm (Retriever with Generator); drop it", a.Name)
	}
	if a.Passages < 0 {
		return fmt.Errorf("arm %s: Passages is %d; want a positive number (or 0 for %d)", a.Name, a.Passages, DefaultPassages)
	}
	switch {
	case a.Pipeline != nil:
		switch a.Mode {
		case "", lasagna.ModeRetrieval, lasagna.ModeGeneration, lasagna.ModeRAG, lasagna.ModeClosedBook:
		default:
			return fmt.Errorf("arm %s: Mode %q is not one of retrieval, generation, rag or closed_book", a.Name, a.Mode)
		}
	case a.Retriever != nil:
		if a.Mode != "" && a.Mode != a.ResolvedMode() {
			return fmt.Errorf("arm %s: a Retriever arm's mode is %s; leave Mode empty", a.Name, a.ResolvedMode())
		}
	default:
		if a.Mode != "" && a.Mode != lasagna.ModeClosedBook && a.Mode != lasagna.ModeGeneration {
			return fmt.Errorf("arm %s: a Generator arm's Mode is generation (gold contexts) or closed_book, not %q", a.Name, a.Mode)
		}
	}
	if a.OwnIndex && !a.Retrieves() {
		return fmt.Errorf("arm %s: OwnIndex marks an arm that searches its own index, and this arm returns no ranked lists; drop OwnIndex", a.Name)
	}
	if a.Judge != nil && !a.Answers() {
		return fmt.Errorf("arm %s: a Judge scores answers, and this arm returns none; give it a Generator (or a Pipeline in generation or rag mode)", a.Name)
	}
	if err := checkJudgeMetrics(a); err != nil {
		return err
	}
	if err := checkCalibrations(a); err != nil {
		return err
	}
	return checkScorers(a)
}

// Build assembles the arm's pipeline for benchmark b from its components.
// Callers of the engine need not call it (Execute does); it is
// exported for tools that drive a pipeline themselves. A built-in arm's
// pipeline may hold connections (a vector store's): release them with
// ClosePipeline when done.
func (a *Arm) Build(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if a.Pipeline != nil {
		p, err := a.Pipeline(ctx, b)
		if err == nil && p == nil {
			err = errors.New("the arm's Pipeline returned a nil pipeline")
		}
		return p, err
	}
	gen := a.Generator
	if a.Retriever == nil {
		closed := a.ResolvedMode() == lasagna.ModeClosedBook
		return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			var ps []lasagna.Document
			if !closed {
				ps = make([]lasagna.Document, len(q.Contexts))
				for i, c := range q.Contexts {
					ps[i] = lasagna.Document{ID: "context-" + strconv.Itoa(i+1), Text: c}
				}
			}
			return answerWith(ctx, gen, q, ps, nil)
		}), nil
	}
	r, err := a.Retriever(ctx, b)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("the arm's Retriever returned a nil retriever")
	}
	k := a.topK()
	var p lasagna.Pipeline
	if gen == nil {
		p = lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			hits, err := r.Retrieve(ctx, q, k)
			return lasagna.Output{Hits: hits}, err
		})
	} else {
		n := a.passages()
		docs := make(map[string]*lasagna.Document, len(b.Corpus))
		for i := range b.Corpus {
			docs[b.Corpus[i].ID] = &b.Corpus[i]
		}
		p = lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			hits, err := r.Retrieve(ctx, q, k)
			if err != nil {
				return lasagna.Output{Hits: hits}, err
			}
			// The generator sees only what the bundle records.
			hits = hits[:min(k, len(hits))]
			var ps []lasagna.Document
			for _, h := range hits[:min(n, len(hits))] {
				if d, ok := docs[h.ID]; ok {
					ps = append(ps, *d)
				}
			}
			return answerWith(ctx, gen, q, ps, hits)
		})
	}
	rel, _ := r.(releaser)
	if fr, ok := r.(lasagna.FactReporter); ok {
		return pipelineFacts{p, fr.Facts(), rel}, nil
	}
	if rel != nil {
		return pipelineReleaser{p, rel}, nil
	}
	return p, nil
}

// releaser is implemented by the retrievers and pipelines of built-in
// arms that hold connections (a vector store's). It is unexported, so a
// user's retriever that happens to have a Close method, and may serve
// several cells, is never closed by the engine.
type releaser interface{ release() error }

// ClosePipeline releases what a pipeline from Arm.Build holds (a vector
// store's connections); it does nothing for other pipelines. Run and
// cellRun.Close call it.
func ClosePipeline(p lasagna.Pipeline) error {
	if r, ok := p.(releaser); ok {
		return r.release()
	}
	return nil
}

// answerWith asks gen for an answer to q from ps and returns it as an
// Output with hits (Passages are the texts gen saw). A generator error is
// the query's error.
func answerWith(ctx context.Context, gen lasagna.Generator, q lasagna.Query, ps []lasagna.Document, hits []lasagna.Hit) (lasagna.Output, error) {
	a, err := gen.Generate(ctx, q, ps)
	if err != nil {
		return lasagna.Output{Hits: hits}, err
	}
	var texts []string
	if len(ps) > 0 {
		texts = make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.Text
		}
	}
	return lasagna.Output{Hits: hits, Answer: a.Text, Answered: true, Abstained: a.Abstained, Passages: texts}, nil
}

// Deps are the components of built-in arms that call a model outside the
// process. The engine assembles arms from them but imports no LLM client:
// package engine/llmarms makes Deps from an OpenAI-compatible client. The
// zero Deps builds BM25 arms only.
type Deps struct {
	// Embedder returns the embedder of a model, for dense and hybrid arms.
	Embedder func(model string) (lasagna.Embedder, error)
	// Generator returns the LLM generator spec describes (Kind grounded or
	// closed_book); a generator that implements Describe() string names
	// its model and prompt in fixed_stages. nil refuses arms with a
	// generator.
	Generator func(spec GeneratorSpec) (lasagna.Generator, error)
	// Judge returns the judge spec describes, scoring metrics (never
	// empty); nil refuses judged arms.
	Judge func(spec JudgeSpec, metrics []string) (Judge, error)
	// VectorStore returns a new store of the vector backend spec names
	// (spec.Metric set), for arms that keep the corpus in one: an adapter
	// such as package retrieval/pgvector or retrieval/weaviate, which the
	// engine does not link. It is called once per arm when the arm is
	// assembled (for the store's Description) and once per benchmark the
	// arm runs on; the engine closes each store it opens. nil offers the
	// exact index alone.
	VectorStore func(ctx context.Context, spec VectorBackendSpec) (vector.Store, error)
}

type pipelineFacts struct {
	lasagna.Pipeline
	facts lasagna.Facts
	rel   releaser
}

func (p pipelineFacts) Facts() lasagna.Facts { return p.facts }

func (p pipelineFacts) release() error {
	if p.rel == nil {
		return nil
	}
	return p.rel.release()
}

// pipelineReleaser is a pipeline whose retriever holds connections.
type pipelineReleaser struct {
	lasagna.Pipeline
	rel releaser
}

func (p pipelineReleaser) release() error { return p.rel.release() }

// BuiltinArm returns the arm spec describes, with depth topK, using the
// zero Deps: BM25 arms only.
func BuiltinArm(spec ArmSpec, topK int) (Arm, error) { return Deps{}.Arm(spec, topK) }

// Arm returns the arm a sweep's ArmSpec describes, with depth topK. A
// dense or hybrid arm needs d.Embedder, an arm with a generator
// d.Generator, a judged arm d.Judge, an arm with a pgvector or weaviate
// vector_backend d.VectorStore. It is ArmContext with
// context.Background().
func (d Deps) Arm(spec ArmSpec, topK int) (Arm, error) {
	return d.ArmContext(context.Background(), spec, topK)
}

// ArmContext is Arm; ctx bounds the connection to the arm's vector
// backend, which is opened once to describe it.
func (d Deps) ArmContext(ctx context.Context, spec ArmSpec, topK int) (Arm, error) {
	where := fmt.Sprintf("%sarm %q", posPrefix(spec.Pos), spec.Name)
	if errs := append(checkGeneration(spec, posPrefix(spec.Pos)), checkArmVectorBackend(spec, spec.VectorBackend, posPrefix(spec.Pos))...); len(errs) > 0 {
		return Arm{}, errs[0]
	}
	arm := Arm{Name: spec.Name, TopK: topK, Varied: spec.Varied, Stages: map[lasagna.Stage]string{}, Settings: map[string]any{}}
	pass, err := ParsePassRule(spec.Pass)
	if err != nil {
		return Arm{}, fmt.Errorf("%s: pass: %w", where, err)
	}
	arm.Repeats, arm.Pass = spec.Repeats, pass
	if spec.Retriever == "" && spec.Generator == nil {
		return Arm{}, fmt.Errorf("%s: unknown retriever %q; use one of %s (or add a generator)", where, spec.Retriever, strings.Join(retrieverKinds, ", "))
	}
	if spec.Retriever != "" {
		if err := d.retriever(ctx, &arm, spec); err != nil {
			return Arm{}, err
		}
	}
	if g := spec.Generator; g != nil {
		if d.Generator == nil {
			return Arm{}, fmt.Errorf("%s: the %s generator needs an LLM endpoint; configure one (see `lasagna help benchmark run`)", where, g.Kind)
		}
		gen, err := d.Generator(*g)
		if err != nil {
			return Arm{}, fmt.Errorf("%s: %w", where, err)
		}
		arm.Generator, arm.Passages, arm.Samples = gen, g.Passages, true
		desc := describe(gen, "llm generator")
		switch {
		case g.Kind == GeneratorClosedBook:
			arm.Mode = lasagna.ModeClosedBook
		case spec.Retriever == "":
			desc += " passages=gold_contexts"
		default:
			desc += " passages=" + strconv.Itoa(arm.passages())
		}
		arm.Stages[lasagna.StageGenerator] = desc
	}
	if spec.Judge != nil {
		if d.Judge == nil {
			return Arm{}, fmt.Errorf("%s: the judge needs an LLM endpoint; configure one (see `lasagna help benchmark run`)", where)
		}
		ms := spec.Judge.Metrics
		if len(ms) == 0 {
			ms = []string{MetricJudgeCorrectness, MetricGroundedness}
			if arm.Mode == lasagna.ModeClosedBook {
				ms = []string{MetricJudgeCorrectness}
			}
			for _, r := range spec.Judge.Rubrics {
				ms = append(ms, r.Name)
			}
		}
		j, err := d.Judge(*spec.Judge, ms)
		if err != nil {
			return Arm{}, fmt.Errorf("%s: %w", where, err)
		}
		arm.setJudge(j)
		if len(spec.Judge.Records) != len(spec.Judge.Calibrations) {
			return Arm{}, fmt.Errorf("%s: judge calibrations %v are not read; read the sweep with ReadSweep (or set JudgeSpec.Records)", where, spec.Judge.Calibrations)
		}
		arm.JudgeCalibrations = slices.Clone(spec.Judge.Records)
	}
	return arm, nil
}

// setJudge sets a's judge and records it in held_fixed: judge_model, and
// the judge's description (model, metrics, prompt versions) under
// fixed_stages, since its prompts decide its scores.
func (a *Arm) setJudge(j Judge) {
	a.Judge = j
	if a.Settings == nil {
		a.Settings = map[string]any{}
	}
	if a.Stages == nil {
		a.Stages = map[lasagna.Stage]string{}
	}
	a.Settings["judge_model"] = j.Model()
	a.Stages[StageJudge] = describe(j, j.Model())
}

// WithJudge returns a copy of a judged by j, with judge_model and the
// judge's description in held_fixed (see Arm.Judge).
func (a Arm) WithJudge(j Judge) Arm {
	a.Settings = maps.Clone(a.Settings)
	a.Stages = maps.Clone(a.Stages)
	a.setJudge(j)
	return a
}

// describe returns v.Describe() when v has it, else def.
func describe(v any, def string) string {
	if d, ok := v.(interface{ Describe() string }); ok {
		return d.Describe()
	}
	return def
}

// retriever sets the retriever of a built-in arm from spec.
func (d Deps) retriever(ctx context.Context, arm *Arm, spec ArmSpec) error {
	varied := func(name string) bool { return slices.Contains(spec.Varied, name) }
	opts := bm25.DefaultOptions()
	if spec.BM25.K1 > 0 {
		opts.K1 = spec.BM25.K1
	}
	if spec.BM25.B > 0 {
		opts.B = spec.BM25.B
	}
	opts.Stemming = spec.BM25.StemmingOn()
	var err error
	if opts.Analyzer, err = bm25.ParseAnalyzer(spec.BM25.Analyzer); err != nil {
		return fmt.Errorf("%sarm %q: bm25: %w", posPrefix(spec.Pos), spec.Name, err)
	}
	if opts.Norms, err = bm25.ParseNorms(spec.BM25.Norms); err != nil {
		return fmt.Errorf("%sarm %q: bm25: %w", posPrefix(spec.Pos), spec.Name, err)
	}
	if opts.Ties, err = parseTies(spec.BM25.Ties); err != nil {
		return fmt.Errorf("%sarm %q: bm25: %w", posPrefix(spec.Pos), spec.Name, err)
	}
	bm25Desc := fmt.Sprintf("bm25 k1=%s b=%s", strconv.FormatFloat(opts.K1, 'g', -1, 64), strconv.FormatFloat(opts.B, 'g', -1, 64))
	if opts.Analyzer != bm25.AnalyzerDefault {
		// Named only when not the default, so that the default arm's
		// description (and comparability key) is what it always was.
		bm25Desc += " analyzer=" + string(opts.Analyzer)
	}
	if !varied("bm25_stemming") {
		// A varied setting is a level, not part of the fixed stage.
		bm25Desc += fmt.Sprintf(" stemming=%t", opts.Stemming)
	}
	bm25Desc += " stopwords=english"
	if opts.Norms != bm25.NormsExact {
		bm25Desc += " norms=" + string(opts.Norms)
	}
	if opts.Ties != "" {
		// Tie order and reported scores change the ranked lists: arms
		// with different rules are different retriever stages.
		bm25Desc += " ties=" + opts.Ties
	}
	buildBM25 := func(b *lasagna.Benchmark) (*bm25.Index, error) { return bm25.Build(b.Corpus, opts) }
	releasing := func(ctx context.Context, b *lasagna.Benchmark) (*bm25.Index, error) {
		if releasesTexts(ctx) {
			return bm25.BuildReleasing(b.Corpus, opts)
		}
		return buildBM25(b)
	}

	var (
		emb     lasagna.Embedder
		rrfK    = spec.RRFK
		modelID = spec.Embedder.Model
	)
	if rrfK == 0 {
		rrfK = fusion.DefaultK
	}
	if !slices.Contains(retrieverKinds, spec.Retriever) {
		return fmt.Errorf("%sarm %q: unknown retriever %q; use one of %s%s", posPrefix(spec.Pos), spec.Name, spec.Retriever,
			strings.Join(retrieverKinds, ", "), suggest.Hint(spec.Retriever, retrieverKinds))
	}
	if spec.NeedsEmbedder() {
		if d.Embedder == nil {
			return fmt.Errorf("%sarm %q: retriever %s needs an embedding endpoint; configure one (see `lasagna help benchmark run`) or use retriever: bm25",
				posPrefix(spec.Pos), spec.Name, spec.Retriever)
		}
		var err error
		if emb, err = d.Embedder(modelID); err != nil {
			return fmt.Errorf("%sarm %q: %w", posPrefix(spec.Pos), spec.Name, err)
		}
	}
	var vb *vectorBackend
	if usesVectorBackend(spec.Retriever) {
		if vb, err = d.vectorBackend(ctx, spec); err != nil {
			return err
		}
		arm.Stages[lasagna.StageVectorBackend] = vb.stage
		arm.Settings["vector_backend"] = vb.desc
	}
	if spec.NeedsEmbedder() {
		arm.embedder = emb
		arm.Stages[lasagna.StageEmbedder] = "openai-compatible " + modelID
		arm.Settings["embedder_model"], arm.Settings["similarity_model"] = modelID, "cosine"
	}
	// buildDense ingests b's corpus into a new store of the arm's backend
	// (texts alone when emb is nil); the retriever it returns closes the
	// store.
	buildDense := func(ctx context.Context, b *lasagna.Benchmark, emb lasagna.Embedder) (*dense.Retriever, vector.Store, lasagna.Facts, error) {
		r, store, err := vb.build(ctx, b, emb, modelID)
		if err != nil {
			return nil, nil, lasagna.Facts{}, err
		}
		return r, store, denseFacts(emb, r, vb.redact), nil
	}
	switch spec.Retriever {
	case RetrieverBM25:
		arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			ix, err := releasing(ctx, b)
			if err != nil {
				return nil, err
			}
			return withFacts{ix, bm25Facts(ix, lasagna.Facts{}), nil}, nil
		}
		arm.bm25Only = true
		arm.Stages[lasagna.StageRetriever] = bm25Desc
		arm.Settings["bm25_stemming"] = opts.Stemming
	case RetrieverDense:
		arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			r, store, facts, err := buildDense(ctx, b, emb)
			if err != nil {
				return nil, err
			}
			return withFacts{redactedRetriever{r, vb.redact}, facts, store}, nil
		}
		arm.Stages[lasagna.StageRetriever] = "dense"
	case RetrieverHybrid:
		arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			lex, err := buildBM25(b)
			if err != nil {
				return nil, err
			}
			r, store, facts, err := buildDense(ctx, b, emb)
			if err != nil {
				return nil, err
			}
			return withFacts{fusion.RRF(rrfK, lex, redactedRetriever{r, vb.redact}), bm25Facts(lex, facts), store}, nil
		}
		arm.Stages[lasagna.StageRetriever] = fmt.Sprintf("rrf k=%d of %s and dense", rrfK, bm25Desc)
		arm.Settings["bm25_stemming"] = opts.Stemming
	case RetrieverWeaviateBM25:
		arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			_, store, facts, err := buildDense(ctx, b, nil)
			if err != nil {
				return nil, err
			}
			ks, err := keywordSearcher(store)
			if err != nil {
				return nil, err
			}
			return withFacts{keywordRetriever{ks, vb.redact}, facts, store}, nil
		}
		arm.Stages[lasagna.StageRetriever] = RetrieverWeaviateBM25
	case RetrieverWeaviateHybrid:
		alpha := DefaultWeaviateAlpha
		if spec.Alpha != nil {
			alpha = *spec.Alpha
		}
		arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
			_, store, facts, err := buildDense(ctx, b, emb)
			if err != nil {
				return nil, err
			}
			ks, err := keywordSearcher(store)
			if err != nil {
				return nil, err
			}
			return withFacts{hybridRetriever{ks, emb, alpha, vb.redact}, facts, store}, nil
		}
		arm.Stages[lasagna.StageRetriever] = RetrieverWeaviateHybrid + " alpha=" + strconv.FormatFloat(alpha, 'g', -1, 64)
	}
	return nil
}

// denseFacts returns the facts a dense index learns while building: the
// embedding dimension (emb nil: none) and the documents that failed to
// embed or to be stored.
func denseFacts(emb lasagna.Embedder, r *dense.Retriever, redact redactor) lasagna.Facts {
	gap := r.IngestGap()
	facts := lasagna.Facts{IngestGap: &gap}
	if d, ok := emb.(interface{ Dim() int }); ok && d.Dim() > 0 {
		facts.EmbedderDim = d.Dim()
	}
	if gap > 0 {
		facts.IngestErrors = redact.str(r.IngestErrors())
	}
	return facts
}

// The keys of a cell's facts (Cell.Facts) for the corpus statistics a
// lexical index reports (lasagna.Facts), which the bundle records per
// arm (results.CorpusStats) so that an index can be checked against
// another implementation's (Anserini's documents, unique terms and total
// terms).
const (
	factCorpusDocuments   = "corpus_documents"
	factCorpusUniqueTerms = "corpus_unique_terms"
	factCorpusTotalTerms  = "corpus_total_terms"
)

// bm25Facts adds the corpus statistics of ix to facts.
func bm25Facts(ix *bm25.Index, facts lasagna.Facts) lasagna.Facts {
	st := ix.Stats()
	facts.Documents, facts.UniqueTerms, facts.TotalTerms = int(st.Documents), int(st.UniqueTerms), int(st.TotalTerms)
	return facts
}

// factsMap returns f as a cell's facts: the held_fixed keys
// (corpus_ingest_gap, embedder_dim), the ingest errors and the corpus
// statistics, each when reported; nil when f reports nothing. The journal
// keeps this form.
func factsMap(f lasagna.Facts) map[string]any {
	m := map[string]any{}
	if f.IngestGap != nil {
		m["corpus_ingest_gap"] = *f.IngestGap
	}
	if f.IngestErrors != "" {
		m["corpus_ingest_errors"] = f.IngestErrors
	}
	if f.EmbedderDim > 0 {
		m["embedder_dim"] = f.EmbedderDim
	}
	if f.Documents > 0 {
		m[factCorpusDocuments], m[factCorpusUniqueTerms], m[factCorpusTotalTerms] = f.Documents, f.UniqueTerms, f.TotalTerms
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// withFacts attaches facts to a built-in arm's retriever, and what to
// close when the cell is done with it (nil: nothing; see releaser).
type withFacts struct {
	lasagna.Retriever
	facts  lasagna.Facts
	closer io.Closer
}

func (w withFacts) Facts() lasagna.Facts { return w.facts }

func (w withFacts) release() error {
	if w.closer == nil {
		return nil
	}
	return w.closer.Close()
}

func posPrefix(p lasagna.Pos) string {
	if s := p.String(); s != "" {
		return s + ": "
	}
	return ""
}

package lasagna

import "context"

// Hit is one retrieved document: its corpus id and the score the retriever
// gave it. A ranked list is a []Hit in rank order (index 0 is rank 1); the
// order is authoritative, since scores may tie.
//
// Cite is optional: a Citation (ChunkID, PageNum, SourcePath) says where
// the retrieved text sits in the user's own store. When a benchmark's
// entries have chunk_ids,
// page_nums or source_paths (a Vecta CSV, or those metadata keys in JSONL),
// they give the chunk-, page- and document-level precision, recall and F1
// (chunk_f1, page_recall, document_precision, …). A level is scored only
// when the entry has its ground truth and some hit of the list carries
// the field. On a Vecta CSV, whose chunk_ids judge the ids hits name, ID
// stands for a missing Cite.ChunkID, and the ranked metrics (ndcg@k, …) judge
// ID: give it the chunk id.
type Hit struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	// Cite, when set, says where the hit comes from, for the Vecta chunk-,
	// page- and document-level metrics; nil = not reported. It is a pointer
	// so that a Hit stays small: runs and run files hold millions of them.
	Cite *Citation `json:"cite,omitempty"`
}

// Citation is where a retrieved hit comes from. Each field is optional.
type Citation struct {
	// ChunkID is the id of the retrieved chunk ("" = not reported).
	ChunkID string `json:"chunk_id,omitempty"`
	// PageNum is the page the chunk is on (nil = not reported).
	PageNum *int `json:"page_num,omitempty"`
	// SourcePath names the document the chunk is from ("" = not reported),
	// as the benchmark's source_paths name documents.
	SourcePath string `json:"source_path,omitempty"`
}

// Output is what a pipeline returns for one query. Hits is the ranked list
// (nil when the pipeline does not retrieve); Answer the generated answer and
// Answered whether the pipeline produced one (false for retrieval-only
// pipelines). Abstained marks an explicit "no answer", scored as correct on an
// unanswerable question. Passages are the texts the generator saw, used by
// groundedness judging.
type Output struct {
	Hits      []Hit
	Answer    string
	Answered  bool
	Abstained bool
	Passages  []string
}

// Retriever returns the top k documents for a query, best first.
type Retriever interface {
	Retrieve(ctx context.Context, q Query, k int) ([]Hit, error)
}

// RetrieverFunc adapts a plain function to a Retriever.
type RetrieverFunc func(ctx context.Context, q Query, k int) ([]Hit, error)

// Retrieve calls f(ctx, q, k).
func (f RetrieverFunc) Retrieve(ctx context.Context, q Query, k int) ([]Hit, error) {
	return f(ctx, q, k)
}

// Answer is a generator's answer. Abstained marks an explicit refusal to
// answer ("the passages do not say").
type Answer struct {
	Text      string
	Abstained bool
}

// Generator answers a query from passages (none for closed-book generation).
type Generator interface {
	Generate(ctx context.Context, q Query, passages []Document) (Answer, error)
}

// GeneratorFunc adapts a plain function to a Generator.
type GeneratorFunc func(ctx context.Context, q Query, passages []Document) (Answer, error)

// Generate calls f(ctx, q, passages).
func (f GeneratorFunc) Generate(ctx context.Context, q Query, passages []Document) (Answer, error) {
	return f(ctx, q, passages)
}

// Pipeline is a whole RAG system registered as one opaque arm: a function
// from a query to ranked hits and/or an answer.
type Pipeline interface {
	Run(ctx context.Context, q Query) (Output, error)
}

// PipelineFunc adapts a plain function to a Pipeline.
type PipelineFunc func(ctx context.Context, q Query) (Output, error)

// Run calls f(ctx, q).
func (f PipelineFunc) Run(ctx context.Context, q Query) (Output, error) { return f(ctx, q) }

// Chunk is a piece of a source document. ID is unique in the corpus and
// DocID names the source document, so a chunk maps back to it; Index is the
// chunk's 0-based position in its document.
type Chunk struct {
	ID    string
	DocID string
	Index int
	Text  string
}

// Chunker cuts a document into chunks.
type Chunker interface {
	Chunk(doc Document) []Chunk
}

// ChunkerFunc adapts a plain function to a Chunker.
type ChunkerFunc func(doc Document) []Chunk

// Chunk calls f(doc).
func (f ChunkerFunc) Chunk(doc Document) []Chunk { return f(doc) }

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderFunc adapts a plain function to an Embedder.
type EmbedderFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embed calls f(ctx, texts).
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// VectorBackend stores vectors by id and returns the k nearest to a query
// vector, best first.
type VectorBackend interface {
	Add(ctx context.Context, ids []string, vectors [][]float32) error
	Search(ctx context.Context, vector []float32, k int) ([]Hit, error)
}

// Scorer scores one query's outcome with metrics of its own: given the
// query (its question, reference answers, contexts and metadata) and what
// the arm returned for it (ranked hits, answer, passages), it returns named
// values. Its metrics behave like the built-in ones (thresholds, the gate,
// bundle rows and means with confidence intervals, reports). A name it
// returns must be one the scorer declared (evaltest.Scorer.Metrics); a
// metric left out is not applicable to that query; an error is recorded on
// the query's row (JUDGE_ERRORS), never as a score of 0.
type Scorer interface {
	Score(ctx context.Context, q Query, out Output) (map[string]float64, error)
}

// ScorerFunc adapts a plain function to a Scorer.
type ScorerFunc func(ctx context.Context, q Query, out Output) (map[string]float64, error)

// Score calls f(ctx, q, out).
func (f ScorerFunc) Score(ctx context.Context, q Query, out Output) (map[string]float64, error) {
	return f(ctx, q, out)
}

// QueryTransform rewrites a query before retrieval (expansion, HyDE, …).
type QueryTransform interface {
	Transform(ctx context.Context, q Query) (Query, error)
}

// QueryTransformFunc adapts a plain function to a QueryTransform.
type QueryTransformFunc func(ctx context.Context, q Query) (Query, error)

// Transform calls f(ctx, q).
func (f QueryTransformFunc) Transform(ctx context.Context, q Query) (Query, error) {
	return f(ctx, q)
}

// Reranker reorders (and may cut) a ranked list for a query.
type Reranker interface {
	Rerank(ctx context.Context, q Query, hits []Hit) ([]Hit, error)
}

// RerankerFunc adapts a plain function to a Reranker.
type RerankerFunc func(ctx context.Context, q Query, hits []Hit) ([]Hit, error)

// Rerank calls f(ctx, q, hits).
func (f RerankerFunc) Rerank(ctx context.Context, q Query, hits []Hit) ([]Hit, error) {
	return f(ctx, q, hits)
}

// Facts are what a retriever or pipeline learnt while it built its index
// over the benchmark's corpus. The bundle records them, and the engine
// raises integrity findings from them, whichever front end runs the arm
// (go test, the lasagna CLI, the dashboard). The built-in arms report
// theirs the same way. The zero Facts reports nothing.
type Facts struct {
	// IngestGap, when not nil, is the number of corpus documents the
	// index could not take (0: it took them all), recorded as
	// held_fixed.corpus_ingest_gap; above 0 it raises the blocking
	// PARTIAL_CORPUS, since documents missing from the index make every
	// score lower than the system's. IngestErrors says why, in a line or
	// two (the first failures), for the finding's detail.
	IngestGap    *int
	IngestErrors string
	// EmbedderDim is the dimension of the index's embeddings (0: none),
	// recorded as held_fixed.embedder_dim.
	EmbedderDim int
	// Documents, UniqueTerms and TotalTerms are the index's corpus
	// statistics (a lexical index: documents indexed, distinct terms,
	// term occurrences), recorded as the config's corpus_stats when
	// Documents is above 0, so an index can be checked against another
	// implementation's.
	Documents, UniqueTerms, TotalTerms int
}

// FactReporter is implemented by a Retriever or Pipeline (or what an
// arm's BuildRetriever or Build returns) that reports Facts. The engine
// asks once, right after the arm is built on a benchmark.
type FactReporter interface {
	Facts() Facts
}

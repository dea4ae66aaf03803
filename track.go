package lasagna

// Track is a kind of evaluation a benchmark can support.
type Track string

const (
	// TrackRetrieval scores ranked document lists against qrels.
	TrackRetrieval Track = "retrieval"
	// TrackGeneration scores answers generated from passages.
	TrackGeneration Track = "generation"
	// TrackClosedBook scores answers generated without any passage.
	TrackClosedBook Track = "closed_book"
)

// Tracks returns every track in a fixed order. Each call returns a new
// slice.
func Tracks() []Track { return []Track{TrackRetrieval, TrackGeneration, TrackClosedBook} }

// Mode is what a run resolved to (resolved_mode in a bundle).
type Mode string

const (
	ModeRetrieval  Mode = "retrieval"   // ranked lists only
	ModeGeneration Mode = "generation"  // answers from the gold passages
	ModeRAG        Mode = "rag"         // retrieval, then answers from the retrieved passages
	ModeClosedBook Mode = "closed_book" // answers with no passages
)

// Stage is one of the eight pipeline stages, in pipeline order.
type Stage string

const (
	StageDocumentProcessor Stage = "document_processor"
	StageChunker           Stage = "chunker"
	StageEmbedder          Stage = "embedder"
	StageVectorBackend     Stage = "vector_backend"
	StageQueryTransform    Stage = "query_transform"
	StageRetriever         Stage = "retriever"
	StageReranker          Stage = "reranker"
	StageGenerator         Stage = "generator"
)

// Stages returns the stages in pipeline order. Each call returns a new
// slice.
func Stages() []Stage {
	return []Stage{
		StageDocumentProcessor, StageChunker, StageEmbedder, StageVectorBackend,
		StageQueryTransform, StageRetriever, StageReranker, StageGenerator,
	}
}

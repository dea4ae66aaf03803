package embed

import (
	"context"
	"fmt"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/llm"
)

// defaultBatchSize is the number of inputs sent per embeddings request when
// Config.BatchSize is zero.
const defaultBatchSize = 128

// Config configures an OpenAI-compatible embedder. The zero value uses
// the client's Config.EmbeddingModel, batches of 128, one
// request at a time, and learns the dimension from the first response.
type Config struct {
	// Model is the embedding model; "" means the client's
	// Config.EmbeddingModel.
	Model string
	// BatchSize is the number of inputs per request; 0 means
	// 128.
	BatchSize int
	// Concurrency is the number of batch requests of one Embed call in
	// flight at once; 0 means 1. The client's own MaxConcurrency and rate
	// limits still apply.
	Concurrency int
	// Dim, when non-zero, is the vector length every response must have;
	// 0 means the length of the first vector received.
	Dim int
}

// OpenAI is a lasagna.Embedder backed by an OpenAI-compatible embeddings
// endpoint through an llm.Client (which brings retries, rate limits, the
// response cache and usage accounting under llm.StageEmbedder). It is safe
// for concurrent use.
type OpenAI struct {
	client *llm.Client
	cfg    Config

	mu  sync.Mutex
	dim int
}

var _ lasagna.Embedder = (*OpenAI)(nil)

// NewOpenAI returns an embedder using client. client must not be nil.
func NewOpenAI(client *llm.Client, cfg Config) (*OpenAI, error) {
	if client == nil {
		return nil, fmt.Errorf("embed: nil llm client")
	}
	if cfg.BatchSize < 0 || cfg.Concurrency < 0 || cfg.Dim < 0 {
		return nil, fmt.Errorf("embed: negative BatchSize %d, Concurrency %d or Dim %d", cfg.BatchSize, cfg.Concurrency, cfg.Dim)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = defaultBatchSize
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 1
	}
	return &OpenAI{client: client, cfg: cfg, dim: cfg.Dim}, nil
}

// Dim returns the vector length: Config.Dim when set, otherwise the length
// learnt from the first successful call (0 before it).
func (e *OpenAI) Dim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// Model returns the configured model name ("" when the client's default is
// used).
func (e *OpenAI) Model() string { return e.cfg.Model }

// Embed returns one vector per text, in the order of texts, sending them in
// batches of Config.BatchSize. No texts give no vectors and no request. Any
// failed batch fails the call with the llm error of that batch (test it
// with errors.Is against llm.ErrRateLimited, llm.ErrMalformed, …); no
// partial result is returned. Vectors of differing lengths, or of a length
// other than Dim once known, are an error wrapping llm.ErrMalformed.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	out := make([][]float32, len(texts))
	type span struct{ lo, hi int }
	var spans []span
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		spans = append(spans, span{lo, min(lo+e.cfg.BatchSize, len(texts))})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(spans))
	sem := make(chan struct{}, e.cfg.Concurrency)
	var wg sync.WaitGroup
	for i, s := range spans {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			vecs, _, err := e.client.Embed(ctx, texts[s.lo:s.hi], e.cfg.Model)
			if err != nil {
				errs[i] = fmt.Errorf("embed: batch %d (texts %d–%d): %w", i, s.lo, s.hi-1, err)
				cancel()
				return
			}
			copy(out[s.lo:s.hi], vecs)
		})
	}
	wg.Wait()
	// Report the first batch that failed for its own reason, not one
	// cancelled because another failed.
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil || llm.Code(first) == "canceled" && llm.Code(err) != "canceled" {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := parentErr(ctx, out); err != nil {
		return nil, err
	}
	return out, e.checkDim(out)
}

// parentErr reports a cancellation that stopped batches from starting.
func parentErr(ctx context.Context, out [][]float32) error {
	for i, v := range out {
		if v == nil {
			return fmt.Errorf("embed: text %d not embedded: %w", i, context.Cause(ctx))
		}
	}
	return nil
}

func (e *OpenAI) checkDim(vecs [][]float32) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	want, source := e.dim, "the embedder's dimension"
	if want == 0 {
		want, source = len(vecs[0]), "the first vector's"
	}
	for i, v := range vecs {
		if len(v) != want {
			return fmt.Errorf("embed: vector %d has %d dimensions, want %d (%s): %w", i, len(v), want, source, llm.ErrMalformed)
		}
	}
	e.dim = want
	return nil
}

// Package dense is dense retrieval: an embedder turns documents and
// queries into vectors and a vector backend returns the nearest documents.
// Build indexes a corpus; documents whose embedding failed are counted as
// the corpus ingest gap rather than silently dropped.
package dense

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// DefaultBatchSize is the number of documents per Embed call when
// Options.BatchSize is 0.
const DefaultBatchSize = 256

// Options configure Build. The zero value embeds DefaultBatchSize
// documents per call.
type Options struct {
	// BatchSize is the number of documents per Embed call.
	BatchSize int
	// Progress, when set, is called after each batch with the documents
	// done and the total.
	Progress func(done, total int)
}

// Retriever is a dense retriever over an indexed corpus. It is safe for
// concurrent use when its embedder and backend are.
type Retriever struct {
	emb     lasagna.Embedder
	backend lasagna.VectorBackend
	failed  []string
	errs    []error
}

// Text returns the text embedded for a document: its title and text,
// separated by a space when both are present.
func Text(d lasagna.Document) string {
	if d.Title == "" {
		return d.Text
	}
	if d.Text == "" {
		return d.Title
	}
	return d.Title + " " + d.Text
}

// Build embeds every document of docs in batches and adds the vectors to
// backend. A document whose embedding fails (after the embedder's own
// retries; failed batches are split to find it) is left out of the index
// and counted (IngestGap); Build fails only when no document at all could
// be indexed, when ctx ends, or when the backend refuses vectors.
func Build(ctx context.Context, docs []lasagna.Document, emb lasagna.Embedder, backend lasagna.VectorBackend, opts Options) (*Retriever, error) {
	if emb == nil || backend == nil {
		return nil, errors.New("dense: Build needs an embedder and a vector backend")
	}
	size := opts.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	r := &Retriever{emb: emb, backend: backend}
	indexed := 0
	for start := 0; start < len(docs); start += size {
		batch := docs[start:min(start+size, len(docs))]
		n, err := r.add(ctx, batch, indexed == 0)
		if err != nil {
			return nil, err
		}
		indexed += n
		if opts.Progress != nil {
			opts.Progress(min(start+size, len(docs)), len(docs))
		}
	}
	if len(docs) > 0 && indexed == 0 {
		return nil, fmt.Errorf("dense: no document could be embedded: %w", errors.Join(r.errs...))
	}
	return r, nil
}

// add embeds and indexes batch, returning how many documents were indexed.
// A failed Embed call is split in halves and retried, so one bad document
// (say, one too long for the model) costs only itself; when nothing has
// been indexed yet (first) and a whole batch fails, add stops splitting:
// the endpoint is more likely down than every document bad.
func (r *Retriever) add(ctx context.Context, batch []lasagna.Document, first bool) (int, error) {
	texts := make([]string, len(batch))
	ids := make([]string, len(batch))
	for i, d := range batch {
		texts[i] = Text(d)
		ids[i] = d.ID
	}
	vecs, err := r.emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err == nil {
		if err := r.backend.Add(ctx, ids, vecs); err != nil {
			return 0, fmt.Errorf("dense: index documents %s…%s: %w", ids[0], ids[len(ids)-1], err)
		}
		return len(batch), nil
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if len(batch) > 1 {
		half := len(batch) / 2
		n1, err1 := r.add(ctx, batch[:half], first)
		if err1 != nil {
			return 0, err1
		}
		if first && n1 == 0 {
			r.failed = append(r.failed, ids[half:]...)
			return 0, nil
		}
		n2, err2 := r.add(ctx, batch[half:], false)
		return n1 + n2, err2
	}
	r.failed = append(r.failed, ids[0])
	r.errs = append(r.errs, fmt.Errorf("document %s: %w", ids[0], err))
	return 0, nil
}

// IngestGap returns the number of corpus documents that failed to embed and
// are missing from the index.
func (r *Retriever) IngestGap() int { return len(r.failed) }

// IngestErrors describes why documents failed to embed, one line per
// failed batch ("" when none failed).
func (r *Retriever) IngestErrors() string {
	var b strings.Builder
	for i, e := range r.errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Retrieve embeds the query text and returns the k nearest documents.
func (r *Retriever) Retrieve(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
	vecs, err := r.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed query: the embedder returned %d vectors for 1 text", len(vecs))
	}
	return r.backend.Search(ctx, vecs[0], k)
}

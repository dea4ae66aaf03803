// Package dense is dense retrieval: an embedder turns documents and
// queries into vectors and a vector backend returns the nearest documents.
// Build indexes a corpus; documents that failed to embed or to be stored
// are counted as the corpus ingest gap rather than silently dropped.
//
// Over a vector.Store (the embedded exact index, or an adapter for an
// engine such as PostgreSQL with pgvector or Weaviate), Build keeps the
// corpus in a collection named by the corpus and the embedder
// (vector.CollectionName), reuses it on a rerun when it holds the same
// corpus, and refuses one that holds another.
package dense

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/vector"
)

// defaultBatchSize is the number of documents per Embed call when
// Options.BatchSize is 0.
const defaultBatchSize = 256

// Options configure Build. The zero value embeds 256
// documents per call into a cosine collection.
type Options struct {
	// BatchSize is the number of documents per Embed call and per store
	// batch.
	BatchSize int
	// Progress, when set, is called after each batch with the documents
	// done and the total (once with the total when a collection is
	// reused).
	Progress func(done, total int)
	// Model names the embedding model; over a vector.Store it names the
	// collection. "" takes the embedder's Model() when it has one. A
	// store other than the in-memory *vector.Index keeps collections
	// between runs, so there a model name is required.
	Model string
	// Metric is the similarity the collection is searched by; "" means
	// vector.Cosine.
	Metric vector.Metric
}

// Retriever is a dense retriever over an indexed corpus. It is safe for
// concurrent use when its embedder and backend are.
type Retriever struct {
	emb     lasagna.Embedder
	backend lasagna.VectorBackend
	text    vector.TextStore // set when the backend keeps texts
	plain   bool             // backend is not a vector.Store
	coll    vector.Collection
	reused  bool
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
// backend.
//
// When backend is a vector.Store, Build opens the collection the corpus
// and the model name (Options.Model): a sealed collection holding this
// corpus (same fingerprint and document count) is reused without
// embedding a single document; one holding another corpus, or more
// documents than docs, is refused with an error naming the collection and
// how to drop it; otherwise the corpus is added (an upsert, so an
// interrupted ingest resumes) and the collection sealed with the number of
// documents stored. A vector.TextStore receives the documents' texts too
// (AddDocuments); with a TextStore, emb may be nil: the collection then
// holds texts only, for the engine's own keyword search, and is named with
// an empty model.
//
// A document whose embedding or storing fails (after the embedder's and
// the store's own retries; failed batches are split to find it) is left
// out and counted (IngestGap). Build fails when no document at all could
// be stored (it stops after the first batch when that stored none: the
// endpoint or server is more likely down than every document bad), when
// ctx ends, when the collection cannot be opened or sealed, and, for a
// plain lasagna.VectorBackend (not a vector.Store), when it refuses
// vectors.
func Build(ctx context.Context, docs []lasagna.Document, emb lasagna.Embedder, backend lasagna.VectorBackend, opts Options) (*Retriever, error) {
	if backend == nil {
		return nil, errors.New("dense: Build needs a vector backend")
	}
	store, isStore := backend.(vector.Store)
	ts, isText := backend.(vector.TextStore)
	if emb == nil && !isText {
		return nil, errors.New("dense: Build needs an embedder (only a vector.TextStore can hold a corpus's texts alone)")
	}
	size := opts.BatchSize
	if size <= 0 {
		size = defaultBatchSize
	}
	r := &Retriever{emb: emb, backend: backend, plain: !isStore}
	if isText {
		r.text = ts
	}
	if isStore {
		model := ""
		if emb != nil {
			model = opts.Model
			if m, ok := emb.(interface{ Model() string }); ok && model == "" {
				model = m.Model()
			}
			if _, mem := store.(*vector.Index); model == "" && !mem {
				return nil, fmt.Errorf("dense: the %s collection is named by the embedding model; set Options.Model", store.Describe().Name)
			}
		}
		metric := opts.Metric
		if metric == "" {
			metric = vector.Cosine
		}
		fp := vector.CorpusFingerprint(docs, Text)
		r.coll = vector.Collection{Name: vector.CollectionName(fp, model), Fingerprint: fp, Documents: len(docs), Embedder: model, Metric: metric}
		st, err := store.Open(ctx, r.coll)
		if err != nil {
			return nil, fmt.Errorf("dense: open collection %s in %s: %w", r.coll.Name, store.Describe().Name, err)
		}
		switch {
		case st.Sealed && st.Fingerprint == fp && st.Documents == len(docs):
			r.reused = true
			if opts.Progress != nil {
				opts.Progress(len(docs), len(docs))
			}
			return r, nil
		case st.Fingerprint != "" && st.Fingerprint != fp:
			return nil, refuse(store, r.coll, fmt.Sprintf("holds another corpus (fingerprint %.16s…, this corpus's is %.16s…)", st.Fingerprint, fp))
		case st.Documents > len(docs):
			return nil, refuse(store, r.coll, fmt.Sprintf("holds %d documents and this corpus has %d", st.Documents, len(docs)))
		}
	}
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
		if indexed == 0 {
			break
		}
	}
	if len(docs) > 0 && indexed == 0 {
		what := "embedded and stored"
		if emb == nil {
			what = "stored"
		}
		return nil, fmt.Errorf("dense: no document could be %s: %w", what, errors.Join(r.errs...))
	}
	if isStore {
		if err := store.Seal(ctx, r.coll, indexed); err != nil {
			return nil, fmt.Errorf("dense: seal collection %s in %s: %w", r.coll.Name, store.Describe().Name, err)
		}
	}
	return r, nil
}

// refuse returns the error for a collection Build must not add to: what
// is wrong with it and how to drop it.
func refuse(store vector.Store, c vector.Collection, why string) error {
	name := store.Describe().Name
	fix := ""
	if d, ok := store.(vector.Dropper); ok {
		fix = d.DropCommand(c)
	}
	if fix == "" {
		switch name {
		case "pgvector":
			fix = fmt.Sprintf("psql -c 'DROP TABLE %s' (connecting as the sweep's dsn does)", c.Name)
		case "weaviate":
			fix = fmt.Sprintf("curl -X DELETE \"$WEAVIATE_URL/v1/schema/%s\" (the class of collection %s; add -H \"Authorization: Bearer $WEAVIATE_API_KEY\" when the server needs a key)", capitalize(c.Name), c.Name)
		case "exact":
			return fmt.Errorf("dense: the exact index %s; build each corpus into a new index (vector.New)", why)
		default:
			fix = "drop collection " + c.Name + " in the backend"
		}
	}
	return fmt.Errorf("dense: %s collection %s %s; it is named by the corpus and the embedder, so something else wrote to it. Drop it and rerun to ingest the corpus again: %s", name, c.Name, why, fix)
}

// capitalize upper-cases the first letter of an ASCII name, as Weaviate
// does to a class name.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// errPlain marks a plain VectorBackend's refusal, which fails Build.
type errPlain struct{ err error }

func (e errPlain) Error() string { return e.err.Error() }
func (e errPlain) Unwrap() error { return e.err }

// put embeds batch (unless the collection holds texts only) and stores it.
func (r *Retriever) put(ctx context.Context, batch []lasagna.Document) error {
	var vecs [][]float32
	if r.emb != nil {
		texts := make([]string, len(batch))
		for i, d := range batch {
			texts[i] = Text(d)
		}
		var err error
		vecs, err = r.emb.Embed(ctx, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), len(texts))
		}
		if err != nil {
			return err
		}
	}
	if r.text != nil {
		return r.text.AddDocuments(ctx, batch, vecs)
	}
	ids := make([]string, len(batch))
	for i, d := range batch {
		ids[i] = d.ID
	}
	err := r.backend.Add(ctx, ids, vecs)
	if err != nil && r.plain {
		return errPlain{fmt.Errorf("dense: index documents %s…%s: %w", ids[0], ids[len(ids)-1], err)}
	}
	return err
}

// add embeds and stores batch, returning how many documents were stored.
// A failed batch (embedding or storing) is split in halves and retried, so
// one bad document (say, one too long for the model) costs only itself.
// While nothing has been stored yet (first), a first half that fails
// whole is not followed by splitting the second half: that half is tried
// once whole and counted failed when it fails too, as the endpoint or the
// server is then more likely down than every document bad.
func (r *Retriever) add(ctx context.Context, batch []lasagna.Document, first bool) (int, error) {
	err := r.put(ctx, batch)
	if err == nil {
		return len(batch), nil
	}
	var plain errPlain
	if errors.As(err, &plain) {
		return 0, plain.err
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if len(batch) == 1 {
		r.fail(batch, err)
		return 0, nil
	}
	half := len(batch) / 2
	n1, err1 := r.add(ctx, batch[:half], first)
	if err1 != nil {
		return 0, err1
	}
	if first && n1 == 0 {
		rest := batch[half:]
		err := r.put(ctx, rest)
		switch {
		case err == nil:
			return len(rest), nil
		case errors.As(err, &plain):
			return 0, plain.err
		case ctx.Err() != nil:
			return 0, ctx.Err()
		}
		r.fail(rest, err)
		return 0, nil
	}
	n2, err2 := r.add(ctx, batch[half:], false)
	return n1 + n2, err2
}

// fail counts the documents of batch as not stored, for err.
func (r *Retriever) fail(batch []lasagna.Document, err error) {
	for _, d := range batch {
		r.failed = append(r.failed, d.ID)
	}
	if len(batch) == 1 {
		r.errs = append(r.errs, fmt.Errorf("document %s: %w", batch[0].ID, err))
		return
	}
	r.errs = append(r.errs, fmt.Errorf("documents %s…%s (%d): %w", batch[0].ID, batch[len(batch)-1].ID, len(batch), err))
}

// Collection returns the collection the corpus was stored in (the zero
// Collection when the backend is not a vector.Store).
func (r *Retriever) Collection() vector.Collection { return r.coll }

// Reused reports whether Build found the corpus already stored (a sealed
// collection with its fingerprint and document count) and embedded none
// of its documents.
func (r *Retriever) Reused() bool { return r.reused }

// IngestGap returns the number of corpus documents that failed to embed or
// to be stored and are missing from the index.
func (r *Retriever) IngestGap() int { return len(r.failed) }

// IngestErrors describes why documents failed to embed or to be stored,
// one entry per failed document or batch ("" when none failed).
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

// Retrieve embeds the query text and returns the k nearest documents. It
// fails on a collection of texts alone (Build without an embedder).
func (r *Retriever) Retrieve(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
	if r.emb == nil {
		return nil, fmt.Errorf("dense: collection %s holds texts only; search it with the store's keyword search", r.coll.Name)
	}
	vecs, err := r.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed query: the embedder returned %d vectors for 1 text", len(vecs))
	}
	return r.backend.Search(ctx, vecs[0], k)
}

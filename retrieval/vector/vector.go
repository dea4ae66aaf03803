package vector

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/numfmt"
	"github.com/lasagna-go/lasagna/internal/topk"
)

// Metric is how a query vector is compared with the stored vectors.
type Metric string

const (
	// Cosine is the cosine similarity (vectors normalised to unit length).
	Cosine Metric = "cosine"
	// Dot is the raw dot product.
	Dot Metric = "dot"
)

// ParseMetric returns the metric named s ("cosine" or "dot").
func ParseMetric(s string) (Metric, error) {
	switch m := Metric(strings.ToLower(strings.TrimSpace(s))); m {
	case Cosine, Dot:
		return m, nil
	}
	return "", fmt.Errorf("vector: unknown metric %q; use %q or %q", s, Cosine, Dot)
}

// MetricOr returns the metric m names, as ParseMetric reads it, or def
// where m is empty: how a store settles the metric of a Config or a
// Collection.
func MetricOr(m, def Metric) (Metric, error) {
	if m == "" {
		m = def
	}
	return ParseMetric(string(m))
}

// Index is an exact in-memory vector index. The zero Index uses Cosine; New
// chooses the metric. The dimension is set by the first vector added. An
// Index must not be copied after first use.
type Index struct {
	metric Metric
	mu     sync.RWMutex
	dim    int
	ids    []string
	pos    map[string]int
	data   []float32 // len(ids)·dim values, row-major
}

var _ Store = (*Index)(nil)

// New returns an empty index with the given metric; "" means Cosine. It
// fails on any other metric.
func New(metric Metric) (*Index, error) {
	metric, err := MetricOr(metric, Cosine)
	if err != nil {
		return nil, err
	}
	return &Index{metric: metric}, nil
}

// Metric returns the index's metric.
func (ix *Index) Metric() Metric {
	if ix.metric == "" {
		return Cosine
	}
	return ix.metric
}

// Len returns the number of vectors stored.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.ids)
}

// Dim returns the dimension of the stored vectors, 0 while the index is empty.
func (ix *Index) Dim() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.dim
}

// check returns an error naming what (the vector's id) when v cannot be
// stored or searched.
func (ix *Index) check(what string, v []float32, dim int) error {
	if len(v) != 0 && dim != 0 && len(v) != dim {
		return fmt.Errorf("vector: %s has %d dimensions, want %d (the index's dimension, set by its first vector); embed every text with the same model", what, len(v), dim)
	}
	if err := CheckVector(what, v, ix.Metric()); err != nil {
		return fmt.Errorf("vector: %w", err)
	}
	return nil
}

// CheckVector returns an error, without a package prefix, naming what (a
// vector's id, or "the query vector") when v cannot be stored or searched
// with metric m: it is empty, holds a NaN or an infinity, or is all zeros
// under any metric but Dot. A store checks a non-empty v's dimension
// first, itself, since only it can say where the dimension comes from.
func CheckVector(what string, v []float32, m Metric) error {
	if len(v) == 0 {
		return fmt.Errorf("%s is empty; embed the text before adding it", what)
	}
	var norm float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s has %v at position %d; vectors must be finite", what, x, i)
		}
		norm += float64(x) * float64(x)
	}
	if m != Dot && norm == 0 {
		return fmt.Errorf("%s is all zeros and has no direction for cosine similarity", what)
	}
	return nil
}

// Add stores vectors[i] under ids[i], replacing the vector of an id
// already stored (an idempotent upsert, as Store requires). It checks the
// whole batch first and stores nothing when any check fails: ids and
// vectors of different lengths, an empty id, an id given twice in the
// batch, a vector of another dimension than the index's (the error names
// the id), a NaN or infinite value, or (Cosine) an all-zero vector. The
// vectors are copied. Add fails only with ctx's error when ctx is done.
func (ix *Index) Add(ctx context.Context, ids []string, vectors [][]float32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(ids) != len(vectors) {
		return fmt.Errorf("vector: %d ids but %d vectors; give one vector per id", len(ids), len(vectors))
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	dim := ix.dim
	batch := make(map[string]bool, len(ids))
	for i, id := range ids {
		if id == "" {
			return fmt.Errorf("vector: id %d of the batch (0-based) is empty; give every vector an id", i)
		}
		if batch[id] {
			return fmt.Errorf("vector: id %q is given twice in the batch; ids must be unique", id)
		}
		batch[id] = true
		if err := ix.check(fmt.Sprintf("vector %q", id), vectors[i], dim); err != nil {
			return err
		}
		dim = len(vectors[i])
	}
	if ix.pos == nil {
		ix.pos = make(map[string]int)
	}
	ix.dim = dim
	ix.data = slices.Grow(ix.data, len(ids)*dim)
	for i, id := range ids {
		var row []float32
		if p, ok := ix.pos[id]; ok {
			row = ix.data[p*dim : (p+1)*dim]
			copy(row, vectors[i])
		} else {
			ix.pos[id] = len(ix.ids)
			ix.ids = append(ix.ids, id)
			start := len(ix.data)
			ix.data = append(ix.data, vectors[i]...)
			row = ix.data[start:]
		}
		if ix.Metric() == Cosine {
			normalize(row)
		}
	}
	return nil
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Search returns the k stored ids most similar to vector, best first, ties
// by descending id (trec_eval's order); all of them when k exceeds Len, none when k ≤ 0 or the
// index is empty. It fails when vector does not fit the index (its dimension,
// a NaN or infinite value, an all-zero vector under Cosine) and when ctx is
// done.
func (ix *Index) Search(ctx context.Context, vector []float32, k int) ([]lasagna.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if k <= 0 || len(ix.ids) == 0 {
		return nil, nil
	}
	if err := ix.check("the query vector", vector, ix.dim); err != nil {
		return nil, err
	}
	q := vector
	if ix.Metric() == Cosine {
		q = slices.Clone(vector)
		normalize(q)
	}
	// Bounded min-heap of the k best, ties broken by id.
	k = min(k, len(ix.ids))
	h := topk.New(k, make([]topk.Entry[float32, string, struct{}], 0, k))
	for i, id := range ix.ids {
		h.Offer(dot(q, ix.data[i*ix.dim:(i+1)*ix.dim]), id, struct{}{})
	}
	best := h.Sorted()
	hits := make([]lasagna.Hit, len(best))
	for r, e := range best {
		hits[r] = lasagna.Hit{ID: e.Tie, Score: numfmt.Float32(e.Score)}
	}
	return hits, nil
}

// Open reports what the index holds: an index is its own collection, so c
// names nothing to create. A non-empty index reports Exists and its
// number of vectors as Documents; it is never Sealed (Seal records
// nothing), so the dense stage adds the corpus to it (Add replaces
// the vectors of ids already there). Open fails when c asks for another
// metric than the index's.
func (ix *Index) Open(ctx context.Context, c Collection) (State, error) {
	if err := ctx.Err(); err != nil {
		return State{}, err
	}
	if c.Metric != "" && c.Metric != ix.Metric() {
		return State{}, fmt.Errorf("vector: collection %s is searched by %s, and this index by %s; make the index with vector.New(%q)", c.Name, c.Metric, ix.Metric(), c.Metric)
	}
	n := ix.Len()
	return State{Exists: n > 0, Documents: n}, nil
}

// Seal does nothing: the exact index keeps no record between runs and
// needs no index built after a load.
func (ix *Index) Seal(ctx context.Context, c Collection, stored int) error { return nil }

// Describe names the embedded exact index: Name "exact", the held_fixed
// vector_backend value bundles have always recorded for it.
func (ix *Index) Describe() Description { return Description{Name: "exact"} }

// Close does nothing: the index holds no connection.
func (ix *Index) Close() error { return nil }

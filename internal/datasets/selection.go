package datasets

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/sampleid"
)

// DefaultSeed is the sampling seed used when Selection.Seed is nil.
const DefaultSeed uint64 = 42

// Selection picks the queries a run uses: Filters first, then NSamples.
//
// Filters maps metadata keys to wanted values; a query is kept when, for
// every key, its metadata value equals the wanted value. Values compare by
// JSON kind: numbers numerically whatever their Go type (int 2 equals
// float64 2.0 and json.Number "2"), strings exactly (case-sensitive),
// booleans and null as themselves, lists and objects by deep equality; a
// string never equals a number ("2" ≠ 2). A wanted value that is a list of
// scalars ([]any or []string) keeps a query whose value equals any element.
// A query without the key is dropped.
//
// NSamples > 0 keeps that many queries chosen by Seed (nil means
// DefaultSeed): the filtered ids are sorted, shuffled with a PCG generator
// seeded (seed, 0) and the first NSamples taken, so the choice depends only
// on the ids, the seed and NSamples, not on row order. NSamples 0 (or at
// least the number of queries) keeps all.
type Selection struct {
	Filters  map[string]any
	NSamples int
	Seed     *uint64
}

// SampleInfo describes what Select kept.
type SampleInfo struct {
	Total    int    // queries in the benchmark
	Filtered int    // queries left after the filters
	Sampled  int    // queries kept
	Seed     uint64 // the seed used
	// Filters are the filters applied (nil when none), recorded in
	// held_fixed.filters so the sample can be drawn again from the data.
	Filters map[string]any
	IDs     []string // kept ids, sorted (byte order)
	// Digest is sample_id_digest: the sha256 hex of the sorted kept ids,
	// each followed by "\n".
	Digest string
}

// Select returns a copy of b holding the selected queries, in b's order,
// and what was kept. The corpus and qrels are shared with b, whole. A filter
// that keeps no query, or a negative NSamples, is an error.
func Select(b *lasagna.Benchmark, s Selection) (*lasagna.Benchmark, SampleInfo, error) {
	seed := DefaultSeed
	if s.Seed != nil {
		seed = *s.Seed
	}
	info := SampleInfo{Total: len(b.Queries), Seed: seed}
	if s.NSamples < 0 {
		return nil, info, fmt.Errorf("n_samples %d is negative; give a positive number, or 0 for all queries", s.NSamples)
	}
	kept := make([]lasagna.Query, 0, len(b.Queries))
	for _, q := range b.Queries {
		if s.Match(q) {
			kept = append(kept, q)
		}
	}
	info.Filtered = len(kept)
	if len(s.Filters) > 0 {
		info.Filters = maps.Clone(s.Filters)
	}
	if len(kept) == 0 && len(s.Filters) > 0 {
		return nil, info, NoMatch(b.Name, s.Filters, metadataKeys(b))
	}
	ids := make([]string, len(kept))
	for i, q := range kept {
		ids[i] = q.ID
	}
	if chosen := s.Sample(ids); chosen != nil {
		kept = slices.DeleteFunc(kept, func(q lasagna.Query) bool { return !chosen[q.ID] })
	}
	info.Sampled = len(kept)
	info.IDs = make([]string, len(kept))
	for i, q := range kept {
		info.IDs[i] = q.ID
	}
	slices.Sort(info.IDs)
	info.Digest = SampleDigest(info.IDs)
	out := *b
	out.Queries = kept
	return &out, info, nil
}

// Match reports whether q passes the filters of s: for every key, its
// metadata value equals the wanted value (see Selection).
func (s Selection) Match(q lasagna.Query) bool {
	for k, want := range s.Filters {
		v, has := q.Metadata[k]
		if !has || !filterMatch(v, want) {
			return false
		}
	}
	return true
}

// Sample returns the ids s.NSamples keeps of ids, the ids of the queries
// the filters kept (in any order; ids is sorted in place), as Select
// chooses them; nil when it keeps all.
func (s Selection) Sample(ids []string) map[string]bool {
	if s.NSamples <= 0 || s.NSamples >= len(ids) {
		return nil
	}
	seed := DefaultSeed
	if s.Seed != nil {
		seed = *s.Seed
	}
	slices.Sort(ids)
	r := rand.New(rand.NewPCG(seed, 0))
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	chosen := make(map[string]bool, s.NSamples)
	for _, id := range ids[:s.NSamples] {
		chosen[id] = true
	}
	return chosen
}

// NoMatch is the error of filters that keep none of the queries of the
// benchmark name, whose metadata keys are keys (sorted).
func NoMatch(name string, filters map[string]any, keys []string) error {
	k := "none"
	if len(keys) > 0 {
		k = strings.Join(keys, ", ")
	}
	return fmt.Errorf("benchmark %s: filters %s keep no query (metadata keys present: %s)", name, formatFilters(filters), k)
}

// SampleDigest returns the sha256 hex of ids (which must be sorted), each
// followed by "\n": the sample_id_digest of a bundle.
func SampleDigest(sortedIDs []string) string { return sampleid.Digest(sortedIDs) }

func filterMatch(have, want any) bool {
	switch w := want.(type) {
	case []any:
		for _, x := range w {
			if valueEqual(have, x) {
				return true
			}
		}
		return false
	case []string:
		for _, x := range w {
			if valueEqual(have, x) {
				return true
			}
		}
		return false
	}
	return valueEqual(have, want)
}

// number returns v as a float64 when it is a number of any Go type.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return math.NaN(), false
}

func valueEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	if _, ok := number(b); ok {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func formatFilters(f map[string]any) string {
	keys := slices.Sorted(maps.Keys(f))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %v", k, f[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func metadataKeys(b *lasagna.Benchmark) []string {
	set := map[string]bool{}
	for _, q := range b.Queries {
		for k := range q.Metadata {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

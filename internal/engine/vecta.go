package engine

import (
	"encoding/json"
	"math"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// scoreVecta adds to dst the Vecta set metrics of query q (chunk_, page_
// and document_ precision, recall and f1; metrics.ScoreVecta) for the
// ranked list hits. A level is scored when q's metadata has its ground
// truth (chunk_ids, page_nums, source_paths) and the hits carry it: some
// hit's Cite has a ChunkID, a PageNum or a SourcePath. On a Vecta CSV benchmark,
// whose chunk_ids are the judged ids, a hit's ID stands for a missing
// ChunkID, so its chunk level is scored for every list, even an empty
// one. Any other level is absent (not available), never 0.
func scoreVecta(b *lasagna.Benchmark, q *lasagna.Query, hits []lasagna.Hit, dst map[string]float64) {
	if len(q.Metadata) == 0 {
		return
	}
	gold := metrics.VectaRefs{
		ChunkIDs:    metaStrings(q.Metadata["chunk_ids"]),
		PageNums:    metaInts(q.Metadata["page_nums"]),
		SourcePaths: metaStrings(q.Metadata["source_paths"]),
	}
	if len(gold.ChunkIDs) == 0 && len(gold.PageNums) == 0 && len(gold.SourcePaths) == 0 {
		return
	}
	idIsChunk := b.Format == lasagna.FormatVecta
	var got metrics.VectaRefs
	hasChunk, hasPage, hasDoc := idIsChunk, false, false
	for _, h := range hits {
		c := h.Cite
		if c == nil {
			c = &lasagna.Citation{}
		}
		switch {
		case c.ChunkID != "":
			got.ChunkIDs = append(got.ChunkIDs, c.ChunkID)
			hasChunk = true
		case idIsChunk:
			got.ChunkIDs = append(got.ChunkIDs, h.ID)
		}
		if c.PageNum != nil {
			got.PageNums = append(got.PageNums, *c.PageNum)
			hasPage = true
		}
		if c.SourcePath != "" {
			got.SourcePaths = append(got.SourcePaths, c.SourcePath)
			hasDoc = true
		}
	}
	s := metrics.ScoreVecta(got, gold)
	s.Chunk.OK = s.Chunk.OK && hasChunk
	s.Page.OK = s.Page.OK && hasPage
	s.Document.OK = s.Document.OK && hasDoc
	s.AddTo(dst)
}

// VectaScores returns the Vecta set metrics that a run records for query
// q of benchmark b with the ranked list hits (see scoreVecta), keyed by
// their names (metrics.VectaMetricNames); a level that is not available
// is absent. The CLI scores a replayed Vecta CSV with it: the lists of a
// benchmark without a corpus do not go through the run.
func VectaScores(b *lasagna.Benchmark, q *lasagna.Query, hits []lasagna.Hit) map[string]float64 {
	m := map[string]float64{}
	scoreVecta(b, q, hits, m)
	return m
}

// metaStrings reads a list of strings from metadata: []string, or []any
// of strings (JSON). Anything else, or an empty item, is nil: the level
// has no usable ground truth.
func metaStrings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	return nil
}

// metaInts reads a list of whole numbers from metadata: []int, or []any
// of whole numbers (JSON numbers decode as float64 or json.Number).
// Anything else is nil.
func metaInts(v any) []int {
	switch x := v.(type) {
	case []int:
		return x
	case []any:
		out := make([]int, 0, len(x))
		for _, e := range x {
			var f float64
			switch n := e.(type) {
			case int:
				f = float64(n)
			case int64:
				f = float64(n)
			case float64:
				f = n
			case json.Number:
				var err error
				if f, err = n.Float64(); err != nil {
					return nil
				}
			default:
				return nil
			}
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil
			}
			out = append(out, int(f))
		}
		return out
	}
	return nil
}

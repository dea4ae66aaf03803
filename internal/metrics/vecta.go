package metrics

// VectaMetricNames returns the names of the Vecta set metrics as runs and
// bundles report them: chunk_, page_ and document_ precision, recall and
// f1, in that order.
func VectaMetricNames() []string {
	return []string{
		"chunk_precision", "chunk_recall", "chunk_f1",
		"page_precision", "page_recall", "page_f1",
		"document_precision", "document_recall", "document_f1",
	}
}

// AddTo stores the available levels of s in m under the names of
// VectaMetricNames; a level that is not available (OK false) adds nothing,
// so it is absent, never 0.
func (s VectaScore) AddTo(m map[string]float64) {
	for i, l := range []SetScore{s.Chunk, s.Page, s.Document} {
		if !l.OK {
			continue
		}
		names := VectaMetricNames()[3*i : 3*i+3]
		m[names[0]], m[names[1]], m[names[2]] = l.Precision, l.Recall, l.F1
	}
}

// VectaRefs is one side of a Vecta set comparison: the chunk ids, page
// numbers and source documents of a benchmark entry's ground truth (its
// chunk_ids, page_nums, source_paths), or the union of those of the chunks a
// retriever returned for the entry. Lists are read as sets: order and
// duplicates do not matter.
type VectaRefs struct {
	ChunkIDs    []string `json:"chunk_ids,omitempty"`
	PageNums    []int    `json:"page_nums,omitempty"`
	SourcePaths []string `json:"source_paths,omitempty"`
}

// SetScore is precision, recall and F1 of a retrieved set against a gold set.
// OK is false when the gold set is empty: the entry has no ground truth at
// this level, the scores are not available (all fields zero) and the entry
// must be left out of the level's average (see [MeanVecta]).
type SetScore struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	OK        bool    `json:"ok"`
}

// VectaScore holds the three Vecta levels for one benchmark entry: chunk
// (chunk ids), page (page numbers) and document (source paths).
type VectaScore struct {
	Chunk    SetScore `json:"chunk"`
	Page     SetScore `json:"page"`
	Document SetScore `json:"document"`
}

// ScoreVecta compares retrieved with gold at the three Vecta levels. At each
// level, with R the retrieved set and G the gold set:
// precision = |R∩G|/|R|, recall = |R∩G|/|G|, F1 = 2PR/(P+R) (0 when P+R is
// 0). When G is empty the level is not available (OK false). When G is not
// empty and R is empty, precision, recall and F1 are 0 (nothing relevant was
// retrieved; a system is not rewarded for retrieving nothing).
//
// Pages are compared as bare page numbers, because a Vecta entry lists
// page_nums and source_paths independently, without saying which page belongs
// to which source: page 3 of another document counts as a page hit. Read the
// page level together with the document level when entries span several
// documents.
func ScoreVecta(retrieved, gold VectaRefs) VectaScore {
	return VectaScore{
		Chunk:    setScore(retrieved.ChunkIDs, gold.ChunkIDs),
		Page:     setScore(retrieved.PageNums, gold.PageNums),
		Document: setScore(retrieved.SourcePaths, gold.SourcePaths),
	}
}

func setScore[T comparable](retrieved, gold []T) SetScore {
	g := make(map[T]bool, len(gold))
	for _, x := range gold {
		g[x] = true
	}
	if len(g) == 0 {
		return SetScore{}
	}
	r := make(map[T]bool, len(retrieved))
	hits := 0
	for _, x := range retrieved {
		if r[x] {
			continue
		}
		r[x] = true
		if g[x] {
			hits++
		}
	}
	s := SetScore{OK: true}
	if len(r) == 0 || hits == 0 {
		return s
	}
	s.Precision = float64(hits) / float64(len(r))
	s.Recall = float64(hits) / float64(len(g))
	s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	return s
}

// LevelMean is the macro average of one Vecta level over the entries where
// it is available. Available is false (and the means are zero, meaning "not
// available", not "scored 0") when no entry had ground truth at that level,
// e.g. page metrics on a benchmark without page_nums.
type LevelMean struct {
	N         int     `json:"n"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Available bool    `json:"available"`
}

// VectaMean holds the three level averages.
type VectaMean struct {
	Chunk    LevelMean `json:"chunk"`
	Page     LevelMean `json:"page"`
	Document LevelMean `json:"document"`
}

// MeanVecta averages per-entry scores level by level. Each level averages
// only the entries whose score is OK (entries with ground truth at that
// level), so a benchmark where half the entries have pages has its page
// metrics averaged over that half; N says how many.
func MeanVecta(scores []VectaScore) VectaMean {
	var m VectaMean
	for _, s := range scores {
		addLevel(&m.Chunk, s.Chunk)
		addLevel(&m.Page, s.Page)
		addLevel(&m.Document, s.Document)
	}
	for _, l := range []*LevelMean{&m.Chunk, &m.Page, &m.Document} {
		if l.N > 0 {
			l.Available = true
			n := float64(l.N)
			l.Precision /= n
			l.Recall /= n
			l.F1 /= n
		}
	}
	return m
}

func addLevel(l *LevelMean, s SetScore) {
	if !s.OK {
		return
	}
	l.N++
	l.Precision += s.Precision
	l.Recall += s.Recall
	l.F1 += s.F1
}

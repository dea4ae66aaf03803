package metrics

import (
	"math"
	"testing"
)

func TestScoreVecta(t *testing.T) {
	gold := VectaRefs{
		ChunkIDs:    []string{"chunk_42", "chunk_87"},
		PageNums:    []int{3, 4},
		SourcePaths: []string{"drug_guide.pdf"},
	}
	retrieved := VectaRefs{
		ChunkIDs:    []string{"chunk_42", "chunk_1", "chunk_2", "chunk_42"}, // duplicate counted once
		PageNums:    []int{3, 9},
		SourcePaths: []string{"drug_guide.pdf", "other.pdf"},
	}
	got := ScoreVecta(retrieved, gold)
	// chunks: R = {42, 1, 2}, G = {42, 87}: P 1/3, R 1/2, F1 = 2·(1/6)/(5/6) = 0.4.
	// pages:  R = {3, 9}, G = {3, 4}: P 1/2, R 1/2, F1 1/2.
	// docs:   R = {drug_guide, other}, G = {drug_guide}: P 1/2, R 1, F1 2/3.
	want := VectaScore{
		Chunk:    SetScore{1.0 / 3, 0.5, 0.4, true},
		Page:     SetScore{0.5, 0.5, 0.5, true},
		Document: SetScore{0.5, 1, 2.0 / 3, true},
	}
	if !closeVecta(got, want) {
		t.Errorf("ScoreVecta = %+v, want %+v", got, want)
	}
}

func TestScoreVectaEmpty(t *testing.T) {
	// no gold pages: page level not available; nothing retrieved: 0, available.
	got := ScoreVecta(VectaRefs{}, VectaRefs{ChunkIDs: []string{"c"}})
	want := VectaScore{Chunk: SetScore{OK: true}}
	if got != want {
		t.Errorf("ScoreVecta(empty, chunk only) = %+v, want %+v", got, want)
	}
	perfect := VectaRefs{ChunkIDs: []string{"a", "b"}, PageNums: []int{1}, SourcePaths: []string{"x"}}
	got = ScoreVecta(perfect, perfect)
	one := SetScore{1, 1, 1, true}
	if got != (VectaScore{one, one, one}) {
		t.Errorf("ScoreVecta(g, g) = %+v, want all 1", got)
	}
}

func TestMeanVecta(t *testing.T) {
	scores := []VectaScore{
		{Chunk: SetScore{1, 1, 1, true}, Document: SetScore{1, 0.5, 2.0 / 3, true}},
		{Chunk: SetScore{0, 0, 0, true}},
	}
	m := MeanVecta(scores)
	if m.Chunk != (LevelMean{N: 2, Precision: 0.5, Recall: 0.5, F1: 0.5, Available: true}) {
		t.Errorf("chunk mean = %+v", m.Chunk)
	}
	if m.Page.Available || m.Page.N != 0 {
		t.Errorf("page mean = %+v, want not available", m.Page)
	}
	if m.Document.N != 1 || m.Document.Recall != 0.5 || !m.Document.Available {
		t.Errorf("document mean = %+v, want n 1 recall 0.5", m.Document)
	}
}

func closeVecta(a, b VectaScore) bool {
	c := func(x, y SetScore) bool {
		return x.OK == y.OK && math.Abs(x.Precision-y.Precision) < 1e-12 &&
			math.Abs(x.Recall-y.Recall) < 1e-12 && math.Abs(x.F1-y.F1) < 1e-12
	}
	return c(a.Chunk, b.Chunk) && c(a.Page, b.Page) && c(a.Document, b.Document)
}

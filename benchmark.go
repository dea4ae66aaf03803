package lasagna

import (
	"fmt"
	"slices"
)

// Pos is a place in a dataset file: the file's path inside its fs.FS and the
// 1-based line number. The zero Pos means "no known place".
type Pos struct {
	File string
	Line int
}

// String formats p as file:line, file, or "" for the zero Pos.
func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	default:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
}

// Query is one benchmark question.
//
// Answers holds the reference answers; exact match and token F1 accept any of
// them, and the first is the reference an LLM judge sees. Unanswerable marks a
// question with no answer in the corpus (metadata.unanswerable in JSONL); such
// a query has no Answers. Contexts are the gold passages the dataset row gave
// (JSONL/CSV), kept so generation-only runs can show them to a generator.
// Metadata holds the row's metadata object (filter keys and provenance), and
// Pos where the row came from.
type Query struct {
	ID           string
	Text         string
	Answers      []string
	Unanswerable bool
	Contexts     []string
	Metadata     map[string]any
	Pos          Pos
}

// Document is one searchable passage of a corpus. Extra holds fields of the
// source record beyond id, title and text (BEIR's own files may carry
// "metadata"); they are kept, never interpreted.
type Document struct {
	ID    string
	Title string
	Text  string
	Extra map[string]any
}

// Qrels holds graded relevance judgements: query id → document id → grade.
// A grade above 0 marks a relevant document; an explicit 0 (or a negative
// grade) is a judged non-relevant document, which matters to metrics that
// distinguish judged from unjudged documents and never counts as relevant.
type Qrels map[string]map[string]int

// Add records one judgement, replacing an earlier grade for the same pair.
func (q Qrels) Add(queryID, docID string, grade int) {
	m := q[queryID]
	if m == nil {
		m = make(map[string]int)
		q[queryID] = m
	}
	m[docID] = grade
}

// Relevant returns the ids of the documents judged relevant (grade > 0) for
// queryID, sorted.
func (q Qrels) Relevant(queryID string) []string {
	var ids []string
	for id, g := range q[queryID] {
		if g > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Judgements returns the number of (query, document) judgements.
func (q Qrels) Judgements() int {
	n := 0
	for _, m := range q {
		n += len(m)
	}
	return n
}

// Provenance says where a benchmark's corpus came from.
type Provenance string

const (
	// ProvenanceNative is a corpus shipped with the benchmark (a BEIR folder).
	ProvenanceNative Provenance = "native"
	// ProvenancePooledGold is a corpus pooled from the gold passages of the
	// rows of a JSONL or CSV file: no hard negatives, an easier search than a
	// real corpus of the same size.
	ProvenancePooledGold Provenance = "pooled_gold"
	// ProvenanceProvided is a corpus file given beside a JSONL or CSV file
	// (BEIR corpus.jsonl layout; datasets.Options.Corpus, corpus: in a
	// sweep entry): the rows' expected_docs name its documents.
	ProvenanceProvided Provenance = "provided"
	// ProvenanceOwnIndex is never a benchmark's: it is the corpus_provenance
	// of an arm whose retriever searches the user's own index (engine.Arm
	// OwnIndex), which may hold documents the benchmark's corpus lacks.
	ProvenanceOwnIndex Provenance = "own_index"
	// ProvenanceNone marks a benchmark without a corpus (answers only).
	ProvenanceNone Provenance = ""
)

// Format is the on-disk format a benchmark was read from.
type Format string

const (
	FormatJSONL Format = "jsonl"
	FormatCSV   Format = "csv"
	FormatBEIR  Format = "beir"
	FormatVecta Format = "vecta_csv"
)

// Benchmark is a loaded dataset: its identity, queries, corpus and
// judgements.
//
// Name is the registered name (local/<stem>@<12 hex> or <name>@<12 hex>) and
// Revision the full sha256 hex digest it abbreviates; the same bytes under the
// same name give the same Name on any machine. Corpus holds each document
// once; Qrels judge Corpus ids. Provenance is ProvenanceNone when the data has
// no passages to search.
type Benchmark struct {
	Name       string
	Revision   string
	Format     Format
	Source     string // the path the benchmark was read from, relative to its fs.FS; never written to bundles
	Split      string // BEIR split; "" for files
	Provenance Provenance
	// AnswerNormalization is how answers are normalised before exact match
	// and token F1: "squad" (SQuAD v2.0's official rules; "" means squad)
	// or "orqa" (NQ-open's official rules). See metrics.Normalization.
	AnswerNormalization string
	Queries             []Query
	Corpus              []Document
	Qrels               Qrels
}

// Query returns the query with the given id, if any.
func (b *Benchmark) Query(id string) (Query, bool) {
	for _, q := range b.Queries {
		if q.ID == id {
			return q, true
		}
	}
	return Query{}, false
}

// HasAnswers reports whether at least one query has a reference answer or is
// marked unanswerable (so answers can be scored).
func (b *Benchmark) HasAnswers() bool {
	for _, q := range b.Queries {
		if len(q.Answers) > 0 || q.Unanswerable {
			return true
		}
	}
	return false
}

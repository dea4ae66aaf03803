// Package findings writes the integrity findings that both the engine (for
// a run) and results.Merge (for merged shards) raise, so that the two write
// the same line for the same facts.
package findings

import (
	"fmt"
	"slices"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// SmallSample returns the SMALL_SAMPLE finding of the arm at where when it
// scored n queries, 0 < n < metrics.SmallSampleN; ok is false otherwise.
func SmallSample(where string, n int) (f lasagna.Finding, ok bool) {
	if n <= 0 || n >= metrics.SmallSampleN {
		return lasagna.Finding{}, false
	}
	return lasagna.Finding{Code: lasagna.SmallSample, Where: where,
		Detail: fmt.Sprintf("%d scored queries; confidence intervals need at least %d", n, metrics.SmallSampleN)}, true
}

// Outside is one ranked list that held N ids outside the benchmark's
// corpus.
type Outside struct {
	QueryID string
	N       int
}

// Listed is how many lists an OUTSIDE_CORPUS_IDS line names.
const Listed = 5

// OutsideCorpus returns the OUTSIDE_CORPUS_IDS finding of the arm at where:
// lists are its ranked lists that held ids outside the corpus of corpus
// documents, of rankedLists lists in all. The first lists in query id order
// are named, so that Merge can recombine the shards' lines into the
// unsharded run's.
func OutsideCorpus(where string, lists []Outside, rankedLists, corpus int) lasagna.Finding {
	lists = slices.Clone(lists)
	SortOutside(lists)
	ids := 0
	for _, l := range lists {
		ids += l.N
	}
	return OutsideLine(where, len(lists), rankedLists, corpus, ids, lists[:min(len(lists), Listed)])
}

// SortOutside sorts lists by query id, byte-wise.
func SortOutside(lists []Outside) {
	slices.SortFunc(lists, func(a, b Outside) int { return strings.Compare(a.QueryID, b.QueryID) })
}

// OutsideLine returns the OUTSIDE_CORPUS_IDS finding of n lists of
// rankedLists holding ids ids outside a corpus of corpus documents, naming
// first.
func OutsideLine(where string, n, rankedLists, corpus, ids int, first []Outside) lasagna.Finding {
	items := make([]string, len(first))
	for i, l := range first {
		items[i] = fmt.Sprintf("%s (%d)", l.QueryID, l.N)
	}
	named := strings.Join(items, ", ")
	if n > len(first) {
		named += fmt.Sprintf(" and %d more", n-len(first))
	}
	return lasagna.Finding{Code: lasagna.OutsideCorpusIDs, Where: where,
		Detail: fmt.Sprintf("%d of %d ranked lists hold ids outside the benchmark's corpus of %d documents (%d ids in all), scored as non-relevant: %s",
			n, rankedLists, corpus, ids, named)}
}

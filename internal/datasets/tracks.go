package datasets

import (
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Capability says whether a benchmark supports one track and, when it does
// not, why and how to fix it.
type Capability struct {
	Track     lasagna.Track
	Supported bool
	Reason    string // why not; "" when supported
	Fix       string // what to change; "" when supported
}

// Capabilities returns one Capability per track, in lasagna.Tracks() order
// (docs/data.md, "What each format can measure"):
//
//   - retrieval needs a corpus and at least one query with a relevant
//     judgement (a BEIR folder, or a file whose rows have contexts);
//   - generation needs reference answers (or unanswerable marks) and
//     passages to answer from (contexts or a corpus);
//   - closed_book needs reference answers (or unanswerable marks) only.
//
// A Vecta benchmark CSV has judgements (chunk_ids) but no corpus, so it
// supports closed_book here; its retrieval judgements serve a user's own
// pipeline, which searches its own chunk store.
func Capabilities(b *lasagna.Benchmark) []Capability {
	f := TrackFacts{Format: b.Format, Answers: b.HasAnswers(), Documents: len(b.Corpus)}
	for _, m := range b.Qrels {
		for _, g := range m {
			if g > 0 {
				f.Relevant = true
				break
			}
		}
		if f.Relevant {
			break
		}
	}
	for _, q := range b.Queries {
		if f.Passages {
			break
		}
		f.Passages = len(q.Contexts) > 0
	}
	return CapabilitiesOf(f)
}

// TrackFacts are what Capabilities reads of a benchmark, so that a reader
// streaming the benchmark can gather them query by query.
type TrackFacts struct {
	Format lasagna.Format
	// Answers: a query has reference answers or is marked unanswerable.
	Answers bool
	// Relevant: a query has a document judged relevant.
	Relevant bool
	// Passages: a query has contexts.
	Passages bool
	// Documents is the size of the corpus.
	Documents int
}

// Add gathers the facts of one query and the ids of its relevant
// documents.
func (f *TrackFacts) Add(q lasagna.Query, relevant []string) {
	f.Answers = f.Answers || len(q.Answers) > 0 || q.Unanswerable
	f.Relevant = f.Relevant || len(relevant) > 0
	f.Passages = f.Passages || len(q.Contexts) > 0
}

// CapabilitiesOf is Capabilities of a benchmark described by its facts.
func CapabilitiesOf(f TrackFacts) []Capability {
	answers, relevant, passages := f.Answers, f.Relevant, f.Passages || f.Documents > 0
	noAnswers := func() (string, string) {
		if f.Format == lasagna.FormatBEIR {
			return "a BEIR folder has no reference answers", "use a JSONL or CSV file with \"answer\" (and \"contexts\") on each row"
		}
		return "no row has an answer (or metadata.unanswerable)", "add \"answer\" to the rows"
	}
	var out []Capability
	for _, t := range lasagna.Tracks() {
		c := Capability{Track: t}
		switch t {
		case lasagna.TrackRetrieval:
			switch {
			case f.Documents == 0 && f.Format == lasagna.FormatVecta:
				c.Reason, c.Fix = "a Vecta benchmark CSV has no corpus: its chunk_ids name chunks of your own store", "score the ranked chunk ids of your own pipeline against chunk_ids, or give the passages as a BEIR folder"
			case f.Documents == 0:
				c.Reason, c.Fix = "no passages to search: no row has contexts", "add \"contexts\" (the passages that answer each question) to the rows, or use a BEIR folder with its corpus"
			case !relevant:
				c.Reason, c.Fix = "no query has a relevant document", "give answerable rows their contexts (or qrels with a score above 0)"
			default:
				c.Supported = true
			}
		case lasagna.TrackGeneration:
			switch {
			case !answers:
				c.Reason, c.Fix = noAnswers()
			case !passages && f.Format == lasagna.FormatVecta:
				c.Reason, c.Fix = "a Vecta benchmark CSV has no passages to answer from", "run the closed_book track, or a pipeline of your own that retrieves its passages"
			case !passages:
				c.Reason, c.Fix = "no passages to answer from: no row has contexts", "add \"contexts\" to the rows, or run the closed_book track"
			default:
				c.Supported = true
			}
		case lasagna.TrackClosedBook:
			if !answers {
				c.Reason, c.Fix = noAnswers()
			} else {
				c.Supported = true
			}
		}
		out = append(out, c)
	}
	return out
}

// TrackError is RequireTracks' refusal: the tracks asked for that the
// benchmark cannot support.
type TrackError struct {
	Benchmark string
	Missing   []Capability
}

// Error names the benchmark and, for each missing track, the reason and the
// fix.
func (e *TrackError) Error() string {
	var b strings.Builder
	for i, c := range e.Missing {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "benchmark %s cannot run the %s track: %s (fix: %s)", e.Benchmark, c.Track, c.Reason, c.Fix)
	}
	return b.String()
}

// RequireTracks returns a *TrackError when b cannot support one of tracks
// (an unknown track is an error too), and nil otherwise. Call it before
// building any index or model.
func RequireTracks(b *lasagna.Benchmark, tracks ...lasagna.Track) error {
	caps := Capabilities(b)
	e := &TrackError{Benchmark: b.Name}
	for _, t := range tracks {
		found := false
		for _, c := range caps {
			if c.Track == t {
				found = true
				if !c.Supported {
					e.Missing = append(e.Missing, c)
				}
			}
		}
		if !found {
			tracks := lasagna.Tracks()
			names := make([]string, len(tracks))
			for i, t := range tracks {
				names[i] = string(t)
			}
			return fmt.Errorf("unknown track %q (tracks: %s)", t, strings.Join(names, ", "))
		}
	}
	if len(e.Missing) > 0 {
		return e
	}
	return nil
}

package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// maxListed is how many ids a finding names before "and N more".
const maxListed = 5

// raiseFindings raises the integrity codes a run shows: POOLED_GOLD_CORPUS,
// SYNTHETIC_BENCHMARK, MISSING_RESULTS, PIPELINE_ERRORS, UNKNOWN_DOC_ID,
// OUTSIDE_CORPUS_IDS, DUPLICATE_RETRIEVED_ID, SCORES_OUT_OF_ORDER, JUDGE_ERRORS,
// UNRESOLVED_JUDGE_ALIAS, SINGLE_RUN and SMALL_SAMPLE, in plan order.
func raiseFindings(rep *Report) []lasagna.Finding {
	var out []lasagna.Finding
	seenBench := map[*lasagna.Benchmark]bool{}
	for _, c := range rep.Cells {
		b := c.Bench.Benchmark
		if !seenBench[b] {
			seenBench[b] = true
			if n := syntheticRows(b); n > 0 {
				out = append(out, lasagna.Finding{Code: lasagna.SyntheticBenchmark, Where: b.Name,
					Detail: fmt.Sprintf("%d of %d queries are LLM-written (metadata.synthetic)", n, len(b.Queries))})
			}
		}
		// Every arm whose bundle config records corpus_provenance
		// pooled_gold is warned (results.Validate asks for it); an arm
		// that searches its own index did not use the pool.
		if !c.Arm.OwnIndex && b.Provenance == lasagna.ProvenancePooledGold {
			detail := fmt.Sprintf("retrieval searched a pool of %d gold passages from the rows' contexts, with no hard negatives", len(b.Corpus))
			switch c.Arm.ResolvedMode() {
			case lasagna.ModeGeneration:
				detail = fmt.Sprintf("answers were generated from the rows' gold passages (a pool of %d, with no hard negatives), not from what a retriever found", len(b.Corpus))
			case lasagna.ModeClosedBook:
				detail = fmt.Sprintf("the benchmark's corpus is a pool of %d gold passages from the rows' contexts; this closed_book arm did not read it", len(b.Corpus))
			}
			out = append(out, lasagna.Finding{Code: lasagna.PooledGoldCorpus, Where: c.Where(), Detail: detail})
		}
		if c.BuildErr != nil {
			out = append(out, lasagna.Finding{Code: lasagna.MissingResults, Where: c.Where(),
				Detail: fmt.Sprintf("the arm could not be built: %v", c.BuildErr)})
			continue
		}
		if gap, ok := c.Facts["corpus_ingest_gap"].(int); ok && gap > 0 {
			detail := fmt.Sprintf("%d of %d corpus documents failed to index", gap, len(b.Corpus))
			if why, ok := c.Facts["corpus_ingest_errors"].(string); ok {
				detail += ": " + why
			}
			out = append(out, lasagna.Finding{Code: lasagna.PartialCorpus, Where: c.Where(), Detail: detail})
		}
		var failed, dup, unknown, rising []string
		var outside []findings.Outside
		var firstErr error
		lists := 0
		for i := range c.Queries {
			r := &c.Queries[i]
			if r.Err != nil {
				failed = append(failed, r.Query.ID)
				if firstErr == nil {
					firstErr = r.Err
				}
				continue
			}
			if r.Duplicate != "" {
				dup = append(dup, fmt.Sprintf("%s (%s)", r.Query.ID, r.Duplicate))
			}
			if r.Unknown != "" {
				unknown = append(unknown, fmt.Sprintf("%s (%q)", r.Query.ID, r.Unknown))
			}
			if r.Outside > 0 {
				outside = append(outside, findings.Outside{QueryID: r.Query.ID, N: r.Outside})
			}
			if k := metrics.FirstRise(len(r.Output.Hits), func(i int) float64 { return r.Output.Hits[i].Score }); k > 0 {
				rising = append(rising, fmt.Sprintf("%s (rank %d)", r.Query.ID, k))
			}
			lists++ // the ranked lists of the queries that ran
		}
		if len(failed) > 0 {
			out = append(out, lasagna.Finding{Code: lasagna.PipelineErrors, Where: c.Where(),
				Detail: fmt.Sprintf("%d of %d queries failed: %s; first error: %s", len(failed), len(c.Queries), list(failed), firstLine(firstErr))})
		}
		if len(dup) > 0 {
			out = append(out, lasagna.Finding{Code: lasagna.DuplicateRetrievedID, Where: c.Where(),
				Detail: fmt.Sprintf("%d ranked lists hold an id twice and were not scored: %s", len(dup), list(dup))})
		}
		if len(unknown) > 0 {
			out = append(out, lasagna.Finding{Code: lasagna.UnknownDocID, Where: c.Where(),
				Detail: fmt.Sprintf("%d ranked lists hold ids missing from the corpus of %d documents: %s", len(unknown), len(b.Corpus), list(unknown))})
		}
		if len(outside) > 0 {
			out = append(out, findings.OutsideCorpus(c.Where(), outside, lists, len(b.Corpus)))
		}
		if len(rising) > 0 {
			out = append(out, lasagna.Finding{Code: lasagna.ScoresOutOfOrder, Where: c.Where(),
				Detail: fmt.Sprintf("%d ranked lists have a hit scored higher than the hit above it, scored in the order returned: %s", len(rising), list(rising))})
		}
		out = append(out, judgeFindings(c)...)
		if c.Arm.Sampling() && c.Arm.RunsPerQuery() == 1 {
			out = append(out, lasagna.Finding{Code: lasagna.SingleRun, Where: c.Where(),
				Detail: "an LLM sampled and each query ran once"})
		}
		if f, ok := findings.SmallSample(c.Where(), scoredQueries(c)); ok {
			out = append(out, f)
		}
	}
	return out
}

func syntheticRows(b *lasagna.Benchmark) int {
	n := 0
	for _, q := range b.Queries {
		if v, ok := q.Metadata["synthetic"].(bool); ok && v {
			n++
		}
	}
	return n
}

func scoredQueries(c *Cell) int {
	n := 0
	for _, r := range c.Queries {
		if r.Scores != nil {
			n++
		}
	}
	return n
}

// goTestFixes are the fixes of the codes whose catalogue fix names a
// command-line flag, as said inside go test (evaltest and its adapters),
// where there are no such flags. The other codes' fixes fit both.
var goTestFixes = map[lasagna.Code]string{
	lasagna.PipelineErrors: "fix the failing calls (each query's subtest shows its error) and rerun; " +
		"go test -run 'TestName/<benchmark>/<arm>/<query-id>$' reruns one query alone",
	lasagna.SingleRun: "set Config.Repeats (e.g. 3) so each query runs several times and the spread of sampled outputs is measured",
}

// GoTestFix returns the fix of code c as said inside go test: the
// catalogue's fix, or its go test wording when the catalogue's names a
// command-line flag of the lasagna command.
func GoTestFix(c lasagna.Code) string {
	if fix, ok := goTestFixes[c]; ok {
		return fix
	}
	info, _ := c.Info()
	return info.Fix
}

// GoTestFinding formats f as f.String() does, with the fix as said inside
// go test (GoTestFix). Bundles keep f.String()'s wording.
func GoTestFinding(f lasagna.Finding) string {
	s := f.String()
	info, ok := f.Code.Info()
	if fix, over := goTestFixes[f.Code]; ok && over {
		if base, found := strings.CutSuffix(s, " (fix: "+info.Fix+")"); found {
			return base + " (fix: " + fix + ")"
		}
	}
	return s
}

// firstLine returns the first line of err's text, so that a finding stays
// one line (a PanicError's stack is in the query's row and test).
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " (stack in the query's error)"
	}
	return s
}

// list names up to maxListed items and counts the rest.
func list(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// sortedPositions returns, for each index of ids, its position in the
// byte-wise sorted order of ids.
func sortedPositions(ids []string) []int {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
	pos := make([]int, len(ids))
	for p, i := range order {
		pos[i] = p
	}
	return pos
}

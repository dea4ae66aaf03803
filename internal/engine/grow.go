package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results"
)

// A baseline recorded before a benchmark grew (a query added, changed or
// removed) names the benchmark at its earlier revision
// (local/<stem>@<12 hex>). When the corpus is the same (the configs'
// corpus_digest; or both corpora are pooled from the queries' passages,
// or neither benchmark has one), the gate compares the arm on the queries
// whose id and content (the rows' query_digest) are unchanged, and says
// how many were added, changed and removed. Everything else the
// comparability key holds fixed (split, sampling, metrics version, mode,
// stages, judge model, corpus provenance) must still be equal: only the
// fields that follow the revision (benchmark, corpus_fingerprint,
// sample_id_digest) are exempt.

// growth is how the queries of a run's benchmark differ from those of the
// earlier revision its baseline was recorded on.
type growth struct {
	from string          // the baseline's benchmark (name@revision)
	to   string          // the run's
	same map[string]bool // query ids with an unchanged query_digest
	// added are in the run and not the baseline, removed the other way
	// round, changed in both with different digests.
	added, changed, removed int
}

// note says what the gate compared, for its verdicts.
func (g *growth) note() string {
	return fmt.Sprintf("gated on %d shared queries (%d added, %d changed, %d removed since the baseline's %s)",
		len(g.same), g.added, g.changed, g.removed, g.from)
}

// benchmarkStem returns a benchmark name without its @revision:
// "local/scifact" of "local/scifact@0123456789ab".
func benchmarkStem(name string) string {
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		return name[:i]
	}
	return name
}

// grownBaseline finds arm cur's result in baseline o on an earlier revision
// of cell c's benchmark, and returns it ready to compare with cur: both
// restricted to the unchanged queries, the baseline's revision fields of
// held_fixed set to the run's. found is false when the baseline holds the
// arm on no other revision of the benchmark; refusal, when set, is why the
// baseline cannot gate the run.
func grownBaseline(c *Cell, cur results.ArmResult, o GateOptions) (arm, base results.ArmResult, g *growth, refusal string, found bool) {
	bench, name := c.Bench.Benchmark.Name, c.Arm.Name
	stem := benchmarkStem(bench)
	var cands []results.ArmResult
	for _, a := range results.Arms(o.Baseline, "baseline ") {
		if a.Config.Name == name && a.Config.Benchmark != bench && benchmarkStem(a.Config.Benchmark) == stem {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return arm, base, nil, "", false
	}
	hint := o.UpdateHint
	if len(cands) > 1 {
		// The same folder under several splits, or two folders of one name:
		// keep the one on the same split and corpus.
		narrowed := slices.DeleteFunc(slices.Clone(cands), func(a results.ArmResult) bool {
			return a.Config.HeldFixed.Split != cur.Config.HeldFixed.Split || a.Config.CorpusDigest != cur.Config.CorpusDigest
		})
		if len(narrowed) != 1 {
			var revs []string
			for _, a := range cands {
				revs = append(revs, a.Config.Benchmark)
			}
			return arm, base, nil, fmt.Sprintf("baseline gate: %s holds arm %s on %d earlier revisions of %s (%s) and this run is on %s, so which one to gate against is ambiguous; record a new baseline with %s",
				o.Path, name, len(cands), stem, strings.Join(revs, ", "), bench, hint), true
		}
		cands = narrowed
	}
	base = cands[0]
	from := base.Config.Benchmark
	prefix := fmt.Sprintf("baseline gate: %s holds arm %s on %s, an earlier revision of this run's %s", o.Path, name, from, bench)

	pa, pb := provenance(base.Config.HeldFixed), provenance(cur.Config.HeldFixed)
	switch {
	case pa != pb:
		return arm, base, nil, fmt.Sprintf("%s, but the corpus changed: corpus_provenance is %s in the baseline and %s in this run; a baseline gates a grown benchmark only on the same corpus; record a new baseline with %s",
			prefix, pa, pb, hint), true
	case pa == lasagna.ProvenancePooledGold, pa == results.BundleProvenance(lasagna.ProvenanceNone):
		// A pooled corpus is the queries' own passages, so it grows with
		// them; without a corpus there is nothing to change.
	case base.Config.CorpusDigest == "":
		return arm, base, nil, oldBaseline(prefix, "corpus_digest", hint), true
	case base.Config.CorpusDigest != cur.Config.CorpusDigest:
		what := fmt.Sprintf("corpus_digest %s in the baseline, %s in this run", short(base.Config.CorpusDigest), short(cur.Config.CorpusDigest))
		if sa, sb := base.Config.CorpusStats, cur.Config.CorpusStats; sa != nil && sb != nil {
			what += fmt.Sprintf("; %d documents in the baseline's index, %d in this run's", sa.Documents, sb.Documents)
		}
		return arm, base, nil, fmt.Sprintf("%s, but the corpus changed (%s): a baseline gates a grown benchmark only on the same corpus, since a changed corpus changes what every query searches; if the corpus changed on purpose, record a new baseline with %s",
			prefix, what, hint), true
	}

	was := map[string]string{}
	for _, row := range base.Result.PerSampleScores {
		if row.QueryDigest == "" {
			return arm, base, nil, oldBaseline(prefix, "query_digest", hint), true
		}
		was[row.QueryID] = row.QueryDigest
	}
	b := c.Bench.Benchmark
	g = &growth{from: from, to: bench, same: map[string]bool{}}
	now := map[string]bool{}
	for i := range b.Queries {
		q := &b.Queries[i]
		now[q.ID] = true
		d, ok := was[q.ID]
		switch {
		case !ok:
			g.added++
		case d != datasets.QueryDigest(b, q):
			g.changed++
		default:
			g.same[q.ID] = true
		}
	}
	for id := range was {
		if !now[id] {
			g.removed++
		}
	}
	if len(g.same) == 0 {
		return arm, base, nil, fmt.Sprintf("%s, and no query is unchanged since (%d added, %d changed, %d removed), so there is nothing to gate; record a new baseline with %s",
			prefix, g.added, g.changed, g.removed, hint), true
	}
	arm = cur
	arm.Result.PerSampleScores = keepRows(cur.Result.PerSampleScores, g.same)
	base.Result.PerSampleScores = keepRows(base.Result.PerSampleScores, g.same)
	hf := base.Config.HeldFixed
	hf.Benchmark = cur.Config.HeldFixed.Benchmark
	hf.CorpusFingerprint = cur.Config.HeldFixed.CorpusFingerprint
	hf.SampleIDDigest = cur.Config.HeldFixed.SampleIDDigest
	base.Config.HeldFixed = hf
	base.Config.Benchmark = bench
	return arm, base, g, "", true
}

// oldBaseline is the refusal of a baseline on an earlier revision that
// does not record field (written before lasagna recorded it).
func oldBaseline(prefix, field, hint string) string {
	return fmt.Sprintf("%s, but it records no %s (it was written by an earlier release), so the queries that did not change cannot be told apart from those that did; record a new baseline with %s",
		prefix, field, hint)
}

// provenance returns h's corpus provenance, native when absent.
func provenance(h results.HeldFixed) lasagna.Provenance {
	if h.CorpusProvenance == "" {
		return lasagna.ProvenanceNative
	}
	return h.CorpusProvenance
}

// keepRows returns the rows of rows whose query id is in ids.
func keepRows(rows []results.Sample, ids map[string]bool) []results.Sample {
	var out []results.Sample
	for _, r := range rows {
		if ids[r.QueryID] {
			out = append(out, r)
		}
	}
	return out
}

// short abbreviates a hex digest to 12 digits.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

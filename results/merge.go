package results

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/findings"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/sampleid"
)

// StatsOptions configures the bootstrap of Aggregate; the zero value means
// metrics' defaults (10000 resamples, seed 0, 95%).
type StatsOptions = metrics.BootstrapOptions

// defaultStatsSeed is the bootstrap seed of a bundle that records none
// (experiment.stats_seed absent): the seed the engine uses by default.
const defaultStatsSeed = 42

// StatsOptions returns how b's metric_stats intervals are computed: with
// experiment.stats_seed (42 when absent), metrics' default
// number of resamples and level.
func (b *Bundle) StatsOptions() StatsOptions {
	seed := b.Experiment.StatsSeed
	if seed == 0 {
		seed = defaultStatsSeed
	}
	return StatsOptions{Seed: seed}
}

// NewMetricStat returns the statistics of the scores xs of one metric, in
// the order given: n, the mean and its percentile bootstrap confidence
// interval (metrics.Summarize under o; o's zero fields mean metrics'
// defaults), with its level. It is the one place scores become a
// MetricStat: Aggregate (so the engine and Merge) calls it, and Validate
// recomputes every interval with it under Bundle.StatsOptions.
func NewMetricStat(xs []float64, o StatsOptions) MetricStat {
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = metrics.DefaultLevel
	}
	return newMetricStats([][]float64{xs}, o)[0]
}

// newMetricStats returns NewMetricStat(xss[i], o) for every i, bit for
// bit, for less work than one call each (metrics.SummarizeAll).
func newMetricStats(xss [][]float64, o StatsOptions) []MetricStat {
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = metrics.DefaultLevel
	}
	out := make([]MetricStat, len(xss))
	for i, s := range metrics.SummarizeAll(xss, o) {
		out[i] = MetricStat{N: s.N, Mean: s.Mean, CILow: s.Lo, CIHigh: s.Hi, Level: o.Level}
	}
	return out
}

// Aggregate sorts r.PerSampleScores by query id (byte-wise, the order of a
// bundle's rows) and recomputes r.Metrics and r.MetricStats from them: each
// metric's value is the mean over the rows that
// have a score for it and no error, and its stats hold n, that mean and
// the bootstrap confidence interval over those scores in row order. A
// metric of r.Metrics that no row scores cannot be recomputed, and
// Aggregate fails naming it rather than dropping it. The engine computes
// every bundle's aggregates with it, and Merge recomputes them with it.
func Aggregate(r *Result, o StatsOptions) error {
	sortRows(r.PerSampleScores)
	scores := map[string][]float64{}
	for _, row := range r.PerSampleScores {
		if row.Error != "" {
			continue
		}
		for m, v := range row.Scores {
			scores[m] = append(scores[m], v)
		}
	}
	for m := range r.Metrics {
		if _, ok := scores[m]; !ok {
			return fmt.Errorf("%s/%s: metric %s has no per-query score, so its aggregate cannot be recomputed", r.BenchmarkName, r.ConfigName, m)
		}
	}
	r.Metrics = make(map[string]float64, len(scores))
	r.MetricStats = make(map[string]MetricStat, len(scores))
	names := slices.Sorted(maps.Keys(scores))
	xss := make([][]float64, len(names))
	for i, m := range names {
		xss[i] = scores[m]
	}
	for i, st := range newMetricStats(xss, o) {
		r.Metrics[names[i]] = st.Mean
		r.MetricStats[names[i]] = st
	}
	return nil
}

// sortRows sorts per-query rows by query id, byte-wise: the order in which
// a result's rows are written and Merge joins shards, so that a merged
// bundle equals the unsharded one.
func sortRows(rows []Sample) {
	slices.SortStableFunc(rows, func(a, b Sample) int { return strings.Compare(a.QueryID, b.QueryID) })
}

// MergeError is why Merge refused its shards: every problem found, one per
// line, each naming the shard.
type MergeError struct {
	Problems []string
}

func (e *MergeError) Error() string {
	return "cannot merge the shards:\n  " + strings.Join(e.Problems, "\n  ")
}

// Merge joins bundles of one plan run as shards (LASAGNA_SHARD=i/n, or
// `benchmark run --shard i/n`) into the bundle the unsharded run writes,
// byte for byte. names name the shards in messages (nil means "shard 1",
// …).
//
// Merge refuses, with a *MergeError naming the shard and the problem, each
// of: a schema_version this release does not write (above SchemaVersion,
// or not 1.x); a blocking integrity line; a comparability_key that does not
// match its held_fixed; numbers Validate finds inconsistent
// (INCONSISTENT_BUNDLE: aggregates, n or intervals that the shard's own
// rows, bootstrapped with its recorded seed, do not give, or a value out
// of its metric's range); a
// metrics_version, submitter, experiment, set of configs, held_fixed
// (naming each differing field) or varied levels that differ from the first
// shard's; a query of one arm in two shards (an overlap); and an arm whose
// merged query ids do not hash to held_fixed.sample_id_digest (a gap: a
// shard is missing).
//
// The merged rows are sorted by query id (as Aggregate sorts them) and every aggregate is
// recomputed from them with the recorded seed (Aggregate); the shards' own
// aggregates are never averaged. Integrity warnings are unioned, except
// those that count queries: SMALL_SAMPLE is recomputed from the merged rows,
// and the shards' OUTSIDE_CORPUS_IDS and UNRESOLVED_JUDGE_ALIAS lines are
// recombined (a line that does not parse is refused). Merging one complete
// bundle returns it unchanged.
func Merge(shards []*Bundle, names []string) (*Bundle, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shard to merge")
	}
	name := func(i int) string {
		if i < len(names) && names[i] != "" {
			return names[i]
		}
		return fmt.Sprintf("shard %d", i+1)
	}
	var probs []string
	addf := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }

	for i, s := range shards {
		if !mergeableVersion(s.SchemaVersion) {
			addf("%s: schema_version %q is not one this release writes (1.0 to %s): merge it with the release that wrote it", name(i), s.SchemaVersion, SchemaVersion)
		}
		for _, f := range s.Integrity.Blocking {
			addf("%s: blocking integrity finding: %s", name(i), f)
		}
		for _, c := range s.Configs {
			if key, err := ComparabilityKey(c.HeldFixed); err != nil || key != c.ComparabilityKey {
				addf("%s: config %s/%s: comparability_key %s does not match its held_fixed (which hashes to %s): the shard was edited", name(i), c.Benchmark, c.Name, short(c.ComparabilityKey), short(key))
			}
		}
		for ri := range s.Results {
			r := &s.Results[ri]
			if _, ok := s.Config(r.BenchmarkName, r.ConfigName); !ok {
				addf("%s: a result names %s/%s, which no config describes", name(i), r.BenchmarkName, r.ConfigName)
			}
		}
		// The consistency checks of Validate: aggregates, n and intervals
		// the shard's own rows give with its recorded seed, ranges.
		var rep Report
		checkConsistency(&rep, s)
		for _, p := range rep.Problems {
			addf("%s: %s", name(i), p)
		}
	}

	// Shards of one sharded run share its count; two files of one shard
	// are an overlap, found below with the queries they share.
	for i, s := range shards {
		sub := s.Subset
		if sub == nil || sub.ShardCount == 0 {
			continue
		}
		if c := shards[0].Subset; c == nil || c.ShardCount != sub.ShardCount {
			addf("%s is shard %d of %d but %s is not a shard of %d: merge the shards of one sharded run", name(i), sub.ShardIndex, sub.ShardCount, name(0), sub.ShardCount)
		}
	}

	first := shards[0]
	firstArms := armNames(first)
	for i, s := range shards[1:] {
		n := i + 1
		if s.SchemaVersion != first.SchemaVersion {
			addf("%s has schema_version %q, %s %q", name(n), s.SchemaVersion, name(0), first.SchemaVersion)
		}
		if s.MetricsVersion != first.MetricsVersion {
			addf("%s has metrics_version %q, %s %q", name(n), s.MetricsVersion, name(0), first.MetricsVersion)
		}
		if d := fieldDiff(s.Submitter, first.Submitter); len(d) > 0 {
			addf("%s's submitter differs from %s's", name(n), name(0))
		}
		if d := fieldDiff(s.Experiment, first.Experiment); len(d) > 0 {
			addf("%s's experiment differs from %s's in %s: shards of one run share the release, settings and seed", name(n), name(0), strings.Join(d, ", "))
		}
		if got := armNames(s); !slices.Equal(got, firstArms) {
			addf("%s's configs (%s) differ from %s's (%s): shards of one run share every arm", name(n), strings.Join(got, ", "), name(0), strings.Join(firstArms, ", "))
			continue
		}
		for ci, c := range s.Configs {
			fc := first.Configs[ci]
			where := c.Benchmark + "/" + c.Name
			if d := fieldDiff(c.HeldFixed, fc.HeldFixed); len(d) > 0 {
				addf("%s: held_fixed of %s differs from %s's in %s: shards of one run hold the same settings fixed", name(n), where, name(0), strings.Join(d, ", "))
			} else if c.ComparabilityKey != fc.ComparabilityKey {
				addf("%s: comparability_key of %s differs from %s's", name(n), where, name(0))
			}
			if d := fieldDiff(c.VariedDimensions, fc.VariedDimensions); len(d) > 0 {
				addf("%s: varied_dimensions of %s differ from %s's", name(n), where, name(0))
			}
			if d := fieldDiff(c.VariedLevels, fc.VariedLevels); len(d) > 0 {
				addf("%s: varied_levels of %s differ from %s's in %s", name(n), where, name(0), strings.Join(d, ", "))
			}
			if c.CorpusDigest != fc.CorpusDigest {
				addf("%s: corpus_digest of %s differs from %s's: shards of one run search the same corpus", name(n), where, name(0))
			}
		}
	}
	if len(probs) > 0 {
		return nil, &MergeError{Problems: probs}
	}

	type armKey struct{ bench, name string }
	owner := map[armKey]map[string]int{} // query id → shard index
	rows := map[armKey][]Sample{}
	out := &Bundle{
		SchemaVersion:  first.SchemaVersion,
		MetricsVersion: first.MetricsVersion,
		Submitter:      first.Submitter,
		Experiment:     first.Experiment,
		Configs:        slices.Clone(first.Configs),
	}
	for i, s := range shards {
		for _, r := range s.Results {
			k := armKey{r.BenchmarkName, r.ConfigName}
			if owner[k] == nil {
				owner[k] = map[string]int{}
			}
			for _, row := range r.PerSampleScores {
				if prev, dup := owner[k][row.QueryID]; dup {
					addf("overlap: %s/%s/%s is in %s and in %s", k.bench, k.name, row.QueryID, name(prev), name(i))
					continue
				}
				owner[k][row.QueryID] = i
				rows[k] = append(rows[k], row)
			}
		}
	}
	stats := first.StatsOptions()
	for _, c := range out.Configs {
		k := armKey{c.Benchmark, c.Name}
		where := c.Benchmark + "/" + c.Name
		rs := rows[k]
		sortRows(rs)
		ids := make([]string, len(rs))
		for i, row := range rs {
			ids[i] = row.QueryID
		}
		switch {
		case len(rs) == 0:
			addf("gap: no shard holds a row of %s", where)
			continue
		case c.HeldFixed.NSamples > 0 && int64(len(rs)) != c.HeldFixed.NSamples:
			addf("gap: the shards hold %d of the %d sampled queries of %s: a shard is missing", len(rs), c.HeldFixed.NSamples, where)
			continue
		case c.HeldFixed.SampleIDDigest != "" && sampleid.Digest(ids) != c.HeldFixed.SampleIDDigest:
			addf("gap: the %d queries the shards hold of %s are not the sampled ones (their ids do not hash to held_fixed.sample_id_digest): a shard is missing", len(rs), where)
			continue
		}
		r := Result{BenchmarkName: c.Benchmark, ConfigName: c.Name, PerSampleScores: rs}
		if err := Aggregate(&r, stats); err != nil {
			return nil, err
		}
		mergeSlices(&r, shards, stats)
		out.Results = append(out.Results, r)
	}

	// Warnings: the union of the shards', but SMALL_SAMPLE is recomputed
	// from the merged rows, and the lines that count queries
	// (OUTSIDE_CORPUS_IDS, UNRESOLVED_JUDGE_ALIAS) are recombined.
	perQuery := map[string][]string{} // what a line is about → the shards' lines
	var perQueryOrder []string
	for _, s := range shards {
		for _, f := range s.Integrity.Warnings {
			w := f.String()
			key := ""
			switch f.Code {
			case lasagna.SmallSample:
				continue
			case lasagna.OutsideCorpusIDs:
				key = f.Where
			case lasagna.UnresolvedJudgeAlias:
				if m := aliasRE().FindStringSubmatch(w); m != nil {
					key = m[1] + "#" + m[3]
				} else {
					key = w
				}
			default:
				if !slices.Contains(out.Integrity.Warnings, f) {
					out.Integrity.Warnings = append(out.Integrity.Warnings, f)
				}
				continue
			}
			if _, seen := perQuery[key]; !seen {
				perQueryOrder = append(perQueryOrder, key)
			}
			perQuery[key] = append(perQuery[key], w)
		}
	}
	for _, key := range perQueryOrder {
		lines := perQuery[key]
		f := parseFinding(lines[0])
		line, ok := "", false
		if f.Code == lasagna.OutsideCorpusIDs {
			// Of the lists of every query that ran, in any shard.
			ranked := 0
			for _, r := range out.Results {
				if r.BenchmarkName+"/"+r.ConfigName != f.Where {
					continue
				}
				for _, row := range r.PerSampleScores {
					if row.Error == "" {
						ranked++
					}
				}
			}
			line, ok = recombineOutside(f.Where, lines, ranked)
		} else {
			line, ok = recombineAlias(lines)
		}
		if !ok {
			addf("%s at %s: cannot recombine the shards' lines into the unsharded run's (%q): run that arm unsharded", f.Code, f.Where, lines[0])
			continue
		}
		out.Integrity.Warnings = append(out.Integrity.Warnings, parseFinding(line))
	}
	for _, r := range out.Results {
		scored := 0
		for _, row := range r.PerSampleScores {
			if len(row.Scores) > 0 {
				scored++
			}
		}
		if f, ok := findings.SmallSample(r.BenchmarkName+"/"+r.ConfigName, scored); ok {
			out.Integrity.Add(f)
		}
	}
	if len(probs) > 0 {
		return nil, &MergeError{Problems: probs}
	}
	if err := Finalize(out); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeableVersion reports whether v is a 1.x schema version no later
// than SchemaVersion: a bundle Merge can rewrite without dropping fields.
func mergeableVersion(v string) bool {
	if !versionRE().MatchString(v) {
		return false
	}
	minor := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(s, "1."))
		return n
	}
	return minor(v) <= minor(SchemaVersion)
}

func short(key string) string { return key[:min(12, len(key))] }

// armNames returns "benchmark/arm" of every config, in order.
func armNames(b *Bundle) []string {
	out := make([]string, len(b.Configs))
	for i, c := range b.Configs {
		out[i] = c.Benchmark + "/" + c.Name
	}
	return out
}

// fieldDiff returns the JSON member paths (e.g. "n_samples",
// "fixed_stages.retriever") at which a and b differ, sorted.
func fieldDiff(a, b any) []string {
	ta, tb := jsonTree(a), jsonTree(b)
	var out []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		mx, okx := x.(map[string]any)
		my, oky := y.(map[string]any)
		if !okx || !oky {
			if !reflect.DeepEqual(x, y) {
				out = append(out, path)
			}
			return
		}
		keys := slices.Sorted(maps.Keys(mx))
		for k := range my {
			if _, ok := mx[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, mx[k], my[k])
		}
	}
	walk("", ta, tb)
	if len(out) == 1 && out[0] == "" {
		out[0] = "(value)"
	}
	return out
}

// jsonTree is v as its decoded JSON (objects as maps), or v itself when it
// cannot be encoded.
func jsonTree(v any) any {
	data, err := marshal(v)
	if err != nil {
		return v
	}
	t, err := decodeTree(data)
	if err != nil {
		return v
	}
	return t
}

// sortIntegrity puts b's integrity lines in their canonical order, so that
// a bundle's bytes do not depend on the order in which findings were
// raised (a merge of shards meets them in another order than the run):
// by the position of the config the line is about (a line about a whole
// benchmark before its first arm's; a line about no config last), then by
// the code's place in the catalogue, then by the line.
func sortIntegrity(b *Bundle) {
	codeRank := map[lasagna.Code]int{}
	for i, info := range lasagna.Catalogue() {
		codeRank[info.Code] = i
	}
	place := func(f Finding) (int, int) {
		if f.Code == "" {
			return 2 * len(b.Configs), len(codeRank)
		}
		rank, known := codeRank[f.Code]
		if !known {
			rank = len(codeRank)
		}
		for i, c := range b.Configs {
			arm := c.Benchmark + "/" + c.Name
			if f.Where == arm || strings.HasPrefix(f.Where, arm+"/") {
				return 2*i + 1, rank
			}
		}
		for i, c := range b.Configs {
			if f.Where == c.Benchmark {
				return 2 * i, rank
			}
		}
		return 2 * len(b.Configs), rank
	}
	less := func(x, y Finding) int {
		px, rx := place(x)
		py, ry := place(y)
		if px != py {
			return px - py
		}
		if rx != ry {
			return rx - ry
		}
		return strings.Compare(x.String(), y.String())
	}
	slices.SortFunc(b.Integrity.Warnings, less)
	slices.SortFunc(b.Integrity.Blocking, less)
}

// The regexps compile on first use, not at package init: every lasagna
// command links this package, and only results merge needs them.
var (
	outsideRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+) of (\d+) ranked lists hold ids outside the benchmark's corpus of (\d+) documents \((\d+) ids in all\), scored as non-relevant: (.*?)(?: and \d+ more)?(?: \(fix: .*\))?$`)
	})
	itemRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*) \((\d+)\)$`) })
)

// recombineOutside joins the shards' OUTSIDE_CORPUS_IDS lines about one
// arm, which ran ranked lists in all, into the line of the unsharded run;
// ok is false when a line does not parse (a query id holding ", " cannot be
// split back).
func recombineOutside(where string, lines []string, ranked int) (line string, ok bool) {
	var n, corpus, ids int
	var first []findings.Outside
	for i, l := range lines {
		f := parseFinding(l)
		m := outsideRE().FindStringSubmatch(f.Detail)
		if m == nil {
			return "", false
		}
		v := make([]int, 4)
		for j := range v {
			v[j], _ = strconv.Atoi(m[j+1])
		}
		if i > 0 && v[2] != corpus {
			return "", false
		}
		n, corpus, ids = n+v[0], v[2], ids+v[3]
		items := strings.Split(m[5], ", ")
		if len(items) != min(v[0], findings.Listed) {
			return "", false
		}
		for _, it := range items {
			im := itemRE().FindStringSubmatch(it)
			if im == nil {
				return "", false
			}
			k, _ := strconv.Atoi(im[2])
			first = append(first, findings.Outside{QueryID: im[1], N: k})
		}
	}
	findings.SortOutside(first)
	return findings.OutsideLine(where, n, ranked, corpus, ids, first[:min(len(first), findings.Listed)]).String(), true
}

// aliasRE splits an UNRESOLVED_JUDGE_ALIAS line around its query count.
var aliasRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(UNRESOLVED_JUDGE_ALIAS at .*?: judge model ".*?" is an alias; the server answered )(\d+)( queries as .*)$`)
})

// recombineAlias joins the shards' UNRESOLVED_JUDGE_ALIAS lines about one
// arm and one answered model by adding their counts.
func recombineAlias(lines []string) (string, bool) {
	var head, tail string
	total := 0
	for _, l := range lines {
		m := aliasRE().FindStringSubmatch(l)
		if m == nil {
			return "", false
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return "", false
		}
		head, tail, total = m[1], m[3], total+n
	}
	return head + strconv.Itoa(total) + tail, true
}

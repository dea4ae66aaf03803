// Package leaderboard ranks results bundles in leaderboard groups: one
// group per benchmark revision and comparability key, so that results on
// a pooled gold corpus, a native corpus, a user's own index or a synthetic
// benchmark, and results under different held-fixed settings, never stand
// side by side. Within a group, the arms are ranked by one metric, and
// adjacent entries whose paired difference on their shared queries is not
// significant (results.Compare: a paired test per adjacent pair,
// Holm-adjusted over the family results.Compare defines for the pair, the
// metrics compared between the two arms) are marked as tied rather than
// ranked apart.
//
// It is pure: bundles in, groups out. The dashboard (lasagna serve) feeds
// it the bundles submitted to its registry, which were checked against
// the benchmark's data when they were accepted.
package leaderboard

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// Input is one bundle to rank.
type Input struct {
	// ID is the bundle's run_id.
	ID string
	// Date is when it was submitted.
	Date time.Time
	// Submitter is who submitted it, as the hub records it.
	Submitter string
	Bundle    *results.Bundle
	// Data is what the registry's data says about each arm of the bundle
	// (key: ArmKey), which the hub derives from the benchmark revision
	// the bundle names. When set, it is all the group's labels come from
	// (corpus provenance, synthetic, the sample), never the bundle's own
	// claims, and an arm without an entry is not ranked. nil (a pure
	// caller without a registry) reads the labels from the bundle.
	Data map[string]Data
}

// Data is what the registry's data says about one arm of a bundle.
type Data struct {
	// Revision is the registry benchmark revision (NAME@HASH) the arm
	// ran on.
	Revision   string
	Provenance lasagna.Provenance
	// Synthetic is true when the revision holds LLM-written queries
	// (metadata.synthetic).
	Synthetic bool
	// Queries is the number of queries of the revision; Drawn the number
	// the arm's sampling (n_samples, seed, filters) draws from them.
	Queries, Drawn int
	// NotRanked says why the arm is kept out of the ranking (a part of
	// the sample, a claim the data contradicts); "" ranks it.
	NotRanked string
	// Content is the arm's ContentKey, for a caller that keeps a bundle
	// without the rows' outputs; "" has Build compute it.
	Content string
}

// ArmKey is the key of arm c in Input.Data.
func ArmKey(c results.Config) string { return c.Benchmark + "\x00" + c.Name }

// PairCache keeps the comparisons of adjacent entries across Builds: a
// stored bundle never changes, so two arms compared once under the same
// options compare the same way again, and a Build after one more
// submission compares only the pairs that are new. The zero value is
// ready; it forgets everything when it holds maxPairs comparisons.
type PairCache struct {
	mu sync.Mutex
	m  map[string]Versus
}

// maxPairs bounds a PairCache.
const maxPairs = 200_000

func (c *PairCache) get(k string) (Versus, bool) {
	if c == nil {
		return Versus{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *PairCache) put(k string, v Versus) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxPairs {
		c.m = map[string]Versus{}
	}
	c.m[k] = v
}

// Options configure Build. The zero value ranks every group by its
// mode's default metric with the comparison's defaults (10,000
// resamples, the upper entry's stats seed, 95% intervals, significance
// 0.05 after Holm).
type Options struct {
	// Metric ranks every group by this metric; "" means each group's
	// default (DefaultMetric of its mode).
	Metric    string
	Resamples int
	Seed      uint64
	// Pairs, when not nil, keeps the pairs' comparisons across Builds.
	Pairs *PairCache
}

// SyntheticLabel is the label of a group whose benchmark is synthetic.
const SyntheticLabel = "for development, not claims"

// Group is one leaderboard group.
type Group struct {
	// Benchmark is the benchmark revision the group's bundles ran on
	// (held_fixed.benchmark).
	Benchmark string `json:"benchmark"`
	// Key is the comparability key the entries share.
	Key        string             `json:"comparability_key"`
	Provenance lasagna.Provenance `json:"corpus_provenance"`
	Mode       lasagna.Mode       `json:"resolved_mode"`
	// Synthetic is true when the benchmark is synthetic (the registry's
	// revision holds LLM-written queries; without Input.Data, the bundle's
	// SYNTHETIC_BENCHMARK); Label then says so.
	Synthetic bool   `json:"synthetic"`
	Label     string `json:"label,omitzero"`
	// Revision is the registry's benchmark revision (Input.Data).
	Revision string `json:"revision,omitzero"`
	// Queries is the number of queries of the revision and Drawn the
	// number the group's sampling draws (Input.Data): the sample as
	// drawn, not as a bundle claims it.
	Queries int `json:"n_queries,omitzero"`
	Drawn   int `json:"n_drawn,omitzero"`
	// HeldFixed lists what every entry of the group held fixed.
	HeldFixed []Field `json:"held_fixed"`
	// Distinct are the held-fixed settings in which the group differs
	// from the other groups of the same benchmark (its registry name, or
	// its name without local/ and the hash): what its header shows to
	// tell them apart.
	Distinct []Field `json:"distinct,omitzero"`
	// Metric is the metric the entries are ranked by.
	Metric  string  `json:"metric"`
	Entries []Entry `json:"entries"`
	// Unscored counts the arms of the group that do not score Metric and
	// are left out of its ranking.
	Unscored int `json:"unscored,omitzero"`
	// Partial lists the arms of the group that are never ranked, each
	// with why (NotRanked): a part of the sample (a shard, a go test -run
	// selection), or a claim the registry's data contradicts.
	Partial []Entry `json:"partial,omitzero"`
}

// Field is one held-fixed setting, its value written as JSON.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Entry is one arm of one bundle in a group.
type Entry struct {
	// Rank is 1 for the best; an entry tied with the one above it shares
	// its rank.
	Rank      int       `json:"rank"`
	RunID     string    `json:"run_id"`
	Arm       string    `json:"arm"`
	Submitter string    `json:"submitter,omitzero"`
	Date      time.Time `json:"date"`
	Mean      float64   `json:"mean"`
	CILow     float64   `json:"ci_low"`
	CIHigh    float64   `json:"ci_high"`
	N         int       `json:"n"`
	// VariedLevels are the values of the dimensions the arm varied.
	VariedLevels map[string]string `json:"varied_levels,omitzero"`
	// Copies counts the other submissions of the same results (the same
	// arm name, held-fixed settings, varied levels and per-query rows,
	// under another run_id: another submitter, machine or date), which
	// are not listed again; the entry is the earliest.
	Copies int `json:"copies,omitzero"`
	// NotRanked says why an entry of Group.Partial is not ranked.
	NotRanked string `json:"not_ranked,omitzero"`
	// Above compares the entry with the one ranked just above it; nil for
	// the first entry.
	Above *Versus `json:"vs_above,omitzero"`
}

// Versus is the paired comparison of an entry with the entry above it.
type Versus struct {
	// Tied is true when the difference is not significant after Holm (or
	// could not be tested), so the two are not ranked apart.
	Tied bool `json:"tied"`
	// Diff is the mean paired difference (above − this entry) over the
	// Shared queries both scored.
	Diff   float64 `json:"diff"`
	Shared int     `json:"shared_queries"`
	P      float64 `json:"p"`
	HolmP  float64 `json:"holm_p"`
	// Family is the number of comparisons HolmP is adjusted over: the
	// pair's gate metrics (results.GateMetrics) and the ranked metric, as
	// results compare --metric would compare them, so the two print the
	// same Holm p.
	Family int `json:"holm_family,omitzero"`
	// MDE is the smallest detectable difference of the comparison
	// (results.Comparison.MDE): a tie is only a tie down to it. 0 when it
	// cannot be estimated.
	MDE float64 `json:"mde,omitzero"`
	// Refused says why the pair was not compared (the arms declare other
	// varied dimensions, or share no scored query); they count as tied.
	Refused string `json:"refused,omitzero"`
}

// DefaultMetric is the metric a group of mode is ranked by when none is
// chosen: the first metric the regression gate checks for such an arm
// (engine.Gate.GatedMetrics: ndcg@10 for an arm that retrieves, retrieval
// and rag; token_f1 for one that only answers, generation and
// closed_book).
func DefaultMetric(mode lasagna.Mode) string {
	if mode == lasagna.ModeRetrieval || mode == lasagna.ModeRAG {
		return "ndcg@10"
	}
	return "token_f1"
}

// UnknownMetricError is Build's error for a metric no group scores.
type UnknownMetricError struct {
	Metric string
	Known  []string
}

func (e *UnknownMetricError) Error() string {
	return fmt.Sprintf("no leaderboard entry scores the metric %q; the metrics scored are: %s", e.Metric, strings.Join(e.Known, ", "))
}

type arm struct {
	in  Input
	cfg results.Config
	res results.Result
	// data is what the registry's data says about the arm (Input.Data),
	// or what the bundle says without it.
	data Data
}

// dataOf returns what is known of arm c of input b: Input.Data's entry,
// or, without Input.Data, the bundle's own labels.
func dataOf(b Input, c results.Config) Data {
	if b.Data != nil {
		d, ok := b.Data[ArmKey(c)]
		if !ok {
			return Data{Provenance: provenance(c.HeldFixed), NotRanked: "the hub could not check it against the registry's data"}
		}
		return d
	}
	d := Data{Provenance: provenance(c.HeldFixed), Synthetic: synthetic(b.Bundle, c)}
	if s := b.Bundle.Subset; s != nil {
		d.NotRanked = "it holds " + s.String() + ", not the whole sample"
	}
	return d
}

// Build groups the arms of the bundles and ranks each group. It returns
// an *UnknownMetricError when Options.Metric names a metric no arm
// scores. Equal inputs and options give equal groups.
//
// An arm the data marks NotRanked (or, without Input.Data, of a bundle
// with a subset) is listed in its group's Partial, never ranked. Of the
// arms with identical results (contentKey) only the earliest is ranked;
// it counts the others as Copies.
func Build(in []Input, o Options) ([]Group, error) {
	type key struct{ bench, ckey string }
	var order []key
	by := map[key][]arm{}
	known := map[string]bool{}
	for _, b := range in {
		for _, c := range b.Bundle.Configs {
			r, ok := b.Bundle.Result(c.Benchmark, c.Name)
			if !ok {
				continue
			}
			k := key{c.HeldFixed.Benchmark, c.ComparabilityKey}
			if _, ok := by[k]; !ok {
				order = append(order, k)
			}
			by[k] = append(by[k], arm{b, c, *r, dataOf(b, c)})
			for m := range r.Metrics {
				known[m] = true
			}
		}
	}
	if o.Metric != "" && !known[o.Metric] {
		return nil, &UnknownMetricError{Metric: o.Metric, Known: slices.Sorted(maps.Keys(known))}
	}
	revisionOf := func(k key) string {
		for _, a := range by[k] {
			if a.data.Revision != "" {
				return a.data.Revision
			}
		}
		return ""
	}
	slices.SortFunc(order, func(a, b key) int {
		return cmp.Or(strings.Compare(benchName(revisionOf(a), a.bench), benchName(revisionOf(b), b.bench)),
			strings.Compare(a.bench, b.bench), strings.Compare(a.ckey, b.ckey))
	})

	var groups []Group
	var pairs []results.Pair
	type at struct{ g, e int }
	var where []at
	for _, k := range order {
		arms := by[k]
		// The earliest first: it is the entry a copy is counted on.
		slices.SortStableFunc(arms, func(a, b arm) int {
			return cmp.Or(a.in.Date.Compare(b.in.Date), strings.Compare(a.in.ID, b.in.ID), strings.Compare(a.cfg.Name, b.cfg.Name))
		})
		first := arms[0]
		for _, a := range arms {
			if a.data.NotRanked == "" {
				first = a
				break
			}
		}
		g := Group{Benchmark: k.bench, Key: k.ckey, Provenance: first.data.Provenance, Mode: first.cfg.HeldFixed.ResolvedMode,
			Revision: first.data.Revision, Queries: first.data.Queries, Drawn: first.data.Drawn,
			HeldFixed: fields(first.cfg.HeldFixed), Metric: o.Metric}
		if g.Metric == "" {
			g.Metric = DefaultMetric(g.Mode)
		}
		if first.data.Synthetic {
			g.Synthetic, g.Label = true, SyntheticLabel
		}
		var ranked []arm
		copyOf := map[string]int{} // content key → index in ranked
		copies := map[int]int{}
		for _, a := range arms {
			if a.data.NotRanked != "" {
				g.Partial = append(g.Partial, entryOf(a, g.Metric))
				g.Partial[len(g.Partial)-1].NotRanked = a.data.NotRanked
				continue
			}
			if _, ok := a.res.Metrics[g.Metric]; !ok {
				g.Unscored++
				continue
			}
			ck := a.data.Content
			if ck == "" {
				ck = ContentKey(a.cfg, a.res)
			}
			if i, ok := copyOf[ck]; ok {
				copies[i]++
				continue
			}
			copyOf[ck] = len(ranked)
			ranked = append(ranked, a)
		}
		if len(ranked) == 0 && len(g.Partial) == 0 && o.Metric != "" {
			continue // the chosen metric is not scored here
		}
		idx := make([]int, len(ranked))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			a, b := ranked[i], ranked[j]
			return cmp.Or(cmp.Compare(b.res.Metrics[g.Metric], a.res.Metrics[g.Metric]),
				a.in.Date.Compare(b.in.Date), strings.Compare(a.in.ID, b.in.ID), strings.Compare(a.cfg.Name, b.cfg.Name))
		})
		for n, i := range idx {
			a := ranked[i]
			e := entryOf(a, g.Metric)
			e.Copies = copies[i]
			g.Entries = append(g.Entries, e)
			if n > 0 {
				above := ranked[idx[n-1]]
				pairs = append(pairs, results.Pair{Arm: armResult(above), Baseline: armResult(a)})
				where = append(where, at{len(groups), n})
			}
		}
		groups = append(groups, g)
	}
	distinct(groups)
	// Each adjacent pair is compared on its gate metrics and the group's
	// metric, one Holm family per pair (results.Compare); the tie is read
	// on the group's metric. Pairs compared before (Options.Pairs) are
	// not compared again; the others are compared on every core.
	metricOf := make([]string, len(pairs))
	cacheKey := make([]string, len(pairs))
	found := make([]*Versus, len(pairs))
	var todo []int
	for i, p := range pairs {
		metricOf[i] = groups[where[i].g].Metric
		cacheKey[i] = fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d", p.Arm.Label, p.Baseline.Label, metricOf[i], o.Resamples, o.Seed)
		if v, ok := o.Pairs.get(cacheKey[i]); ok {
			found[i] = &v
		} else {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(todo)/8))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for n := w; n < len(todo); n += workers {
				i := todo[n]
				v := compare(pairs[i], metricOf[i], o)
				found[i] = &v
				o.Pairs.put(cacheKey[i], v)
			}
		})
	}
	wg.Wait()
	for i := range pairs {
		groups[where[i].g].Entries[where[i].e].Above = found[i]
	}
	for gi := range groups {
		es := groups[gi].Entries
		for i := range es {
			switch {
			case i == 0:
				es[i].Rank = 1
			case es[i].Above.Tied:
				es[i].Rank = es[i-1].Rank
			default:
				es[i].Rank = i + 1
			}
		}
	}
	return groups, nil
}

// compare compares one adjacent pair on its gate metrics and metric, one
// Holm family (results.Compare), and reads the tie on metric.
func compare(p results.Pair, metric string, o Options) Versus {
	cmps := results.Compare([]results.Pair{p}, results.CompareOptions{
		PairMetrics: func(p results.Pair) []string {
			ms := results.GateMetrics(p)
			if !slices.Contains(ms, metric) {
				ms = append(ms, metric)
			}
			return ms
		},
		Resamples: o.Resamples, Seed: o.Seed, NoIntervals: true, // a Versus holds no interval
	})
	for _, c := range cmps.Comparisons {
		if c.Metric == metric {
			return Versus{Tied: !c.Significant, Diff: c.Mean - c.BaselineMean,
				Shared: c.Stats.N, P: c.Stats.P, HolmP: c.HolmP, Family: c.FamilySize, MDE: c.MDE}
		}
	}
	if len(cmps.Refusals) > 0 {
		return Versus{Tied: true, Refused: cmps.Refusals[0].Reason}
	}
	return Versus{Tied: true, Refused: "not compared"}
}

// entryOf is arm a's entry on metric (without rank or comparison).
func entryOf(a arm, metric string) Entry {
	e := Entry{RunID: a.in.ID, Arm: a.cfg.Name, Submitter: a.in.Submitter, Date: a.in.Date, Mean: a.res.Metrics[metric],
		VariedLevels: a.cfg.VariedLevels}
	if st, ok := a.res.MetricStats[metric]; ok {
		e.N, e.CILow, e.CIHigh = st.N, st.CILow, st.CIHigh
	}
	return e
}

// ContentKey identifies the results r of arm c: its name, comparability
// key, varied levels, metrics and per-query rows without their latencies
// (wall time, which differs from run to run). Two submissions with equal
// keys hold the same results. Every field of a row but LatencyMS enters
// the key, each written with its length (contentFields, checked by a
// test against results.Sample), straight into the hash: a thousand
// bundles' rows cost milliseconds, not the half second of encoding them
// as JSON.
func ContentKey(c results.Config, r results.Result) string {
	w := keyWriter{h: sha256.New()}
	w.str(c.Name)
	w.str(c.ComparabilityKey)
	w.strMap(c.VariedLevels)
	w.numMap(r.Metrics)
	w.int(len(r.PerSampleScores))
	for _, row := range r.PerSampleScores {
		w.str(row.QueryID)
		w.numMap(row.Scores)
		w.int(len(row.RetrievedIDs))
		for _, id := range row.RetrievedIDs {
			w.str(id)
		}
		w.int(len(row.Retrieved))
		for _, h := range row.Retrieved {
			w.str(h.ID)
			w.num(h.Score)
			w.int(h.Rank)
		}
		w.bool(row.Answer != nil)
		if row.Answer != nil {
			w.str(*row.Answer)
		}
		w.bool(row.Abstained)
		w.str(row.Error)
		w.str(row.JudgeError)
		w.bool(row.Missing)
		w.str(row.QueryDigest)
	}
	return string(w.sum())
}

// contentFields are the fields of results.Sample that ContentKey writes,
// and contentSkipped the one it leaves out.
var (
	contentFields  = []string{"QueryID", "Scores", "RetrievedIDs", "Retrieved", "Answer", "Abstained", "Error", "JudgeError", "Missing", "QueryDigest"}
	contentSkipped = []string{"LatencyMS"}
)

// keyWriter writes values into a hash unambiguously: strings with their
// length, numbers as their bits, maps in key order with their size.
type keyWriter struct {
	h   hash.Hash
	buf []byte
	// keys is the last number map's keys, sorted: rows mostly share one
	// set of metric names, sorted once.
	keys []string
}

func (w *keyWriter) flush() {
	if len(w.buf) >= 4096 {
		w.h.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *keyWriter) str(s string) {
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
	w.flush()
}

func (w *keyWriter) int(n int) {
	w.buf = binary.AppendVarint(w.buf, int64(n))
	w.flush()
}

func (w *keyWriter) num(f float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(f))
	w.flush()
}

func (w *keyWriter) bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

func (w *keyWriter) strMap(m map[string]string) {
	w.int(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.str(k)
		w.str(m[k])
	}
}

func (w *keyWriter) numMap(m map[string]float64) {
	w.int(len(m))
	same := len(m) == len(w.keys)
	for i := 0; same && i < len(w.keys); i++ {
		_, same = m[w.keys[i]]
	}
	if !same {
		w.keys = slices.Sorted(maps.Keys(m))
	}
	for _, k := range w.keys {
		w.str(k)
		w.num(m[k])
	}
}

func (w *keyWriter) sum() []byte {
	w.h.Write(w.buf)
	return w.h.Sum(nil)
}

// benchName is the benchmark a group belongs to, for telling its groups
// apart: the registry name of revision, else the bundle's benchmark name
// without local/ and the content hash.
func benchName(revision, bench string) string {
	if revision != "" {
		name, _, _ := strings.Cut(revision, "@")
		return name
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(bench, "local/"), "@")
	return name
}

// distinct sets each group's Distinct: the held-fixed settings whose value
// is not the same in every group of its benchmark (benchName), a setting
// a group does not hold counting as absent.
func distinct(groups []Group) {
	byBench := map[string][]int{}
	for i, g := range groups {
		n := benchName(g.Revision, g.Benchmark)
		byBench[n] = append(byBench[n], i)
	}
	for _, is := range byBench {
		if len(is) < 2 {
			continue
		}
		values := map[string]map[string]bool{} // name → values seen
		for _, i := range is {
			for _, f := range groups[i].HeldFixed {
				if values[f.Name] == nil {
					values[f.Name] = map[string]bool{}
				}
				values[f.Name][f.Value] = true
			}
		}
		for _, i := range is {
			have := map[string]bool{}
			for _, f := range groups[i].HeldFixed {
				have[f.Name] = true
				if len(values[f.Name]) > 1 || countHolding(groups, is, f.Name) < len(is) {
					groups[i].Distinct = append(groups[i].Distinct, f)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(values)) {
				if !have[name] {
					groups[i].Distinct = append(groups[i].Distinct, Field{Name: name, Value: "(absent)"})
				}
			}
		}
	}
}

// countHolding counts the groups of is that hold the setting name.
func countHolding(groups []Group, is []int, name string) int {
	n := 0
	for _, i := range is {
		for _, f := range groups[i].HeldFixed {
			if f.Name == name {
				n++
				break
			}
		}
	}
	return n
}

// armResult is a in the form results.Compare takes, labelled uniquely
// by run_id and arm.
func armResult(a arm) results.ArmResult {
	return results.ArmResult{Label: a.in.ID + "/" + a.cfg.Name, Config: a.cfg, Result: a.res, StatsSeed: a.in.Bundle.Experiment.StatsSeed}
}

func provenance(h results.HeldFixed) lasagna.Provenance {
	if h.CorpusProvenance == "" {
		return lasagna.ProvenanceNative
	}
	return h.CorpusProvenance
}

// synthetic reports whether b flags c's benchmark SYNTHETIC_BENCHMARK.
func synthetic(b *results.Bundle, c results.Config) bool {
	for _, f := range append(slices.Clone(b.Integrity.Warnings), b.Integrity.Blocking...) {
		if f.Code == lasagna.SyntheticBenchmark && (f.Where == "" || f.Where == c.Benchmark || f.Where == c.HeldFixed.Benchmark) {
			return true
		}
	}
	return false
}

// fields lists the held-fixed settings of h in the bundle's field order,
// each stage of fixed_stages, each scorer and each filter on its own line.
func fields(h results.HeldFixed) []Field {
	raw, err := json.Marshal(h)
	if err != nil {
		return nil
	}
	var out []Field
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		var sub map[string]json.RawMessage
		if (name == "fixed_stages" || name == "scorers" || name == "filters") && json.Unmarshal(v, &sub) == nil {
			for _, k := range slices.Sorted(maps.Keys(sub)) {
				out = append(out, Field{Name: name + "." + k, Value: string(sub[k])})
			}
			continue
		}
		out = append(out, Field{Name: name, Value: string(v)})
	}
	return out
}

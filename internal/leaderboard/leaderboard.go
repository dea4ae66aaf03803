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
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	// Synthetic is true when the benchmark is synthetic
	// (SYNTHETIC_BENCHMARK); Label then says so.
	Synthetic bool   `json:"synthetic"`
	Label     string `json:"label,omitzero"`
	// HeldFixed lists what every entry of the group held fixed.
	HeldFixed []Field `json:"held_fixed"`
	// Metric is the metric the entries are ranked by.
	Metric  string  `json:"metric"`
	Entries []Entry `json:"entries"`
	// Unscored counts the arms of the group that do not score Metric and
	// are left out of its ranking.
	Unscored int `json:"unscored,omitzero"`
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
}

// Build groups the arms of the bundles and ranks each group. It returns
// an *UnknownMetricError when Options.Metric names a metric no arm
// scores. Equal inputs and options give equal groups.
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
			by[k] = append(by[k], arm{b, c, *r})
			for m := range r.Metrics {
				known[m] = true
			}
		}
	}
	if o.Metric != "" && !known[o.Metric] {
		return nil, &UnknownMetricError{Metric: o.Metric, Known: slices.Sorted(maps.Keys(known))}
	}
	slices.SortFunc(order, func(a, b key) int { return cmp.Or(strings.Compare(a.bench, b.bench), strings.Compare(a.ckey, b.ckey)) })

	var groups []Group
	var pairs []results.Pair
	type at struct{ g, e int }
	var where []at
	for _, k := range order {
		arms := by[k]
		first := arms[0].cfg
		g := Group{Benchmark: k.bench, Key: k.ckey, Provenance: provenance(first.HeldFixed), Mode: first.HeldFixed.ResolvedMode,
			HeldFixed: fields(first.HeldFixed), Metric: o.Metric}
		if g.Metric == "" {
			g.Metric = DefaultMetric(g.Mode)
		}
		for _, a := range arms {
			if synthetic(a.in.Bundle, a.cfg) {
				g.Synthetic, g.Label = true, SyntheticLabel
			}
		}
		var ranked []arm
		for _, a := range arms {
			if _, ok := a.res.Metrics[g.Metric]; ok {
				ranked = append(ranked, a)
			} else {
				g.Unscored++
			}
		}
		if len(ranked) == 0 && o.Metric != "" {
			continue // the chosen metric is not scored here
		}
		slices.SortStableFunc(ranked, func(a, b arm) int {
			return cmp.Or(cmp.Compare(b.res.Metrics[g.Metric], a.res.Metrics[g.Metric]),
				a.in.Date.Compare(b.in.Date), strings.Compare(a.in.ID, b.in.ID), strings.Compare(a.cfg.Name, b.cfg.Name))
		})
		for i, a := range ranked {
			e := Entry{RunID: a.in.ID, Arm: a.cfg.Name, Submitter: a.in.Submitter, Date: a.in.Date, Mean: a.res.Metrics[g.Metric],
				VariedLevels: a.cfg.VariedLevels}
			if st, ok := a.res.MetricStats[g.Metric]; ok {
				e.N, e.CILow, e.CIHigh = st.N, st.CILow, st.CIHigh
			}
			g.Entries = append(g.Entries, e)
			if i > 0 {
				above := ranked[i-1]
				pairs = append(pairs, results.Pair{Arm: armResult(above), Baseline: armResult(a)})
				where = append(where, at{len(groups), i})
			}
		}
		groups = append(groups, g)
	}
	// Each adjacent pair is compared on its gate metrics and the group's
	// metric, one Holm family per pair (results.Compare); the tie is read
	// on the group's metric.
	metricOf := map[string]string{}
	for i, p := range pairs {
		metricOf[p.Arm.Label+"\x00"+p.Baseline.Label] = groups[where[i].g].Metric
	}
	cmps := results.Compare(pairs, results.CompareOptions{
		PairMetrics: func(p results.Pair) []string {
			ms := results.GateMetrics(p)
			if m := metricOf[p.Arm.Label+"\x00"+p.Baseline.Label]; !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
			return ms
		},
		Resamples: o.Resamples, Seed: o.Seed,
	})
	found := map[string]*Versus{}
	for _, c := range cmps.Comparisons {
		if c.Metric != metricOf[c.Arm+"\x00"+c.Baseline] {
			continue
		}
		found[c.Arm+"\x00"+c.Baseline] = &Versus{Tied: !c.Significant, Diff: c.Mean - c.BaselineMean,
			Shared: c.Stats.N, P: c.Stats.P, HolmP: c.HolmP, Family: c.FamilySize, MDE: c.MDE}
	}
	for _, r := range cmps.Refusals {
		if k := r.Arm + "\x00" + r.Baseline; found[k] == nil {
			found[k] = &Versus{Tied: true, Refused: r.Reason}
		}
	}
	for i, p := range pairs {
		v := found[p.Arm.Label+"\x00"+p.Baseline.Label]
		if v == nil {
			v = &Versus{Tied: true, Refused: "not compared"}
		}
		groups[where[i].g].Entries[where[i].e].Above = v
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

package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/results"
)

// LoadBenchmarks loads and selects every benchmark entry of s from fsys
// (paths in s are relative to fsys): filters, then n_samples with the
// entry's seed. Every entry is loaded before the first error is returned,
// so all data problems are reported at once.
func LoadBenchmarks(fsys fs.FS, s *Sweep) ([]*BenchmarkRun, error) {
	return LoadBenchmarksWith(fsys, s, nil)
}

// Resolver returns the benchmark a registry:NAME[@hash] path names, or an
// error (such as a refusal to evaluate a draft).
type Resolver func(ref string) (*lasagna.Benchmark, error)

// LoadBenchmarksWith is LoadBenchmarks with registry:NAME[@hash] paths
// read through resolve; without one (nil) such a path is an error.
func LoadBenchmarksWith(fsys fs.FS, s *Sweep, resolve Resolver) ([]*BenchmarkRun, error) {
	var (
		out  []*BenchmarkRun
		errs []error
	)
	for _, e := range s.Benchmarks {
		var (
			b   *lasagna.Benchmark
			err error
		)
		switch {
		case IsRegistryPath(e.Path) && resolve == nil:
			err = errors.New("no benchmark registry here: the lasagna CLI reads registry: paths; in a Go test, load them with evaltest/evalregistry (evalregistry.Load) into evaltest.Config.Data")
		case IsRegistryPath(e.Path):
			b, err = resolve(e.Path)
		default:
			b, err = datasets.Load(fsys, e.Path, datasets.Options{Name: e.Name, Split: e.Split, Corpus: e.Corpus})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%sbenchmark %s: %w", posPrefix(e.Pos), e.Path, err))
			continue
		}
		seed := s.EntrySeed(e)
		sel, info, err := datasets.Select(b, datasets.Selection{Filters: e.Filters, NSamples: e.NSamples, Seed: &seed})
		if err != nil {
			errs = append(errs, fmt.Errorf("%sbenchmark %s: %w", posPrefix(e.Pos), b.Name, err))
			continue
		}
		if e.AnswerNormalization != "" {
			sel.AnswerNormalization = e.AnswerNormalization
		}
		out = append(out, NewBenchmarkRun(sel, info, e.NSamples))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// BuiltinArms returns the arms of s's arm specs with the zero Deps (BM25
// only); see Deps.Arms.
func BuiltinArms(s *Sweep) ([]Arm, error) { return Deps{}.Arms(s) }

// Arms returns the arms of s's arm specs. The dimensions any arm
// declares as varied, and the components in which the arms differ
// (VaryComponents), are varied for all of them (the cells of one
// factorial), so that they share a comparability key. An arm without its own judge or vector_backend takes
// the sweep's. It is ArmsContext with context.Background().
func (d Deps) Arms(s *Sweep) ([]Arm, error) { return d.ArmsContext(context.Background(), s) }

// ArmsContext is Arms; ctx bounds the connections to the arms' vector
// backends, each opened once to describe it.
func (d Deps) ArmsContext(ctx context.Context, s *Sweep) ([]Arm, error) {
	var (
		arms   []Arm
		errs   []error
		varied []string
	)
	for _, spec := range s.Arms {
		varied = append(varied, spec.Varied...)
	}
	slices.Sort(varied)
	varied = slices.Compact(varied)
	for _, spec := range s.Arms {
		spec.Varied = varied
		if spec.Judge == nil && spec.Generator != nil {
			spec.Judge = s.Judge
		}
		spec.VectorBackend = s.ArmVectorBackend(spec)
		if spec.Repeats == 0 {
			spec.Repeats = s.Repeats
		}
		if spec.Pass == "" {
			spec.Pass = s.Pass
		}
		a, err := d.ArmContext(ctx, spec, s.ArmTopK(spec))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		arms = append(arms, a)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	VaryComponents(arms)
	return arms, nil
}

// Plan is one run as a front end builds it (evaltest from its Config, the
// lasagna CLI from its flags and a sweep file, the dashboard from its
// form): the benchmarks, the arms, what is checked on the results, and
// how the run goes. Check finds every problem that can be found before
// the first pipeline call; Execute checks, runs and decides. Front ends
// only build a Plan and render what Execute returns.
type Plan struct {
	// Benchmarks are loaded and selected (LoadBenchmarksWith); nil while a
	// front end checks the arms before it loads any data.
	Benchmarks []*BenchmarkRun
	Arms       []Arm
	// Thresholds are each arm's thresholds, by arm name.
	Thresholds map[string][]Threshold
	// Gate, when set, gates every cell against the same arm in its
	// baseline (GateVerdicts); its Baseline may be nil while the plan is
	// checked before the baseline is read.
	Gate *GateOptions
	// CutoffsName says where the user adds a cutoff, for messages
	// ("cutoffs: in the sweep file", "Config.Cutoffs").
	CutoffsName string
	// Options set how the run goes; Options.Cutoffs are the plan's cutoffs.
	Options Options
	// AttrMetrics are the metrics each query unit records as attributes
	// (lasagna.<metric>), besides lasagna.query_id and, with repeats,
	// lasagna.repeats and lasagna.pass_rate; nil means every metric the
	// query scored (ndcg@10, recall@10, mrr, exact_match and token_f1
	// first, then the others by name) and latency_ms.
	AttrMetrics []string
	// Latency records each row's latency_ms in the bundle (see
	// BundleOptions.Latency).
	Latency bool
	// Selection names how the front end selects part of the plan (go
	// test's -run and -skip patterns); the bundle of a run that left part
	// of the plan out records it as its subset.
	Selection string
	// Submitter, when set, names who publishes the bundle.
	Submitter *results.Submitter
}

// TableMetrics are the metrics the results tables show besides their
// default columns: for each arm, its judge's metrics, its scorers', every
// metric its thresholds check and, when the plan is gated, the metrics
// the gate checks; latency_ms, which is not a bundle metric, is left out.
// Every front end passes them to reporters.SummaryMetrics, which keeps
// those some result of the bundle scores.
func (p *Plan) TableMetrics() []string {
	var ms []string
	add := func(m string) {
		if m != MetricLatency && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	for i := range p.Arms {
		a := &p.Arms[i]
		if a.Judge != nil {
			for _, m := range judgeMetricsOf(a.Judge) {
				add(m)
			}
		}
		for _, sc := range a.Scorers {
			for _, m := range sc.Metrics {
				add(m)
			}
		}
		for _, th := range p.Thresholds[a.Name] {
			add(th.Metric)
		}
		if p.Gate != nil {
			for _, m := range GatedMetrics(p.Gate.Gate, a) {
				add(m)
			}
		}
	}
	return ms
}

// SweepPlan returns the plan of sweep s without its benchmarks: its arms
// (ArmsContext), thresholds and cutoffs. The caller checks it (Check)
// before it loads any data, then sets Benchmarks (LoadBenchmarksWith),
// the gate and the run's Options (journal, shard, concurrency).
func (d Deps) SweepPlan(ctx context.Context, s *Sweep) (*Plan, error) {
	arms, err := d.ArmsContext(ctx, s)
	if err != nil {
		return nil, err
	}
	return &Plan{Arms: arms, Thresholds: s.Thresholds(), CutoffsName: "cutoffs: in the sweep file",
		Options: Options{Cutoffs: s.Cutoffs, Slices: s.Slices}}, nil
}

// Check reports every problem of p that needs no pipeline call, all at
// once: arm names and arm configurations, the metric names of every
// threshold and (when gated) of the gate, with "did you mean" and the
// cutoff to add, cutoffs, the shard, and — once the benchmarks are loaded
// — whether each benchmark supports each arm's tracks and names a known
// answer normalisation.
func (p *Plan) Check() error {
	if len(p.Arms) == 0 {
		return errors.New("the plan has no arms")
	}
	errs := checkArms(p.Arms)
	names := map[string]bool{}
	for i := range p.Arms {
		a := &p.Arms[i]
		names[a.Name] = true
		if ths := p.Thresholds[a.Name]; len(ths) > 0 {
			if err := checkThresholds(a, p.Options.Cutoffs, p.cutoffsName(), ths); err != nil {
				errs = append(errs, err)
			}
		}
		if p.Gate != nil && p.Gate.Gate.Metrics != nil {
			if err := checkMetrics(a, p.Options.Cutoffs, p.cutoffsName(), "gate", GatedMetrics(p.Gate.Gate, a)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for name := range p.Thresholds {
		if !names[name] {
			errs = append(errs, fmt.Errorf("thresholds are set for arm %q, which the plan does not have", name))
		}
	}
	if err := checkPaired(p.Arms, p.Thresholds, p.Options.Cutoffs, p.cutoffsName()); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, checkOptions(p.Options)...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if p.Benchmarks == nil {
		return nil
	}
	return errors.Join(checkPlan(p.Benchmarks, p.Arms), CheckSlices(p.Benchmarks, p.Options.Slices), p.checkSize())
}

// checkPaired checks the paired thresholds (NotWorseThan) of each arm,
// by arm name in thresholds: the arm they name must be another arm of
// arms that scores the metric.
func checkPaired(arms []Arm, thresholds map[string][]Threshold, cutoffs []int, cutoffsName string) error {
	var errs []error
	byName := map[string]*Arm{}
	var names []string
	for i := range arms {
		byName[arms[i].Name] = &arms[i]
		names = append(names, arms[i].Name)
	}
	for _, a := range arms {
		for _, th := range thresholds[a.Name] {
			if !th.Paired() {
				continue
			}
			other, ok := byName[th.NotWorseThan]
			switch {
			case th.NotWorseThan == a.Name:
				errs = append(errs, fmt.Errorf("%sarm %s: threshold on %s is not_worse_than the arm itself; name another arm of the run (%s)", posPrefix(th.Pos), a.Name, th.Metric, strings.Join(names, ", ")))
			case !ok:
				errs = append(errs, fmt.Errorf("%sarm %s: threshold on %s is not_worse_than %q, which is not an arm of the run%s; arms: %s", posPrefix(th.Pos), a.Name, th.Metric, th.NotWorseThan, suggest.Hint(th.NotWorseThan, names), strings.Join(names, ", ")))
			default:
				if err := checkMetrics(other, cutoffs, cutoffsName, "threshold of arm "+a.Name+" not_worse_than it", []string{th.Metric}); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func (p *Plan) cutoffsName() string {
	if p.CutoffsName == "" {
		return "the run's cutoffs"
	}
	return p.CutoffsName
}

// notVariedByDifference are the settings that never become varied
// because arms differ in them (VaryComponents): the judge decides scores,
// and the ingest gap describes the data, so a difference refuses the
// comparison (STAGE_ISOLATION) unless an arm declares it varied.
var notVariedByDifference = []string{"judge_model", "corpus_ingest_gap"}

// VaryComponents records, in every arm's Varied, the component slots in
// which the arms of one plan differ: each stage (retriever, generator,
// reranker, …) whose description differs or that some arms lack, each
// setting (bm25_stemming, embedder_model, vector_backend, …) likewise, and
// retriever_top_k when the retrieving arms' depths differ — besides the
// dimensions any arm declares. Arms of one run that differ in their own
// components thus share a comparability key and compare, as the cells of
// one factorial do, without declaring varied:. The judge (its stage and
// judge_model) is never varied this way, nor is anything of the data
// (benchmark, split, sample, corpus, metrics version), which is not an
// arm's: a difference there still refuses the comparison.
func VaryComponents(arms []Arm) {
	var varied []string
	for i := range arms {
		varied = append(varied, arms[i].Varied...)
	}
	if len(arms) > 1 {
		stages := map[lasagna.Stage]bool{}
		settings := map[string]bool{}
		for _, a := range arms {
			for s := range a.Stages {
				stages[s] = true
			}
			for k := range a.Settings {
				settings[k] = true
			}
		}
		for s := range stages {
			if s == StageJudge {
				continue
			}
			d0, ok0 := arms[0].Stages[s]
			for _, a := range arms[1:] {
				if d, ok := a.Stages[s]; ok != ok0 || d != d0 {
					varied = append(varied, string(s))
					break
				}
			}
		}
		for k := range settings {
			if slices.Contains(notVariedByDifference, k) {
				continue
			}
			v0, ok0 := arms[0].Settings[k]
			for _, a := range arms[1:] {
				if v, ok := a.Settings[k]; ok != ok0 || fmt.Sprint(v) != fmt.Sprint(v0) {
					varied = append(varied, k)
					break
				}
			}
		}
		depth := -1
		for i := range arms {
			if !arms[i].Retrieves() {
				continue
			}
			if k := arms[i].topK(); depth < 0 {
				depth = k
			} else if k != depth {
				varied = append(varied, "retriever_top_k")
				break
			}
		}
	}
	slices.Sort(varied)
	varied = slices.Compact(varied)
	for i := range arms {
		arms[i].Varied = slices.Clone(varied)
	}
}

// checkSize refuses a plan of more than MaxQueryRuns query runs (each
// benchmark's queries in this shard × each arm's runs per query), before
// any pipeline call, naming the way out: shards.
func (p *Plan) checkSize() error {
	runs := 0
	for i := range p.Arms {
		runs += p.Arms[i].RunsPerQuery()
	}
	total := 0
	for _, br := range p.Benchmarks {
		n := len(br.Benchmark.Queries)
		if c := p.Options.Shard.Count; c > 1 {
			n = (n + c - 1) / c
		}
		total += n * runs
		if total > MaxQueryRuns {
			break
		}
	}
	if total <= MaxQueryRuns {
		return nil
	}
	shards := (total + MaxQueryRuns - 1) / MaxQueryRuns
	if c := p.Options.Shard.Count; c > 1 {
		shards *= c
	}
	return fmt.Errorf("the plan runs more than %d queries (queries × arms × repeats); run it in at least %d shards (--shard i/%d, or LASAGNA_SHARD=i/%d in go test) and join their bundles with lasagna results merge (docs/cli.md, \"Limits\")", MaxQueryRuns, shards, shards, shards)
}

package evaltest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strconv"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/engine"
	"github.com/lasagna-go/lasagna/reporters"
)

// Config is what Run evaluates. The zero value of every field works (a
// Config needs at least one benchmark and one arm, from any source).
type Config struct {
	// Benchmarks are dataset paths — a .jsonl or .csv file or a BEIR folder
	// — relative to the test's package folder (or to FS when set). Each is
	// registered under its local name (local/<stem>@<12 hex>).
	Benchmarks []string
	// Sweep is the path of a sweep file (YAML, as `lasagna benchmark run
	// --sweep` reads), relative to the package folder (or to FS). Its
	// benchmarks (with their n_samples, seed and filters) and its built-in
	// arms are added to the others.
	Sweep string
	// FS, when set, is where Benchmarks and Sweep are read from instead of
	// the package folder: an embed.FS or fstest.MapFS, for example.
	FS fs.FS
	// Data are benchmarks already in memory (built by the caller or loaded
	// with package datasets); all their queries run.
	Data []*lasagna.Benchmark

	// Arms are the pipelines to evaluate: the user's own (see Arm) and
	// built-in baselines such as BM25(). Names must be unique.
	Arms []Arm
	// Thresholds apply to every arm, in addition to each arm's own.
	Thresholds []Threshold

	// Repeats runs each query of an arm that samples (Arm.Samples) this
	// many times; 0 or 1 runs it once, which raises the SINGLE_RUN warning
	// for such an arm. Arms that do not sample run once whatever Repeats
	// says. Pass decides, inside the query's subtest, how many repeats must
	// pass.
	Repeats int
	// Pass is the pass rule of repeated queries; the zero value is All().
	Pass PassRule

	// Baseline is the path of a committed baseline bundle, relative to the
	// package folder (never read from FS, since LASAGNA_UPDATE_BASELINE=1
	// rewrites it). When set, every arm is gated against its result in the
	// baseline (see Gate).
	Baseline string
	// Gate sets the regression gate against Baseline.
	Gate Gate

	// Cutoffs are the k of the @k retrieval metrics; nil means 1, 5 and 10
	// (each arm's depth is always added).
	Cutoffs []int
	// AttrMetrics are the metrics each query subtest records with t.Attr
	// (as lasagna.<metric>); nil means ndcg@10, recall@10, mrr,
	// exact_match and token_f1 (those scored), plus every metric named by
	// a threshold or the gate.
	AttrMetrics []string
	// Reporters receive the finished bundle after the built-in ones (the
	// JSON file, the console table logged by the test, and the Markdown
	// summary when $GITHUB_STEP_SUMMARY is set). An error fails the test.
	Reporters []reporters.Reporter
	// StatsSeed seeds the bootstrap confidence intervals and randomisation
	// tests; 0 means 42.
	StatsSeed uint64
}

// Arm is one pipeline to evaluate. Set exactly one way of running it:
//
//   - Retriever (or BuildRetriever, to index each benchmark's corpus):
//     a retrieval arm; with Generator also set, a RAG arm whose generator
//     sees the documents of the first Passages hits.
//   - Generator alone: a generation arm, answering from the gold passages
//     of each row (its contexts).
//   - Pipeline (or Build): a whole system as one function from a query to
//     an Output; Mode says what it returns.
//
// Plain functions work through lasagna.RetrieverFunc, GeneratorFunc and
// PipelineFunc. Arm values are copied by Run and may be reused.
type Arm struct {
	// Name names the arm's subtests and its config in the bundle; unique in
	// a run, and -run-safe after '/' and spaces become '_'.
	Name string

	Retriever      lasagna.Retriever
	BuildRetriever func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error)
	Generator      lasagna.Generator
	Pipeline       lasagna.Pipeline
	Build          func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error)

	// Mode is what a Pipeline or Build arm returns: lasagna.ModeRetrieval
	// (ranked hits), ModeGeneration (answers) or ModeRAG (both; the
	// default). Other arms derive their mode.
	Mode lasagna.Mode
	// TopK is the depth of ranked lists (0 means 100); longer lists are cut.
	TopK int
	// Passages is how many retrieved documents a RAG arm's Generator sees;
	// 0 means 5.
	Passages int
	// Samples marks an arm that calls a sampling LLM: Config.Repeats then
	// applies to it, and a single run raises SINGLE_RUN.
	Samples bool
	// Stages, Settings and Varied describe the arm's components for the
	// bundle's held_fixed block and comparability key (see engine.Arm).
	// Keep them stable: a baseline only gates an arm whose held_fixed block
	// is unchanged.
	Stages   map[lasagna.Stage]string
	Settings map[string]any
	Varied   []string
	// Thresholds apply to this arm only.
	Thresholds []Threshold
	// Judge, when set, scores the arm's answers with an LLM judge
	// (judge_correctness, groundedness; see package judge, e.g.
	// judge.New(client, judge.Config{Model: "gpt-4o-2024-08-06"})). A failed
	// judge call is a JUDGE_ERRORS finding, never a score; judge_model and
	// the judge's prompts enter held_fixed; a judged arm samples, so
	// Config.Repeats applies and a single run raises SINGLE_RUN.
	Judge engine.Judge

	builtin *engine.ArmSpec
}

// BM25 returns the built-in BM25 baseline arm, named "bm25" (Snowball
// stemming on, English stop words, the retrieval/bm25 defaults of k1 and
// b). It indexes each benchmark's corpus. Change its Name, TopK or
// Thresholds on the returned value as needed.
func BM25() Arm {
	return Arm{Name: "bm25", builtin: &engine.ArmSpec{Name: "bm25", Retriever: engine.RetrieverBM25}}
}

// engineArm converts a into the engine's arm.
func (a Arm) engineArm() (engine.Arm, error) {
	if a.Name == "" {
		return engine.Arm{}, errors.New("an arm needs a Name")
	}
	if a.TopK < 0 {
		return engine.Arm{}, fmt.Errorf("arm %s: TopK is %d; want a positive depth (or 0 for 100)", a.Name, a.TopK)
	}
	topK := a.TopK
	if topK == 0 {
		topK = engine.DefaultTopK
	}
	if a.builtin != nil {
		spec := *a.builtin
		spec.Name = a.Name
		arm, err := engine.BuiltinArm(spec, topK)
		if err != nil {
			return engine.Arm{}, err
		}
		arm.Samples = a.Samples
		return arm, nil
	}
	n := 0
	for _, set := range []bool{a.Retriever != nil || a.BuildRetriever != nil, a.Generator != nil && a.Retriever == nil && a.BuildRetriever == nil, a.Pipeline != nil, a.Build != nil} {
		if set {
			n++
		}
	}
	if n != 1 || (a.Retriever != nil && a.BuildRetriever != nil) {
		return engine.Arm{}, fmt.Errorf("arm %s: set exactly one of Retriever (or BuildRetriever, optionally with Generator), Generator, Pipeline or Build", a.Name)
	}
	arm := engine.Arm{Name: a.Name, TopK: topK, Stages: a.Stages, Settings: a.Settings, Varied: a.Varied, Samples: a.Samples || a.Judge != nil}
	passages := a.Passages
	if passages <= 0 {
		passages = 5
	}
	switch {
	case a.Retriever != nil || a.BuildRetriever != nil:
		arm.Retrieves = true
		arm.Answers = a.Generator != nil
		retr, gen := a.Retriever, a.Generator
		buildR := a.BuildRetriever
		arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
			r := retr
			if buildR != nil {
				var err error
				if r, err = buildR(ctx, b); err != nil {
					return nil, err
				}
				if r == nil {
					return nil, fmt.Errorf("BuildRetriever returned a nil retriever")
				}
			}
			var docs map[string]*lasagna.Document
			if gen != nil {
				docs = make(map[string]*lasagna.Document, len(b.Corpus))
				for i := range b.Corpus {
					docs[b.Corpus[i].ID] = &b.Corpus[i]
				}
			}
			return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
				hits, err := r.Retrieve(ctx, q, topK)
				if err != nil || gen == nil {
					return lasagna.Output{Hits: hits}, err
				}
				var ps []lasagna.Document
				for _, h := range hits[:min(passages, len(hits))] {
					if d, ok := docs[h.ID]; ok {
						ps = append(ps, *d)
					}
				}
				return answer(ctx, gen, q, ps, hits)
			}), nil
		}
	case a.Generator != nil:
		arm.Answers = true
		gen := a.Generator
		arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
			return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
				ps := make([]lasagna.Document, len(q.Contexts))
				for i, c := range q.Contexts {
					ps[i] = lasagna.Document{ID: "context-" + strconv.Itoa(i+1), Text: c}
				}
				return answer(ctx, gen, q, ps, nil)
			}), nil
		}
	default:
		switch a.Mode {
		case lasagna.ModeRetrieval:
			arm.Retrieves = true
		case lasagna.ModeGeneration:
			arm.Answers = true
		case lasagna.ModeRAG, "":
			arm.Retrieves, arm.Answers = true, true
		default:
			return engine.Arm{}, fmt.Errorf("arm %s: Mode %q is not one of retrieval, generation or rag", a.Name, a.Mode)
		}
		if a.Pipeline != nil {
			p := a.Pipeline
			arm.Build = func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) { return p, nil }
		} else {
			build := a.Build
			arm.Build = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Pipeline, error) {
				p, err := build(ctx, b)
				if err == nil && p == nil {
					err = fmt.Errorf("the arm's Build returned a nil pipeline")
				}
				return p, err
			}
		}
	}
	if a.Judge != nil {
		if !arm.Answers {
			return engine.Arm{}, fmt.Errorf("arm %s: a Judge scores answers, and this arm returns none; give it a Generator (or a Pipeline in generation or rag mode)", a.Name)
		}
		arm.Judge = a.Judge
		arm.Settings = maps.Clone(arm.Settings)
		if arm.Settings == nil {
			arm.Settings = map[string]any{}
		}
		arm.Settings["judge_model"] = a.Judge.Model()
		arm.Stages = maps.Clone(arm.Stages)
		if arm.Stages == nil {
			arm.Stages = map[lasagna.Stage]string{}
		}
		if d, ok := a.Judge.(interface{ Describe() string }); ok {
			arm.Stages[engine.StageJudge] = d.Describe()
		} else {
			arm.Stages[engine.StageJudge] = a.Judge.Model()
		}
	}
	return arm, nil
}

func answer(ctx context.Context, g lasagna.Generator, q lasagna.Query, ps []lasagna.Document, hits []lasagna.Hit) (lasagna.Output, error) {
	a, err := g.Generate(ctx, q, ps)
	if err != nil {
		return lasagna.Output{}, err
	}
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.Text
	}
	return lasagna.Output{Hits: hits, Answer: a.Text, Answered: true, Abstained: a.Abstained, Passages: texts}, nil
}

// Threshold is a bound on a metric: on the arm's mean over its scored
// queries (the default), or on every query (see PerQuery). Make one with
// AtLeast or AtMost.
type Threshold struct {
	metric   string
	bound    float64
	atMost   bool
	perQuery bool
}

// AtLeast returns the threshold metric ≥ min, e.g. AtLeast("ndcg@10", 0.6).
func AtLeast(metric string, min float64) Threshold {
	return Threshold{metric: metric, bound: min}
}

// AtMost returns the threshold metric ≤ max.
func AtMost(metric string, max float64) Threshold {
	return Threshold{metric: metric, bound: max, atMost: true}
}

// PerQuery returns th checked on each query's own score, inside the
// query's subtest, instead of on the arm's mean. A query that does not
// score th's metric (say, a query without judgements) is not checked.
func PerQuery(th Threshold) Threshold {
	th.perQuery = true
	return th
}

// Metric returns the metric th bounds.
func (th Threshold) Metric() string { return th.metric }

// String formats th as "ndcg@10 >= 0.6" (with "per query" when it is one).
func (th Threshold) String() string {
	s := th.metric + " " + th.want()
	if th.perQuery {
		s += " per query"
	}
	return s
}

func (th Threshold) want() string {
	op := ">="
	if th.atMost {
		op = "<="
	}
	return op + " " + strconv.FormatFloat(th.bound, 'g', -1, 64)
}

// Check reports whether the value v meets th.
func (th Threshold) Check(v float64) bool { return th.ok(v) }

// IsPerQuery reports whether th applies to each query (see PerQuery).
func (th Threshold) IsPerQuery() bool { return th.perQuery }

// ok reports whether v meets th.
func (th Threshold) ok(v float64) bool {
	if th.atMost {
		return v <= th.bound
	}
	return v >= th.bound
}

// PassRule decides whether a repeated query passes, from how many of its
// repeats passed. The zero value is All().
type PassRule struct {
	kind int // 0 all, 1 majority, 2 rate
	rate float64
}

// All passes a query when every repeat passes.
func All() PassRule { return PassRule{} }

// Majority passes a query when more than half of its repeats pass.
func Majority() PassRule { return PassRule{kind: 1} }

// RateAtLeast passes a query when at least the share x (0 ≤ x ≤ 1) of its
// repeats pass.
func RateAtLeast(x float64) PassRule { return PassRule{kind: 2, rate: x} }

func (p PassRule) passes(passed, n int) bool {
	switch p.kind {
	case 1:
		return 2*passed > n
	case 2:
		return float64(passed) >= p.rate*float64(n)
	default:
		return passed == n
	}
}

// String names the rule: "all", "majority" or "rate >= 0.8".
func (p PassRule) String() string {
	switch p.kind {
	case 1:
		return "majority"
	case 2:
		return "rate >= " + strconv.FormatFloat(p.rate, 'g', -1, 64)
	default:
		return "all"
	}
}

// Gate is the regression gate against a baseline bundle. For each arm, the
// gated metrics are compared with the baseline arm of the same name on the
// same benchmark, query by query (paired by query id, results.Compare), and
// the p-values are Holm-adjusted across the arm's gated metrics. A metric
// fails the gate only when it dropped by more than Tolerance AND its
// adjusted p-value is below Alpha; the message gives both numbers. All
// metrics are read as higher-is-better.
type Gate struct {
	// Metrics are the gated metrics; nil means ndcg@10 and recall@10 for a
	// retrieving arm, and token_f1 for an answering arm (those the arm
	// scores).
	Metrics []string
	// Tolerance is the largest drop of a metric's mean that passes even
	// when significant; 0 means 0.01.
	Tolerance float64
	// Alpha is the significance level on Holm-adjusted p-values; 0 means
	// 0.05.
	Alpha float64
}

func (g Gate) tolerance() float64 {
	if g.Tolerance > 0 {
		return g.Tolerance
	}
	return 0.01
}

func (g Gate) alpha() float64 {
	if g.Alpha > 0 && g.Alpha < 1 {
		return g.Alpha
	}
	return 0.05
}

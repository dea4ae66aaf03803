package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
)

// BenchmarkRun is one loaded, selected benchmark of a plan.
type BenchmarkRun struct {
	// Benchmark holds the selected queries; its corpus and qrels are whole.
	Benchmark *lasagna.Benchmark
	// Sample says which queries were kept (n_samples, seed, id digest).
	Sample datasets.SampleInfo
	// NSamples is the n_samples the plan asked for (0 = all).
	NSamples int
	// CorpusDigest is the corpus's own identity (datasets.CorpusDigest),
	// recorded in the bundle's corpus_digest. LoadBenchmarksWith sets it;
	// Run sets it when empty, before any arm may release the corpus texts
	// (Options.ReleaseTexts).
	CorpusDigest string
}

// NewBenchmarkRun returns the run of benchmark b with the queries
// datasets.Select kept (info) for n_samples nSamples, its CorpusDigest set.
// An n_samples at or above the number of queries the filters kept draws
// them all and is recorded as 0.
func NewBenchmarkRun(b *lasagna.Benchmark, info datasets.SampleInfo, nSamples int) *BenchmarkRun {
	if nSamples >= info.Filtered {
		// Asking for every query, or more, draws them all: recorded as 0
		// (all), so the same sample has the same comparability key.
		nSamples = 0
	}
	return &BenchmarkRun{Benchmark: b, Sample: info, NSamples: nSamples, CorpusDigest: datasets.CorpusDigest(b)}
}

// corpusDigest returns br's CorpusDigest, computed from the corpus when
// unset (without setting it: cells of one benchmark may be described
// concurrently).
func (br *BenchmarkRun) corpusDigest() string {
	if br.CorpusDigest == "" {
		return datasets.CorpusDigest(br.Benchmark)
	}
	return br.CorpusDigest
}

// Options control a run. The zero value runs every query with
// GOMAXPROCS-bounded concurrency, no journal and the default cutoffs.
type Options struct {
	// Concurrency caps the queries in flight per cell; 0 means
	// runtime.GOMAXPROCS(0). Raise it for pipelines that wait on the
	// network.
	Concurrency int
	// JournalDir, when set, holds resume journals (one file per benchmark
	// revision and arm configuration).
	JournalDir string
	// Resume reuses the finished queries of matching journals.
	Resume bool
	// Shard runs only this shard's queries (the zero Shard runs all).
	Shard Shard
	// Cutoffs are the k of the @k retrieval metrics; nil means
	// DefaultMetricCutoffs(). The arm's depth is always added.
	Cutoffs []int
	// Progress, when set, is called after each finished query.
	Progress func(done, total int)
	// StatsSeed seeds the bootstrap confidence intervals (0 means 42).
	StatsSeed uint64
	// ReleaseTexts lets Run clear the Title and Text of the benchmarks'
	// corpus documents once no arm needs them: when every arm is a
	// built-in BM25 retriever alone (no generator, pipeline or judge),
	// the last arm on each benchmark drops the texts as it indexes them,
	// so that a retrieval-only run holds its index and not also the
	// corpus. Set it only when the caller reads no corpus text after Run
	// (the lasagna CLI does); ids are kept.
	ReleaseTexts bool
	// BundleUnhashed leaves the outcome's bundle without its run_id
	// (results.Prepare instead of results.Finalize), so it is not encoded
	// and hashed once here and again when written: set it when the caller
	// writes the bundle with results.WriteFile or WriteFileIn, which set
	// the run_id as they write, before reading it (the lasagna CLI does).
	BundleUnhashed bool

	// Slices are the metadata keys whose values the bundle breaks every
	// metric down by (results.Result.Slices), besides the built-in
	// answerable split, which a run that scores answers on a sample with
	// unanswerable queries always gets.
	Slices []string

	// MaxCost, when positive, caps the run's LLM spending in US dollars:
	// before each query run (and each arm build, which embeds a dense
	// arm's corpus) the cost the arms' LLM clients have spent, plus the
	// estimate of the calls in flight and of this one (EstimatePlan's
	// rules, at list prices), must stay within it. Once it would not, no
	// further query starts and Execute returns an *Interrupted wrapping a
	// *CostCapped; the journal keeps the finished queries, so a run with
	// Resume and a higher cap goes on. Only calls of the built-in LLM
	// components (package llmarms) are counted; a plan calling a model
	// without a price is refused.
	MaxCost float64

	// repeat is the 0-based repeat a cellRun runs (startRepeats).
	repeat int
}

// ErrNoPrediction is the error of a pipeline that replays predictions
// made elsewhere and has none for the query: a failed row, or a row
// scored 0 on an arm with MissingZero.
var ErrNoPrediction = errors.New("no prediction")

// Shard selects every query whose position in the benchmark's sorted query
// ids is congruent to Index-1 modulo Count (1 ≤ Index ≤ Count). The zero
// Shard selects all.
type Shard struct{ Index, Count int }

// ParseShard reads a shard as i/n with 1 ≤ i ≤ n ("2/4"), as
// LASAGNA_SHARD and the CLI's --shard write it; "" and i/1 are the zero
// Shard (every query).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("%q is not i/n with 1 ≤ i ≤ n, e.g. 1/4", s)
	}
	if b == 1 {
		return Shard{}, nil
	}
	return Shard{Index: a, Count: b}, nil
}

// ciShardVars are the parallel-job variables of the CI runners a shard
// setting of "ci" reads (ResolveShard), in the order they are tried: each
// runner's job index, whether that index counts from 1, and its job count.
var ciShardVars = [...]struct {
	runner, index, count string
	oneBased             bool
}{
	{"CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", false},
	{"Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", false},
	{"GitLab CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", true},
}

// ResolveShard reads a shard setting as LASAGNA_SHARD and the CLI's
// --shard take it: i/n (ParseShard), or "ci", the parallel-job variables
// of the CI runner the job runs on — CircleCI's CIRCLE_NODE_INDEX and
// CIRCLE_NODE_TOTAL, Buildkite's BUILDKITE_PARALLEL_JOB and
// BUILDKITE_PARALLEL_JOB_COUNT (both counting from 0), GitLab CI's
// CI_NODE_INDEX and CI_NODE_TOTAL (from 1) — read exactly as the i/n they
// name. "ci" is asked for, never assumed: a runner that spreads test
// packages over its nodes sets the same variables, and a test reading
// them there would run a 1/n of its queries on one node and the rest
// nowhere. getenv is os.Getenv outside tests.
func ResolveShard(s string, getenv func(string) string) (Shard, error) {
	if strings.TrimSpace(s) != "ci" {
		return ParseShard(strings.TrimSpace(s))
	}
	var names []string
	for _, v := range ciShardVars {
		idx, cnt := strings.TrimSpace(getenv(v.index)), strings.TrimSpace(getenv(v.count))
		names = append(names, v.index+"/"+v.count)
		if idx == "" && cnt == "" {
			continue
		}
		first := 0
		if v.oneBased {
			first = 1
		}
		shard, ok := JobShard(idx, cnt, first)
		if !ok {
			return Shard{}, fmt.Errorf("ci: %s's %s=%q and %s=%q are not a job index (from %d) and a job count", v.runner, v.index, idx, v.count, cnt, first)
		}
		return shard, nil
	}
	return Shard{}, fmt.Errorf("ci: no CI runner's parallel-job variables are set (looked for %s); set i/n instead", strings.Join(names, ", "))
}

// JobShard is the shard of a parallel job given its index (counted from
// first) and the job count, as CI runners and Bazel name them: index 0
// of 3 from 0 is Shard{1, 3}, one job is the zero Shard. ok is false
// when they are not an index within the count.
func JobShard(index, count string, first int) (shard Shard, ok bool) {
	i, err1 := strconv.Atoi(index)
	n, err2 := strconv.Atoi(count)
	i -= first
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, false
	}
	if n == 1 {
		return Shard{}, true
	}
	return Shard{Index: i + 1, Count: n}, true
}

// Report is the outcome of a run: one cell per benchmark × arm, in plan
// order, and the integrity findings raised while running.
type Report struct {
	Cells    []*Cell
	Findings []lasagna.Finding
	// Shard is the shard that ran.
	Shard Shard
	// Slices are the metadata keys the bundle breaks the metrics down by
	// (Options.Slices).
	Slices []string
}

// Cell is one arm on one benchmark.
type Cell struct {
	Bench *BenchmarkRun
	Arm   *Arm
	// Queries holds one result per query this shard ran, in benchmark order.
	Queries []QueryResult
	// BuildErr is set when the arm's pipeline could not be built; the cell
	// then has no query results.
	BuildErr error
	// Resumed counts queries restored from the journal.
	Resumed int
	// Facts are the held_fixed facts the pipeline reported after building
	// (see lasagna.FactReporter); nil when every query was resumed or the
	// pipeline reports none.
	Facts map[string]any
}

// QueryResult is the outcome of one query.
type QueryResult struct {
	Query  *lasagna.Query
	Output lasagna.Output
	// Scores maps metric names to values; nil when the query failed or has
	// nothing to score.
	Scores map[string]float64
	// Err is the pipeline error of a failed query (never scored).
	Err error
	// Resumed marks a result restored from the journal.
	Resumed bool
	// Duplicate is the first id the ranked list holds twice (the list is
	// then not scored); Unknown the first id missing from the corpus, on
	// an arm that searches the benchmark's corpus (UNKNOWN_DOC_ID).
	Duplicate, Unknown string
	// Outside counts the ids of the ranked list missing from the
	// benchmark's corpus on an arm that searches its own index
	// (Arm.OwnIndex): they are scored as non-relevant and reported by the
	// OUTSIDE_CORPUS_IDS warning.
	Outside int
	// JudgeErr is the error of the arm's judge on this query
	// (JUDGE_ERRORS); the failed judge metrics are absent from Scores.
	JudgeErr error
	// JudgeModel is the model the judge's server named in its reply, and
	// JudgeAlias whether that resolved an alias the judge was asked for.
	JudgeModel string
	JudgeAlias bool
	// Latency is the wall time of the pipeline call (for a query restored
	// from the journal, the one the journal recorded; 0 when it recorded
	// none); the latency_ms threshold and the bundle row's latency_ms read
	// it.
	Latency time.Duration
	// Missing marks a query whose pipeline returned ErrNoPrediction on an
	// arm with MissingZero: it has no output and scores 0 on every metric
	// it is scored on.
	Missing bool
	// Repeats are the runs of a query of an arm that ran it several times
	// (Arm.Repeats); this result merges them (MergeRepeats). Nil for a
	// query run once.
	Repeats []*QueryResult
}

// LatencyMS returns r's latency in milliseconds (microsecond precision),
// and false when none was measured.
func (r *QueryResult) LatencyMS() (float64, bool) {
	if r.Latency <= 0 {
		return 0, false
	}
	return float64(r.Latency.Microseconds()) / 1000, true
}

// Where returns "benchmark/arm" for c.
func (c *Cell) Where() string { return c.Bench.Benchmark.Name + "/" + c.Arm.Name }

// Run runs every arm on every benchmark, as Execute does with a Recorder
// that keeps nothing and a plan of benches, arms and opts with no
// thresholds or gate, and returns the report. Benchmarks must be loaded
// and selected already (LoadBenchmarksWith).
func Run(ctx context.Context, benches []*BenchmarkRun, arms []Arm, opts Options) (*Report, error) {
	out, err := execute(Discard(ctx), &Plan{Benchmarks: benches, Arms: arms, Options: opts}, false)
	if err != nil {
		return nil, err
	}
	return out.Report, nil
}

func checkPlan(benches []*BenchmarkRun, arms []Arm) error {
	if len(benches) == 0 {
		return errors.New("the plan has no benchmarks")
	}
	if len(arms) == 0 {
		return errors.New("the plan has no arms")
	}
	if errs := checkArms(arms); len(errs) > 0 {
		return errs[0]
	}
	var errs []error
	for _, a := range arms {
		if a.MissingZero && a.Judge != nil {
			errs = append(errs, fmt.Errorf("arm %s: missing predictions scored 0 (MissingZero) cannot be judged; drop the judge or score missing predictions as failed rows", a.Name))
		}
	}
	for _, br := range benches {
		if _, err := metrics.ParseNormalization(br.Benchmark.AnswerNormalization); err != nil {
			errs = append(errs, fmt.Errorf("benchmark %s: %w", br.Benchmark.Name, err))
		}
		for _, a := range arms {
			if a.OwnIndex && a.Retrieves() && br.Benchmark.Format == lasagna.FormatVecta {
				// A Vecta CSV has no corpus: its chunk_ids judge the ids
				// of the arm's own index.
				continue
			}
			if err := datasets.RequireTracks(br.Benchmark, a.Tracks()...); err != nil {
				errs = append(errs, fmt.Errorf("arm %s: %w", a.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// checkArms checks each arm (Arm.Check) and that arm names are unique.
func checkArms(arms []Arm) []error {
	var errs []error
	names := map[string]bool{}
	units := map[string]string{}
	for i := range arms {
		a := &arms[i]
		if err := a.Check(); err != nil {
			errs = append(errs, err)
		}
		if names[a.Name] {
			errs = append(errs, fmt.Errorf("arm name %q is used twice; arm names must be unique", a.Name))
		} else if other, ok := units[SubtestName(a.Name)]; ok {
			errs = append(errs, fmt.Errorf("arms %q and %q have the same subtest name %q; arm names must be unique", other, a.Name, SubtestName(a.Name)))
		}
		names[a.Name] = true
		units[SubtestName(a.Name)] = a.Name
	}
	return errs
}

// checkOptions checks the cutoffs and the shard of o.
func checkOptions(o Options) []error {
	var errs []error
	for _, k := range o.Cutoffs {
		if k < 1 {
			errs = append(errs, fmt.Errorf("retrieval cutoff %d is not positive", k))
		}
	}
	if s := o.Shard; s != (Shard{}) && (s.Count < 1 || s.Index < 1 || s.Index > s.Count) {
		errs = append(errs, fmt.Errorf("shard %d/%d: want i/n with 1 ≤ i ≤ n", s.Index, s.Count))
	}
	return errs
}

// Select returns the benchmark's queries in this shard, in benchmark
// order. Membership depends only on the query id's position among the
// sorted ids, so shards partition the queries on any machine.
func (s Shard) Select(b *lasagna.Benchmark) []*lasagna.Query {
	out := make([]*lasagna.Query, 0, len(b.Queries))
	if s.Count <= 1 {
		for i := range b.Queries {
			out = append(out, &b.Queries[i])
		}
		return out
	}
	ids := make([]string, len(b.Queries))
	for i, q := range b.Queries {
		ids[i] = q.ID
	}
	pos := sortedPositions(ids)
	for i := range b.Queries {
		if pos[i]%s.Count == s.Index-1 {
			out = append(out, &b.Queries[i])
		}
	}
	return out
}

// corpusIDs returns the set of b's document ids, made when first asked.
func corpusIDs(b *lasagna.Benchmark) *idSet { return &idSet{b: b} }

// idSet is the set of a benchmark's document ids, made on the first
// lookup: after the arm's index is built, so that the set is never in
// memory beside a build's analysis, and (with Options.ReleaseTexts) where
// the released texts were. Safe for concurrent use.
type idSet struct {
	b    *lasagna.Benchmark
	once sync.Once
	ids  map[string]int32 // id → the index of its document in the corpus
}

// index returns the corpus index of the document with the given id, and
// whether the benchmark has one. A query's scorer keeps the indexes of its
// ranked list to find a repeated id (indexSet), instead of a second lookup
// by string in a map of its own per hit.
func (s *idSet) index(id string) (int32, bool) {
	s.once.Do(func() {
		s.ids = make(map[string]int32, len(s.b.Corpus))
		for i, d := range s.b.Corpus {
			s.ids[d.ID] = int32(i)
		}
	})
	i, ok := s.ids[id]
	return i, ok
}

// Interrupted is the error Run returns when its context ends before every
// query ran (Ctrl-C): how many of the run's queries are on record in the
// resume journals (Options.JournalDir), which a run with Options.Resume
// keeps. It wraps the context's error.
type Interrupted struct {
	// Journalled counts the finished queries on record; Total, the run's
	// queries (every arm's, on every benchmark).
	Journalled, Total int
	Err               error
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("%v: %d of %d queries journalled", e.Err, e.Journalled, e.Total)
}

func (e *Interrupted) Unwrap() error { return e.Err }

// callPipeline runs one query, turning a panic in the user's pipeline into
// an error for that query (a *PanicError, with the stack).
func callPipeline(ctx context.Context, p lasagna.Pipeline, q lasagna.Query) (out lasagna.Output, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: panicStack()}
		}
	}()
	return p.Run(ctx, q)
}

// PanicError is the error of a query whose pipeline panicked: the panic's
// value and the stack of the panicking goroutine, the user's frames first.
// Its Error text — what the query's test failure and the bundle row's
// error say — is "pipeline panicked: <value>" followed by the stack, one
// "function\n\tfolder/file.go:line" pair a frame.
type PanicError struct {
	Value any
	// Stack holds the frames between the panic and the engine's call of
	// the pipeline: the user's frames first, in call order from the
	// panic; the runtime's and this module's wrappers (lasagna, engine)
	// are left out when any user frame remains. It holds at most
	// maxStackFrames frames and maxStackBytes bytes; file paths keep
	// their last folder only, so a bundle names no local path.
	Stack string
}

func (e *PanicError) Error() string {
	if e.Stack == "" {
		return fmt.Sprintf("pipeline panicked: %v", e.Value)
	}
	return fmt.Sprintf("pipeline panicked: %v\n%s", e.Value, e.Stack)
}

// The bounds of a PanicError's stack, so that a deep recursion cannot
// bloat the bundle.
const (
	maxStackFrames = 16
	maxStackBytes  = 2048
)

// enginePrefix and rootPrefix are the function name prefixes of this
// module's packages that wrap a pipeline call.
const (
	rootPrefix   = "github.com/lasagna-go/lasagna."
	enginePrefix = "github.com/lasagna-go/lasagna/internal/engine."
)

// panicStack returns the stack of a panic being recovered in a deferred
// function of callPipeline, formatted for PanicError.Stack.
func panicStack() string {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var all []runtime.Frame
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			// Frames up to here are the recovery itself.
			inPanic, all = true, all[:0]
		case f.Function == enginePrefix+"callPipeline":
			more = false
		case inPanic:
			all = append(all, f)
		}
		if !more {
			break
		}
	}
	library := func(f runtime.Frame) bool {
		fn := f.Function
		return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, enginePrefix) ||
			(strings.HasPrefix(fn, rootPrefix) && !strings.Contains(strings.TrimPrefix(fn, rootPrefix), "/"))
	}
	var user []runtime.Frame
	for _, f := range all {
		if !library(f) {
			user = append(user, f)
		}
	}
	if len(user) == 0 {
		user = all // the panic is in a wrapper: show it all
	}
	var sb strings.Builder
	for i, f := range user {
		line := fmt.Sprintf("%s\n\t%s:%d", f.Function, shortFile(f.File), f.Line)
		if i == maxStackFrames || sb.Len()+len(line) > maxStackBytes {
			fmt.Fprintf(&sb, "\n… %d more frames", len(user)-i)
			break
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(line)
	}
	return sb.String()
}

// shortFile returns the last folder and the base name of a source path.
func shortFile(path string) string {
	path = filepath.ToSlash(path)
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return path
	}
	if j := strings.LastIndexByte(path[:i], '/'); j >= 0 {
		return path[j+1:]
	}
	return path
}

func orDefault[T any](s, def []T) []T {
	if s == nil {
		return def
	}
	return s
}

// scorer scores the queries of one cell.
type scorer struct {
	b       *lasagna.Benchmark
	arm     *Arm
	ids     *idSet
	cutoffs []int
}

// noCorpus reports a Vecta CSV without a corpus, whose ranked lists are
// ids of the arm's own index judged by the entries' chunk_ids: no id is
// outside a corpus it does not have.
func (s *scorer) noCorpus() bool {
	return len(s.b.Corpus) == 0 && s.b.Format == lasagna.FormatVecta
}

// score fills r.Scores, Duplicate, Unknown and Outside; seen is scratch
// space. An id missing from the corpus sets Unknown, or counts in Outside
// on an arm that searches its own index (it is then judged non-relevant,
// as every unjudged id is).
// Ranked lists are cut to the arm's depth first. Retrieval metrics are
// computed for queries with judgements (the set trec_eval averages over); a
// list holding an id twice is not scored (DUPLICATE_RETRIEVED_ID). Answer
// metrics are computed when the arm answered and the query has references
// or is unanswerable.
func (s *scorer) score(r *QueryResult, sc *scratch) {
	seen := sc.seen
	if r.Err != nil {
		return
	}
	if r.Missing {
		s.scoreMissing(r, sc)
		return
	}
	if k := s.arm.topK(); len(r.Output.Hits) > k {
		r.Output.Hits = r.Output.Hits[:k]
	}
	clear(seen)
	sc.listed.reset(len(r.Output.Hits))
	r.Outside = 0
	for _, h := range r.Output.Hits {
		// A corpus id is kept as its index, any other in seen.
		i, known := s.ids.index(h.ID)
		var dup bool
		if known {
			dup = sc.listed.add(i)
		} else {
			_, dup = seen[h.ID]
			seen[h.ID] = struct{}{}
		}
		if dup && r.Duplicate == "" {
			r.Duplicate = h.ID
		}
		if !known && !s.noCorpus() {
			switch {
			case s.arm.OwnIndex:
				r.Outside++
			case r.Unknown == "":
				r.Unknown = h.ID
			}
		}
	}
	var scores map[string]float64
	if s.arm.Retrieves() && r.Duplicate == "" {
		if judged, ok := s.b.Qrels[r.Query.ID]; ok {
			ids := make([]string, len(r.Output.Hits))
			for i, h := range r.Output.Hits {
				ids[i] = h.ID
			}
			// The list holds no id twice (r.Duplicate is empty).
			scores = sc.rs.ScoreDistinct(ids, judged)
		}
	}
	if scores == nil {
		scores = map[string]float64{}
	}
	if s.arm.Retrieves() && r.Duplicate == "" {
		scoreVecta(s.b, r.Query, r.Output.Hits, scores)
	}
	if r.Output.Answered && (len(r.Query.Answers) > 0 || r.Query.Unanswerable) {
		a := metrics.ScoreAnswer(r.Output.Answer, r.Query.Answers, metrics.AnswerOptions{
			Abstained:     r.Output.Abstained,
			Unanswerable:  r.Query.Unanswerable,
			Normalization: metrics.Normalization(s.b.AnswerNormalization),
		})
		scores["exact_match"] = a.ExactMatch
		scores["token_f1"] = a.TokenF1
	}
	if len(scores) > 0 {
		r.Scores = scores
	}
}

// scoreMissing scores a missing prediction (Arm.MissingZero): 0 on every
// metric the query is scored on, the retrieval metrics of an empty list
// for a judged query and the answer metrics for a query with references
// or marked unanswerable.
func (s *scorer) scoreMissing(r *QueryResult, sc *scratch) {
	scores := map[string]float64{}
	if s.arm.Retrieves() {
		if judged, ok := s.b.Qrels[r.Query.ID]; ok {
			if m, err := sc.rs.Score([]string{}, judged); err == nil {
				scores = m // an empty list scores 0 throughout
			}
		}
	}
	if s.arm.Answers() && (len(r.Query.Answers) > 0 || r.Query.Unanswerable) {
		scores["exact_match"] = 0
		scores["token_f1"] = 0
	}
	if len(scores) > 0 {
		r.Scores = scores
	}
}

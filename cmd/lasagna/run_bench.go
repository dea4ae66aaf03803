package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

type runFlags struct {
	profile     string
	nSamples    int
	seed        uint64
	resume      bool
	out         string
	runOut      string
	concurrency int
	split       string
	corpus      string
	name        string
	shard       string
	topK        int
	repeats     int
	pass        string

	embeddingModel string
	model          string
	judgeModel     string

	baseline       string
	updateBaseline bool
	latency        bool

	dryRun  bool
	maxCost float64
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run PATH|SWEEP.yaml",
		Short: "Run a benchmark (a JSONL/CSV file or BEIR folder with --profile) or a sweep file",
		Long:  runLong(),
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRunCounts(c.Flags().Changed, f); err != nil {
				return err
			}
			return runBenchmark(c.Context(), args[0], f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.profile, "profile", "", "built-in arms to run on a dataset: "+strings.Join(engine.ProfileNames(), ", ")+" (default speed)")
	fl.IntVar(&f.nSamples, "n-samples", 0, "run this many queries per benchmark, chosen deterministically by --seed (0 = all)")
	fl.Uint64Var(&f.seed, "seed", 0, "sampling seed (default 42, or the sweep's seed)")
	fl.BoolVar(&f.resume, "resume", false, "reuse the queries a previous run of the same benchmark bytes and arm finished")
	fl.StringVarP(&f.out, "out", "o", "", "write the results bundle here (default lasagna-out/<run id>.json)")
	fl.StringVar(&f.runOut, "run-out", "", "also write each arm's ranked lists as a TREC run file (one file per arm when several)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "pipeline calls in flight (default the number of CPUs; at least 8 when an arm calls a model or a vector database)")
	fl.StringVar(&f.split, "split", "", "BEIR qrels split (default test)")
	fl.StringVar(&f.corpus, "corpus", "", "a corpus `FILE` (BEIR corpus.jsonl layout) beside a JSONL or CSV file, as create takes it")
	fl.StringVar(&f.name, "name", "", "register the dataset as <name>@<hash> instead of local/<stem>@<hash>")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n of every benchmark's queries, as i/n, or ci: the CI runner's parallel-job variables (docs/cli.md)")
	fl.IntVar(&f.topK, "top-k", 0, "depth of ranked lists (default 100, or the sweep's)")
	fl.IntVar(&f.repeats, "repeats", 0, "run each query of every arm that samples an LLM this many times (default 1, or the sweep's repeats:)")
	fl.StringVar(&f.pass, "pass", "", "pass rule of repeated queries' per-query thresholds: all, majority, any or 'rate >= X' (default all, or the sweep's pass:)")
	fl.StringVar(&f.embeddingModel, "embedding-model", engine.DefaultEmbeddingModel, "embedding model of the dense and hybrid profiles")
	fl.StringVar(&f.model, "model", "", "chat model of generators and judges that name none (default $MODEL_NAME)")
	fl.StringVar(&f.judgeModel, "judge-model", "", "judge model of every judged arm (default --model; pin a dated snapshot such as gpt-4o-2024-08-06)")
	fl.StringVar(&f.baseline, "baseline", "", "gate every arm against the same arm in this baseline bundle (`FILE`; see the sweep's gate:)")
	fl.BoolVar(&f.latency, "latency", false, "record each query's pipeline time in the bundle rows (latency_ms); the bundle is then no longer byte-reproducible")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the run's LLM calls, estimated tokens and estimated cost per arm and stage, and call nothing (no bundle is written)")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "stop starting LLM calls once the cost spent plus the next query's estimate would pass this many US dollars; the run fails as partial, its finished queries journalled for --resume")
	fl.BoolVar(&f.updateBaseline, "update-baseline", false, "write this run's bundle to the --baseline file (refused when a check fails, on blocking problems and with --shard)")
	return cmd
}

// runLong is `benchmark run --help`'s text, with the profiles listed.
func runLong() string {
	return `Run evaluates arms on benchmarks and writes a results bundle.

PATH is a dataset (a .jsonl or .csv file, a BEIR folder, or a registered
benchmark as registry:NAME[@hash]) run with a profile's arms (--profile,
default speed), or a sweep file (.yaml/.yml) listing benchmarks and arms. Profiles: ` + profileList() + `

The dense and hybrid profiles (and sweep arms with retriever dense or
hybrid) call an OpenAI-compatible embeddings endpoint: set OPENAI_API_KEY,
and OPENAI_BASE_URL for any server other than OpenAI's (vLLM, Ollama,
LiteLLM, …). Responses are cached under LASAGNA_CACHE_DIR (default: the
user cache directory), so a rerun costs nothing.

Sweep arms with retriever dense, hybrid, weaviate-bm25 or weaviate-hybrid
keep the corpus in a vector_backend: exact (the embedded index, the
default), pgvector (dsn:) or weaviate (url:), set sweep-wide or per arm.
Credentials come from the environment only: PGPASSWORD and
WEAVIATE_API_KEY. A rerun reuses the collection of the same corpus and
embedder.

The full and closed-book profiles (and sweep arms with a generator:) also
call a chat model: the generator and the judge use --model (or MODEL_NAME)
unless the sweep names their models; --judge-model picks another judge.
They answer with temperature 0, and each query's answer is scored by exact
match and token F1 and by the LLM judge (judge_correctness, and
groundedness when the generator saw passages; a sweep's judge: block may
name faithfulness, answer_relevancy, context_precision, context_recall and
rubrics). Claude models
(--model claude-...) are called at Anthropic with ANTHROPIC_API_KEY.
LASAGNA_LLM_TIMEOUT (per attempt, e.g. 30s) and LASAGNA_LLM_RETRIES (0
disables) bound each LLM call.

--dry-run prints the LLM calls, estimated tokens and estimated cost per arm
and stage, and calls nothing (no bundle). --max-cost USD stops starting
queries once the cost spent plus the next query's estimate would pass the
cap; the run then fails as partial, its finished queries journalled.

Finished queries are journalled as they complete; after an interruption,
run the same command with --resume to keep them and run only the rest.
Ctrl-C (SIGINT) or SIGTERM stops a run cleanly: it writes no bundle, says
how many queries are journalled, and exits 130 (143 for SIGTERM). A journal
is locked while a run uses it, and an edited or damaged journal line is
refused. Bundles, baselines and run files are written atomically.

An arm that samples an LLM (a generator or a judge) runs each query once
unless the sweep sets repeats: N (sweep-wide or per arm) or --repeats N
(which overrides every arm's repeats:, as evaltest's Config.Repeats does);
a repeated query's row holds each metric's mean over its runs, and its
per-query thresholds pass by the pass rule (pass: or --pass: all, majority,
any or 'rate >= 0.8'). SINGLE_RUN warns of a sampling arm run once.

A sweep's arms may carry thresholds: ({metric: ndcg@10, at_least: 0.6},
{metric: latency_ms, at_most: 800, per_query: true}); --baseline FILE gates
every arm against the same arm in a baseline bundle (a drop larger than the
sweep's gate: tolerance that is also significant fails). The checks are the
engine's, with the wording of evaltest. Their metric names are checked
before anything runs. --update-baseline writes this run's bundle to the
--baseline file instead of gating, unless a threshold or query fails, a
blocking integrity problem was raised, or the run is one --shard.

Exit status: 0 every check passed; 1 a threshold, query or baseline check
failed, a blocking integrity problem was raised (the bundle is written all
the same), or the data has problems; 2 usage errors, including sweep files
with problems and thresholds or gate metrics no arm can score; 130 or 143
stopped by SIGINT or SIGTERM.`
}

func profileList() string {
	var b strings.Builder
	for _, p := range engine.Profiles() {
		fmt.Fprintf(&b, "\n  %-8s %s", p.Name, p.Summary)
	}
	return b.String()
}

func isSweepFile(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".yaml" || ext == ".yml"
}

// runBenchmark is `benchmark run`: it builds the sweep from the target and
// the flags, plans and executes it, writes the bundle, prints the results
// and the checks, and rewrites the baseline when asked.
func runBenchmark(ctx context.Context, target string, f runFlags, stdout, stderr io.Writer) error {
	if f.updateBaseline && f.baseline == "" {
		return usageError("benchmark run: --update-baseline needs --baseline FILE, the bundle to write")
	}
	fsys, p := cliPath(target)
	sweep, err := runSweep(fsys, target, p, f)
	if err != nil {
		return err
	}
	shard, err := checkRunSweep(sweep, f)
	if err != nil {
		return err
	}
	deps, client, err := llmDeps(sweep, f.model, f.dryRun)
	if err != nil {
		return err
	}
	deps.VectorStore = openVectorStore
	plan, err := runPlan(ctx, fsys, deps, sweep, f, shard)
	if err != nil {
		return err
	}
	if f.dryRun {
		return printDryRun(stdout, plan)
	}
	outcome, err := executeRun(ctx, plan, stderr)
	if err != nil {
		return err
	}
	// The bundle is written before anything is printed, and console errors
	// are ignored: a closed stdout (| head -1) never costs the bundle.
	out := f.out
	if out == "" {
		// Named by its run_id, computed as it is written.
		if err := os.MkdirAll("lasagna-out", 0o755); err != nil {
			return err
		}
		if out, err = results.WriteFileIn("lasagna-out", outcome.Bundle); err != nil {
			return err
		}
	} else if err := writeBundleFile(out, outcome.Bundle); err != nil {
		return err
	}
	if err := printRun(ctx, stdout, outcome, reporters.SummaryMetrics(outcome.Bundle, plan.TableMetrics()...), client, out, f.runOut); err != nil {
		return err
	}
	return runChecks(stdout, outcome, f, shard)
}

// runSweep returns the sweep to run: the sweep file p, or the dataset p
// with the arms of --profile. Problems of the file, and flags that do not
// apply to the target, are usage errors.
func runSweep(fsys fs.FS, target, p string, f runFlags) (*engine.Sweep, error) {
	if !isSweepFile(p) {
		return datasetSweep(target, p, f)
	}
	if f.profile != "" || f.split != "" || f.name != "" || f.corpus != "" {
		return nil, usageError("benchmark run %s: --profile, --split, --name and --corpus apply to a dataset path; a sweep file sets them per entry", target)
	}
	// A sweep file is the command's configuration: its problems are
	// usage errors, like a misspelt flag.
	sweep, err := engine.ReadSweep(fsys, p)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return sweep, nil
}

// datasetSweep returns the sweep that runs the arms of --profile on the
// dataset p (a file, a BEIR folder or a registered benchmark).
func datasetSweep(target, p string, f runFlags) (*engine.Sweep, error) {
	if engine.IsRegistryPath(p) && (f.name != "" || f.split != "" || f.corpus != "") {
		return nil, usageError("benchmark run %s: --name, --split and --corpus apply to files; a registered benchmark has its own", target)
	}
	var corpus string
	if f.corpus != "" {
		if _, err := os.Stat(f.corpus); err != nil {
			return nil, usageError("benchmark run %s: --corpus %s: no such file", target, f.corpus)
		}
		_, corpus = cliPath(f.corpus)
	}
	sweep, err := engine.ProfileSweep(f.profile, f.embeddingModel, engine.BenchmarkEntry{Path: p, Name: f.name, Split: f.split, Corpus: corpus})
	if err != nil {
		return nil, usageError("%v", err)
	}
	return sweep, nil
}

// checkRunSweep applies the flags that override the sweep's settings,
// checks its registry paths and vector backends, and returns the --shard
// to run. It refuses --update-baseline, before anything runs, when the run
// cannot make a baseline.
func checkRunSweep(sweep *engine.Sweep, f runFlags) (engine.Shard, error) {
	if err := applyRunFlags(sweep, f); err != nil {
		return engine.Shard{}, err
	}
	if err := checkRegistryPaths(sweep); err != nil {
		return engine.Shard{}, err
	}
	if err := checkVectorBackends(sweep); err != nil {
		return engine.Shard{}, err
	}
	shard, err := engine.ResolveShard(f.shard, os.Getenv)
	if err != nil {
		return engine.Shard{}, usageError("--shard: %v", err)
	}
	if f.updateBaseline {
		if err := engine.BaselineUpdate(nil, nil, shard, false); err != nil {
			return engine.Shard{}, usageError("--update-baseline: %v", err)
		}
	}
	return shard, nil
}

// applyRunFlags overrides the sweep's settings with the flags given:
// --n-samples, --seed, --judge-model, --top-k, --repeats and --pass.
// checkRunCounts refuses a count flag given as 0 or less, as a sweep file
// refuses the same value (exit 2): --n-samples takes 0 for every query.
func checkRunCounts(changed func(string) bool, f runFlags) error {
	if changed("max-cost") && !(f.maxCost > 0) {
		return usageError("--max-cost is %v; give a positive number of US dollars, e.g. --max-cost 2.50 (omit the flag for no cap)", f.maxCost)
	}
	for _, c := range []struct {
		flag string
		n    int
		zero bool // 0 is a meaningful value
	}{{"n-samples", f.nSamples, true}, {"top-k", f.topK, false}, {"concurrency", f.concurrency, false}, {"repeats", f.repeats, false}} {
		if !changed(c.flag) || c.n > 0 || (c.zero && c.n == 0) {
			continue
		}
		if c.zero {
			return usageError("--%s is %d; give a positive count, or 0 for every query", c.flag, c.n)
		}
		return usageError("--%s is %d; give a positive count (omit the flag for the default)", c.flag, c.n)
	}
	return nil
}

func applyRunFlags(sweep *engine.Sweep, f runFlags) error {
	if f.nSamples > 0 {
		sweep.SetNSamples(f.nSamples)
	}
	if f.seed != 0 {
		sweep.SetSeed(f.seed)
	}
	if f.judgeModel != "" {
		sweep.SetJudgeModel(f.judgeModel)
	}
	if f.topK > 0 {
		sweep.SetTopK(f.topK)
	}
	if f.repeats > 0 {
		sweep.SetRepeats(f.repeats)
	}
	if f.pass != "" {
		if _, err := engine.ParsePassRule(f.pass); err != nil {
			return usageError("--pass: %v", err)
		}
		sweep.SetPass(f.pass)
	}
	return nil
}

// runPlan returns the plan of the sweep with the run's options: the gate
// against --baseline (unless --update-baseline), concurrency, resume,
// shard, latency and the journal folder. Thresholds and gate metrics no
// arm scores are usage errors, found before any data is read; then the
// baseline and the benchmarks are read.
func runPlan(ctx context.Context, fsys fs.FS, deps engine.Deps, sweep *engine.Sweep, f runFlags, shard engine.Shard) (*engine.Plan, error) {
	plan, err := deps.SweepPlan(ctx, sweep)
	if err != nil {
		return nil, problems(err)
	}
	gated := f.baseline != "" && !f.updateBaseline
	if gated {
		plan.Gate = &engine.GateOptions{Gate: sweep.Gate, Path: f.baseline, UpdateHint: updateHint}
	}
	plan.Options = engine.Options{
		Concurrency: f.concurrency,
		Resume:      f.resume,
		Shard:       shard,
		Cutoffs:     sweep.Cutoffs,
		Slices:      sweep.Slices,
		// Nothing here reads a corpus text after the run.
		ReleaseTexts: true,
		// runBenchmark writes the bundle before reading its run_id.
		BundleUnhashed: true,
		MaxCost:        f.maxCost,
	}
	plan.Latency = f.latency
	if err := plan.Check(); err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	if gated {
		if plan.Gate.Baseline, err = readBaseline(f.baseline); err != nil {
			return nil, err
		}
	}
	resolve, closeRegistry := registryResolver(ctx)
	plan.Benchmarks, err = engine.LoadBenchmarksWith(fsys, sweep, resolve)
	closeRegistry()
	if err != nil {
		return nil, loadErr(err)
	}
	if plan.Options.JournalDir, err = cacheDir("journal"); err != nil {
		return nil, err
	}
	return plan, nil
}

// executeRun executes the plan, with a progress line on a terminal
// stderr. A stopped run (Ctrl-C, SIGTERM) writes nothing but the journal
// and is an error saying how many queries it journalled.
func executeRun(ctx context.Context, plan *engine.Plan, stderr io.Writer) (*engine.Outcome, error) {
	opts := &plan.Options
	if isTerminal(stderr) {
		opts.Progress = progressLine(stderr)
	}
	outcome, err := engine.Execute(engine.Discard(ctx), plan)
	var intr *engine.Interrupted
	if errors.As(err, &intr) {
		if opts.Progress != nil {
			fmt.Fprint(stderr, "\r\033[K")
		}
		var capped *engine.CostCapped
		if errors.As(err, &capped) {
			return nil, problems(fmt.Errorf("%v; the run is partial: no bundle written, %d of %d queries journalled; rerun with --resume and a higher --max-cost to go on", capped, intr.Journalled, intr.Total))
		}
		return nil, problems(fmt.Errorf("%s: %d of %d queries journalled; rerun with --resume", interruption(ctx), intr.Journalled, intr.Total))
	}
	if err != nil {
		return nil, problems(err)
	}
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	return outcome, nil
}

// printDryRun prints the plan's estimated LLM calls (engine.EstimatePlan)
// and what would run, having called nothing.
func printDryRun(w io.Writer, plan *engine.Plan) error {
	queries := 0
	for _, br := range plan.Benchmarks {
		queries += len(plan.Options.Shard.Select(br.Benchmark))
	}
	fmt.Fprintf(w, "dry run: %d benchmark(s), %d queries, %d arm(s); nothing was called and no bundle is written\n\n", len(plan.Benchmarks), queries, len(plan.Arms))
	return engine.EstimatePlan(plan).Write(w)
}

// printRun prints the run's results: the summary table with the shown
// metrics, the slices, the queries restored from the journal, the corpus
// statistics, the LLM usage (client nil: none), where the bundle was
// written, the TREC run files it writes (runOut, --run-out), the
// integrity findings and the verdicts.
func printRun(ctx context.Context, stdout io.Writer, outcome *engine.Outcome, shown []string, client *llm.Client, out, runOut string) error {
	bundle := outcome.Bundle
	printBundleTable(ctx, stdout, bundle, shown)
	printSlices(stdout, bundle, shown)
	sep := "\n"
	for _, c := range outcome.Report.Cells {
		if c.Resumed > 0 {
			fmt.Fprintf(stdout, "%sresumed: %d of %d queries of %s restored from the journal\n", sep, c.Resumed, len(c.Queries), c.Where())
			sep = ""
		}
	}
	sep = printCorpusStats(stdout, bundle, sep)
	if client != nil {
		fmt.Fprint(stdout, sep)
		printLLMUsage(stdout, client.Usage())
	}
	fmt.Fprintf(stdout, "\nbundle: %s\n", out)
	if runOut != "" {
		files, err := writeRunFiles(runOut, outcome.Report)
		if err != nil {
			return err
		}
		for _, name := range files {
			fmt.Fprintf(stdout, "run file: %s\n", name)
		}
	}
	printIntegrity(stdout, bundle)
	return nil
}

// runChecks prints the verdicts and returns the run's exit error, naming
// the failed checks and blocking integrity problems; with
// --update-baseline it rewrites the baseline from this run's bundle, or
// says why not.
func runChecks(stdout io.Writer, outcome *engine.Outcome, f runFlags, shard engine.Shard) error {
	verdicts, bundle := outcome.Verdicts, outcome.Bundle
	if len(verdicts) > 0 {
		fmt.Fprintln(stdout)
	}
	failed := printVerdicts(stdout, verdicts)

	var why []string
	if failed > 0 {
		why = append(why, fmt.Sprintf("%d check(s) failed (the fail: lines above)", failed))
	}
	if n := len(bundle.Integrity.Blocking); n > 0 {
		why = append(why, fmt.Sprintf("%d blocking integrity problem(s); the bundle was written, but its numbers cannot be trusted", n))
	}
	if f.updateBaseline {
		if err := engine.BaselineUpdate(verdicts, outcome.Report.Findings, shard, false); err != nil {
			why = append(why, fmt.Sprintf("baseline %s not rewritten (%s): %v", f.baseline, updateHint, err))
		} else {
			if err := writeBundleFile(f.baseline, bundle); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "baseline: %s rewritten from this run (%s); review and commit it\n", f.baseline, updateHint)
		}
	}
	if len(why) > 0 {
		return problems(errors.New(strings.Join(why, "; ")))
	}
	return nil
}

// printBundleTable prints the bundle's summary table (reporters.Text) with
// the given columns and a legend.
func printBundleTable(ctx context.Context, w io.Writer, b *results.Bundle, metrics []string) error {
	if err := (reporters.Text{W: w, Metrics: metrics}).Report(ctx, b); err != nil {
		return err
	}
	fmt.Fprintln(w, "(each metric: mean [95% CI] over the queries it scores)")
	return nil
}

// printCorpusStats prints the corpus statistics of each arm's BM25 index
// (documents, unique terms, total terms), after sep when it prints any, and
// returns the separator the next block needs.
func printCorpusStats(w io.Writer, b *results.Bundle, sep string) string {
	for _, c := range b.Configs {
		if cs := c.CorpusStats; cs != nil {
			fmt.Fprintf(w, "%sindex: %s on %s: %d documents, %d unique terms, %d total terms\n",
				sep, c.Name, c.Benchmark, cs.Documents, cs.UniqueTerms, cs.TotalTerms)
			sep = ""
		}
	}
	return sep
}

// printIntegrity prints the bundle's integrity findings, warnings first.
func printIntegrity(w io.Writer, b *results.Bundle) {
	for _, line := range b.Integrity.Warnings {
		fmt.Fprintf(w, "warning: %s\n", line)
	}
	for _, line := range b.Integrity.Blocking {
		fmt.Fprintf(w, "blocking: %s\n", line)
	}
}

// writeRunFiles writes one TREC run file per cell (tag = arm name), named
// runOut itself when there is one cell, else runOut with ".<arm>" (and
// ".<benchmark>" when there are several) before the extension.
func writeRunFiles(runOut string, rep *engine.Report) ([]string, error) {
	benches := map[string]bool{}
	for _, c := range rep.Cells {
		benches[c.Bench.Benchmark.Name] = true
	}
	var names []string
	for _, c := range rep.Cells {
		if c.BuildErr != nil || !c.Arm.Retrieves() {
			continue
		}
		name := runOut
		if len(rep.Cells) > 1 {
			ext := filepath.Ext(runOut)
			stem := strings.TrimSuffix(runOut, ext)
			if len(benches) > 1 {
				stem += "." + atomicfile.SafeName(path.Base(c.Bench.Benchmark.Name))
			}
			name = stem + "." + atomicfile.SafeName(c.Arm.Name) + ext
		}
		hits := map[string][]lasagna.Hit{}
		for _, q := range c.Queries {
			if q.Err == nil {
				hits[q.Query.ID] = q.Output.Hits
			}
		}
		if err := atomicfile.Write(name, 0o644, func(w io.Writer) error {
			return datasets.WriteRun(w, atomicfile.SafeName(c.Arm.Name), hits)
		}); err != nil {
			return names, err
		}
		names = append(names, name)
	}
	return names, nil
}

// cacheDir returns $LASAGNA_CACHE_DIR/sub, or the user cache directory's
// lasagna/sub.
func cacheDir(sub string) (string, error) {
	if d := os.Getenv("LASAGNA_CACHE_DIR"); d != "" {
		return filepath.Join(d, sub), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v); set LASAGNA_CACHE_DIR", err)
	}
	return filepath.Join(d, "lasagna", sub), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine returns a Progress callback that redraws one status line,
// at most every 1% of the work. Safe for concurrent use.
func progressLine(w io.Writer) func(done, total int) {
	var mu sync.Mutex
	last := -1
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total == 0 {
			return
		}
		pct := done * 100 / total
		if pct == last && done != total {
			return
		}
		last = pct
		fmt.Fprintf(w, "\r\033[Krunning: %d/%d queries (%d%%)", done, total, pct)
	}
}

// llmDeps returns the Deps of the sweep's arms (llmarms.Deps: an
// OpenAI-compatible embedder for arms that embed, the generators and the
// judge for arms that generate; model, when set, overrides MODEL_NAME), all
// configured from the environment, and the client whose usage to print
// (nil when no arm generates). No arm calling a model means the zero Deps
// (BM25 only). A missing key, or a generator with no model anywhere, is an
// error listing every variable read, raised before anything is built.
// llmDeps builds the LLM-backed components s's arms need; a dry run
// (which calls nothing) needs no key.
func llmDeps(s *engine.Sweep, model string, dryRun bool) (engine.Deps, *llm.Client, error) {
	needsEmb, needsChat, unnamed := false, false, false
	for _, a := range s.Arms {
		needsEmb = needsEmb || a.NeedsEmbedder()
		if a.Generator != nil {
			needsChat = true
			unnamed = unnamed || a.Generator.Model == "" || (a.Judge == nil && s.Judge != nil && s.Judge.Model == "") || (a.Judge != nil && a.Judge.Model == "")
		}
	}
	if !needsEmb && !needsChat {
		return engine.Deps{}, nil, nil
	}
	getenv := os.Getenv
	if dryRun && os.Getenv(llm.EnvAPIKey) == "" && os.Getenv(llm.EnvAnthropicAPIKey) == "" {
		// No call is made: a placeholder stands for the missing key.
		getenv = func(k string) string {
			if k == llm.EnvAPIKey || k == llm.EnvAnthropicAPIKey {
				return "dry-run-no-key"
			}
			return os.Getenv(k)
		}
	}
	cfg, err := llm.ConfigFromEnv(getenv)
	if err != nil {
		if needsChat {
			return engine.Deps{}, nil, usageError("LLM generation and judging need a chat endpoint: %v", err)
		}
		return engine.Deps{}, nil, usageError("dense retrieval needs an embedding endpoint: %v", err)
	}
	if err := cfg.CheckEmbeddings(); needsEmb && err != nil {
		return engine.Deps{}, nil, usageError("dense retrieval needs an embedding endpoint: %v", err)
	}
	if model != "" {
		cfg.Model = model
	}
	if needsChat && unnamed && cfg.Model == "" {
		return engine.Deps{}, nil, usageError("LLM generation and judging need a chat model: pass --model or set %s (or name the models in the sweep); variables read: %s",
			llm.EnvModel, strings.Join(llm.EnvVars(), ", "))
	}
	if cfg.CacheDir, err = cacheDir("llm"); err != nil {
		return engine.Deps{}, nil, err
	}
	client, err := llm.New(cfg)
	if err != nil {
		return engine.Deps{}, nil, usageError("%v", err)
	}
	if !needsChat {
		return llmarms.Deps(client), nil, nil
	}
	return llmarms.Deps(client), client, nil
}

// printLLMUsage prints the LLM calls, tokens and estimated cost of the
// generator and the judge apart.
func printLLMUsage(w io.Writer, t *llm.Tracker) {
	for _, su := range t.Snapshot() {
		fmt.Fprintf(w, "llm %s: %d calls (%d cached, %d failed), %d tokens", su.Stage, su.Calls, su.CacheHits, su.Errors, su.Usage.TotalTokens)
		if len(su.UnpricedModels) == 0 {
			fmt.Fprintf(w, ", $%.4f", su.CostUSD)
		} else {
			fmt.Fprintf(w, ", cost unknown for %s", strings.Join(su.UnpricedModels, ", "))
		}
		fmt.Fprintln(w)
	}
}

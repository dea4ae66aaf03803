package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/extract"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/synth"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/spf13/cobra"
)

// synthWarning is printed after every synthesis (docs/data.md, "Synthetic sets
// are for development, not for claims").
const synthWarning = `warning: synthetic questions are for development, not for claims. An LLM writing
questions from a passage reuses its words, so retrievers (and pipelines built on
the same family of models) find them easier than real users' questions, and the
answerability check is made by that same model. Compare configurations on this
set while you build; report results on human-written questions.`

// newSynthesizeCmd is `lasagna benchmark synthesize DIR`: it writes a JSONL
// benchmark of LLM-written questions from the documents of a folder, or
// with --dry-run prints the plan and a token estimate without calling any
// LLM or writing anything.
func newSynthesizeCmd(stdout io.Writer) *cobra.Command {
	var (
		n           int
		out, mixArg string
		into        string
		model       string
		seed        int64
		dryRun      bool
		concurrency int
	)
	cmd := &cobra.Command{
		Use:   "synthesize DIR",
		Short: "Write synthetic questions from a folder of documents with an LLM",
		Long: `synthesize reads every supported file under DIR (.md, .markdown and .txt as
plain text, PDF, DOCX, HTML main text), cuts each into 200-word passages with
the fixed chunker, and asks an LLM for three kinds of question: factoid
(answered by a short fact in one passage), multihop (needs a fact from a passage
and from the passage of another document sharing the most words with it) and
unanswerable (on the subject of a passage but not answered by it). A second
call checks each question; rows that fail are dropped and counted, so --out can
hold fewer than --n rows.

--dry-run prints the plan (documents, passages, questions of each type, LLM
calls) and a token estimate, calls no LLM and writes nothing. Otherwise an
LLM is needed: OPENAI_API_KEY (and OPENAI_BASE_URL for another server than
OpenAI's) or ANTHROPIC_API_KEY (Claude models), and --model or MODEL_NAME;
LASAGNA_LLM_TIMEOUT and LASAGNA_LLM_RETRIES bound each call. The same folder, seed
and model give the same plan and the same prompts; answers are cached under
$LASAGNA_CACHE_DIR/llm.

--into NAME registers the questions in the benchmark registry
(LASAGNA_REGISTRY) as the benchmark NAME: a draft is created at once (listed
by ` + "`benchmark list`" + ` while synthesis runs) with the synthesis parameters as
its source (model, --n, --mix, --seed, and each document's path inside DIR
with its sha256; no path of this machine), filled with the rows that pass
verification and activated. When synthesis fails the benchmark stays a
draft, listed with the error; run the command again to fill it. --out is
optional with --into.

Synthetic sets are for development, not for claims: report results on
human-written questions.
Exit status: 0 written (or planned), 1 problems (documents, plan, LLM), 2 usage.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if n < 1 {
				return usageError("synthesize: --n must be at least 1 (the number of questions to write)")
			}
			mix, err := synth.ParseMix(mixArg)
			if err != nil {
				return usageError("synthesize: --mix: %v", err)
			}
			if !dryRun && out == "" && into == "" {
				return usageError("synthesize: --out FILE or --into NAME is required (or --dry-run to see the plan)")
			}
			if into != "" {
				if err := registry.CheckName(into); err != nil {
					return usageError("synthesize: --into: %v", err)
				}
			}
			if model == "" {
				model = strings.TrimSpace(os.Getenv(llm.EnvModel))
			}
			return synthesize(c, stdout, args[0], synth.Options{N: n, Mix: mix, Seed: seed, Model: model, Concurrency: concurrency}, out, into, dryRun)
		},
	}
	f := cmd.Flags()
	f.IntVar(&n, "n", 0, "number of questions to plan (`N`; rows failing verification are dropped)")
	f.StringVarP(&out, "out", "o", "", "JSONL `FILE` to write")
	f.StringVar(&into, "into", "", "register the questions as the benchmark `NAME` (a draft until verified rows fill it)")
	f.StringVar(&mixArg, "mix", synth.DefaultMix().String(), "share of each question type (`MIX`), summing to 1")
	f.Int64Var(&seed, "seed", 0, "`SEED` of the passage choice, recorded in each row")
	f.BoolVar(&dryRun, "dry-run", false, "print the plan and a token estimate; call no LLM, write nothing")
	f.StringVar(&model, "model", "", "LLM `MODEL` (default $MODEL_NAME)")
	f.IntVar(&concurrency, "concurrency", 4, "questions generated at once (`C`)")
	return cmd
}

func synthesize(c *cobra.Command, w io.Writer, dir string, opts synth.Options, out, into string, dryRun bool) error {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usageError("synthesize: %s is not a folder", dir)
	}
	// Without --dry-run, check the LLM configuration before any work.
	var client *llm.Client
	if !dryRun {
		if out != "" {
			if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
				return usageError("synthesize: --out %s: folder %s does not exist", out, filepath.Dir(out))
			}
		}
		cfg, err := llm.ConfigFromEnv(os.Getenv)
		if err != nil {
			return usageError("synthesize needs an LLM: %v", err)
		}
		if opts.Model != "" {
			cfg.Model = opts.Model
		}
		if cfg.Model == "" {
			return usageError("synthesize: no model: set --model or %s", llm.EnvModel)
		}
		if cfg.CacheDir, err = cacheDir("llm"); err != nil {
			return err
		}
		if client, err = llm.New(cfg); err != nil {
			return usageError("synthesize: %v", err)
		}
	}
	listing, err := extract.Walk(os.DirFS(dir), ".")
	if err != nil {
		return problems(fmt.Errorf("synthesize: %w", err))
	}
	plan, err := synth.MakePlan(listing.Documents, opts)
	if err != nil {
		return problems(err)
	}
	printPlan(w, dir, listing, plan)
	if dryRun {
		fmt.Fprintln(w, "dry run: no LLM called, nothing written")
		return nil
	}

	var draft *synthDraft
	if into != "" {
		if draft, err = startSynthDraft(c.Context(), w, dir, into, listing, plan, opts); err != nil {
			return err
		}
		defer draft.close()
	}
	res, err := synth.Synthesize(c.Context(), client, listing.Documents, opts)
	printDrops(w, res)
	printSynthUsage(w, client)
	if err == nil && len(res.Rows) == 0 {
		err = errors.New("synthesize: no question passed verification; nothing written")
	}
	if err != nil {
		return draft.fail(c.Context(), w, err)
	}
	if out != "" {
		if err := writeRows(out, res.Rows); err != nil {
			return draft.fail(c.Context(), w, fmt.Errorf("synthesize: %w", err))
		}
		fmt.Fprintf(w, "wrote %d rows to %s (%d planned)\n", len(res.Rows), out, len(plan.Questions))
	}
	if draft != nil {
		if err := draft.fill(c.Context(), w, res); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, synthWarning)
	return nil
}

// synthDraft is the registry draft synthesize --into fills.
type synthDraft struct {
	r    *registry.Registry
	name string
	src  registry.Source
}

// startSynthDraft opens the registry and creates (or reuses) the draft
// name, with the synthesis parameters as its source, before any LLM call.
func startSynthDraft(ctx context.Context, w io.Writer, dir, name string, l extract.Listing, plan synth.Plan, opts synth.Options) (*synthDraft, error) {
	ids := make([]string, len(l.Documents))
	for i, d := range l.Documents {
		ids[i] = d.ID
	}
	docs, err := registry.DocumentDigests(os.DirFS(dir), ids)
	if err != nil {
		return nil, problems(fmt.Errorf("synthesize: %w", err))
	}
	src := registry.Source{Kind: registry.SourceKindSynthesis, Synthesis: &registry.Synthesis{
		Model: plan.Model, N: opts.N, Mix: plan.Mix.String(), Seed: plan.Seed, Documents: docs,
	}}
	dsn, err := registry.DefaultDSN()
	if err != nil {
		return nil, problems(err)
	}
	r, err := registry.Open(ctx, dsn)
	if err != nil {
		return nil, problems(err)
	}
	if _, err := r.StartDraft(ctx, name, src); err != nil {
		r.Close()
		if errors.Is(err, registry.ErrExists) {
			return nil, usageError("synthesize: --into: %v", err)
		}
		return nil, problems(err)
	}
	fmt.Fprintf(w, "draft %s: listed as a draft while synthesis runs; it becomes active when the verified questions fill it\n", name)
	return &synthDraft{r: r, name: name, src: src}, nil
}

// fail records err on the draft (which stays a draft) and returns it.
// A nil draft only returns err.
func (d *synthDraft) fail(ctx context.Context, w io.Writer, err error) error {
	if d != nil {
		// Record the failure even when ctx was cancelled (an interrupt).
		if ferr := d.r.FailDraft(context.WithoutCancel(ctx), d.name, err.Error()); ferr != nil {
			err = errors.Join(err, fmt.Errorf("draft %s: recording the failure: %w", d.name, ferr))
		} else {
			fmt.Fprintf(w, "draft %s: stays a draft (the error is listed by `lasagna benchmark list`); run the command again to fill it\n", d.name)
		}
	}
	return problems(err)
}

// fill imports the verified rows as the draft's revision and activates it.
func (d *synthDraft) fill(ctx context.Context, w io.Writer, res synth.Result) error {
	src := d.src
	syn := *src.Synthesis
	syn.Dropped = res.Dropped
	if len(syn.Dropped) == 0 {
		syn.Dropped = nil
	}
	src.Synthesis = &syn
	inf, err := d.r.ImportRows(ctx, d.name, "synthesis.jsonl", res.Rows, registry.ImportOptions{Source: &src})
	if err != nil {
		return d.fail(ctx, w, fmt.Errorf("synthesize: registering %s: %w", d.name, err))
	}
	fmt.Fprintf(w, "registered %s (%s, %d questions); run it with `lasagna benchmark run registry:%s`\n", inf.Revision, inf.Status, inf.Questions, d.name)
	return nil
}

func (d *synthDraft) close() { d.r.Close() }

func printPlan(w io.Writer, dir string, l extract.Listing, p synth.Plan) {
	model := p.Model
	if model == "" {
		model = "none chosen (set --model or " + llm.EnvModel + ")"
	}
	fmt.Fprintf(w, "synthesize %s: seed %d, model %s\n", dir, p.Seed, model)
	fmt.Fprintf(w, "documents: %d\n", p.Documents)
	for _, s := range l.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
	fmt.Fprintf(w, "passages: %d (200 words each, a document's last one shorter)\n", p.Passages)
	fmt.Fprintf(w, "questions: %d (factoid %d, multihop %d, unanswerable %d; mix %s)\n",
		len(p.Questions), p.Counts.Factoid, p.Counts.Multihop, p.Counts.Unanswerable, p.Mix)
	fmt.Fprintf(w, "LLM calls: %d (a generation and a verification per question)\n", p.Calls())
	e := p.Estimate()
	fmt.Fprintf(w, "token estimate: at most %d (%d prompt, as characters/4, + %d completion caps)\n", e.Total(), e.PromptTokens, e.CompletionTokens)
	if price, ok := llm.DefaultPrices()[p.Model]; ok {
		cost := float64(e.PromptTokens)/1e6*price.InputPerMTok + float64(e.CompletionTokens)/1e6*price.OutputPerMTok
		fmt.Fprintf(w, "cost estimate: at most $%.4f at %s list prices\n", cost, p.Model)
	}
}

func printDrops(w io.Writer, res synth.Result) {
	if len(res.Dropped) == 0 {
		fmt.Fprintln(w, "dropped: none")
		return
	}
	reasons := make([]string, 0, len(res.Dropped))
	total := 0
	for r, k := range res.Dropped {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, k))
		total += k
	}
	slices.Sort(reasons)
	fmt.Fprintf(w, "dropped: %d (%s)\n", total, strings.Join(reasons, ", "))
}

func printSynthUsage(w io.Writer, client *llm.Client) {
	su := client.Usage().Stage(llm.StageSynthesis)
	fmt.Fprintf(w, "LLM usage: %d calls (%d from cache, %d failed), %d requests, %d prompt + %d completion tokens",
		su.Calls, su.CacheHits, su.Errors, su.Requests, su.Usage.PromptTokens, su.Usage.CompletionTokens)
	switch {
	case len(su.UnpricedModels) > 0:
		fmt.Fprintf(w, ", cost unknown (no price for %s)\n", strings.Join(su.UnpricedModels, ", "))
	default:
		fmt.Fprintf(w, ", cost $%.4f\n", su.CostUSD)
	}
}

// writeRows writes rows to path through a temporary file in the same
// folder, so a failed write leaves no partial file.
func writeRows(path string, rows []datasets.Row) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := datasets.WriteJSONL(tmp, rows); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return nil
}

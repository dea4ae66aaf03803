package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/dense"
)

// PlannedCalls are LLM calls of one stage and model that a component
// would make, estimated without making them (EstimatePlan, Options.MaxCost).
type PlannedCalls struct {
	// Stage is the llm stage the calls are charged to: "embedder",
	// "generator" or "judge".
	Stage string
	Model string
	Calls int
	// InputTokens are estimated from the texts the calls would send
	// (bytes/4 + 1 per text, the llm client's rule for its token rate
	// limit); OutputTokens are each call's reply cap (max_tokens): a
	// ceiling.
	InputTokens, OutputTokens int64
	// CostUSD is their cost at the model's list price (llm.DefaultPrices);
	// Priced is false when the model has none, and CostUSD is then 0.
	CostUSD float64
	Priced  bool
}

// CallEstimator is implemented by the LLM generators and judges of
// package llmarms: the calls they would make for one query, without
// making them.
type CallEstimator interface {
	// EstimateCalls returns the calls for q when the generator sees
	// passages and answers answer (what a judge reads).
	EstimateCalls(q lasagna.Query, passages []lasagna.Document, answer string) []PlannedCalls
}

// EmbedEstimator is implemented by the embedders of package llmarms: the
// calls that would embed texts.
type EmbedEstimator interface {
	EstimateEmbed(texts []string) []PlannedCalls
}

// Spender is implemented by the LLM components of package llmarms: the
// cost their client has spent so far (llm.Tracker, cache hits free), and
// the tracker it is read from, so that components sharing one count once.
type Spender interface {
	SpentUSD() (tracker any, usd float64)
}

// defaultAnswerTokens is the answer length a judge is assumed to read when
// the arm's generator does not say its cap (a Pipeline arm's, a user's
// own): the built-in generators' default max_tokens.
const defaultAnswerTokens = 256

// Estimate is what a plan's LLM calls would be (EstimatePlan): their
// number, tokens and cost per arm, stage and model.
type Estimate struct {
	Rows []EstimateRow
	// Unestimated names the arms whose LLM calls (some or all) are not in
	// Rows, and why.
	Unestimated []string
	// QueryRuns are the plan's query runs (queries × arms × repeats).
	QueryRuns int
}

// EstimateRow is the planned calls of one arm, stage and model.
type EstimateRow struct {
	Arm string
	PlannedCalls
}

// EstimatePlan estimates the LLM calls of p without building a pipeline
// or calling anything: for each benchmark (its shard's queries) and arm,
// the embedder's corpus (dense.Text of every document, once per
// benchmark) and each query run's calls: the query's embedding, the
// generator's call and the judge's (per judged metric, as the judge
// decides which apply: correctness needs a reference answer, the passage
// metrics passages; answer_relevancy's Strictness calls and its
// embedding; faithfulness's two calls; context_precision's call per
// passage). What is not known before the run is assumed: a RAG arm's
// generator sees Passages documents of the corpus's mean length, every
// answer is as long as the generator's cap (DefaultAnswerTokens when the
// arm does not say) and none abstains, every call is made: the response
// cache and the resume journal are not consulted (a rerun's cached calls
// cost nothing), so the estimate is a ceiling.
func EstimatePlan(p *Plan) *Estimate {
	est := &Estimate{}
	idx := map[[3]string]int{}
	add := func(arm string, calls []PlannedCalls, times int) {
		for _, c := range calls {
			k := [3]string{arm, c.Stage, c.Model}
			i, ok := idx[k]
			if !ok {
				i = len(est.Rows)
				idx[k] = i
				est.Rows = append(est.Rows, EstimateRow{Arm: arm, PlannedCalls: PlannedCalls{Stage: c.Stage, Model: c.Model, Priced: true}})
			}
			r := &est.Rows[i].PlannedCalls
			r.Calls += c.Calls * times
			r.InputTokens += c.InputTokens * int64(times)
			r.OutputTokens += c.OutputTokens * int64(times)
			r.CostUSD += c.CostUSD * float64(times)
			r.Priced = r.Priced && c.Priced
		}
	}
	for ai := range p.Arms {
		if why := p.Arms[ai].unestimated(); why != "" {
			est.Unestimated = append(est.Unestimated, fmt.Sprintf("arm %s: %s", p.Arms[ai].Name, why))
		}
	}
	for _, br := range p.Benchmarks {
		qs := p.Options.Shard.Select(br.Benchmark)
		for ai := range p.Arms {
			a := &p.Arms[ai]
			cc := a.cellCalls(br.Benchmark)
			runs := a.RunsPerQuery()
			add(a.Name, cc.build(), 1)
			for _, q := range qs {
				add(a.Name, cc.query(q), runs)
			}
			est.QueryRuns += len(qs) * runs
		}
	}
	order := map[string]int{}
	for i := range p.Arms {
		order[p.Arms[i].Name] = i
	}
	slices.SortStableFunc(est.Rows, func(x, y EstimateRow) int {
		if x.Arm != y.Arm {
			return order[x.Arm] - order[y.Arm]
		}
		return strings.Compare(x.Stage, y.Stage)
	})
	return est
}

// Total returns the sum of every row; Priced is false when some row is.
func (e *Estimate) Total() PlannedCalls {
	t := PlannedCalls{Priced: true}
	for _, r := range e.Rows {
		t.Calls += r.Calls
		t.InputTokens += r.InputTokens
		t.OutputTokens += r.OutputTokens
		t.CostUSD += r.CostUSD
		t.Priced = t.Priced && r.Priced
	}
	return t
}

// Unpriced returns the models of the estimate with no known price.
func (e *Estimate) Unpriced() []string {
	var ms []string
	for _, r := range e.Rows {
		if !r.Priced && !slices.Contains(ms, r.Model) {
			ms = append(ms, r.Model)
		}
	}
	slices.Sort(ms)
	return ms
}

// Write writes the estimate as a table (arm, stage, model, calls,
// estimated input and output tokens, estimated cost), its total, the arms
// left out and how it was estimated.
func (e *Estimate) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tstage\tmodel\tcalls\test. input tokens\test. output tokens\test. cost")
	cost := func(c PlannedCalls) string {
		if !c.Priced {
			if c.CostUSD > 0 {
				return fmt.Sprintf("$%.4f + unpriced", c.CostUSD)
			}
			return "unknown (no price)"
		}
		return fmt.Sprintf("$%.4f", c.CostUSD)
	}
	for _, r := range e.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.Arm, r.Stage, r.Model, r.Calls, r.InputTokens, r.OutputTokens, cost(r.PlannedCalls))
	}
	t := e.Total()
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%d\t%s\n", t.Calls, t.InputTokens, t.OutputTokens, cost(t))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(e.Rows) == 0 {
		fmt.Fprintln(w, "no LLM call planned")
	}
	if ms := e.Unpriced(); len(ms) > 0 {
		fmt.Fprintf(w, "no price for %s: tokens counted, cost unknown (llm.Config.Prices adds prices)\n", strings.Join(ms, ", "))
	}
	for _, u := range e.Unestimated {
		fmt.Fprintf(w, "not estimated: %s\n", u)
	}
	_, err := fmt.Fprintf(w, "estimated for %d query runs: input tokens ≈ bytes/4 of the texts sent, output tokens at each\n"+
		"call's max_tokens, RAG passages of the corpus's mean length; a ceiling: the response cache and\n"+
		"the resume journal are not consulted\n", e.QueryRuns)
	return err
}

// unestimated says why some of the arm's LLM calls cannot be estimated
// ("" when all can, or the arm calls none that lasagna knows of).
func (a *Arm) unestimated() string {
	var why []string
	if a.Pipeline != nil {
		why = append(why, "a Pipeline arm's own calls")
	}
	if _, ok := a.Generator.(CallEstimator); a.Generator != nil && !ok && a.Samples {
		why = append(why, "its generator is not one of lasagna's LLM generators")
	}
	if _, ok := a.Judge.(CallEstimator); a.Judge != nil && !ok {
		why = append(why, "its judge is not lasagna's LLM judge")
	}
	return strings.Join(why, "; ")
}

// cellCalls estimates one arm's calls on one benchmark.
type cellCalls struct {
	a *Arm
	b *lasagna.Benchmark
	// standIns are the documents a RAG arm's generator is assumed to see.
	standIns []lasagna.Document
}

func (a *Arm) cellCalls(b *lasagna.Benchmark) *cellCalls {
	cc := &cellCalls{a: a, b: b}
	if a.ResolvedMode() == lasagna.ModeRAG && len(b.Corpus) > 0 {
		total := 0
		for i := range b.Corpus {
			total += len(b.Corpus[i].Title) + len(b.Corpus[i].Text)
		}
		doc := lasagna.Document{Text: strings.Repeat("x", total/len(b.Corpus))}
		n := min(a.passages(), len(b.Corpus))
		if a.Pipeline != nil {
			n = min(DefaultPassages, len(b.Corpus))
		}
		cc.standIns = make([]lasagna.Document, n)
		for i := range cc.standIns {
			cc.standIns[i] = doc
		}
	}
	return cc
}

// build returns the calls made once per benchmark: the embedder's corpus.
func (cc *cellCalls) build() []PlannedCalls {
	emb, ok := cc.a.embedder.(EmbedEstimator)
	if !ok || len(cc.b.Corpus) == 0 {
		return nil
	}
	texts := make([]string, len(cc.b.Corpus))
	for i, d := range cc.b.Corpus {
		texts[i] = dense.Text(d)
	}
	return emb.EstimateEmbed(texts)
}

// query returns the calls of one run of q.
func (cc *cellCalls) query(q *lasagna.Query) []PlannedCalls {
	a := cc.a
	var calls []PlannedCalls
	if emb, ok := a.embedder.(EmbedEstimator); ok {
		calls = append(calls, emb.EstimateEmbed([]string{q.Text})...)
	}
	var passages []lasagna.Document
	switch a.ResolvedMode() {
	case lasagna.ModeRAG:
		passages = cc.standIns
	case lasagna.ModeGeneration:
		for i, c := range q.Contexts {
			passages = append(passages, lasagna.Document{ID: fmt.Sprintf("context-%d", i+1), Text: c})
		}
	}
	answerTokens := int64(defaultAnswerTokens)
	if g, ok := a.Generator.(CallEstimator); ok {
		gc := g.EstimateCalls(*q, passages, "")
		calls = append(calls, gc...)
		answerTokens = 0
		for _, c := range gc {
			answerTokens += c.OutputTokens
		}
	}
	if j, ok := a.Judge.(CallEstimator); ok {
		calls = append(calls, j.EstimateCalls(*q, passages, strings.Repeat("x", int(4*answerTokens)))...)
	}
	return calls
}

// costOf returns the estimated cost of calls (0 for calls without a
// price).
func costOf(calls []PlannedCalls) float64 {
	c := 0.0
	for _, pc := range calls {
		c += pc.CostUSD
	}
	return c
}

package llm

import (
	"slices"
	"sort"
	"sync"
)

// Stage names what an LLM call was made for, so usage and cost are
// reported apart (the pipeline's generator vs the judge, …).
type Stage string

// Stages of LLM use.
const (
	StageGenerator Stage = "generator"
	StageJudge     Stage = "judge"
	StageSynthesis Stage = "synthesis"
	StageEmbedder  Stage = "embedder"
)

// Usage is a token count as the server reported it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

func (u Usage) add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens, u.TotalTokens + v.TotalTokens}
}

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// DefaultPrices returns a new copy of the built-in price table: OpenAI's
// and Anthropic's published list prices (USD per million tokens, standard
// tier, base input without prompt caching, as of 2025) for a few common
// models, keyed by exact model name (aliases and dated snapshots). A model not in
// the table is never guessed: its cost is counted as unknown (see
// StageUsage.UnpricedModels). Pass Config.Prices for other models or
// prices.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"gpt-4o":                  {2.50, 10.00},
		"gpt-4o-2024-05-13":       {5.00, 15.00},
		"gpt-4o-2024-08-06":       {2.50, 10.00},
		"gpt-4o-2024-11-20":       {2.50, 10.00},
		"gpt-4o-mini":             {0.15, 0.60},
		"gpt-4o-mini-2024-07-18":  {0.15, 0.60},
		"gpt-4.1":                 {2.00, 8.00},
		"gpt-4.1-2025-04-14":      {2.00, 8.00},
		"gpt-4.1-mini":            {0.40, 1.60},
		"gpt-4.1-mini-2025-04-14": {0.40, 1.60},
		"gpt-4.1-nano":            {0.10, 0.40},
		"gpt-4.1-nano-2025-04-14": {0.10, 0.40},
		"text-embedding-3-small":  {0.02, 0},
		"text-embedding-3-large":  {0.13, 0},
		"text-embedding-ada-002":  {0.10, 0},

		"claude-opus-4-5":            {5.00, 25.00},
		"claude-opus-4-5-20251101":   {5.00, 25.00},
		"claude-opus-4-1":            {15.00, 75.00},
		"claude-opus-4-1-20250805":   {15.00, 75.00},
		"claude-opus-4-0":            {15.00, 75.00},
		"claude-opus-4-20250514":     {15.00, 75.00},
		"claude-sonnet-4-5":          {3.00, 15.00},
		"claude-sonnet-4-5-20250929": {3.00, 15.00},
		"claude-sonnet-4-0":          {3.00, 15.00},
		"claude-sonnet-4-20250514":   {3.00, 15.00},
		"claude-3-7-sonnet-latest":   {3.00, 15.00},
		"claude-3-7-sonnet-20250219": {3.00, 15.00},
		"claude-haiku-4-5":           {1.00, 5.00},
		"claude-haiku-4-5-20251001":  {1.00, 5.00},
		"claude-3-5-haiku-latest":    {0.80, 4.00},
		"claude-3-5-haiku-20241022":  {0.80, 4.00},
		"claude-3-haiku-20240307":    {0.25, 1.25},
	}
}

// StageUsage is the usage accumulated for one stage.
type StageUsage struct {
	Stage Stage `json:"stage"`
	// Calls is the number of Chat/Embed calls (each may span several
	// HTTP requests); CacheHits of them were answered from the cache and
	// Errors of them failed.
	Calls     int64 `json:"calls"`
	CacheHits int64 `json:"cache_hits"`
	Errors    int64 `json:"errors"`
	// Requests is the number of HTTP requests made, retries included.
	Requests int64 `json:"requests"`
	// Usage is the tokens billed by the server (cache hits excluded).
	Usage Usage `json:"usage"`
	// CachedUsage is the tokens of the responses served from the cache
	// (not paid again).
	CachedUsage Usage `json:"cached_usage"`
	// CostUSD is the estimated cost of Usage for the models with a known
	// price; UnpricedModels lists the models whose tokens are not in it.
	CostUSD        float64  `json:"cost_usd"`
	UnpricedModels []string `json:"unpriced_models,omitempty"`
	// Models lists the model names the server answered with.
	Models []string `json:"models,omitempty"`
}

// Tracker accumulates usage and estimated cost per stage. It is safe for
// concurrent use; the zero value is an empty tracker.
type Tracker struct {
	mu     sync.Mutex
	stages map[Stage]*StageUsage
}

// newTracker returns an empty tracker.
func newTracker() *Tracker { return &Tracker{stages: map[Stage]*StageUsage{}} }

func (t *Tracker) stage(s Stage) *StageUsage {
	if t.stages == nil {
		t.stages = map[Stage]*StageUsage{}
	}
	su := t.stages[s]
	if su == nil {
		su = &StageUsage{Stage: s}
		t.stages[s] = su
	}
	return su
}

// record adds one finished call.
// The price is looked up under the model the server answered with, then
// under the model requested.
func (t *Tracker) record(s Stage, model, requested string, u Usage, cached bool, requests int, failed bool, prices map[string]Price) {
	t.mu.Lock()
	defer t.mu.Unlock()
	su := t.stage(s)
	su.Calls++
	su.Requests += int64(requests)
	switch {
	case failed:
		su.Errors++
	case cached:
		su.CacheHits++
		su.CachedUsage = su.CachedUsage.add(u)
	default:
		su.Usage = su.Usage.add(u)
		p, ok := prices[model]
		if !ok {
			p, ok = prices[requested]
		}
		if ok {
			su.CostUSD += (float64(u.PromptTokens)*p.InputPerMTok + float64(u.CompletionTokens)*p.OutputPerMTok) / 1e6
		} else if model != "" && !slices.Contains(su.UnpricedModels, model) {
			su.UnpricedModels = append(su.UnpricedModels, model)
			sort.Strings(su.UnpricedModels)
		}
	}
	if model != "" && !failed && !slices.Contains(su.Models, model) {
		su.Models = append(su.Models, model)
		sort.Strings(su.Models)
	}
}

// Stage returns a copy of the usage of one stage (zero counts when the
// stage was never used).
func (t *Tracker) Stage(s Stage) StageUsage {
	t.mu.Lock()
	defer t.mu.Unlock()
	if su, ok := t.stages[s]; ok {
		return su.clone()
	}
	return StageUsage{Stage: s}
}

// Snapshot returns a copy of the usage of every stage used, sorted by
// stage name.
func (t *Tracker) Snapshot() []StageUsage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]StageUsage, 0, len(t.stages))
	for _, su := range t.stages {
		out = append(out, su.clone())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stage < out[j].Stage })
	return out
}

func (su *StageUsage) clone() StageUsage {
	c := *su
	c.UnpricedModels = slices.Clone(su.UnpricedModels)
	c.Models = slices.Clone(su.Models)
	return c
}

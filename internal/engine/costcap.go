package engine

import (
	"fmt"
	"strings"
	"sync"
)

// CostCapped is the error inside the *Interrupted that Execute returns
// when Options.MaxCost stopped the run: no LLM call was started once the
// cost spent, plus the estimate of the calls in flight and of the next
// query (or arm build), would have passed the cap.
type CostCapped struct {
	// Cap is Options.MaxCost; Spent, the cost the run's LLM clients had
	// spent when it stopped (cache hits free); Next, the estimate of what
	// would have run next.
	Cap, Spent, Next float64
	// Ran counts the queries that ran whole, of Total (every arm's, on
	// every benchmark).
	Ran, Total int
}

func (e *CostCapped) Error() string {
	return fmt.Sprintf("cost cap $%.4f reached after %d of %d queries ($%.4f spent, the next call estimated at $%.4f)", e.Cap, e.Ran, e.Total, e.Spent, e.Next)
}

// budget keeps a run under Options.MaxCost.
type budget struct {
	max      float64
	spenders []Spender

	mu       sync.Mutex
	reserved float64
	capped   *CostCapped
}

// newBudget returns the budget of p, nil without Options.MaxCost. A model
// of the plan without a price is an error: its calls could not be kept
// under the cap.
func newBudget(p *Plan) (*budget, error) {
	if p.Options.MaxCost <= 0 {
		return nil, nil
	}
	if ms := EstimatePlan(p).Unpriced(); len(ms) > 0 {
		return nil, fmt.Errorf("a cost cap needs the price of every model the run calls, and %s has none (llm.Config.Prices adds prices; or run without a cap)", strings.Join(ms, ", "))
	}
	b := &budget{max: p.Options.MaxCost}
	seen := map[any]bool{}
	for i := range p.Arms {
		a := &p.Arms[i]
		for _, c := range []any{a.Generator, a.Judge, a.embedder} {
			s, ok := c.(Spender)
			if !ok {
				continue
			}
			if key, _ := s.SpentUSD(); key != nil && !seen[key] {
				seen[key] = true
				b.spenders = append(b.spenders, s)
			}
		}
	}
	return b, nil
}

func (b *budget) spent() float64 {
	usd := 0.0
	for _, s := range b.spenders {
		_, v := s.SpentUSD()
		usd += v
	}
	return usd
}

// reserve reports whether calls estimated at cost may start, and reserves
// cost until release; once it refuses, it refuses every later call.
func (b *budget) reserve(cost float64, ran func() int, total int) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.capped != nil {
		return false
	}
	if spent := b.spent(); spent+b.reserved+cost > b.max {
		b.capped = &CostCapped{Cap: b.max, Spent: spent, Next: cost, Ran: ran(), Total: total}
		return false
	}
	b.reserved += cost
	return true
}

func (b *budget) release(cost float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.reserved -= cost
	b.mu.Unlock()
}

// cappedErr returns the cap's error once it stopped the run, else nil.
func (b *budget) cappedErr() *CostCapped {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.capped != nil {
		b.capped.Spent = b.spent()
	}
	return b.capped
}

// isCapped reports whether the cap stopped the run (false without one).
func (b *budget) isCapped() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.capped != nil
}

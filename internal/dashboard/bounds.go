package dashboard

import (
	"container/list"
	"context"
	"errors"
	"runtime/debug"
	"sync"
)

// The bounds of the work a request can make the server do
// (docs/reports.md, "The dashboard's bounds"): checking a bundle
// (results.Validate) and drawing a report read and decode whole bundles,
// which costs memory in proportion to their size, so that work goes
// through one gate (workSlots at once, a large bundle alone), and what it
// produced is kept (the checks of the files as they are now, the drawn
// pages within pageBudget bytes) so that asking again costs nothing.
const (
	// workSlots is how many checks and reports may be drawn at once.
	workSlots = 2
	// soloBytes: work on bundles of more bytes than this (together) runs
	// alone, taking every slot.
	soloBytes = 16 << 20
	// pageBudget bounds the bytes of the drawn pages kept; a page of more
	// than a quarter of it is not kept.
	pageBudget = 64 << 20
	// inlineCheckBytes: the list checks the bundles up to this size before
	// it answers; it leaves larger ones to the background.
	inlineCheckBytes = 1 << 20
)

// gate is a weighted semaphore whose waiters give up when their context
// ends. Every slot is taken by at most one job at a time; waiters are
// served in order, so a job that needs every slot is not starved.
type gate struct {
	mu      sync.Mutex
	free    int
	size    int
	waiters list.List // of *waiter
	// heavy is set when a job on a large bundle ran since the gate was
	// last idle: the memory it used is returned to the system then.
	heavy bool
	// running counts the jobs holding slots and peak the most at once
	// (for the tests).
	running, peak int
}

type waiter struct {
	n     int
	ready chan struct{}
}

func newGate(slots int) *gate { return &gate{free: slots, size: slots} }

// slotsFor is the weight of work on bundles of so many bytes.
func (g *gate) slotsFor(bytes int64) int {
	if bytes > soloBytes {
		return g.size
	}
	return 1
}

// acquire takes the slots that work on bundles of so many bytes needs,
// waiting for them until ctx ends (then it returns ctx's error).
func (g *gate) acquire(ctx context.Context, bytes int64) (release func(), err error) {
	n := g.slotsFor(bytes)
	g.mu.Lock()
	if g.free >= n && g.waiters.Len() == 0 {
		g.take(n, bytes)
		g.mu.Unlock()
		return func() { g.release(n) }, nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	el := g.waiters.PushBack(w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		g.mu.Lock()
		if bytes > soloBytes {
			g.heavy = true
		}
		g.mu.Unlock()
		return func() { g.release(n) }, nil
	case <-ctx.Done():
		g.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give the slots back
			g.mu.Unlock()
			g.release(n)
		default:
			g.waiters.Remove(el)
			g.wake() // a waiter behind this one may fit now
			g.mu.Unlock()
		}
		return nil, ctx.Err()
	}
}

// take grants n slots. g.mu is held.
func (g *gate) take(n int, bytes int64) {
	g.free -= n
	g.running++
	g.peak = max(g.peak, g.running)
	if bytes > soloBytes {
		g.heavy = true
	}
}

func (g *gate) release(n int) {
	g.mu.Lock()
	g.free += n
	g.running--
	g.wake()
	idle := g.free == g.size && g.heavy
	if idle {
		g.heavy = false
	}
	g.mu.Unlock()
	if idle {
		// A large bundle's tree of values is garbage now; give its pages
		// back to the system rather than keep the high-water mark (in
		// the background: the response need not wait for it).
		go debug.FreeOSMemory()
	}
}

// wake grants slots to the waiters in order while they fit. g.mu is held.
func (g *gate) wake() {
	for el := g.waiters.Front(); el != nil; el = g.waiters.Front() {
		w := el.Value.(*waiter)
		if g.free < w.n {
			return
		}
		g.waiters.Remove(el)
		g.free -= w.n
		g.running++
		g.peak = max(g.peak, g.running)
		close(w.ready)
	}
}

// flight runs one computation per key at a time: a caller that asks for
// a key being computed waits for that result (until its own context
// ends) instead of computing it again.
type flight[V any] struct {
	mu    sync.Mutex
	calls map[string]*call[V]
}

type call[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// do returns fn's result for key, computed by this caller or by the one
// already computing it. When the computing caller gave up (its context
// ended), a waiter whose context is alive computes it itself.
func (f *flight[V]) do(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	for {
		f.mu.Lock()
		if f.calls == nil {
			f.calls = map[string]*call[V]{}
		}
		if c := f.calls[key]; c != nil {
			f.mu.Unlock()
			select {
			case <-c.done:
				if isContextErr(c.err) && ctx.Err() == nil {
					continue
				}
				return c.val, c.err
			case <-ctx.Done():
				var zero V
				return zero, ctx.Err()
			}
		}
		c := &call[V]{done: make(chan struct{})}
		f.calls[key] = c
		f.mu.Unlock()
		c.val, c.err = fn()
		f.mu.Lock()
		delete(f.calls, key)
		f.mu.Unlock()
		close(c.done)
		return c.val, c.err
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// pageCache keeps drawn pages by key, the least recently used forgotten
// first, within budget bytes.
type pageCache struct {
	mu     sync.Mutex
	budget int
	bytes  int
	order  list.List // of *cachedPage, most recent first
	byKey  map[string]*list.Element
}

// cachedPage is a drawn report: its HTML and the CSP sources of its
// inline scripts.
type cachedPage struct {
	key     string
	html    []byte
	scripts string
}

func newPageCache(budget int) *pageCache {
	return &pageCache{budget: budget, byKey: map[string]*list.Element{}}
}

func (c *pageCache) get(key string) *cachedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byKey[key]
	if el == nil {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedPage)
}

// put keeps p, forgetting the least recently used pages beyond the
// budget; a page of more than a quarter of the budget is not kept.
func (c *pageCache) put(p *cachedPage) {
	if len(p.html) > c.budget/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byKey[p.key]; el != nil {
		c.bytes -= len(el.Value.(*cachedPage).html)
		c.order.Remove(el)
	}
	c.byKey[p.key] = c.order.PushFront(p)
	c.bytes += len(p.html)
	for c.bytes > c.budget {
		el := c.order.Back()
		old := el.Value.(*cachedPage)
		c.order.Remove(el)
		delete(c.byKey, old.key)
		c.bytes -= len(old.html)
	}
}

// forget drops every page.
func (c *pageCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.byKey)
	c.bytes = 0
}

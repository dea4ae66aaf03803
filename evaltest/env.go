package evaltest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/engine"
)

// The environment variables evaltest reads. They are its only
// configuration besides Config: custom test flags would break
// `go test ./...` in packages that do not define them.
const (
	// EnvOut names the folder bundles are written to when go test runs
	// without -artifacts.
	EnvOut = "LASAGNA_OUT"
	// EnvUpdateBaseline, set to 1 (or true), rewrites Config.Baseline with
	// this run's bundle instead of gating against it.
	EnvUpdateBaseline = "LASAGNA_UPDATE_BASELINE"
	// EnvLatency, set to 1 (or true), records each query's latency_ms in
	// the bundle. It is off by default because latency is wall time: a
	// bundle without it is the same bytes on every run, shard merge and
	// resume. The lasagna.latency_ms attr and latency_ms thresholds work
	// either way.
	EnvLatency = "LASAGNA_LATENCY"
	// EnvShard, set to i/n, runs only shard i of n of every benchmark's
	// queries (engine.Shard: by position among the sorted query ids).
	EnvShard = "LASAGNA_SHARD"
	// EnvConcurrency caps the pipeline calls in flight in one Run; the
	// default, as for the lasagna CLI's --concurrency, is GOMAXPROCS when
	// every arm is a built-in BM25 retriever, else GOMAXPROCS and at least
	// 8 (engine.DefaultConcurrency).
	EnvConcurrency = "LASAGNA_CONCURRENCY"
	// EnvStepSummary is GitHub's step summary file; when set, Run appends
	// a Markdown summary to it.
	EnvStepSummary = "GITHUB_STEP_SUMMARY"
)

// The variables of cost before you spend (docs/evaltest.md), unexported
// so that they add no name to the package's API.
const (
	// envDryRun, set to 1 (or true), logs the LLM calls, estimated
	// tokens and estimated cost of the run (engine.EstimatePlan) on the
	// root test and skips it: nothing is called and no bundle is written.
	envDryRun = "LASAGNA_DRY_RUN"
	// envMaxCost caps the run's LLM spending in US dollars
	// (engine.Options.MaxCost): once the cost spent plus the next query's
	// estimate would pass it, no further query starts, the queries not
	// run fail, and the root test fails saying how far the run got.
	envMaxCost = "LASAGNA_MAX_COST"
)

// settings are the environment variables Run reads, parsed.
type settings struct {
	out         string
	update      bool
	latency     bool
	shard       engine.Shard
	concurrency int // 0: the engine's default
	stepSummary string
	dryRun      bool
	maxCost     float64 // 0: no cap
}

func readSettings(getenv func(string) string) (settings, error) {
	s := settings{
		out:         strings.TrimSpace(getenv(EnvOut)),
		stepSummary: strings.TrimSpace(getenv(EnvStepSummary)),
	}
	var errs []error
	var err error
	if s.update, err = boolVar(getenv, EnvUpdateBaseline); err != nil {
		errs = append(errs, err)
	}
	if s.latency, err = boolVar(getenv, EnvLatency); err != nil {
		errs = append(errs, err)
	}
	if s.shard, err = engine.ParseShard(strings.TrimSpace(getenv(EnvShard))); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", EnvShard, err))
	}
	if v := strings.TrimSpace(getenv(EnvConcurrency)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive number of pipeline calls in flight", EnvConcurrency, v))
		} else {
			s.concurrency = n
		}
	}
	if s.dryRun, err = boolVar(getenv, envDryRun); err != nil {
		errs = append(errs, err)
	}
	if v := strings.TrimSpace(getenv(envMaxCost)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive number of US dollars, like 2.50", envMaxCost, v))
		} else {
			s.maxCost = f
		}
	}
	return s, errors.Join(errs...)
}

func boolVar(getenv func(string) string, name string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); strings.ToLower(v) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want 1 or 0", name, v)
	}
}

// Repeat returns the 0-based repeat index of the query call ctx belongs to
// (see Config.Repeats); pass it to sampled LLM calls (llm.ChatRequest.Repeat)
// so that repeats are cached apart. It is 0 outside repeats.
func Repeat(ctx context.Context) int { return engine.Repeat(ctx) }

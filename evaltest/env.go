package evaltest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

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

// Bazel's test sharding protocol (docs/evaltest.md, "Sharding"), and the
// folder Bazel keeps a test's outputs in; unexported, as they are
// Bazel's names, not evaltest's.
const (
	envTotalShards    = "TEST_TOTAL_SHARDS"
	envShardIndex     = "TEST_SHARD_INDEX"
	envShardStatus    = "TEST_SHARD_STATUS_FILE"
	envBazelOutputs   = "TEST_UNDECLARED_OUTPUTS_DIR"
	envRulesGoWrapped = "GO_TEST_WRAP"
)

// settings are the environment variables Run reads, parsed.
type settings struct {
	out         string
	update      bool
	latency     bool
	shard       engine.Shard
	concurrency int // 0: the engine's default
	// shardNote says why Bazel's shard variables were not used to split
	// the queries ("" when they were, or are not set).
	shardNote   string
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
	if s.out == "" {
		s.out = strings.TrimSpace(getenv(envBazelOutputs))
	}
	if s.shard, s.shardNote, err = readShard(getenv); err != nil {
		errs = append(errs, err)
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

// readShard is the shard a run takes from the environment: LASAGNA_SHARD
// (i/n, or ci: the CI runner's parallel-job variables, engine.ResolveShard)
// when set, else Bazel's TEST_TOTAL_SHARDS and 0-based TEST_SHARD_INDEX.
// A test main that has already shared the test functions out among
// Bazel's shards (rules_go's touches TEST_SHARD_STATUS_FILE before any
// test runs, and its wrapper sets GO_TEST_WRAP) runs each test in one
// shard only: splitting that test's queries again would leave the other
// shards' queries unrun, so the test then runs them all, and note says so.
func readShard(getenv func(string) string) (shard engine.Shard, note string, err error) {
	if v := strings.TrimSpace(getenv(EnvShard)); v != "" {
		if shard, err = engine.ResolveShard(v, getenv); err != nil {
			return engine.Shard{}, "", fmt.Errorf("%s: %v", EnvShard, err)
		}
		return shard, "", nil
	}
	total := strings.TrimSpace(getenv(envTotalShards))
	if total == "" {
		return engine.Shard{}, "", nil
	}
	index := strings.TrimSpace(getenv(envShardIndex))
	shard, ok := engine.JobShard(index, total, 0)
	switch {
	case !ok:
		return engine.Shard{}, "", fmt.Errorf("%s=%q and %s=%q are not a shard count and a shard index from 0 below it (Bazel's test sharding protocol)", envTotalShards, total, envShardIndex, index)
	case shard.Count == 0:
		return engine.Shard{}, "", nil
	}
	if status := getenv(envShardStatus); (status != "" && statusFileExisted(status)) || getenv(envRulesGoWrapped) != "" {
		return engine.Shard{}, fmt.Sprintf("%s=%d: this test binary's main has already given each shard whole test functions (rules_go's does), so this test runs all its queries in shard %d; to split one test's queries over shards, run a go_test per shard with %s=i/n (docs/evaltest.md, \"Sharding\")", envTotalShards, shard.Count, shard.Index-1, EnvShard), nil
	}
	return shard, "", nil
}

// shardStatusSeen holds, per TEST_SHARD_STATUS_FILE, whether the file
// existed when this process first looked at it, before evaltest touched
// it: a fact of the process's start, read once.
var shardStatusSeen sync.Map

func statusFileExisted(path string) bool {
	if v, ok := shardStatusSeen.Load(path); ok {
		return v.(bool)
	}
	_, err := os.Stat(path)
	v, _ := shardStatusSeen.LoadOrStore(path, err == nil)
	return v.(bool)
}

// touchShardStatus tells Bazel that this test supports sharding, as its
// protocol asks: by creating TEST_SHARD_STATUS_FILE when it is set.
func touchShardStatus(getenv func(string) string) error {
	path := getenv(envShardStatus)
	if path == "" {
		return nil
	}
	statusFileExisted(path) // remember the state before this touch
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("%s: %v", envShardStatus, err)
	}
	return f.Close()
}

// Package evalllm holds the helpers of tests whose arms call an LLM:
// live-test skipping, the LLM client configuration from the environment,
// the engine's LLM-backed components (dense and hybrid retrieval,
// generators, the judge) for sweep arms, and the judge of an evaltest Arm.
//
// It is apart from evaltest so that a test evaluating retrieval alone
// links no LLM SDK: import it only where a test calls a model.
//
//	func TestRAGLive(t *testing.T) {
//		client := evalllm.Client(t) // skips unless LASAGNA_LIVE=1 and a key are set
//		j := evalllm.Judge(t, client, judge.Config{Model: "gpt-4o-2024-08-06"})
//		evaltest.Run(t, evaltest.Config{
//			Benchmarks: []string{"testdata/faq.jsonl"},
//			Arms:       []evaltest.Arm{{Name: "mine", Retriever: r, Generator: g, Judge: j, Samples: true}},
//			Deps:       evalllm.Deps(client), // for LLM arms of a sweep file
//		})
//	}
package evalllm

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/engine/llmarms"
	"github.com/lasagna-go/lasagna/judge"
	"github.com/lasagna-go/lasagna/llm"
)

// The environment variables evalllm reads.
const (
	// EnvLive, set to 1 (or true), lets tests that call a real LLM run.
	EnvLive = "LASAGNA_LIVE"
	// EnvCacheDir names the LLM response cache folder Config sets.
	EnvCacheDir = "LASAGNA_CACHE_DIR"
)

// skipper is the part of testing.TB the helpers use.
type skipper interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// RequireLive skips the test unless LASAGNA_LIVE=1, so a test that calls a
// real LLM stays offline (and free) by default. Live results depend on the
// network, which go test's cache does not see: run live tests with
// -count=1.
func RequireLive(t testing.TB) {
	t.Helper()
	requireLive(t, os.Getenv)
}

func requireLive(t skipper, getenv func(string) string) {
	t.Helper()
	if live, err := strconv.ParseBool(strings.TrimSpace(getenv(EnvLive))); !live || err != nil {
		t.Skipf("skipping a test that calls a real LLM: set %s=1 (and %s or %s) to run it, with -count=1 so go test does not replay a cached result",
			EnvLive, llm.EnvAPIKey, llm.EnvAnthropicAPIKey)
	}
}

// Config returns the LLM client configuration of a live test: it skips
// the test unless LASAGNA_LIVE=1 (see RequireLive) and an API key is set,
// reads the variables of llm.ConfigFromEnv (llm.EnvVars: the keys, base
// URLs, MODEL_NAME, LASAGNA_LLM_TIMEOUT, LASAGNA_LLM_RETRIES), fails it on
// a bad value, and sets the response cache folder from LASAGNA_CACHE_DIR.
func Config(t testing.TB) llm.Config {
	t.Helper()
	return config(t, os.Getenv)
}

func config(t skipper, getenv func(string) string) llm.Config {
	t.Helper()
	requireLive(t, getenv)
	cfg, err := llm.ConfigFromEnv(getenv)
	switch {
	case errors.Is(err, llm.ErrMissingKey):
		t.Skipf("skipping a live LLM test: %v", err)
		return llm.Config{}
	case err != nil:
		// A bad value (say LASAGNA_LLM_TIMEOUT=30) is a mistake to fix,
		// not a reason to skip silently.
		t.Fatalf("evalllm: %v", err)
		return llm.Config{}
	}
	cfg.CacheDir = strings.TrimSpace(getenv(EnvCacheDir))
	return cfg
}

// Client returns an LLM client made from Config(t); it skips the test as
// Config does and fails it when the configuration is unusable.
func Client(t testing.TB) *llm.Client {
	t.Helper()
	c, err := llm.New(Config(t))
	if err != nil {
		t.Fatalf("evalllm: %v", err)
	}
	return c
}

// Deps returns the engine's LLM-backed components on client, for the
// built-in arms of a sweep (evaltest.Config.Deps).
func Deps(client *llm.Client) evaltest.Deps { return evaltest.Deps(llmarms.Deps(client)) }

// Judge returns an LLM judge on client for an evaltest Arm's Judge; an
// invalid configuration (an unknown metric, no model) fails the test.
func Judge(t testing.TB, client *llm.Client, cfg judge.Config) evaltest.Judge {
	t.Helper()
	cfg.Repeat = engine.Repeat
	j, err := judge.New(client, cfg)
	if err != nil {
		t.Fatalf("evalllm: %v", err)
	}
	return llmarms.JudgeOn(client, j)
}

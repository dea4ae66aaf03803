package evalllm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fakeT records a skip or failure and ends the goroutine as testing does.
type fakeT struct {
	skipped, failed bool
	msg             string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// call runs fn on its own goroutine, as a test function runs.
func call(fn func(*fakeT)) *fakeT {
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigSkipsOffline(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "set LASAGNA_LIVE=1 (and OPENAI_API_KEY or ANTHROPIC_API_KEY)"},
		{map[string]string{EnvLive: "0"}, "set LASAGNA_LIVE=1"},
		{map[string]string{EnvLive: "1"}, "skipping a live LLM test: "},
	} {
		f := call(func(f *fakeT) { config(f, env(c.vars)); t.Errorf("%v: not skipped", c.vars) })
		if !f.skipped || !strings.Contains(f.msg, c.want) {
			t.Errorf("%v: skipped %v with %q, want a skip saying %q", c.vars, f.skipped, f.msg, c.want)
		}
	}
}

func TestConfigLiveAnthropic(t *testing.T) {
	f := call(func(f *fakeT) {
		cfg := config(f, env(map[string]string{EnvLive: "1", "ANTHROPIC_API_KEY": "sk-ant-k", "MODEL_NAME": "claude-haiku-4-5"}))
		if cfg.AnthropicAPIKey != "sk-ant-k" || !cfg.UsesAnthropic(cfg.Model) {
			t.Errorf("config = %+v, want the Anthropic key from the environment", cfg)
		}
	})
	if f.skipped || f.failed {
		t.Errorf("live Anthropic config skipped or failed: %s", f.msg)
	}
}

func TestConfigLive(t *testing.T) {
	f := call(func(f *fakeT) {
		cfg := config(f, env(map[string]string{EnvLive: "1", "OPENAI_API_KEY": "k", EnvCacheDir: " /cache "}))
		if cfg.CacheDir != "/cache" || cfg.APIKey != "k" {
			t.Errorf("config = %+v, want the key and cache dir from the environment", cfg)
		}
	})
	if f.skipped || f.failed {
		t.Errorf("live config skipped or failed: %s", f.msg)
	}
}

// TestConfigBadTimingFails: a bad LASAGNA_LLM_TIMEOUT or LASAGNA_LLM_RETRIES
// fails the live test with the variable's error instead of skipping it.
func TestConfigBadTimingFails(t *testing.T) {
	for _, vars := range []map[string]string{
		{EnvLive: "1", "OPENAI_API_KEY": "k", "LASAGNA_LLM_TIMEOUT": "30"},
		{EnvLive: "1", "OPENAI_API_KEY": "k", "LASAGNA_LLM_RETRIES": "-2"},
	} {
		f := call(func(f *fakeT) { config(f, env(vars)); t.Errorf("%v: neither skipped nor failed", vars) })
		if !f.failed || !strings.Contains(f.msg, "LASAGNA_LLM_") {
			t.Errorf("%v: failed %v skipped %v with %q", vars, f.failed, f.skipped, f.msg)
		}
	}
	f := call(func(f *fakeT) {
		cfg := config(f, env(map[string]string{EnvLive: "1", "OPENAI_API_KEY": "k", "LASAGNA_LLM_TIMEOUT": "5s", "LASAGNA_LLM_RETRIES": "1"}))
		if cfg.RequestTimeout.String() != "5s" || cfg.MaxRetries != 1 {
			t.Errorf("config = %+v", cfg)
		}
	})
	if f.failed || f.skipped {
		t.Errorf("good timing: %s", f.msg)
	}
}

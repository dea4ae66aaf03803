package llm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnvTimeoutAndRetries(t *testing.T) {
	cfg, err := llm.ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": "k", "LASAGNA_LLM_TIMEOUT": "1.5s", "LASAGNA_LLM_RETRIES": "2"}))
	if err != nil || cfg.RequestTimeout != 1500*time.Millisecond || cfg.MaxRetries != 2 {
		t.Errorf("cfg %+v err %v", cfg, err)
	}
	// 0 retries means none (Config's 0 would mean the default).
	cfg, err = llm.ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": "k", "LASAGNA_LLM_RETRIES": "0"}))
	if err != nil || cfg.MaxRetries >= 0 {
		t.Errorf("retries 0: cfg %+v err %v", cfg, err)
	}
	// Unset: the defaults.
	cfg, err = llm.ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": "k"}))
	if err != nil || cfg.RequestTimeout != 0 || cfg.MaxRetries != 0 {
		t.Errorf("unset: cfg %+v err %v", cfg, err)
	}
	for _, tc := range []struct{ env, val, want string }{
		{"LASAGNA_LLM_TIMEOUT", "30", `LASAGNA_LLM_TIMEOUT="30" is not a positive Go duration; set it like 30s or 2m`},
		{"LASAGNA_LLM_TIMEOUT", "-5s", `LASAGNA_LLM_TIMEOUT="-5s" is not a positive Go duration`},
		{"LASAGNA_LLM_TIMEOUT", "0s", `LASAGNA_LLM_TIMEOUT="0s" is not a positive Go duration`},
		{"LASAGNA_LLM_RETRIES", "two", `LASAGNA_LLM_RETRIES="two" is not a whole number from 0 to 100; set it like 2 (0 disables retries`},
		{"LASAGNA_LLM_RETRIES", "-1", `LASAGNA_LLM_RETRIES="-1" is not a whole number`},
		{"LASAGNA_LLM_RETRIES", "1000", `LASAGNA_LLM_RETRIES="1000" is not a whole number`},
	} {
		_, err := llm.ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": "k", tc.env: tc.val}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: err %v, want %q", tc.env, tc.val, err, tc.want)
		}
	}
	vars := strings.Join(llm.EnvVars(), ",")
	if !strings.Contains(vars, "LASAGNA_LLM_TIMEOUT") || !strings.Contains(vars, "LASAGNA_LLM_RETRIES") {
		t.Errorf("EnvVars() = %s", vars)
	}
}

// TestHangingServerIsBoundedByEnv: a server that never answers costs
// exactly LASAGNA_LLM_RETRIES+1 attempts of LASAGNA_LLM_TIMEOUT each, then
// an ErrTimeout error.
func TestHangingServerIsBoundedByEnv(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	for _, tc := range []struct {
		retries      string
		wantAttempts int
	}{{"0", 1}, {"2", 3}} {
		f.Reset()
		f.Inject(fixtures.Fault{Delay: time.Hour, Times: 1000})
		inBubble(t, f, func(t *testing.T, base llm.Config) {
			cfg, err := llm.ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": "k", "MODEL_NAME": "m",
				"LASAGNA_LLM_TIMEOUT": "2s", "LASAGNA_LLM_RETRIES": tc.retries}))
			if err != nil {
				t.Fatal(err)
			}
			cfg.HTTPClient = base.HTTPClient
			_, err = newClient(t, cfg).Chat(t.Context(), ask("q"))
			var e *llm.Error
			if !errors.As(err, &e) || !errors.Is(err, llm.ErrTimeout) || e.Attempts != tc.wantAttempts {
				t.Fatalf("retries %s: err %v, want a timeout after %d attempts", tc.retries, err, tc.wantAttempts)
			}
		})
		if got := f.Count("chat"); got != tc.wantAttempts {
			t.Errorf("retries %s: the server saw %d requests, want %d", tc.retries, got, tc.wantAttempts)
		}
	}
}

func TestMaxCallDuration(t *testing.T) {
	for _, tc := range []struct {
		cfg  llm.Config
		want time.Duration
	}{
		// Defaults: 4 retries, 60 s per attempt, waits up to 60 s.
		{llm.Config{}, 6*time.Minute + 4*time.Minute},
		{llm.Config{MaxRetries: -1, RequestTimeout: 10 * time.Second}, 20 * time.Second},
		{llm.Config{MaxRetries: 2, RequestTimeout: 5 * time.Second, MaxBackoff: 90 * time.Second}, 4*5*time.Second + 2*90*time.Second},
	} {
		if got := tc.cfg.MaxCallDuration(); got != tc.want {
			t.Errorf("%+v: MaxCallDuration = %s, want %s", tc.cfg, got, tc.want)
		}
	}
}

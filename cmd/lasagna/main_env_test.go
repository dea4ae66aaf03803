package main

import (
	"os"
	"testing"
)

// TestMain clears the LLM variables added after many tests were written,
// so a developer's ANTHROPIC_API_KEY or LASAGNA_LLM_TIMEOUT cannot change
// their outcome; tests that need them set them with t.Setenv.
func TestMain(m *testing.M) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "LASAGNA_LLM_TIMEOUT", "LASAGNA_LLM_RETRIES"} {
		os.Unsetenv(v)
	}
	os.Exit(m.Run())
}

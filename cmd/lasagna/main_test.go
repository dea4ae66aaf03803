package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/results"
)

// init makes the test binary the lasagna command when
// LASAGNA_TEST_CLI_CHILD=1, so tests run the real main (signals, exit
// status, a real stdout) in a child process: os.Args[0] ARGS…. (An init,
// not TestMain, which main_env_test.go owns; it runs before either.)
func init() {
	if os.Getenv("LASAGNA_TEST_CLI_CHILD") == "1" {
		os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// cliChild returns the command running lasagna ARGS in a child process
// with the given extra environment.
func cliChild(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a child process; skipped with -short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "LASAGNA_TEST_CLI_CHILD=1"), env...)
	return cmd
}

// journalledQueries counts the query entries in the journals under cache.
func journalledQueries(cache string) int {
	files, _ := filepath.Glob(filepath.Join(cache, "journal", "*.jsonl"))
	n := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		n += strings.Count(string(data), `{"e":{"q":`)
	}
	return n
}

// TestBenchmarkRunSignals stops a real `lasagna benchmark run` with SIGINT
// and with SIGTERM while a query is in flight: it exits 130 or 143, says
// how many queries are journalled and that --resume keeps them, writes no
// bundle and no temporary file, and a rerun with --resume restores them.
func TestBenchmarkRunSignals(t *testing.T) {
	const answered, samples = 5, 12
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var gens atomic.Int64
			srv := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{APIKey: "test-key", Reply: func(c fixtures.ChatCall) string {
				if sys := c.Messages[0].Content; !strings.HasPrefix(sys, "You grade") && !strings.HasPrefix(sys, "You check") {
					if gens.Add(1) > answered {
						<-release // the generator hangs from the 6th query on
					}
				}
				return judgeEverything(c)
			}})
			defer srv.Close()
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free()

			cache, outDir := t.TempDir(), t.TempDir()
			bundle := filepath.Join(outDir, "b.json")
			for k, v := range map[string]string{"LASAGNA_CACHE_DIR": cache, "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "test-key", "MODEL_NAME": ""} {
				t.Setenv(k, v) // the child's environment, and the in-process rerun's
			}
			args := []string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "closed-book", "--model", "gpt-test",
				"--n-samples", fmt.Sprint(samples), "--concurrency", "1", "-o", bundle}
			cmd := cliChild(t, nil, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for journalledQueries(cache) < answered {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the child journalled %d queries in 60s; stderr:\n%s", journalledQueries(cache), stderr.String())
				}
				time.Sleep(5 * time.Millisecond) // polls a real process; no fake clock reaches it
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("exit %v, want status %d\nstdout:\n%s\nstderr:\n%s", err, tc.code, stdout.String(), stderr.String())
			}
			want := fmt.Sprintf("lasagna: interrupted by %s: %d of %d queries journalled; rerun with --resume\n", tc.name, answered, samples)
			if stderr.String() != want {
				t.Errorf("stderr = %q\nwant %q", stderr.String(), want)
			}
			if ents, _ := os.ReadDir(outDir); len(ents) > 0 {
				t.Errorf("the interrupted run left %v in the output folder", ents)
			}

			free()
			out, errOut, code := runCLI(t, append(args, "--resume")...)
			if code != 0 || !strings.Contains(out, fmt.Sprintf("resumed: %d of %d queries", answered, samples)) {
				t.Errorf("--resume: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestBenchmarkRunClosedStdout runs a real `lasagna benchmark run` whose
// stdout is a pipe nobody reads (lasagna … | head -1, after head exited):
// the bundle is written all the same.
func TestBenchmarkRunClosedStdout(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.json")
	cmd := cliChild(t, []string{"LASAGNA_CACHE_DIR=" + t.TempDir()}, "benchmark", "run", "../../examples/data/faq.jsonl", "-o", bundle)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // closed before the child writes a byte: every write to stdout fails
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Errorf("exit %v; stderr:\n%s", err, stderr.String())
	}
	b, err := results.ReadFile(bundle)
	if err != nil {
		t.Fatalf("no bundle after a closed stdout: %v", err)
	}
	if len(b.Results) == 0 || len(b.Results[0].PerSampleScores) == 0 {
		t.Errorf("bundle has no rows")
	}
}

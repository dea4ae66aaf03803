// Package gotestjson runs `go test -json` in a child process and decodes
// its events, for the tests that check what a user's `go test` run shows
// (exit status, attrs, failures). The child sees the parent's environment
// without LASAGNA_*, GITHUB_STEP_SUMMARY and GOFLAGS, offline
// (GOPROXY=off), plus the variables the caller adds.
package gotestjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Event is one event of `go test -json` (the fields the tests read).
type Event struct {
	Action, Test, Output, Key, Value, Path string
}

// Run runs `go test -json -count=1 args...` in dir ("" = the current
// directory) with env added to the filtered environment, and returns the
// events and the exit code. A run that could not start, printed a line that
// is not JSON, or printed no event at all is an error quoting its stderr.
func Run(dir string, args, env []string) ([]Event, int, error) {
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LASAGNA_") && !strings.HasPrefix(kv, "GITHUB_STEP_SUMMARY=") && !strings.HasPrefix(kv, "GOFLAGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "GOPROXY=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return nil, 0, fmt.Errorf("go test: %v\n%s", err, stderr.String())
	}
	var evs []Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, code, fmt.Errorf("go test printed a non-JSON line %q (stderr: %s)", sc.Text(), stderr.String())
		}
		evs = append(evs, e)
	}
	if len(evs) == 0 {
		return nil, code, fmt.Errorf("go test printed no events (exit code %d); stderr:\n%s", code, stderr.String())
	}
	return evs, code, nil
}

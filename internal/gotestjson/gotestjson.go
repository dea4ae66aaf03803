// Package gotestjson runs `go test -json` in a child process and decodes
// its events, for the tests that check what a user's `go test` run shows
// (exit status, attrs, failures). The child sees the parent's environment
// without LASAGNA_*, GITHUB_STEP_SUMMARY and GOFLAGS, offline
// (GOPROXY=off), plus the variables the caller adds.
//
// The child must build a package inside this module (for a variant of
// one, lay the changed files over it with go test -overlay), never a new
// temporary module: offline, a new module needs go.mod files of module
// versions a fresh machine's module cache never downloaded. A child of a
// test binary built with -race is built with -race too, so it reuses the
// parent's compiled packages.
package gotestjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

// Event is one event of `go test -json` (the fields the tests read).
type Event struct {
	Action, Test, Output, Key, Value, Path string
}

// Run runs `go test -json -count=1 args...` (plus -race when the calling
// binary was built with it) in dir ("" = the current directory) with env
// added to the filtered environment, and returns the events and the exit
// code. A run that could not start, printed a line that
// is not JSON, or printed no event at all is an error quoting its stderr.
func Run(dir string, args, env []string) ([]Event, int, error) {
	flags := []string{"test", "-json", "-count=1"}
	if raceEnabled() {
		flags = append(flags, "-race")
	}
	cmd := exec.Command("go", append(flags, args...)...)
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

// raceEnabled reports whether the running binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// Package golden checks test output against golden files and rewrites
// them when LASAGNA_UPDATE_GOLDEN=1, the module's one golden-update switch
// (an environment variable, not a test flag: a flag defined by one test
// package breaks `go test ./...` for the others).
//
// It is a test helper and imports testing: import it only from _test.go
// files, never from a package's own code (docs/ARCHITECTURE.md allows the
// testing import here for that reason alone).
package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// EnvUpdate is the environment variable that rewrites golden files when
// set to 1.
const EnvUpdate = "LASAGNA_UPDATE_GOLDEN"

// Update reports whether golden files are being rewritten
// (LASAGNA_UPDATE_GOLDEN=1).
func Update() bool { return os.Getenv(EnvUpdate) == "1" }

// Check compares got with the file at path. With LASAGNA_UPDATE_GOLDEN=1
// it writes got to path instead (creating its folder) and passes. A
// missing file or a difference fails t without stopping it: text with a
// -want +got diff of the lines, binary data with both sizes and the first
// differing byte; the message says how to rewrite the file.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	rerun := fmt.Sprintf("rerun with %s=1 go test -run '^%s$' to rewrite it, and review the diff", EnvUpdate, strings.SplitN(t.Name(), "/", 2)[0])
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden file: %v (%s)", err, rerun)
		return
	}
	if bytes.Equal(got, want) {
		return
	}
	t.Errorf("output differs from %s (%s):\n%s", path, rerun, Diff(want, got))
}

// Diff describes how got differs from want: for text, a -want +got diff
// of the lines; for binary data (invalid UTF-8 or a NUL byte), both sizes
// and the offset of the first differing byte. It returns "" when they are
// equal.
func Diff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	if binary(want) || binary(got) {
		i := 0
		for i < len(want) && i < len(got) && want[i] == got[i] {
			i++
		}
		return fmt.Sprintf("binary data: want %d bytes, got %d bytes, first difference at byte %d", len(want), len(got), i)
	}
	return "-want +got:\n" + cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
}

func binary(b []byte) bool {
	return !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0
}

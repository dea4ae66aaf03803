package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) {
	r.errors = append(r.errors, fmt.Sprint(args...))
	r.FailNow()
}

func TestCheck(t *testing.T) {
	t.Setenv(EnvUpdate, "")
	path := filepath.Join(t.TempDir(), "out.txt")
	want := "line one\nline two\nline three\n"
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}

	r := &recorder{TB: t}
	Check(r, path, []byte(want))
	if len(r.errors) != 0 {
		t.Errorf("equal output failed: %q", r.errors)
	}

	r = &recorder{TB: t}
	Check(r, path, []byte("line one\nline 2\nline three\n"))
	if len(r.errors) != 1 {
		t.Fatalf("different output: %d failures, want 1", len(r.errors))
	}
	for _, w := range []string{"output differs from " + path, "LASAGNA_UPDATE_GOLDEN=1 go test -run '^TestCheck$'", "-want +got", `- 	"line two",`, `+ 	"line 2",`} {
		if !strings.Contains(strings.ReplaceAll(r.errors[0], "\u00a0", " "), w) {
			t.Errorf("message lacks %q:\n%s", w, r.errors[0])
		}
	}

	r = &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing.txt"), []byte(want))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "LASAGNA_UPDATE_GOLDEN=1") {
		t.Errorf("missing file: %q, want one failure naming the switch", r.errors)
	}
}

func TestCheckUpdate(t *testing.T) {
	t.Setenv(EnvUpdate, "1")
	path := filepath.Join(t.TempDir(), "new", "out.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("fresh\n"))
	if len(r.errors) != 0 {
		t.Fatalf("update failed: %q", r.errors)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "fresh\n" {
		t.Errorf("rewritten file = %q, %v; want %q", got, err, "fresh\n")
	}
	Check(r, path, []byte("changed\n"))
	if got, _ := os.ReadFile(path); string(got) != "changed\n" || len(r.errors) != 0 {
		t.Errorf("second update: file %q, failures %q", got, r.errors)
	}
}

func TestDiff(t *testing.T) {
	if d := Diff([]byte("a\n"), []byte("a\n")); d != "" {
		t.Errorf("Diff of equal input = %q, want empty", d)
	}
	if d := Diff([]byte("a\n"), []byte("a")); !strings.Contains(d, "-want +got") {
		t.Errorf("a missing final newline gives no diff: %q", d)
	}
	want := "binary data: want 4 bytes, got 5 bytes, first difference at byte 2"
	if d := Diff([]byte("PK\x00\x01"), []byte("PK\x01\x01\x02")); d != want {
		t.Errorf("binary Diff = %q, want %q", d, want)
	}
}

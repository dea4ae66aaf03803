package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk makes the temporary files of Write fail as on a full disk: each
// is created as usual, then /dev/full (every write fails with ENOSPC) is
// put behind its descriptor, so its name, removal and rename stay a
// regular file's.
func fullDisk(t *testing.T) {
	t.Helper()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	t.Cleanup(func() { full.Close(); createTemp = os.CreateTemp })
	createTemp = func(dir, pattern string) (*os.File, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if err := syscall.Dup3(int(full.Fd()), int(f.Fd()), 0); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		return f, nil
	}
}

// TestFullDisk: when the disk is full, Write says "no space left on
// device" with the path being written and what to do, whatever the
// callback made of the error (here, as results.WriteFile words an
// encoding error, a NaN metric); the old file stays and no temporary file
// is left.
func TestFullDisk(t *testing.T) {
	fullDisk(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for what, write := range map[string]func(io.Writer) error{
		"Write": func(w io.Writer) error {
			if _, err := io.WriteString(w, `{"x": 1}`); err != nil {
				return fmt.Errorf("bundle: row q7: %w (a metric or score is NaN or infinite)", err)
			}
			return nil
		},
		"WriteAt": func(w io.Writer) error {
			_, err := w.(io.WriterAt).WriteAt([]byte("id"), 0)
			return fmt.Errorf("bundle: %w", err)
		},
	} {
		err := Write(name, 0o644, write)
		want := "write " + name + ": no space left on device; nothing was written: free space on the disk holding " + dir + ", or write elsewhere"
		if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: Write = %v\nwant %s", what, err, want)
		}
		if strings.Contains(fmt.Sprint(err), "NaN") || strings.Contains(fmt.Sprint(err), "q7") {
			t.Errorf("%s: the error blames the content: %v", what, err)
		}
	}
	if got, _ := os.ReadFile(name); string(got) != "old" {
		t.Errorf("the file became %q; a failed write leaves it as it was", got)
	}
	if extra := leftovers(t, dir, "bundle.json"); len(extra) > 0 {
		t.Errorf("left behind %v", extra)
	}
}

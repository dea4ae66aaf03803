package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// leftovers returns the names in dir other than keep.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.Contains(strings.Join(keep, "\x00")+"\x00", e.Name()+"\x00") {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "b.json")
	if err := os.WriteFile(name, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(name)
	st, _ := os.Stat(name)
	if string(got) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("file = %q, mode %v; want \"new\", 0644", got, st.Mode().Perm())
	}
	if extra := leftovers(t, dir, "b.json"); len(extra) > 0 {
		t.Errorf("left behind %v", extra)
	}
	// A symbolic link keeps pointing at its target, which is replaced.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("b.json", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := WriteFile(link, []byte("via link"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(name); string(got) != "via link" {
		t.Errorf("target = %q", got)
	}
}

// TestWriteFailingMidway: a write that fails after writing part of the new
// content leaves the previous file intact and no temporary file behind.
func TestWriteFailingMidway(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "b.json")
	old := bytes.Repeat([]byte("previous bundle\n"), 1000)
	if err := os.WriteFile(name, old, 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := Write(name, 0o644, func(w io.Writer) error {
		w.Write([]byte(`{"schema_version": "1.0", "half`))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), name) {
		t.Errorf("err = %v; want the writer's error naming %s", err, name)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, old) {
		t.Errorf("the previous file was changed: %.40q", got)
	}
	if extra := leftovers(t, dir, "b.json"); len(extra) > 0 {
		t.Errorf("left behind %v", extra)
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "folder.json"), old, 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}

// TestWriteKilledMidway kills a real child process (SIGKILL) while it is
// in the middle of writing over a file: the previous file is intact.
func TestWriteKilledMidway(t *testing.T) {
	if name := os.Getenv("ATOMICFILE_TEST_CHILD"); name != "" {
		// The child: write half the new content, then hang until killed.
		Write(name, 0o644, func(w io.Writer) error {
			w.Write(bytes.Repeat([]byte("new"), 1<<16))
			if f, ok := w.(*os.File); ok {
				f.Sync()
			}
			os.WriteFile(name+".ready", nil, 0o644)
			select {}
		})
		t.Fatal("the child's write returned")
	}
	if testing.Short() {
		t.Skip("starts a child process; skipped with -short")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "b.json")
	old := []byte("the previous bundle\n")
	if err := os.WriteFile(name, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteKilledMidway$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ATOMICFILE_TEST_CHILD="+name)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(name + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child never started writing; its output:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond) // polls a real process; no fake clock reaches it
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got, _ := os.ReadFile(name); !bytes.Equal(got, old) {
		t.Errorf("after a kill mid-write the file holds %d bytes (%.20q…), want the previous %q", len(got), got, old)
	}
}

// TestWriteIn: WriteIn writes inside its root only, replaces the file
// whole, and two writers of one name at once both succeed and leave no
// temporary file.
func TestWriteIn(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteIn(root, "sub/a.json", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = WriteIn(root, "sub/a.json", []byte("new"), 0o644) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "a.json")); string(got) != "new" {
		t.Errorf("file = %q, want new", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "sub")); len(ents) != 1 {
		t.Errorf("sub holds %d entries, want the file alone: %v", len(ents), ents)
	}
	if err := WriteIn(root, "../outside.json", []byte("x"), 0o644); err == nil {
		t.Error("WriteIn wrote outside its root")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.json")); err == nil {
		t.Error("a file appeared outside the root")
	}
}

// TestWriteNamed checks that WriteNamed renames the temporary file to the
// name its write returns, replacing a file of that name, and that a failed
// write, or a name that is not a plain name inside the folder, leaves
// nothing behind.
func TestWriteNamed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "abc.json"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := WriteNamed(dir, 0o640, func(w io.Writer) (string, error) {
		_, err := io.WriteString(w, "new content")
		return "abc.json", err
	})
	if err != nil || path != filepath.Join(dir, "abc.json") {
		t.Fatalf("WriteNamed = %q, %v; want %s", path, err, filepath.Join(dir, "abc.json"))
	}
	if got, _ := os.ReadFile(path); string(got) != "new content" {
		t.Errorf("file holds %q, want the new content", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v (%v), want 0640", st.Mode().Perm(), err)
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"x.json", errors.New("boom"), "boom"},
		{"", nil, "not a plain name"},
		{"../x.json", nil, "not a plain name"},
		{"..", nil, "not a plain name"},
		{"sub/x.json", nil, "not a plain name"},
	} {
		path, err := WriteNamed(dir, 0o644, func(w io.Writer) (string, error) {
			io.WriteString(w, "partial")
			return c.name, c.err
		})
		if err == nil || path != "" || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "write "+dir) {
			t.Errorf("name %q, error %v: WriteNamed = %q, %v; want an error about the write in %s saying %q", c.name, c.err, path, err, dir, c.want)
		}
	}
	if left := leftovers(t, dir, "abc.json"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliNoHang runs the command with args and fails if it has not returned
// after a minute: only a safety net, the assertions are on its output.
func cliNoHang(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		stdout, stderr, code = runCLI(t, args...)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%q waits on its input", args)
	}
	return stdout, stderr, code
}

// TestSpecialFilesRefusedCLI: every command that reads an input file
// refuses a FIFO and a device at once, naming the file.
func TestSpecialFilesRefusedCLI(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"faq.jsonl":   `{"id": "q1", "question": "Who?", "answer": "Ann", "contexts": ["Ann did."]}` + "\n",
		"qrels.txt":   "q1 0 d1 1\n",
		"run.txt":     "q1 Q0 d1 1 1.0 r\n",
		"sweep.yaml":  "benchmarks:\n  - {path: fifo.jsonl}\narms:\n  - {name: bm25, retriever: bm25}\n",
		"preds.jsonl": `{"id": "q1", "answer": "Ann"}` + "\n",
	})
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	t.Cleanup(func() { // release a reader that waits, if any
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	fifoYAML := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifoYAML, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifoYAML, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	const pipe = "is a named pipe (FIFO), not a regular file"
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"benchmark", "validate-data", fifo}, 2, fifo + ": " + pipe},
		{[]string{"benchmark", "run", fifo}, 1, pipe},
		{[]string{"benchmark", "run", filepath.Join(dir, "sweep.yaml")}, 1, "fifo.jsonl: " + pipe},
		{[]string{"benchmark", "run", fifoYAML}, 2, "fifo.yaml: " + pipe},
		{[]string{"benchmark", "score", filepath.Join(dir, "faq.jsonl"), fifo}, 1, pipe},
		{[]string{"benchmark", "score", fifo, filepath.Join(dir, "preds.jsonl")}, 1, pipe},
		{[]string{"metrics", "trec", filepath.Join(dir, "qrels.txt"), fifo}, 1, pipe},
		{[]string{"metrics", "trec", fifo, filepath.Join(dir, "run.txt")}, 1, pipe},
		// Bundles are inputs too.
		{[]string{"results", "validate", fifo}, 1, pipe},
		{[]string{"results", "compare", fifo}, 1, pipe},
		{[]string{"results", "merge", fifo, "-o", filepath.Join(dir, "m.json")}, 1, pipe},
		{[]string{"benchmark", "run", filepath.Join(dir, "faq.jsonl"), "--profile", "speed", "--baseline", fifo}, 1, pipe},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases,
			struct {
				args []string
				code int
				want string
			}{[]string{"benchmark", "validate-data", zero}, 2, "zero.jsonl: is a character device, not a regular file"},
			struct {
				args []string
				code int
				want string
			}{[]string{"metrics", "trec", filepath.Join(dir, "qrels.txt"), zero}, 1, "zero.jsonl: is a character device"})
	}
	for _, c := range cases {
		_, errOut, code := cliNoHang(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) || (c.code != 0 && code != c.code) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestValidateDataSymlinkLoop: a symbolic link loop is called one, not "no
// such file".
func TestValidateDataSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runValidate(t, a)
	if code != 2 || !strings.Contains(errOut, a+": symlink loop") || strings.Contains(errOut, "no such file") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

package datasets

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// noHang runs f and fails the test if it has not returned after a minute.
// The deadline is only a safety net so that a regression cannot hang the
// test binary; the assertions are on f's results.
func noHang(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return: it waits on its input", what)
	}
}

// readers are the entry points that read one file of fsys.
var readers = map[string]func(fsys fs.FS, name string) error{
	"Load":            func(fsys fs.FS, name string) error { _, err := Load(fsys, name, Options{}); return err },
	"LoadJSONL":       func(fsys fs.FS, name string) error { _, err := LoadJSONL(fsys, name, Options{}); return err },
	"LoadCSV":         func(fsys fs.FS, name string) error { _, err := LoadCSV(fsys, name, Options{}); return err },
	"LoadVectaCSV":    func(fsys fs.FS, name string) error { _, err := LoadVectaCSV(fsys, name, Options{}); return err },
	"ReadPredictions": func(fsys fs.FS, name string) error { _, err := ReadPredictions(fsys, name); return err },
	"ReadQrels":       func(fsys fs.FS, name string) error { _, err := ReadQrels(fsys, name); return err },
	"ReadRun":         func(fsys fs.FS, name string) error { _, err := ReadRun(fsys, name); return err },
	"ParseBEIRQrels":  func(fsys fs.FS, name string) error { _, err := ParseBEIRQrels(fsys, name); return err },
	"ReadFile":        func(fsys fs.FS, name string) error { _, err := ReadFile(fsys, name); return err },
	"Open": func(fsys fs.FS, name string) error {
		f, err := Open(fsys, name)
		if err == nil {
			f.Close()
		}
		return err
	},
}

func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// Whoever waits on the FIFO is released when the test ends.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|openNonblock, 0); err == nil {
			f.Close()
		}
	})
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
	}{
		{"data.jsonl", "is a named pipe (FIFO), not a regular file"},
		{"zero.jsonl", "is a character device, not a regular file"},
	} {
		if tc.name == "zero.jsonl" {
			if _, err := os.Stat("/dev/zero"); err != nil {
				continue
			}
		}
		for _, fsys := range []struct {
			name string
			fs   fs.FS
			path string
		}{
			{"OSFS", OSFS{}, filepath.ToSlash(filepath.Join(dir, tc.name))},
			{"os.DirFS", os.DirFS(dir), tc.name},
		} {
			for rname, read := range readers {
				var err error
				noHang(t, rname+" of "+tc.name, func() { err = read(fsys.fs, fsys.path) })
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
					t.Errorf("%s(%s, %s) = %v; want an error naming the file, wrapping ErrNotRegular and saying %q", rname, fsys.name, tc.name, err, tc.want)
				}
			}
		}
	}
	// A FIFO swapped in after OSFS's check is opened without waiting.
	var err error
	noHang(t, "openChecked", func() { _, err = openChecked(filepath.ToSlash(fifo)) })
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("openChecked(FIFO) = %v", err)
	}
	// The same for a BEIR folder's files.
	beir := filepath.Join(dir, "beir")
	if err := os.MkdirAll(filepath.Join(beir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		if err := os.WriteFile(filepath.Join(beir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(beir, "queries.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(beir, "queries.jsonl")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(filepath.Join(beir, "queries.jsonl"), os.O_WRONLY|openNonblock, 0); err == nil {
			f.Close()
		}
	})
	noHang(t, "LoadBEIR", func() { _, err = LoadBEIR(OSFS{}, filepath.ToSlash(beir), Options{}) })
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "queries.jsonl") {
		t.Errorf("LoadBEIR with a FIFO queries.jsonl = %v", err)
	}
}

func TestSymlinkLoopNamed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("b.jsonl", filepath.Join(dir, "a.jsonl")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink("a.jsonl", filepath.Join(dir, "b.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, fsys := range []struct {
		name string
		fs   fs.FS
		path string
	}{
		{"OSFS", OSFS{}, filepath.ToSlash(filepath.Join(dir, "a.jsonl"))},
		{"os.DirFS", os.DirFS(dir), "a.jsonl"},
	} {
		for rname, read := range readers {
			err := read(fsys.fs, fsys.path)
			if !errors.Is(err, ErrSymlinkLoop) || !strings.Contains(err.Error(), "symlink loop") || !strings.Contains(err.Error(), "a.jsonl") || errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s(%s) = %v; want a symlink loop naming a.jsonl", rname, fsys.name, err)
			}
		}
	}
}

func TestFolderWhereFileExpected(t *testing.T) {
	fsys := fstest.MapFS{"d/x.jsonl": {Data: []byte(`{"question": "q"}` + "\n")}}
	for _, rname := range []string{"ReadPredictions", "ReadRun", "ReadQrels", "ReadFile", "LoadJSONL"} {
		err := readers[rname](fsys, "d")
		if err == nil || !strings.Contains(err.Error(), "d: is a folder, not a file") {
			t.Errorf("%s(folder) = %v", rname, err)
		}
	}
}

func TestPathOutsideFS(t *testing.T) {
	_, err := Load(os.DirFS(t.TempDir()), "../faq.jsonl", Options{})
	if err == nil || !strings.Contains(err.Error(), "../faq.jsonl: not a path inside the file system") || !strings.Contains(err.Error(), "datasets.OSFS") {
		t.Errorf("Load(os.DirFS, ../faq.jsonl) = %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faq.jsonl"), []byte(`{"question": "q", "answer": "a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	for _, p := range []string{"../faq.jsonl", filepath.ToSlash(filepath.Join(dir, "faq.jsonl"))} {
		b, err := Load(OSFS{}, p, Options{})
		if err != nil || len(b.Queries) != 1 || b.Source != p {
			t.Errorf("Load(OSFS, %s) = %v, %v", p, b, err)
		}
	}
}

func TestInvalidUTF8Refused(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"rows.jsonl", "{\"question\": \"ok\"}\n{\"question\": \"caf\xe9\"}\n", "rows.jsonl:2: invalid UTF-8 at column 18 (byte 0xE9)"},
		{"rows.jsonl", "{\"question\": \"q\", \"metadata\": {\"k\": [\"\xff\"]}}\n", "rows.jsonl:1: invalid UTF-8 at column 39 (byte 0xFF)"},
		{"rows.csv", "question,answer\nq,ok\n\"multi\nline \xe9t\xe9\",a\n", "rows.csv:4: invalid UTF-8 at column 6 (byte 0xE9)"},
		{"preds.jsonl", "{\"id\": \"q1\", \"answer\": \"\xc3\"}\n", "preds.jsonl:1: invalid UTF-8 at column 25 (byte 0xC3)"},
		{"qrels.tsv", "q1\td\xfe1\t1\n", "qrels.tsv:1: invalid UTF-8 at column 5 (byte 0xFE)"},
		// A truncated sequence at the end of the file.
		{"end.jsonl", "{\"question\": \"q\"}\n\xe2\x82", "end.jsonl:2: invalid UTF-8 at column 1 (byte 0xE2)"},
	} {
		fsys := fstest.MapFS{tc.name: {Data: []byte(tc.data)}}
		var err error
		switch {
		case strings.HasPrefix(tc.name, "preds"):
			_, err = ReadPredictions(fsys, tc.name)
		case strings.HasSuffix(tc.name, ".tsv"):
			_, err = ParseBEIRQrels(fsys, tc.name)
		default:
			_, err = Load(fsys, tc.name, Options{})
		}
		var ps Problems
		if !errors.As(err, &ps) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "text must be UTF-8") {
			t.Errorf("%s: err = %v; want Problems with %q", tc.name, err, tc.want)
		}
	}
	// BEIR queries.
	b := beirFS()
	b["beir/queries.jsonl"] = &fstest.MapFile{Data: []byte("{\"_id\": \"q1\", \"text\": \"x\xe9\"}\n")}
	_, err := LoadBEIR(b, "beir", Options{})
	if err == nil || !strings.Contains(err.Error(), "beir/queries.jsonl:1: invalid UTF-8 at column 25 (byte 0xE9)") {
		t.Errorf("BEIR queries: %v", err)
	}
}

func beirFS() fstest.MapFS {
	return fstest.MapFS{
		"beir/corpus.jsonl":   {Data: []byte(`{"_id": "d1", "title": "", "text": "hello"}` + "\n")},
		"beir/queries.jsonl":  {Data: []byte(`{"_id": "q1", "text": "hi"}` + "\n")},
		"beir/qrels/test.tsv": {Data: []byte("q1\td1\t1\n")},
	}
}

// TestTextGuardSplitsRunes reads valid UTF-8 through reads that end inside
// a multi-byte sequence: it is accepted unchanged.
func TestTextGuardSplitsRunes(t *testing.T) {
	text := strings.Repeat("é€😀a\n", 5000)
	for _, step := range []int{1, 2, 3, 5, 7, 4096} {
		g := newTextGuard(&chunkReader{data: []byte(text), step: step})
		got, err := io.ReadAll(g)
		if err != nil || string(got) != text {
			t.Errorf("step %d: %d bytes, %v", step, len(got), err)
		}
	}
}

type chunkReader struct {
	data []byte
	step int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.step)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestTextGuardCaps(t *testing.T) {
	g := newTextGuard(strings.NewReader("short\nmuch longer line\nx\n"))
	g.caps = [2]int64{10, 1 << 20}
	got, err := io.ReadAll(g)
	var te *textError
	if !errors.As(err, &te) || te.Line != 2 || string(got) != "short\n" || !strings.Contains(te.Msg, "line longer than 10 bytes") {
		t.Errorf("line cap: %q, %v", got, err)
	}
	g = newTextGuard(strings.NewReader("a\nb\nc\nd\n"))
	g.caps = [2]int64{10, 5}
	_, err = io.ReadAll(g)
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "larger than 5 bytes") {
		t.Errorf("file cap: %v", err)
	}
}

// TestLongLineRefused reads a regular file whose one line is longer than
// MaxLineBytes (a sparse file of NUL bytes): an error naming the line and
// the cap, after reading no more than the cap.
func TestLongLineRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"question\": \"q\"}\n"); err != nil {
		t.Fatal(err)
	}
	// A line of MaxLineBytes + 4 MiB letters (NUL bytes, as Truncate
	// writes, are refused at column 1).
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range MaxLineBytes>>20 + 4 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	_, err = Load(OSFS{}, filepath.ToSlash(p), Options{})
	if err == nil || !strings.Contains(err.Error(), "big.jsonl:2: line longer than 64 MiB, the longest line lasagna reads") {
		t.Errorf("err = %v", err)
	}
}

func TestFileCapReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		f.Close()
		t.Skipf("no sparse file of that size here: %v", err)
	}
	f.Close()
	_, err = ReadRun(OSFS{}, filepath.ToSlash(p))
	if err == nil || !strings.Contains(err.Error(), "larger than 64 GiB, the largest file lasagna reads") {
		t.Errorf("err = %v", err)
	}
}

func TestCSVUnbalancedQuoteLine(t *testing.T) {
	for _, tc := range []struct {
		data string
		want string
	}{
		// The quote on line 3 is never closed: encoding/csv notices at the
		// end of the file (line 5).
		{"question,answer\nq1,a\n\"q2,a\nq3,a\nq4,a\n", "rows.csv:3: malformed CSV: unbalanced quote: a quoted field opened in the record starting on this line is not closed before line 5"},
		// It is closed on line 4, by a quote followed by more text.
		{"question,answer\nq1,a\n\"q2,a\nq3 \"x\",a\n", "rows.csv:3: malformed CSV: unbalanced quote"},
		{"question,answer\n\"q1\"x,a\n", `rows.csv:2: malformed CSV at column 4: unbalanced quote in a quoted field; close the quote, and write a quote inside a quoted field as ""`},
		{"question,answer\nq \"1\",a\n", "rows.csv:2: malformed CSV at column 3: a quote inside a field that does not start with one"},
	} {
		_, err := Load(fstest.MapFS{"rows.csv": {Data: []byte(tc.data)}}, "rows.csv", Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v\nwant %q", tc.data, err, tc.want)
		}
	}
}

func TestBEIRMissingFilesNamed(t *testing.T) {
	for _, tc := range []struct {
		remove []string
		want   []string
	}{
		{[]string{"beir/queries.jsonl"}, []string{"beir/queries.jsonl: missing: a BEIR folder holds corpus.jsonl", "add queries.jsonl"}},
		{[]string{"beir/corpus.jsonl"}, []string{"beir/corpus.jsonl: missing: ", "add corpus.jsonl"}},
		{[]string{"beir/corpus.jsonl", "beir/queries.jsonl"}, []string{"beir/corpus.jsonl: missing", "beir/queries.jsonl: missing"}},
		{[]string{"beir/qrels/test.tsv"}, []string{"beir/qrels/test.tsv: missing (no qrels folder)", "add qrels/test.tsv"}},
	} {
		fsys := beirFS()
		for _, r := range tc.remove {
			delete(fsys, r)
		}
		_, err := LoadBEIR(fsys, "beir", Options{})
		var ps Problems
		if !errors.As(err, &ps) {
			t.Errorf("without %v: err = %v, want Problems", tc.remove, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("without %v: err = %v, want %q", tc.remove, err, w)
			}
		}
	}
}

func TestOSFSBEIRFolderName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scifact")
	for name, f := range beirFS() {
		p := filepath.Join(dir, strings.TrimPrefix(name, "beir/"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	b, err := Load(OSFS{}, ".", Options{})
	if err != nil || !strings.HasPrefix(b.Name, "local/scifact@") {
		t.Errorf("Load(OSFS, .) = %v, %v; want the folder's own name", b, err)
	}
}

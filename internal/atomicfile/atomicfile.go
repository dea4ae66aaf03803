// Package atomicfile writes files atomically: a reader, or a process
// killed in the middle of a write, sees the old file or the new one, never
// a mix or a truncated file.
//
// It is the one way the module writes bundles and baselines (results.WriteFile
// and everything built on it). It uses the standard library only, on
// purpose: github.com/google/renameio/v2 does the same temp-file-and-rename
// dance, but its v2 API is not built on Windows (where this package still
// replaces the file with os.Rename, MoveFileEx with REPLACE_EXISTING), and a
// new module for thirty lines is not worth a place in evaltest's dependency
// budget (docs/ARCHITECTURE.md).
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// WriteFile writes data to the named file atomically (see Write).
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	return Write(name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces the named file with what write writes: to a temporary file
// in the same folder, which is flushed to disk (fsync), given perm, and
// renamed over name; the folder is then flushed too, so the rename survives
// a crash. When write or any step fails, the temporary file is removed and
// name is left as it was. A name that is a symbolic link has its target
// replaced. The folder must exist.
//
// The writer write gets is the temporary file (it is also an
// io.WriterAt). When writing to it fails, that error is the one Write
// returns, whatever write made of it, so a full disk is reported as
// "write NAME: no space left on device" and never as a fault of the data
// being written (see writeErr).
func Write(name string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	if target, lerr := filepath.EvalSymlinks(name); lerr == nil {
		name = target
	}
	dir := filepath.Dir(name)
	f, err := createTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	fw := &fileWriter{f: f}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			if fw.err != nil {
				err = fw.err
			}
			err = writeErr(name, tmp, err)
		}
	}()
	if err = write(fw); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	return commit(f, func() error { return os.Rename(tmp, name) }, func() (*os.File, error) { return os.Open(dir) })
}

// WriteNamed writes a new file in the folder dir atomically, as Write does,
// for a file whose name is known only once it is written (a name derived
// from its content): write writes the temporary file and returns the file's
// name, a plain name inside dir, which the temporary file is then renamed
// to (replacing a file of that name). It returns the file's path,
// dir joined with that name. The folder must exist.
func WriteNamed(dir string, perm fs.FileMode, write func(io.Writer) (string, error)) (path string, err error) {
	f, err := createTemp(dir, ".new.*.tmp")
	if err != nil {
		return "", fmt.Errorf("write in %s: %w", dir, err)
	}
	tmp := f.Name()
	fw := &fileWriter{f: f}
	path = filepath.Join(dir, "(unnamed)")
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			if fw.err != nil {
				err = fw.err
			}
			err = writeErr(path, tmp, err)
			path = ""
		}
	}()
	name, err := write(fw)
	if err != nil {
		return path, err
	}
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return path, fmt.Errorf("file name %q is not a plain name inside %s", name, dir)
	}
	path = filepath.Join(dir, name)
	if err = f.Chmod(perm); err != nil {
		return path, err
	}
	return path, commit(f, func() error { return os.Rename(tmp, path) }, func() (*os.File, error) { return os.Open(dir) })
}

// createTemp is os.CreateTemp (a test makes the file's writes fail as on
// a full disk).
var createTemp = os.CreateTemp

// fileWriter is the temporary file as the write callback sees it; it keeps
// the first error of writing to the file.
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func (w *fileWriter) WriteAt(p []byte, off int64) (int, error) {
	n, err := w.f.WriteAt(p, off)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// writeErr words the failure err of writing the file name: "write NAME:
// …". An error of the operating system on the temporary file tmp is given
// without tmp's name (which is gone), and a full disk or
// quota says what to do.
func writeErr(name, tmp string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && filepath.Base(pe.Path) == filepath.Base(tmp) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("write %s: %w; nothing was written: free space on the disk holding %s, or write elsewhere", name, err, filepath.Dir(name))
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("write %s: %w; nothing was written: free space within your quota on the disk holding %s, or write elsewhere", name, err, filepath.Dir(name))
	}
	return fmt.Errorf("write %s: %w", name, err)
}

// commit flushes and closes the temporary file f, renames it into place
// and flushes its folder (opened by openDir), so the rename survives a
// crash. Windows cannot open a folder for syncing; its rename is flushed
// by the file system.
func commit(f *os.File, rename func() error, openDir func() (*os.File, error)) error {
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := rename(); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := openDir()
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteIn writes data to the slash path name inside root atomically, as
// Write does, without leaving root: the temporary file (a random name, so
// that two writers of one name never share it) is created, flushed and
// renamed through root, and the folder is flushed too. The dashboard writes
// its evaluations' bundles with it.
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return WriteInGuarded(root, name, data, perm, nil)
}

// WriteInGuarded is WriteIn whose last step, the rename that makes the
// file appear, runs inside guard: guard calls rename, or returns an
// error without calling it, and then the temporary file is removed and
// name is left as it was. A nil guard renames. The dashboard's guard
// refuses once its evaluations are cancelled (lasagna serve on SIGTERM),
// holding a lock the cancellation takes, so that no bundle appears after
// it.
func WriteInGuarded(root *os.Root, name string, data []byte, perm fs.FileMode, guard func(rename func() error) error) (err error) {
	dir, base := path.Split(name)
	tmp := path.Join(dir, "."+base+".tmp-"+rand.Text()[:12])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
			err = writeErr(name, tmp, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if dir == "" {
		dir = "."
	}
	rename := func() error { return root.Rename(tmp, name) }
	if guard != nil {
		plain := rename
		rename = func() error { return guard(plain) }
	}
	return commit(f, rename, func() (*os.File, error) { return root.Open(dir) })
}

// SafeName returns s as a file name component: letters, digits and
// -_.@ are kept, and every other character (a path separator, a space,
// anything outside ASCII) becomes '_'. It is the one file-name cleaner
// of bundles, run files and the dashboard's evaluations.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r == '@' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

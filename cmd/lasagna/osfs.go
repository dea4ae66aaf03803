package main

import (
	"io/fs"
	"os"
	"path/filepath"
)

// osFS is the file system as the command line sees it: a name is a path
// in slash form, relative to the working directory or absolute, and may
// climb with "..". Unlike os.DirFS it accepts absolute paths, so a sweep's
// benchmark may name /data/faq.jsonl, and error positions keep the path
// the user wrote.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return os.Open(filepath.FromSlash(name))
}

func (osFS) ReadFile(name string) ([]byte, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return os.ReadFile(filepath.FromSlash(name))
}

func (osFS) Stat(name string) (fs.FileInfo, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return os.Stat(filepath.FromSlash(name))
}

func (osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return os.ReadDir(filepath.FromSlash(name))
}

// cliPath returns the file system and the name of command-line path p.
func cliPath(p string) (fs.FS, string) {
	return osFS{}, filepath.ToSlash(filepath.Clean(p))
}

package main

import (
	"io/fs"
	"path/filepath"

	"github.com/lasagna-go/lasagna/internal/datasets"
)

// cliPath returns the file system and the name of command-line path p:
// datasets.OSFS, which takes absolute paths and paths climbing with "..",
// so a sweep's benchmark may name /data/faq.jsonl or ../data/faq.jsonl,
// and refuses anything but regular files and folders.
func cliPath(p string) (fs.FS, string) {
	return datasets.OSFS{}, filepath.ToSlash(filepath.Clean(p))
}

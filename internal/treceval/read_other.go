//go:build !linux

package treceval

import (
	"io/fs"

	"github.com/lasagna-go/lasagna/internal/datasets"
)

// readRunFile returns the bytes of the run file name in fsys and a
// function that releases them (nothing to release here: the file is read
// into memory).
// Only a regular file is read (see datasets.Open). drop is nil: there are
// no mapped pages to give back.
func readRunFile(fsys fs.FS, name string) (data []byte, release func(), drop func(lo, hi int), err error) {
	data, err = datasets.ReadFile(fsys, name)
	return data, func() {}, nil, err
}

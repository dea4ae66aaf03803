//go:build !linux

package main

import "github.com/lasagna-go/lasagna/internal/datasets"

// readRunFile returns the bytes of the run file at path and a function that
// releases them (nothing to release here: the file is read into memory).
// Only a regular file is read (see datasets.Open). drop is nil: there are
// no mapped pages to give back.
func readRunFile(path string) (data []byte, release func(), drop func(lo, hi int), err error) {
	data, err = datasets.ReadFile(cliPath(path))
	return data, func() {}, nil, err
}

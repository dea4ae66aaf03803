//go:build !linux

package main

import "github.com/lasagna-go/lasagna/internal/datasets"

// readRunFile returns the bytes of the run file at path and a function that
// releases them (nothing to release here: the file is read into memory).
// Only a regular file is read (see datasets.Open).
func readRunFile(path string) ([]byte, func(), error) {
	data, err := datasets.ReadFile(cliPath(path))
	return data, func() {}, err
}

//go:build !linux

package main

import "os"

// readRunFile returns the bytes of the run file at path and a function that
// releases them (nothing to release here: the file is read into memory).
func readRunFile(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}

//go:build linux

package main

import (
	"os"
	"syscall"

	"github.com/lasagna-go/lasagna/internal/datasets"
)

// readRunFile returns the bytes of the run file at path and a function that
// releases them. Only a regular file is read (see datasets.Open): a FIFO or
// a device is refused at once. On Linux the file is mapped read-only with
// MAP_POPULATE: for a 200 MB run this takes a few milliseconds of system
// time where reading it into fresh memory takes most of a second on a small
// virtual machine. After release no string taken from the bytes may be
// used. Files that cannot be mapped (empty ones) are read.
func readRunFile(path string) ([]byte, func(), error) {
	f, err := datasets.Open(cliPath(path))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	osf, isOS := f.(*os.File)
	if !isOS || size <= 0 || size > datasets.MaxFileBytes || size != int64(int(size)) {
		data, err := datasets.ReadFile(cliPath(path))
		return data, func() {}, err
	}
	data, err := syscall.Mmap(int(osf.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		data, err := datasets.ReadFile(cliPath(path))
		return data, func() {}, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}

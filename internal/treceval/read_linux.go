//go:build linux

package treceval

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/lasagna-go/lasagna/internal/datasets"
)

// readRunFile returns the bytes of the run file name in fsys and a
// function that releases them. Only a regular file is read (see
// datasets.Open): a FIFO or a device is refused at once. On Linux the file is mapped read-only with
// MAP_POPULATE: for a 200 MB run this takes a few milliseconds of system
// time where reading it into fresh memory takes most of a second on a small
// virtual machine. After release no string taken from the bytes may be
// used. Files that cannot be mapped (empty ones) are read. drop, not nil
// for a mapped file, gives back the pages of data[lo:hi] (lo page-aligned):
// they are read from the file again if used (trecparse.PartitionRun drops
// what its second pass has copied, so that the file and its copy are not
// both in memory).
func readRunFile(fsys fs.FS, name string) (data []byte, release func(), drop func(lo, hi int), err error) {
	f, err := datasets.Open(fsys, name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	size := st.Size()
	osf, isOS := f.(*os.File)
	if !isOS || size <= 0 || size > datasets.MaxFileBytes || size != int64(int(size)) {
		data, err := datasets.ReadFile(fsys, name)
		return data, func() {}, nil, err
	}
	data, err = syscall.Mmap(int(osf.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		data, err := datasets.ReadFile(fsys, name)
		return data, func() {}, nil, err
	}
	drop = func(lo, hi int) { _ = syscall.Madvise(data[lo:hi], syscall.MADV_DONTNEED) }
	return data, func() { _ = syscall.Munmap(data) }, drop, nil
}

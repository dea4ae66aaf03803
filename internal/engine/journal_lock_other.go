//go:build !unix

package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// tryLock, where flock is unavailable, creates an exclusive marker file
// beside f (O_EXCL), removed by unlock. A marker left by a killed process
// reads as locked: the message names its holder, and deleting the marker
// clears it.
func tryLock(f *os.File) error {
	m, err := os.OpenFile(f.Name()+".held", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errLocked
	}
	if err != nil {
		return err
	}
	return m.Close()
}

func unlock(f *os.File) { os.Remove(filepath.Clean(f.Name() + ".held")) }

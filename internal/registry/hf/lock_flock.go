//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive lock on the file p (created if need be), as
// huggingface_hub locks a blob it downloads, waiting for another process
// that holds it (up to lockWait, honouring ctx). The lock goes with the
// process, so a crash leaves none behind.
func lockFile(ctx context.Context, p string) (unlock func(), err error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, cacheError(err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return func() {}, nil // a file system without locks: go on unlocked
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another process has been downloading the same file for %s (lock %s); wait for it, or remove the lock if no download runs", lockWait, p)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

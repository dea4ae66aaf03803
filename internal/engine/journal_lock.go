package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// errLocked is what tryLock returns when another process holds the lock.
var errLocked = errors.New("locked")

// lockJournal takes the exclusive lock of the journal name, held until
// unlockJournal: a lock file beside it (name + ".lock", never removed, so
// two processes always lock the same file) that records the holder. A
// journal locked by another process is an error naming that process.
func lockJournal(name string) (*os.File, error) {
	lockName := name + ".lock"
	f, err := os.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	if err := tryLock(f); err != nil {
		holder := "another process"
		if errors.Is(err, errLocked) {
			if b, rerr := io.ReadAll(io.LimitReader(f, 200)); rerr == nil && len(b) > 0 {
				holder = strings.TrimSpace(string(b))
			}
			f.Close()
			return nil, fmt.Errorf("journal %s is in use by another run (%s): two runs cannot share a journal; wait for that run to finish or stop it", name, holder)
		}
		f.Close()
		return nil, fmt.Errorf("lock journal %s: %w", lockName, err)
	}
	holder := fmt.Sprintf("pid %d, started %s", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(holder+"\n"), 0) // for the message above only
	}
	return f, nil
}

// unlockJournal releases the lock taken by lockJournal (nil is a no-op).
func unlockJournal(f *os.File) {
	if f != nil {
		unlock(f)
		f.Close()
	}
}

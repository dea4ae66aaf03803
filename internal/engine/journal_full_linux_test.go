package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestJournalFullDisk: a journal that cannot be written for want of space
// (its file is a link to /dev/full, where every write fails with ENOSPC)
// says so with its path and what to do, never as a query's problem.
func TestJournalFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	dir := t.TempDir()
	key := journalKey{Benchmark: "local/x@0123456789ab", Revision: "rev1", Arm: "bm25", ArmConfig: "cfg"}
	name := filepath.Join(dir, key.file())
	if err := os.Symlink("/dev/full", name); err != nil {
		t.Skip("no symbolic links:", err)
	}
	_, err := openJournal(dir, key, false)
	want := "write journal " + name + ": no space left on device; free space on the disk holding " + dir
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("openJournal = %v\nwant %s…", err, want)
	}
}

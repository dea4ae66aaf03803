package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomic: WriteFile replaces the file by renaming a complete
// new one over it, never by rewriting it in place, so the previous bundle
// stays whole until the new one is (a hard link to it, like a reader's open
// file, keeps the old bytes) and no temporary file is left.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "b.json")
	if err := WriteFile(name, minimalBundle(t)); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(name)
	held := filepath.Join(dir, "held")
	if err := os.Link(name, held); err != nil {
		t.Skip("no hard links here:", err)
	}
	b := retrievalBundle(t)
	if err := WriteFile(name, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(held); !bytes.Equal(got, old) {
		t.Errorf("the previous bundle was rewritten in place, not replaced")
	}
	got, err := ReadFile(name)
	if err != nil || got.RunID != b.RunID {
		t.Errorf("read back %v, %v; want run_id %s", got, err, b.RunID)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("folder holds %d files, want b.json and held", len(ents))
	}
}

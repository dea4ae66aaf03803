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

// TestWriteFileIn checks that a bundle written by WriteFileIn without
// being finalized first is the file WriteFile writes of the finalized
// bundle, named by its run_id, and that its run_id is Finalize's.
func TestWriteFileIn(t *testing.T) {
	dir := t.TempDir()
	want := retrievalBundle(t)
	if err := Finalize(want); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "finalized.json"), want); err != nil {
		t.Fatal(err)
	}
	b := retrievalBundle(t)
	if err := Prepare(b); err != nil {
		t.Fatal(err)
	}
	if b.RunID != "" {
		t.Fatalf("Prepare set run_id %q; want it left empty", b.RunID)
	}
	path, err := WriteFileIn(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, want.RunID[:12]+".json") || b.RunID != want.RunID {
		t.Errorf("WriteFileIn = %s with run_id %s; want %s.json and run_id %s", path, b.RunID, want.RunID[:12], want.RunID)
	}
	got, _ := os.ReadFile(path)
	finalized, _ := os.ReadFile(filepath.Join(dir, "finalized.json"))
	if !bytes.Equal(got, finalized) {
		t.Errorf("WriteFileIn wrote %d bytes unlike WriteFile's %d of the finalized bundle", len(got), len(finalized))
	}
}

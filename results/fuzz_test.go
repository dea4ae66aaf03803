package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader and the validator: neither
// may panic, and whatever Read accepts must write back out.
func FuzzRead(f *testing.F) {
	for name := range goldens {
		if raw, err := os.ReadFile(filepath.Join("testdata", "golden", name)); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Validate(data)
		b, err := Unmarshal(data)
		if err != nil {
			return
		}
		out, err := Marshal(b)
		if err != nil {
			t.Fatalf("a bundle Read accepted does not write: %v", err)
		}
		// The streamed text is encoding/json's up to whitespace, and its
		// hash the whole bundle's.
		var compact bytes.Buffer
		if err := json.Compact(&compact, out); err != nil || !bytes.Equal(compact.Bytes(), referenceText(t, b)) {
			t.Fatalf("streamed text differs from encoding/json's: %v\n%s\n%s", err, compact.Bytes(), referenceText(t, b))
		}
		if id, err := hashBundle(b); err != nil || id != referenceRunID(t, b) {
			t.Fatalf("streamed run_id %s (%v), want %s", id, err, referenceRunID(t, b))
		}
		// What the writer writes reads back to the same bytes.
		b2, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("written bundle does not read back: %v\n%s", err, out)
		}
		out2, err := Marshal(b2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("write → read → write differs: %v\n%s\n%s", err, out, out2)
		}
	})
}

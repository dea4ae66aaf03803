package results

import (
	"bytes"
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

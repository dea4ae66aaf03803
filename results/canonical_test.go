package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
)

// TestCanonicalRFC8785 checks Canonical against the RFC 8785 test vectors.
func TestCanonicalRFC8785(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "rfc8785", "input", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no test vectors: %v", err)
	}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "rfc8785", "output", filepath.Base(in)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Canonical(data)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestCanonicalAgreesWithJCS checks Canonical against the jcs library on
// the golden bundles.
func TestCanonicalAgreesWithJCS(t *testing.T) {
	for name := range goldens {
		data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Canonical(data)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Canonical differs from jcs.Transform (%v)", name, err)
		}
	}
}

// FuzzCanonical checks that Canonical and jcs.Transform agree whenever
// both accept the input (they differ on duplicate member names, which jcs
// refuses and Canonical resolves as encoding/json does).
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,-0,0.1,"\u0000\u007f\u2028"]}`, `{"\ud83d\ude02":1,"\ufb33":2,"\u20ac":3}`, `[1E400]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Canonical(data)
		want, jerr := jcs.Transform(data)
		if err != nil || jerr != nil {
			return
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Canonical(%q) = %q, jcs.Transform = %q", data, got, want)
		}
	})
}

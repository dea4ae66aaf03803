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

// TestRunIDOfNonCanonicalTexts checks that the run_id of a bundle text
// whose rows are not in canonical form (whitespace, members out of order,
// escaped strings and names, numbers such as 1.0, 1e2, -0 and 0.10) is
// the slow path's, the hash of the tree's canonical form, and that the
// same bundle written either way has the same run_id.
func TestRunIDOfNonCanonicalTexts(t *testing.T) {
	type edit struct{ old, new string }
	variants := map[string][]edit{
		"whitespace":   {{`,"`, ` ,` + "\r\n\t" + ` "`}, {`":`, `"  :` + "\n"}, {`[`, "[ \t"}, {`]`, " \n]"}},
		"numbers":      {{`"rank":1}`, `"rank":1.0}`}, {`"rank":2}`, `"rank":2e0}`}, {`"rank":3}`, `"rank":0.3E1}`}, {`"score":12.5`, `"score":1.25E+1`}, {`: 0,`, `: -0,`}, {`: 0.1,`, `: 0.10,`}, {`"score":9.25`, `"score":925e-2`}},
		"strings":      {{`"d0"`, `"\u0064\u0030"`}, {`"q01"`, `"q\u00301"`}, {`"d1"`, `"\u00641"`}, {`"q02"`, `"q\u0030\u0032"`}},
		"names":        {{`"id":`, `"\u0069d":`}, {`"scores":`, `"sc\u006fres":`}},
		"member order": {{`{"id":"d0","score":12.5,"rank":1}`, `{"rank":1,"score":12.5,"id":"d0"}`}, {`{"id":"d1","score":9.25,"rank":2}`, `{ "score" : 9.25 , "rank" : 2 , "id" : "d1" }`}},
		"all at once":  {{`"rank":1}`, `"rank":1.0}`}, {`"d0"`, `"\u0064\u0030"`}, {`"id":`, `"\u0069d":`}, {`,"`, ` , "`}},
	}
	for name := range goldens {
		raw, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := RunIDOf(raw)
		if err != nil {
			t.Fatal(err)
		}
		for vname, edits := range variants {
			text := raw
			for _, e := range edits {
				text = bytes.ReplaceAll(text, []byte(e.old), []byte(e.new))
			}
			if bytes.Equal(text, raw) {
				continue // the golden has none of these
			}
			got, err := RunIDOf(text)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, vname, err)
			}
			tree, err := decodeTree(text)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, vname, err)
			}
			delete(tree.(map[string]any), "run_id")
			slow, err := hashTree(tree)
			if err != nil {
				t.Fatal(err)
			}
			if got != slow {
				t.Errorf("%s, %s: run_id %s, the tree's canonical form hashes to %s", name, vname, got, slow)
			}
			if got != want {
				t.Errorf("%s, %s: run_id %s, the golden text's is %s", name, vname, got, want)
			}
		}
	}
}

package bm25

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snowballData returns testdata/snowball/<sub>, the Snowball project's
// reference vocabularies (testdata/snowball/README.md names their source,
// commit and licence). The test fails when the folder is missing: a
// conformance test never skips for want of its reference data.
func snowballData(t *testing.T, sub string) string {
	t.Helper()
	p := filepath.Join("testdata", "snowball", sub)
	for _, f := range []string{"voc.txt", "output.txt"} {
		if _, err := os.Stat(filepath.Join(p, f)); err != nil {
			t.Fatalf("reference file %s is missing (testdata/snowball/README.md says where it comes from): %v", filepath.Join(p, f), err)
		}
	}
	return p
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return lines
}

// TestSnowballEnglishConformance stems every word of the Snowball project's
// English reference vocabulary (testdata/snowball/english) and compares with
// its reference output. The
// words listed in testdata/snowball_english_known_diffs.tsv (changes of the
// algorithm after the version snowballstem v0.9.0 was generated from) must
// differ exactly as listed; every other word must match.
func TestSnowballEnglishConformance(t *testing.T) {
	dir := snowballData(t, "english")
	voc := readLines(t, filepath.Join(dir, "voc.txt"))
	out := readLines(t, filepath.Join(dir, "output.txt"))
	if len(voc) != len(out) || len(voc) < 40000 {
		t.Fatalf("%s: voc.txt has %d lines and output.txt %d; want equal counts of the full vocabulary", dir, len(voc), len(out))
	}
	known := map[string][2]string{}
	for i, line := range readLines(t, "testdata/snowball_english_known_diffs.tsv") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("testdata/snowball_english_known_diffs.tsv:%d: want word, stem, reference stem separated by tabs", i+1)
		}
		known[f[0]] = [2]string{f[1], f[2]}
	}
	differ := 0
	for i, w := range voc {
		got := Stem(w)
		k, listed := known[w]
		switch {
		case got == out[i] && listed:
			t.Errorf("voc.txt:%d %q now stems to the reference %q; remove it from testdata/snowball_english_known_diffs.tsv", i+1, w, got)
		case got != out[i] && !listed:
			t.Errorf("voc.txt:%d Stem(%q) = %q, want %q", i+1, w, got, out[i])
		case got != out[i] && (k[0] != got || k[1] != out[i]):
			t.Errorf("voc.txt:%d Stem(%q) = %q (reference %q), but the known-differences list says %q (reference %q)", i+1, w, got, out[i], k[0], k[1])
		case got != out[i]:
			differ++
		}
	}
	if differ != len(known) {
		t.Errorf("%d listed differences were seen, the list has %d (a listed word is missing from voc.txt)", differ, len(known))
	}
	t.Logf("%d words: %d match the reference, %d differ as listed", len(voc), len(voc)-differ, differ)
}

package registry

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFoldNeverLeavesSearchSep: no string folds to one holding searchSep,
// the character joining an entry's fields in the search index, so no
// folded needle can match across two fields: no rune lower-cases to it,
// and it lower-cases to another rune (invalid UTF-8 folds to U+FFFD).
func TestFoldNeverLeavesSearchSep(t *testing.T) {
	sep, _ := utf8.DecodeRuneInString(searchSep)
	if utf8.RuneCountInString(searchSep) != 1 || fold(searchSep) == searchSep {
		t.Fatalf("searchSep %q is not one rune that folding changes", searchSep)
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if f := fold(string(r)); strings.ContainsRune(f, sep) {
			t.Errorf("fold(%q) = %q holds searchSep", r, f)
		}
	}
	for _, s := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "A\xff"} {
		if f := fold(s); strings.Contains(f, searchSep) {
			t.Errorf("fold(%q) = %q holds searchSep", s, f)
		}
	}
}

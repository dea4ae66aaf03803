package idhash

import "testing"

// TestSuffix: ids that differ in their last eight bytes or their length
// get different words; ids that differ only before them share one.
func TestSuffix(t *testing.T) {
	distinct := []string{"", "a", "ab", "doc-1", "doc-2", "doc-0000001", "doc-0000002", "xdoc-0000001"}
	seen := map[uint64]string{}
	for _, d := range distinct {
		w := Suffix(d)
		if prev, ok := seen[w]; ok {
			t.Errorf("Suffix(%q) = Suffix(%q)", d, prev)
		}
		seen[w] = d
	}
	if Suffix("a-12345678") != Suffix("b-12345678") {
		t.Error("ids differing only before their last eight bytes should share a word")
	}
}

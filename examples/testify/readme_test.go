package testify_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDocsShowThisFile checks that docs/frameworks.md's testify example is
// faq_test.go as it is, byte for byte: the example compiles as shown
// (this package builds it) and cannot drift from it.
func TestDocsShowThisFile(t *testing.T) {
	readme, err := os.ReadFile("../../docs/frameworks.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("faq_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### testify\n")
	if !ok {
		t.Fatal("docs/frameworks.md has no ### testify section")
	}
	_, block, ok := strings.Cut(section, "```go\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed {
		t.Fatal("the testify section of docs/frameworks.md has no ```go block")
	}
	if block != string(file) {
		t.Errorf("the testify example of docs/frameworks.md is not faq_test.go; paste the file into its ### testify section:\n%s", lineDiff(block, string(file)))
	}
}

// lineDiff names the first line where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  README:      %s\n  faq_test.go: %s", i+1, x, y)
		}
	}
	return ""
}

package results

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEIntegrityTable checks that the README's integrity table is
// CatalogueMarkdown() as it stands, so a code added to the catalogue
// cannot be missing from the docs.
func TestREADMEIntegrityTable(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	want := catalogueMarkdown()
	header, _, _ := strings.Cut(want, "\n")
	i := strings.Index(readme, header+"\n")
	if i < 0 {
		t.Fatalf("README.md has no integrity table (a line %q); paste CatalogueMarkdown() under \"### Integrity codes\"", header)
	}
	table := readme[i:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end+1]
	}
	if table != want {
		t.Errorf("README.md's integrity table differs from CatalogueMarkdown(); replace it with:\n%s\ngot:\n%s", want, table)
	}
}

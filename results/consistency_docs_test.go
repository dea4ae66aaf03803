package results

import (
	"os"
	"strings"
	"testing"
)

// TestDocsIntegrityTable checks that docs/bundles.md's integrity table is
// CatalogueMarkdown() as it stands, so a code added to the catalogue
// cannot be missing from the docs.
func TestDocsIntegrityTable(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundles.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	want := catalogueMarkdown()
	header, _, _ := strings.Cut(want, "\n")
	i := strings.Index(readme, header+"\n")
	if i < 0 {
		t.Fatalf("docs/bundles.md has no integrity table (a line %q); paste CatalogueMarkdown() under \"### Integrity codes\"", header)
	}
	table := readme[i:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end+1]
	}
	if table != want {
		t.Errorf("docs/bundles.md's integrity table differs from CatalogueMarkdown(); replace it with:\n%s\ngot:\n%s", want, table)
	}
}
